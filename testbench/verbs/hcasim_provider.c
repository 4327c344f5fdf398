/* libhcasim-rdmav34.so: a libibverbs provider whose devices are the HCAs of
 * `hcasim serve --verbs` (docs/verbs-apps.md).
 *
 * Rules:
 * - libibverbs loads it by RDMAV_DRIVERS=<dir>/libhcasim and finds its
 *   devices in the sysfs tree the server writes (SYSFS_PATH): devices named
 *   hcasim<N>, N the HCA's index in the scenario. HCASIM_DEVICE=<N>,
 *   hcasim<N>, hca<N> or the HCA's scenario name shows this process that one
 *   device only, so a program that opens the first device is that HCA.
 * - It registers only with a libibverbs of private ABI IBVERBS_PRIVATE_34
 *   (rdma-core 44, Debian 12): with another it prints one line and
 *   registers nothing (the program then sees no hcasim devices); preloaded
 *   into a program without libibverbs it does nothing.
 * - Preloaded (LD_PRELOAD) it also makes the completion channels of hcasim
 *   devices (event mode: see "completion channels" below); a CQ created
 *   with a channel libibverbs made itself is refused with one line.
 * - Opening a device connects to the server (the device's sysfs file
 *   hcasim_socket names it) and says which process and HCA this is; the
 *   server may then read and write this process's memory
 *   (process_vm_readv/writev, permitted by PR_SET_PTRACER for the server's
 *   pid). A server that cannot be reached fails ibv_open_device with ENXIO
 *   and one line on stderr.
 * - Every verb is one request and one reply (hcasim_verbs_wire.h) under the
 *   context's lock; PDs and AHs stay here (the model has neither). A verb
 *   the server refuses returns its errno, and its reason goes to stderr as
 *   "libhcasim: <verb>: <reason>" (posts and polls too: a program that only
 *   checks the return value still shows why).
 * - ibv_poll_cq that finds nothing waits in the server until the model has
 *   a completion or nothing left to do: simulated time runs while the
 *   program waits for it.
 * - No verb ever ends the program: a lost server is EIO (and one line).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "hcasim_abi.h"
#include "hcasim_verbs_wire.h"

#define container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

struct hcasim_device {
  struct verbs_device vdev;
  uint32_t hca;
  char socket_name[108];
};

struct hcasim_context {
  struct verbs_context ibv_ctx;
  int fd;
  pthread_mutex_t lock;
  uint8_t *buf; /* the reply being read, HV_MAX_PACKET bytes */
  uint8_t *out; /* the post request being built, HV_MAX_PACKET bytes */
  uint32_t max_inline;
  struct hcasim_cq *cqs;
  struct hcasim_qp *qps;
};

struct hcasim_cq {
  struct ibv_cq ibv_cq;
  uint32_t cqn;
  struct hcasim_cq *next; /* the context's CQs, for completion events */
};

struct hcasim_qp {
  struct verbs_qp vqp;
  uint32_t sq_sig_all;
  uint32_t max_inline, max_send_wr, max_send_sge;
  /* The driver's view, mirrored so that a post it takes need not wait for
   * its answer: the state as modify_qp set it (Error after an RC error
   * completion), and the send WRs not yet retired (sq_used of the last poll
   * that reported this QP, plus what was posted since). */
  enum ibv_qp_state state;
  uint32_t sq_used;
  struct hcasim_qp *next; /* the context's QPs */
};

struct hcasim_ah {
  struct ibv_ah ibv_ah;
  uint16_t dlid;
  uint8_t sl, src_path_bits;
};

/* The completion channels ibv_create_comp_channel made here (the interposer). */
struct hcasim_channel {
  struct ibv_comp_channel *channel;
  struct hcasim_channel *next;
};
static struct hcasim_channel *channels;
static pthread_mutex_t channels_lock = PTHREAD_MUTEX_INITIALIZER;

static bool own_channel(const struct ibv_comp_channel *ch) {
  pthread_mutex_lock(&channels_lock);
  struct hcasim_channel *c = channels;
  while (c && c->channel != ch) c = c->next;
  pthread_mutex_unlock(&channels_lock);
  return c != NULL;
}

static hcasim_init_context_fn init_context;
static hcasim_uninit_context_fn uninit_context;
static hcasim_set_ops_fn set_ops;

static struct hcasim_context *to_ctx(struct ibv_context *c) {
  return container_of(container_of(c, struct verbs_context, context), struct hcasim_context, ibv_ctx);
}

/* ---- the connection -------------------------------------------------- */

/* Sends op with body (len bytes) and reads the reply into ctx->buf; returns
 * the reply's err (0 = done) and its body through *reply / *reply_len. The
 * caller holds ctx->lock. */
static int call_locked(struct hcasim_context *ctx, const char *verb, uint32_t op, const void *body, uint32_t len,
                       const uint8_t **reply, uint32_t *reply_len) {
  struct hv_head head = {op, len};
  struct iovec iov[2] = {{&head, sizeof head}, {(void *)body, len}};
  struct msghdr msg = {0};
  msg.msg_iov = iov;
  msg.msg_iovlen = len ? 2 : 1;
  if (sendmsg(ctx->fd, &msg, MSG_NOSIGNAL) != (ssize_t)(sizeof head + len)) {
    fprintf(stderr, "libhcasim: %s: the hcasim server is gone (%s)\n", verb, strerror(errno));
    return EIO;
  }
  ssize_t got;
  do got = recv(ctx->fd, ctx->buf, HV_MAX_PACKET, 0);
  while (got < 0 && errno == EINTR);
  if (got < (ssize_t)sizeof(struct hv_reply)) {
    fprintf(stderr, "libhcasim: %s: the hcasim server is gone\n", verb);
    return EIO;
  }
  const struct hv_reply *r = (const struct hv_reply *)ctx->buf;
  if (r->size > (uint32_t)got - sizeof *r) return EIO;
  if (r->err != 0) {
    if (r->size > 0) fprintf(stderr, "libhcasim: %s: %.*s\n", verb, (int)r->size, (const char *)(r + 1));
    return r->err;
  }
  if (reply) *reply = (const uint8_t *)(r + 1);
  if (reply_len) *reply_len = r->size;
  return 0;
}

static int call(struct hcasim_context *ctx, const char *verb, uint32_t op, const void *body, uint32_t len,
                void *out, uint32_t out_len) {
  pthread_mutex_lock(&ctx->lock);
  const uint8_t *reply = NULL;
  uint32_t reply_len = 0;
  int err = call_locked(ctx, verb, op, body, len, &reply, &reply_len);
  if (err == 0 && out_len > 0) {
    if (reply_len < out_len) err = EIO;
    else memcpy(out, reply, out_len);
  }
  pthread_mutex_unlock(&ctx->lock);
  return err;
}

static int connect_server(const char *name) {
  int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  struct sockaddr_un addr = {0};
  addr.sun_family = AF_UNIX;
  size_t n = strlen(name);
  if (n + 1 > sizeof addr.sun_path) n = sizeof addr.sun_path - 1;
  memcpy(addr.sun_path + 1, name, n); /* abstract namespace */
  if (connect(fd, (struct sockaddr *)&addr, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

/* ---- device and context ---------------------------------------------- */

static int read_text(const char *dir, const char *file, char *out, size_t size) {
  char path[IBV_SYSFS_PATH_MAX + 64];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  size_t got = fread(out, 1, size - 1, f);
  fclose(f);
  out[got] = 0;
  while (got > 0 && (out[got - 1] == '\n' || out[got - 1] == ' ')) out[--got] = 0;
  return 0;
}

static int hca_index(const char *ibdev_name, uint32_t *hca) {
  if (strncmp(ibdev_name, "hcasim", 6) != 0) return -1;
  char *end;
  unsigned long v = strtoul(ibdev_name + 6, &end, 10);
  if (end == ibdev_name + 6 || *end != 0 || v > UINT32_MAX) return -1;
  *hca = (uint32_t)v;
  return 0;
}

/* HCASIM_DEVICE, when set, names the one device this process sees. */
static bool wanted(const struct verbs_sysfs_dev *d, uint32_t hca) {
  const char *want = getenv("HCASIM_DEVICE");
  if (!want || !*want) return true;
  if (strcmp(want, d->ibdev_name) == 0) return true;
  char name[128];
  if (read_text(d->ibdev_path, "hcasim_name", name, sizeof name) == 0 && strcmp(want, name) == 0) return true;
  char *end;
  const char *digits = strncmp(want, "hca", 3) == 0 ? want + 3 : want;
  unsigned long v = strtoul(digits, &end, 10);
  return end != digits && *end == 0 && v == hca;
}

static bool match_device(struct verbs_sysfs_dev *d) {
  uint32_t hca;
  return hca_index(d->ibdev_name, &hca) == 0 && wanted(d, hca);
}

static struct verbs_device *alloc_device(struct verbs_sysfs_dev *d) {
  struct hcasim_device *dev = calloc(1, sizeof *dev);
  if (!dev) return NULL;
  hca_index(d->ibdev_name, &dev->hca);
  if (read_text(d->ibdev_path, "hcasim_socket", dev->socket_name, sizeof dev->socket_name) != 0)
    snprintf(dev->socket_name, sizeof dev->socket_name, "%ssim", HV_SOCKET_PREFIX);
  return &dev->vdev;
}

static void uninit_device(struct verbs_device *v) { free(container_of(v, struct hcasim_device, vdev)); }

static const struct verbs_context_ops hcasim_ops;
static const struct verbs_device_ops hcasim_device_ops;

static void free_context(struct ibv_context *c) {
  struct hcasim_context *ctx = to_ctx(c);
  if (ctx->fd >= 0) close(ctx->fd);
  if (c->async_fd >= 0) close(c->async_fd);
  free(ctx->buf);
  free(ctx->out);
  pthread_mutex_destroy(&ctx->lock);
  uninit_context(&ctx->ibv_ctx);
  free(ctx);
}

static struct verbs_context *alloc_context(struct ibv_device *ibdev, int cmd_fd, void *private_data) {
  (void)private_data;
  struct hcasim_device *dev = container_of(container_of(ibdev, struct verbs_device, device), struct hcasim_device, vdev);
  struct hcasim_context *ctx = init_context(ibdev, cmd_fd, sizeof(struct hcasim_context),
                                            (struct verbs_context *)offsetof(struct hcasim_context, ibv_ctx), 0);
  if (!ctx) return NULL;
  ctx->fd = -1;
  pthread_mutex_init(&ctx->lock, NULL);
  ctx->buf = malloc(HV_MAX_PACKET);
  ctx->out = malloc(HV_MAX_PACKET);
  ctx->ibv_ctx.context.async_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (ctx->buf && ctx->out) ctx->fd = connect_server(dev->socket_name);
  if (ctx->fd < 0) {
    fprintf(stderr, "libhcasim: %s: no hcasim server at '%s' (start hcasim serve SCENARIO --verbs)\n",
            ibdev->name, dev->socket_name);
    free_context(&ctx->ibv_ctx.context);
    errno = ENXIO;
    return NULL;
  }
  struct ucred peer;
  socklen_t peer_len = sizeof peer;
  if (getsockopt(ctx->fd, SOL_SOCKET, SO_PEERCRED, &peer, &peer_len) == 0)
    prctl(PR_SET_PTRACER, (unsigned long)peer.pid, 0, 0, 0); /* the model's DMA into this process */
  struct hv_hello hello = {HV_WIRE_VERSION, (uint32_t)getpid(), dev->hca, 0};
  struct hv_hello_reply hr;
  int err = call(ctx, "ibv_open_device", HV_HELLO, &hello, sizeof hello, &hr, sizeof hr);
  struct hv_device attr;
  if (err == 0) err = call(ctx, "ibv_open_device", HV_QUERY_DEVICE, NULL, 0, &attr, sizeof attr);
  if (err != 0) {
    free_context(&ctx->ibv_ctx.context);
    errno = err;
    return NULL;
  }
  ctx->max_inline = attr.max_inline;
  ctx->ibv_ctx.context.num_comp_vectors = 1;
  set_ops(&ctx->ibv_ctx, &hcasim_ops);
  return &ctx->ibv_ctx;
}

static int query_device_ex(struct ibv_context *c, const struct ibv_query_device_ex_input *input,
                           struct ibv_device_attr_ex *attr, size_t attr_size) {
  (void)input;
  struct hv_device d;
  int err = call(to_ctx(c), "ibv_query_device", HV_QUERY_DEVICE, NULL, 0, &d, sizeof d);
  if (err) return err;
  if (attr_size < sizeof(struct ibv_device_attr)) return EINVAL;
  memset(attr, 0, attr_size < sizeof *attr ? attr_size : sizeof *attr);
  struct ibv_device_attr *a = &attr->orig_attr;
  snprintf(a->fw_ver, sizeof a->fw_ver, "%s", d.fw_ver);
  a->node_guid = htobe64(d.node_guid);
  a->sys_image_guid = htobe64(d.sys_image_guid);
  a->max_mr_size = d.max_mr_size;
  a->page_size_cap = d.page_size_cap;
  a->vendor_id = d.vendor_id;
  a->vendor_part_id = d.vendor_part_id;
  a->hw_ver = d.hw_ver;
  a->max_qp = (int)d.max_qp;
  a->max_qp_wr = (int)d.max_qp_wr;
  a->max_sge = (int)d.max_sge;
  a->max_sge_rd = (int)d.max_sge;
  a->max_cq = (int)d.max_cq;
  a->max_cqe = (int)d.max_cqe;
  a->max_mr = (int)d.max_mr;
  a->max_pd = (int)d.max_pd;
  a->max_qp_rd_atom = (int)d.max_qp_rd_atom;
  a->max_qp_init_rd_atom = (int)d.max_qp_init_rd_atom;
  a->max_res_rd_atom = (int)d.max_res_rd_atom;
  a->max_ah = (int)d.max_ah;
  a->max_pkeys = (uint16_t)d.max_pkeys;
  a->phys_port_cnt = (uint8_t)d.phys_port_cnt;
  a->atomic_cap = IBV_ATOMIC_HCA;
  a->local_ca_ack_delay = 16;
  return 0;
}

static int query_port(struct ibv_context *c, uint8_t port, struct ibv_port_attr *attr) {
  uint32_t p = port;
  struct hv_port r;
  int err = call(to_ctx(c), "ibv_query_port", HV_QUERY_PORT, &p, sizeof p, &r, sizeof r);
  if (err) return err;
  attr->state = (enum ibv_port_state)r.state;
  attr->max_mtu = (enum ibv_mtu)r.max_mtu;
  attr->active_mtu = (enum ibv_mtu)r.active_mtu;
  attr->gid_tbl_len = (int)r.gid_tbl_len;
  attr->port_cap_flags = r.port_cap_flags;
  attr->max_msg_sz = r.max_msg_sz;
  attr->pkey_tbl_len = (uint16_t)r.pkey_tbl_len;
  attr->lid = r.lid;
  attr->sm_lid = r.sm_lid;
  attr->lmc = r.lmc;
  attr->max_vl_num = r.max_vl_num;
  attr->sm_sl = r.sm_sl;
  attr->subnet_timeout = r.subnet_timeout;
  attr->active_width = r.active_width;
  attr->active_speed = r.active_speed;
  attr->phys_state = r.phys_state;
  attr->link_layer = r.link_layer;
  return 0;
}

static void async_event(struct ibv_context *c, struct ibv_async_event *e) {
  (void)c;
  (void)e;
}

/* ---- PD, MR, AH ------------------------------------------------------ */

static struct ibv_pd *alloc_pd(struct ibv_context *c) {
  (void)c;
  return calloc(1, sizeof(struct ibv_pd));
}

static int dealloc_pd(struct ibv_pd *pd) {
  free(pd);
  return 0;
}

static struct ibv_mr *reg_mr(struct ibv_pd *pd, void *addr, size_t length, uint64_t hca_va, int access) {
  if (hca_va != (uint64_t)(uintptr_t)addr) {
    fprintf(stderr, "libhcasim: ibv_reg_mr: an I/O virtual address other than the buffer's is not supported\n");
    errno = EOPNOTSUPP;
    return NULL;
  }
  struct hv_reg_mr req = {(uint64_t)(uintptr_t)addr, length, (uint32_t)access, 0};
  uint32_t keys[2];
  int err = call(to_ctx(pd->context), "ibv_reg_mr", HV_REG_MR, &req, sizeof req, keys, sizeof keys);
  if (err) {
    errno = err;
    return NULL;
  }
  struct verbs_mr *mr = calloc(1, sizeof *mr);
  if (!mr) {
    call(to_ctx(pd->context), "ibv_reg_mr", HV_DEREG_MR, &keys[0], sizeof keys[0], NULL, 0);
    errno = ENOMEM;
    return NULL;
  }
  mr->ibv_mr.lkey = keys[0];
  mr->ibv_mr.rkey = keys[1];
  mr->ibv_mr.handle = keys[0];
  mr->mr_type = IBV_MR_TYPE_MR;
  mr->access = access;
  return &mr->ibv_mr;
}

static int dereg_mr(struct verbs_mr *mr) {
  int err = call(to_ctx(mr->ibv_mr.context), "ibv_dereg_mr", HV_DEREG_MR, &mr->ibv_mr.lkey, sizeof(uint32_t), NULL, 0);
  if (err) return err;
  free(mr);
  return 0;
}

static struct ibv_ah *create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr) {
  (void)pd;
  struct hcasim_ah *ah = calloc(1, sizeof *ah);
  if (!ah) {
    errno = ENOMEM;
    return NULL;
  }
  ah->dlid = attr->dlid;
  ah->sl = attr->sl;
  ah->src_path_bits = attr->src_path_bits;
  return &ah->ibv_ah;
}

static int destroy_ah(struct ibv_ah *ah) {
  free(container_of(ah, struct hcasim_ah, ibv_ah));
  return 0;
}

/* ---- CQ -------------------------------------------------------------- */

static struct ibv_cq *create_cq(struct ibv_context *c, int cqe, struct ibv_comp_channel *channel, int comp_vector) {
  (void)comp_vector;
  if (cqe < 1) {
    errno = EINVAL;
    return NULL;
  }
  if (channel && !own_channel(channel)) {
    fprintf(stderr, "libhcasim: ibv_create_cq: a completion channel libibverbs made itself: event mode needs the "
                    "provider preloaded too (LD_PRELOAD=<dir>/libhcasim-rdmav34.so)\n");
    errno = EINVAL;
    return NULL;
  }
  struct hv_create_cq req = {(uint32_t)cqe, channel ? (uint32_t)channel->fd + 1 : 0};
  uint32_t r[2];
  int err = call(to_ctx(c), "ibv_create_cq", HV_CREATE_CQ, &req, sizeof req, r, sizeof r);
  if (err) {
    errno = err;
    return NULL;
  }
  struct hcasim_cq *cq = calloc(1, sizeof *cq);
  if (!cq) {
    call(to_ctx(c), "ibv_create_cq", HV_DESTROY_CQ, &r[0], sizeof r[0], NULL, 0);
    errno = ENOMEM;
    return NULL;
  }
  cq->cqn = r[0];
  cq->ibv_cq.cqe = (int)r[1];
  cq->ibv_cq.handle = r[0];
  struct hcasim_context *ctx = to_ctx(c);
  pthread_mutex_lock(&ctx->lock);
  cq->next = ctx->cqs;
  ctx->cqs = cq;
  pthread_mutex_unlock(&ctx->lock);
  return &cq->ibv_cq;
}

static int destroy_cq(struct ibv_cq *ibcq) {
  struct hcasim_cq *cq = container_of(ibcq, struct hcasim_cq, ibv_cq);
  struct hcasim_context *ctx = to_ctx(ibcq->context);
  int err = call(ctx, "ibv_destroy_cq", HV_DESTROY_CQ, &cq->cqn, sizeof cq->cqn, NULL, 0);
  if (err) return err;
  pthread_mutex_lock(&ctx->lock);
  for (struct hcasim_cq **p = &ctx->cqs; *p; p = &(*p)->next)
    if (*p == cq) {
      *p = cq->next;
      break;
    }
  pthread_mutex_unlock(&ctx->lock);
  free(cq);
  return 0;
}

static int poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc) {
  if (num_entries <= 0) return 0;
  struct hcasim_cq *cq = container_of(ibcq, struct hcasim_cq, ibv_cq);
  struct hcasim_context *ctx = to_ctx(ibcq->context);
  const uint32_t fit = (HV_MAX_PACKET - sizeof(struct hv_reply) - 8) / sizeof(struct hv_wc);
  struct hv_poll req = {cq->cqn, (uint32_t)num_entries < fit ? (uint32_t)num_entries : fit};
  pthread_mutex_lock(&ctx->lock);
  const uint8_t *reply;
  uint32_t len;
  int err = call_locked(ctx, "ibv_poll_cq", HV_POLL_CQ, &req, sizeof req, &reply, &len);
  int n = -1;
  if (err == 0 && len >= 8) {
    uint32_t got;
    memcpy(&got, reply, sizeof got);
    if (got <= req.max && len >= 8 + got * sizeof(struct hv_wc)) {
      const struct hv_wc *w = (const struct hv_wc *)(reply + 8);
      for (uint32_t i = 0; i < got; ++i) {
        memset(&wc[i], 0, sizeof wc[i]);
        wc[i].wr_id = w[i].wr_id;
        wc[i].status = (enum ibv_wc_status)w[i].status;
        wc[i].opcode = (enum ibv_wc_opcode)w[i].opcode;
        wc[i].vendor_err = w[i].vendor_err;
        wc[i].byte_len = w[i].byte_len;
        wc[i].imm_data = w[i].imm_data;
        wc[i].qp_num = w[i].qp_num;
        wc[i].src_qp = w[i].src_qp;
        wc[i].wc_flags = w[i].wc_flags;
        wc[i].pkey_index = w[i].pkey_index;
        wc[i].slid = w[i].slid;
        wc[i].sl = w[i].sl;
        wc[i].dlid_path_bits = w[i].dlid_path_bits;
        struct hcasim_qp *q = ctx->qps;
        while (q && q->vqp.qp.qp_num != w[i].qp_num) q = q->next;
        if (q) {
          q->sq_used = w[i].sq_used;
          if (w[i].status != IBV_WC_SUCCESS && q->vqp.qp.qp_type == IBV_QPT_RC) q->state = IBV_QPS_ERR;
        }
      }
      n = (int)got;
    }
  }
  pthread_mutex_unlock(&ctx->lock);
  return n;
}

static int req_notify_cq(struct ibv_cq *ibcq, int solicited_only) {
  struct hcasim_cq *cq = container_of(ibcq, struct hcasim_cq, ibv_cq);
  struct hv_notify req = {cq->cqn, solicited_only ? 1u : 0u};
  return call(to_ctx(ibcq->context), "ibv_req_notify_cq", HV_REQ_NOTIFY_CQ, &req, sizeof req, NULL, 0);
}

static void cq_event(struct ibv_cq *cq) { (void)cq; }

/* ---- QP -------------------------------------------------------------- */

static void put_caps(struct ibv_qp_cap *cap, const struct hv_qp_caps *c) {
  cap->max_send_wr = c->max_send_wr;
  cap->max_recv_wr = c->max_recv_wr;
  cap->max_send_sge = c->max_send_sge;
  cap->max_recv_sge = c->max_recv_sge;
  cap->max_inline_data = c->max_inline_data;
}

static struct ibv_qp *create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr) {
  if (attr->srq || !attr->send_cq || !attr->recv_cq) {
    fprintf(stderr, "libhcasim: ibv_create_qp: %s\n", attr->srq ? "shared receive queues are not supported"
                                                                 : "a QP needs a send CQ and a receive CQ");
    errno = attr->srq ? EOPNOTSUPP : EINVAL;
    return NULL;
  }
  struct hv_create_qp req = {0};
  req.qp_type = attr->qp_type;
  req.send_cq = container_of(attr->send_cq, struct hcasim_cq, ibv_cq)->cqn;
  req.recv_cq = container_of(attr->recv_cq, struct hcasim_cq, ibv_cq)->cqn;
  req.sq_sig_all = attr->sq_sig_all ? 1 : 0;
  req.cap = (struct hv_qp_caps){attr->cap.max_send_wr, attr->cap.max_recv_wr, attr->cap.max_send_sge,
                                attr->cap.max_recv_sge, attr->cap.max_inline_data};
  struct {
    struct hv_qp_caps cap;
    uint32_t qpn;
  } r;
  int err = call(to_ctx(pd->context), "ibv_create_qp", HV_CREATE_QP, &req, sizeof req, &r, sizeof r);
  if (err) {
    errno = err;
    return NULL;
  }
  struct hcasim_qp *qp = calloc(1, sizeof *qp);
  if (!qp) {
    call(to_ctx(pd->context), "ibv_create_qp", HV_DESTROY_QP, &r.qpn, sizeof r.qpn, NULL, 0);
    errno = ENOMEM;
    return NULL;
  }
  struct ibv_qp *q = &qp->vqp.qp;
  q->context = pd->context;
  q->qp_context = attr->qp_context;
  q->pd = pd;
  q->send_cq = attr->send_cq;
  q->recv_cq = attr->recv_cq;
  q->handle = r.qpn;
  q->qp_num = r.qpn;
  q->state = IBV_QPS_RESET;
  q->qp_type = attr->qp_type;
  pthread_mutex_init(&q->mutex, NULL);
  pthread_cond_init(&q->cond, NULL);
  qp->sq_sig_all = req.sq_sig_all;
  qp->max_inline = r.cap.max_inline_data;
  qp->max_send_wr = r.cap.max_send_wr;
  qp->max_send_sge = r.cap.max_send_sge;
  qp->state = IBV_QPS_RESET;
  struct hcasim_context *ctx = to_ctx(pd->context);
  pthread_mutex_lock(&ctx->lock);
  qp->next = ctx->qps;
  ctx->qps = qp;
  pthread_mutex_unlock(&ctx->lock);
  put_caps(&attr->cap, &r.cap);
  return q;
}

static void put_attr(struct hv_qp_attr *w, const struct ibv_qp_attr *a) {
  memset(w, 0, sizeof *w);
  w->qp_state = a->qp_state;
  w->cur_qp_state = a->cur_qp_state;
  w->path_mtu = a->path_mtu;
  w->qkey = a->qkey;
  w->rq_psn = a->rq_psn;
  w->sq_psn = a->sq_psn;
  w->dest_qp_num = a->dest_qp_num;
  w->qp_access_flags = (uint32_t)a->qp_access_flags;
  w->pkey_index = a->pkey_index;
  w->dlid = a->ah_attr.dlid;
  w->sl = a->ah_attr.sl;
  w->src_path_bits = a->ah_attr.src_path_bits;
  w->port_num = a->port_num;
  w->timeout = a->timeout;
  w->retry_cnt = a->retry_cnt;
  w->rnr_retry = a->rnr_retry;
  w->max_rd_atomic = a->max_rd_atomic;
  w->max_dest_rd_atomic = a->max_dest_rd_atomic;
  w->min_rnr_timer = a->min_rnr_timer;
}

static int modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask) {
  struct hv_modify_qp req;
  req.qpn = qp->qp_num;
  req.mask = (uint32_t)mask;
  put_attr(&req.attr, attr);
  struct hcasim_context *ctx = to_ctx(qp->context);
  int err = call(ctx, "ibv_modify_qp", HV_MODIFY_QP, &req, sizeof req, NULL, 0);
  if (err == 0 && (mask & IBV_QP_STATE)) {
    struct hcasim_qp *q = container_of(qp, struct hcasim_qp, vqp.qp);
    pthread_mutex_lock(&ctx->lock);
    q->state = attr->qp_state;
    if (attr->qp_state == IBV_QPS_RESET) q->sq_used = 0; /* the driver's rings start again, empty */
    pthread_mutex_unlock(&ctx->lock);
  }
  return err;
}

static int query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask, struct ibv_qp_init_attr *init) {
  (void)mask;
  struct {
    struct hv_qp_attr a;
    struct hv_qp_caps cap;
  } r;
  int err = call(to_ctx(qp->context), "ibv_query_qp", HV_QUERY_QP, &qp->qp_num, sizeof qp->qp_num, &r, sizeof r);
  if (err) return err;
  memset(attr, 0, sizeof *attr);
  attr->qp_state = (enum ibv_qp_state)r.a.qp_state;
  attr->cur_qp_state = (enum ibv_qp_state)r.a.qp_state;
  attr->path_mtu = (enum ibv_mtu)r.a.path_mtu;
  attr->qkey = r.a.qkey;
  attr->rq_psn = r.a.rq_psn;
  attr->sq_psn = r.a.sq_psn;
  attr->dest_qp_num = r.a.dest_qp_num;
  attr->qp_access_flags = (unsigned)r.a.qp_access_flags;
  attr->pkey_index = r.a.pkey_index;
  attr->ah_attr.dlid = r.a.dlid;
  attr->ah_attr.sl = r.a.sl;
  attr->ah_attr.src_path_bits = r.a.src_path_bits;
  attr->ah_attr.port_num = r.a.port_num;
  attr->port_num = r.a.port_num;
  attr->timeout = r.a.timeout;
  attr->retry_cnt = r.a.retry_cnt;
  attr->rnr_retry = r.a.rnr_retry;
  attr->max_rd_atomic = r.a.max_rd_atomic;
  attr->max_dest_rd_atomic = r.a.max_dest_rd_atomic;
  attr->min_rnr_timer = r.a.min_rnr_timer;
  put_caps(&attr->cap, &r.cap);
  memset(init, 0, sizeof *init);
  init->qp_context = qp->qp_context;
  init->send_cq = qp->send_cq;
  init->recv_cq = qp->recv_cq;
  init->qp_type = qp->qp_type;
  init->sq_sig_all = (int)container_of(qp, struct hcasim_qp, vqp.qp)->sq_sig_all;
  put_caps(&init->cap, &r.cap);
  return 0;
}

static int destroy_qp(struct ibv_qp *qp) {
  struct hcasim_context *ctx = to_ctx(qp->context);
  int err = call(ctx, "ibv_destroy_qp", HV_DESTROY_QP, &qp->qp_num, sizeof qp->qp_num, NULL, 0);
  if (err) return err;
  struct hcasim_qp *gone = container_of(qp, struct hcasim_qp, vqp.qp);
  pthread_mutex_lock(&ctx->lock);
  for (struct hcasim_qp **p = &ctx->qps; *p; p = &(*p)->next)
    if (*p == gone) {
      *p = gone->next;
      break;
    }
  pthread_mutex_unlock(&ctx->lock);
  pthread_mutex_destroy(&qp->mutex);
  pthread_cond_destroy(&qp->cond);
  free(container_of(qp, struct hcasim_qp, vqp.qp));
  return 0;
}

/* Whether the driver takes this opcode on this QP type (verbs.hpp:
 * opcode_supported): UC has no READ, atomics or SEND with invalidate, UD
 * sends only. */
static bool opcode_fits(enum ibv_qp_type type, enum ibv_wr_opcode op) {
  const bool send = op == IBV_WR_SEND || op == IBV_WR_SEND_WITH_IMM;
  const bool write = op == IBV_WR_RDMA_WRITE || op == IBV_WR_RDMA_WRITE_WITH_IMM;
  const bool rc_only = op == IBV_WR_RDMA_READ || op == IBV_WR_ATOMIC_CMP_AND_SWP ||
                       op == IBV_WR_ATOMIC_FETCH_AND_ADD || op == IBV_WR_SEND_WITH_INV;
  if (type == IBV_QPT_UD) return send;
  if (type == IBV_QPT_UC) return send || write;
  return send || write || rc_only;
}

/* Sends the request built in ctx->out without waiting for an answer (there
 * is none). The caller holds ctx->lock. */
static int send_only(struct hcasim_context *ctx, const char *verb, uint32_t op, uint32_t len) {
  struct hv_head head = {op, len};
  struct iovec iov[2] = {{&head, sizeof head}, {ctx->out, len}};
  struct msghdr msg = {0};
  msg.msg_iov = iov;
  msg.msg_iovlen = 2;
  if (sendmsg(ctx->fd, &msg, MSG_NOSIGNAL) != (ssize_t)(sizeof head + len)) {
    fprintf(stderr, "libhcasim: %s: the hcasim server is gone (%s)\n", verb, strerror(errno));
    return EIO;
  }
  return 0;
}

/* Appends bytes to the packet being built; false when it would not fit. */
static bool put(uint8_t *buf, uint32_t *at, const void *data, uint32_t len) {
  if (*at + len > HV_MAX_PACKET - sizeof(struct hv_head)) return false;
  memcpy(buf + *at, data, len);
  *at += len;
  return true;
}

/* Appends a WR's scatter/gather list; false when it would not fit. */
static bool put_sges(uint8_t *buf, uint32_t *at, const struct ibv_sge *sg, int n) {
  bool fits = true;
  for (int i = 0; fits && i < n; ++i) {
    struct hv_sge g = {sg[i].addr, sg[i].length, sg[i].lkey};
    fits = put(buf, at, &g, sizeof g);
  }
  return fits;
}

/* Sends the post request built in ctx->out (body bytes [0, len)) and says
 * how many WRs the server took, and why not all (an errno, 0 = all). */
static int post_call(struct hcasim_context *ctx, const char *verb, uint32_t op, uint32_t len, uint32_t *taken) {
  const uint8_t *reply = NULL;
  uint32_t reply_len = 0;
  *taken = 0;
  int err = call_locked(ctx, verb, op, ctx->out, len, &reply, &reply_len);
  if (err) return err;
  if (reply_len < 2 * sizeof(uint32_t)) return EIO;
  int32_t why;
  memcpy(taken, reply, sizeof *taken);
  memcpy(&why, reply + 4, sizeof why);
  if (why != 0 && reply_len > 8) fprintf(stderr, "libhcasim: %s: %.*s\n", verb, (int)(reply_len - 8), reply + 8);
  return why;
}

static int post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr) {
  struct hcasim_qp *qp = container_of(ibqp, struct hcasim_qp, vqp.qp);
  struct hcasim_context *ctx = to_ctx(ibqp->context);
  pthread_mutex_lock(&ctx->lock);
  struct hv_post head = {ibqp->qp_num, 0};
  uint32_t at = sizeof head;
  int err = 0;
  struct ibv_send_wr *w;
  for (w = wr; w; w = w->next) {
    struct hv_send_wr s = {0};
    s.wr_id = w->wr_id;
    s.opcode = w->opcode;
    s.send_flags = w->send_flags | (qp->sq_sig_all ? IBV_SEND_SIGNALED : 0);
    s.imm_data = w->imm_data;
    s.num_sge = (uint32_t)(w->num_sge > 0 ? w->num_sge : 0);
    if (w->opcode == IBV_WR_SEND_WITH_INV) s.imm_data = w->invalidate_rkey;
    if (ibqp->qp_type == IBV_QPT_UD) {
      if (!w->wr.ud.ah) {
        err = EINVAL;
        break;
      }
      struct hcasim_ah *ah = container_of(w->wr.ud.ah, struct hcasim_ah, ibv_ah);
      s.dlid = ah->dlid;
      s.sl = ah->sl;
      s.src_path_bits = ah->src_path_bits;
      s.remote_qpn = w->wr.ud.remote_qpn;
      s.remote_qkey = w->wr.ud.remote_qkey;
    } else if (w->opcode == IBV_WR_ATOMIC_CMP_AND_SWP || w->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
      s.remote_addr = w->wr.atomic.remote_addr;
      s.rkey = w->wr.atomic.rkey;
      s.compare_add = w->wr.atomic.compare_add;
      s.swap = w->wr.atomic.swap;
    } else {
      s.remote_addr = w->wr.rdma.remote_addr;
      s.rkey = w->wr.rdma.rkey;
    }
    uint64_t inline_bytes = 0;
    if (w->send_flags & IBV_SEND_INLINE) {
      for (int i = 0; i < w->num_sge; ++i) inline_bytes += w->sg_list[i].length;
      if (inline_bytes > qp->max_inline) {
        fprintf(stderr, "libhcasim: ibv_post_send: %llu inline bytes, max_inline_data %u\n",
                (unsigned long long)inline_bytes, qp->max_inline);
        err = EINVAL;
        break;
      }
    }
    s.inline_bytes = (uint32_t)inline_bytes;
    bool fits = put(ctx->out, &at, &s, sizeof s) && put_sges(ctx->out, &at, w->sg_list, w->num_sge);
    for (int i = 0; fits && inline_bytes > 0 && i < w->num_sge; ++i)
      fits = put(ctx->out, &at, (const void *)(uintptr_t)w->sg_list[i].addr, w->sg_list[i].length);
    static const uint8_t zeros[8];
    if (fits && (at & 7)) fits = put(ctx->out, &at, zeros, 8 - (at & 7));
    if (!fits) {
      err = ENOMEM;
      break;
    }
    ++head.count;
  }
  uint32_t taken = 0;
  if (head.count > 0) {
    memcpy(ctx->out, &head, sizeof head);
    /* The driver's checks, mirrored: when they pass the post cannot be
     * refused, so it goes without waiting for its answer. */
    bool sure = !err && qp->state != IBV_QPS_RESET && qp->state != IBV_QPS_INIT && qp->state != IBV_QPS_RTR &&
                qp->sq_used + head.count <= qp->max_send_wr;
    for (struct ibv_send_wr *v = wr; sure && v != w; v = v->next)
      sure = opcode_fits(ibqp->qp_type, v->opcode) && (uint32_t)v->num_sge <= qp->max_send_sge && v->num_sge >= 0;
    if (sure) {
      int sent = send_only(ctx, "ibv_post_send", HV_POST_SEND_ASYNC, at);
      if (sent) err = sent;
      else {
        taken = head.count;
        qp->sq_used += head.count;
      }
    } else {
      int sent = post_call(ctx, "ibv_post_send", HV_POST_SEND, at, &taken);
      if (sent) err = sent;
      qp->sq_used += taken;
    }
  }
  pthread_mutex_unlock(&ctx->lock);
  if (err || taken < head.count) {
    struct ibv_send_wr *bad = wr;
    for (uint32_t i = 0; i < taken && bad; ++i) bad = bad->next;
    if (bad_wr) *bad_wr = bad ? bad : w;
    return err ? err : EINVAL;
  }
  return 0;
}

static int post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr) {
  struct hcasim_context *ctx = to_ctx(ibqp->context);
  pthread_mutex_lock(&ctx->lock);
  struct hv_post head = {ibqp->qp_num, 0};
  uint32_t at = sizeof head;
  int err = 0;
  struct ibv_recv_wr *w;
  for (w = wr; w; w = w->next) {
    struct hv_recv_wr r = {w->wr_id, (uint32_t)(w->num_sge > 0 ? w->num_sge : 0), 0};
    if (!put(ctx->out, &at, &r, sizeof r) || !put_sges(ctx->out, &at, w->sg_list, w->num_sge)) {
      err = ENOMEM;
      break;
    }
    ++head.count;
  }
  uint32_t taken = 0;
  if (head.count > 0) {
    memcpy(ctx->out, &head, sizeof head);
    int sent = post_call(ctx, "ibv_post_recv", HV_POST_RECV, at, &taken);
    if (sent) err = sent;
  }
  pthread_mutex_unlock(&ctx->lock);
  if (err || taken < head.count) {
    struct ibv_recv_wr *bad = wr;
    for (uint32_t i = 0; i < taken && bad; ++i) bad = bad->next;
    if (bad_wr) *bad_wr = bad ? bad : w;
    return err ? err : EINVAL;
  }
  return 0;
}

/* ---- completion channels (the interposer) ------------------------------
 * libibverbs makes a completion channel and reads its events from the
 * kernel directly, not through a provider. With this library preloaded
 * (LD_PRELOAD) these three take over for channels of hcasim devices: the
 * channel's fd is an eventfd that only names it, and ibv_get_cq_event waits
 * in the server (HV_WAIT_EVENT) for an armed CQ of the channel to fire.
 * Channels of other devices go to libibverbs. */

static bool is_hcasim(struct ibv_context *c) {
  return c && container_of(c->device, struct verbs_device, device)->ops == &hcasim_device_ops;
}

#define HCASIM_EXPORT __attribute__((visibility("default")))

HCASIM_EXPORT struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *context) {
  if (!is_hcasim(context)) {
    struct ibv_comp_channel *(*real)(struct ibv_context *) =
        (struct ibv_comp_channel * (*)(struct ibv_context *)) dlsym(RTLD_NEXT, "ibv_create_comp_channel");
    return real ? real(context) : NULL;
  }
  struct ibv_comp_channel *ch = calloc(1, sizeof *ch);
  if (!ch) {
    errno = ENOMEM;
    return NULL;
  }
  ch->context = context;
  ch->fd = eventfd(0, EFD_CLOEXEC);
  ch->refcnt = 0;
  struct hcasim_channel *own = calloc(1, sizeof *own);
  if (ch->fd < 0 || !own) {
    if (ch->fd >= 0) close(ch->fd);
    free(ch);
    free(own);
    errno = ENOMEM;
    return NULL;
  }
  own->channel = ch;
  pthread_mutex_lock(&channels_lock);
  own->next = channels;
  channels = own;
  pthread_mutex_unlock(&channels_lock);
  return ch;
}

HCASIM_EXPORT int ibv_destroy_comp_channel(struct ibv_comp_channel *channel) {
  if (!is_hcasim(channel->context)) {
    int (*real)(struct ibv_comp_channel *) = (int (*)(struct ibv_comp_channel *))dlsym(RTLD_NEXT, "ibv_destroy_comp_channel");
    return real ? real(channel) : EINVAL;
  }
  if (channel->refcnt) return EBUSY;
  pthread_mutex_lock(&channels_lock);
  for (struct hcasim_channel **p = &channels; *p; p = &(*p)->next)
    if ((*p)->channel == channel) {
      struct hcasim_channel *gone = *p;
      *p = gone->next;
      free(gone);
      break;
    }
  pthread_mutex_unlock(&channels_lock);
  close(channel->fd);
  free(channel);
  return 0;
}

HCASIM_EXPORT int ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq, void **cq_context) {
  if (!is_hcasim(channel->context)) {
    int (*real)(struct ibv_comp_channel *, struct ibv_cq **, void **) =
        (int (*)(struct ibv_comp_channel *, struct ibv_cq **, void **))dlsym(RTLD_NEXT, "ibv_get_cq_event");
    return real ? real(channel, cq, cq_context) : -1;
  }
  struct hcasim_context *ctx = to_ctx(channel->context);
  uint32_t id = (uint32_t)channel->fd + 1, cqn;
  if (call(ctx, "ibv_get_cq_event", HV_WAIT_EVENT, &id, sizeof id, &cqn, sizeof cqn) != 0) return -1;
  pthread_mutex_lock(&ctx->lock);
  struct hcasim_cq *found = ctx->cqs;
  while (found && found->cqn != cqn) found = found->next;
  pthread_mutex_unlock(&ctx->lock);
  if (!found) return -1;
  *cq = &found->ibv_cq;
  *cq_context = found->ibv_cq.cq_context;
  return 0;
}

/* ---- registration ---------------------------------------------------- */

static const struct verbs_context_ops hcasim_ops = {
    .alloc_pd = alloc_pd,
    .async_event = async_event,
    .cq_event = cq_event,
    .create_ah = create_ah,
    .create_cq = create_cq,
    .create_qp = create_qp,
    .dealloc_pd = dealloc_pd,
    .dereg_mr = dereg_mr,
    .destroy_ah = destroy_ah,
    .destroy_cq = destroy_cq,
    .destroy_qp = destroy_qp,
    .free_context = free_context,
    .modify_qp = modify_qp,
    .poll_cq = poll_cq,
    .post_recv = post_recv,
    .post_send = post_send,
    .query_device_ex = query_device_ex,
    .query_port = query_port,
    .query_qp = query_qp,
    .reg_mr = reg_mr,
    .req_notify_cq = req_notify_cq,
};

static const struct verbs_device_ops hcasim_device_ops = {
    .name = "hcasim",
    .match_min_abi_version = 1,
    .match_max_abi_version = 6,
    .match_device = match_device,
    .alloc_context = alloc_context,
    .alloc_device = alloc_device,
    .uninit_device = uninit_device,
};

__attribute__((constructor)) static void hcasim_register(void) {
  hcasim_register_fn reg = (hcasim_register_fn)dlvsym(RTLD_DEFAULT, HCASIM_REGISTER_SYMBOL, HCASIM_PABI_VERSION);
  init_context = (hcasim_init_context_fn)dlvsym(RTLD_DEFAULT, "_verbs_init_and_alloc_context", HCASIM_PABI_VERSION);
  uninit_context = (hcasim_uninit_context_fn)dlvsym(RTLD_DEFAULT, "verbs_uninit_context", HCASIM_PABI_VERSION);
  set_ops = (hcasim_set_ops_fn)dlvsym(RTLD_DEFAULT, "verbs_set_ops", HCASIM_PABI_VERSION);
  if (!reg || !init_context || !uninit_context || !set_ops) {
    if (!dlsym(RTLD_DEFAULT, "ibv_get_device_list")) return; /* preloaded into a program without libibverbs */
    fprintf(stderr,
            "libhcasim: this libibverbs has no private ABI %s (hcasim's provider is built for rdma-core 44, "
            "Debian 12); no hcasim devices\n",
            HCASIM_PABI_VERSION);
    return;
  }
  reg(&hcasim_device_ops);
}
