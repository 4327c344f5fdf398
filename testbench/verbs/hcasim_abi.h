/* The private provider interface of libibverbs that libhcasim-rdmav34.so
 * needs, declared here because Debian's libibverbs-dev does not ship
 * driver.h: the layouts of rdma-core 44's libibverbs/driver.h (private ABI
 * IBVERBS_PRIVATE_34), field for field. A libibverbs of another private ABI
 * has other layouts; the provider finds its entry points by that version
 * (dlvsym) and refuses to register when they are missing.
 */
#ifndef HCASIM_ABI_H
#define HCASIM_ABI_H

#include <infiniband/verbs.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <sys/types.h>

#define HCASIM_PABI_VERSION "IBVERBS_PRIVATE_34"
#define HCASIM_REGISTER_SYMBOL "verbs_register_driver_34"

struct hcasim_list_node {
  struct hcasim_list_node *next, *prev;
};

struct verbs_match_ent {
  void *driver_data;
  union {
    const char *modalias;
    uint64_t driver_id;
  } u;
  uint16_t vendor;
  uint16_t device;
  uint8_t kind;
};

struct verbs_sysfs_dev {
  struct hcasim_list_node entry;
  void *provider_data;
  const struct verbs_match_ent *match;
  unsigned int flags;
  char sysfs_name[IBV_SYSFS_NAME_MAX];
  dev_t sysfs_cdev;
  char ibdev_name[IBV_SYSFS_NAME_MAX];
  char ibdev_path[IBV_SYSFS_PATH_MAX];
  char modalias[512];
  uint64_t node_guid;
  uint32_t driver_id;
  enum ibv_node_type node_type;
  int ibdev_idx;
  uint32_t num_ports;
  uint32_t abi_ver;
  struct timespec time_created;
};

struct verbs_device;

struct verbs_device_ops {
  const char *name;
  uint32_t match_min_abi_version;
  uint32_t match_max_abi_version;
  const struct verbs_match_ent *match_table;
  const struct verbs_device_ops **static_providers;
  bool (*match_device)(struct verbs_sysfs_dev *sysfs_dev);
  struct verbs_context *(*alloc_context)(struct ibv_device *device, int cmd_fd, void *private_data);
  struct verbs_context *(*import_context)(struct ibv_device *device, int cmd_fd);
  struct verbs_device *(*alloc_device)(struct verbs_sysfs_dev *sysfs_dev);
  void (*uninit_device)(struct verbs_device *device);
};

struct verbs_device {
  struct ibv_device device; /* must be first */
  const struct verbs_device_ops *ops;
  atomic_int refcount;
  struct hcasim_list_node entry;
  struct verbs_sysfs_dev *sysfs;
  uint64_t core_support;
};

enum ibv_mr_type { IBV_MR_TYPE_MR, IBV_MR_TYPE_NULL_MR, IBV_MR_TYPE_IMPORTED_MR, IBV_MR_TYPE_DMABUF_MR };

struct verbs_mr {
  struct ibv_mr ibv_mr;
  enum ibv_mr_type mr_type;
  int access;
};

struct verbs_qp {
  union {
    struct ibv_qp qp;
    struct ibv_qp_ex qp_ex;
  };
  uint32_t comp_mask;
  void *xrcd;
};

/* Every op a provider may give, in driver.h's (alphabetical) order; the ones
 * hcasim does not give are left NULL (libibverbs' dummies answer EOPNOTSUPP). */
typedef void (*hcasim_no_op)(void);
struct verbs_context_ops {
  hcasim_no_op advise_mr, alloc_dm, alloc_mw, alloc_null_mr, alloc_parent_domain;
  struct ibv_pd *(*alloc_pd)(struct ibv_context *context);
  hcasim_no_op alloc_td;
  void (*async_event)(struct ibv_context *context, struct ibv_async_event *event);
  hcasim_no_op attach_counters_point_flow, attach_mcast, bind_mw, close_xrcd;
  void (*cq_event)(struct ibv_cq *cq);
  struct ibv_ah *(*create_ah)(struct ibv_pd *pd, struct ibv_ah_attr *attr);
  hcasim_no_op create_counters;
  struct ibv_cq *(*create_cq)(struct ibv_context *context, int cqe, struct ibv_comp_channel *channel,
                              int comp_vector);
  hcasim_no_op create_cq_ex, create_flow, create_flow_action_esp;
  struct ibv_qp *(*create_qp)(struct ibv_pd *pd, struct ibv_qp_init_attr *attr);
  hcasim_no_op create_qp_ex, create_rwq_ind_table, create_srq, create_srq_ex, create_wq, dealloc_mw;
  int (*dealloc_pd)(struct ibv_pd *pd);
  hcasim_no_op dealloc_td;
  int (*dereg_mr)(struct verbs_mr *vmr);
  int (*destroy_ah)(struct ibv_ah *ah);
  hcasim_no_op destroy_counters;
  int (*destroy_cq)(struct ibv_cq *cq);
  hcasim_no_op destroy_flow, destroy_flow_action;
  int (*destroy_qp)(struct ibv_qp *qp);
  hcasim_no_op destroy_rwq_ind_table, destroy_srq, destroy_wq, detach_mcast;
  void (*free_context)(struct ibv_context *context);
  hcasim_no_op free_dm, get_srq_num, import_dm, import_mr, import_pd, modify_cq, modify_flow_action_esp;
  int (*modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask);
  hcasim_no_op modify_qp_rate_limit, modify_srq, modify_wq, open_qp, open_xrcd;
  int (*poll_cq)(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
  int (*post_recv)(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr);
  int (*post_send)(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr);
  hcasim_no_op post_srq_ops, post_srq_recv;
  int (*query_device_ex)(struct ibv_context *context, const struct ibv_query_device_ex_input *input,
                         struct ibv_device_attr_ex *attr, size_t attr_size);
  hcasim_no_op query_ece;
  int (*query_port)(struct ibv_context *context, uint8_t port_num, struct ibv_port_attr *port_attr);
  int (*query_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask, struct ibv_qp_init_attr *init_attr);
  hcasim_no_op query_qp_data_in_order, query_rt_values, query_srq, read_counters, reg_dm_mr, reg_dmabuf_mr;
  struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t length, uint64_t hca_va, int access);
  int (*req_notify_cq)(struct ibv_cq *cq, int solicited_only);
  hcasim_no_op rereg_mr, resize_cq, set_ece, unimport_dm, unimport_mr, unimport_pd;
};

/* The private entry points, found by HCASIM_PABI_VERSION. */
typedef void (*hcasim_register_fn)(const struct verbs_device_ops *ops);
typedef void *(*hcasim_init_context_fn)(struct ibv_device *device, int cmd_fd, size_t alloc_size,
                                        struct verbs_context *context_offset, uint32_t driver_id);
typedef void (*hcasim_uninit_context_fn)(struct verbs_context *context);
typedef void (*hcasim_set_ops_fn)(struct verbs_context *vctx, const struct verbs_context_ops *ops);

#endif
