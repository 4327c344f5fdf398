/* The messages between libhcasim-rdmav34.so (an application's verbs) and
 * `hcasim serve --verbs` (the model), in C so that both sides share them.
 *
 * Rules:
 * - One Unix SOCK_SEQPACKET connection per application process, to the
 *   abstract name "hcasim-verbs:<base>" (base: hcasim serve --ibsim NAME,
 *   default "sim"; the provider reads it from the device's sysfs file
 *   "hcasim_socket"). Each request is one packet: a hv_head, then the op's
 *   body; each reply is one packet: a hv_reply, then the op's reply body (or,
 *   when err is not 0, a NUL-terminated reason).
 * - The first request is HV_HELLO; the server answers every other request of
 *   a connection that has not said hello with EPROTO.
 * - Numbers are host order (both ends run on one machine); enums carry
 *   libibverbs' values (IBV_QPT_*, IBV_WR_*, IBV_WC_*, IBV_MTU_*, IBV_QP_*,
 *   IBV_ACCESS_*), converted to the model's by the server
 *   (testbench/serve/verbs_wire.hpp).
 * - A request the server holds (HV_POLL_CQ that finds nothing, HV_WAIT_EVENT)
 *   is answered when the model has made its completion, or (polls only) when
 *   the model has nothing left to do: the process is waiting for the model
 *   (docs/verbs-apps.md, "Time").
 * - Sizes are checked by the server: a packet shorter than its op needs, or
 *   with counts past its end, is answered EBADMSG and changes nothing.
 */
#ifndef HCASIM_VERBS_WIRE_H
#define HCASIM_VERBS_WIRE_H

#include <stdint.h>

#define HV_WIRE_VERSION 2u
#define HV_SOCKET_PREFIX "hcasim-verbs:"
#define HV_MAX_PACKET (256u * 1024u) /* the largest request or reply */
#define HV_MAX_REASON 200u           /* reason text after an error reply, NUL included */

enum hv_op {
  HV_HELLO = 1,
  HV_QUERY_DEVICE,
  HV_QUERY_PORT,
  HV_REG_MR,
  HV_DEREG_MR,
  HV_CREATE_CQ,
  HV_DESTROY_CQ,
  HV_REQ_NOTIFY_CQ,
  HV_CREATE_QP,
  HV_MODIFY_QP,
  HV_QUERY_QP,
  HV_DESTROY_QP,
  HV_POST_SEND,
  HV_POST_RECV,
  HV_POLL_CQ,
  HV_WAIT_EVENT,
  HV_POST_SEND_ASYNC,
  HV_OP_END
};

struct hv_head {
  uint32_t op;   /* enum hv_op */
  uint32_t size; /* bytes of body after this head */
};

struct hv_reply {
  int32_t err;   /* 0, or an errno value the verb returns */
  uint32_t size; /* bytes after this head: the reply body, or the reason */
};

/* HV_HELLO: which HCA this process is. Reply: hv_hello_reply. */
struct hv_hello {
  uint32_t version; /* HV_WIRE_VERSION */
  uint32_t pid;     /* the process, for the model's DMA into its memory */
  uint32_t hca;     /* the HCA's index (device hcasim<hca>) */
  uint32_t pad;
};
struct hv_hello_reply {
  uint64_t node_guid;
  uint32_t ports;
  uint32_t client; /* the server's number for this process (reports) */
};

/* HV_QUERY_DEVICE: no body. Reply: the model's limits. */
struct hv_device {
  uint64_t node_guid, sys_image_guid, max_mr_size, page_size_cap;
  uint32_t vendor_id, vendor_part_id, hw_ver, max_qp, max_qp_wr, max_sge, max_cq, max_cqe, max_mr, max_pd,
      max_qp_rd_atom, max_qp_init_rd_atom, max_res_rd_atom, max_ah, max_pkeys, phys_port_cnt, max_inline;
  uint32_t pad;
  char fw_ver[64];
};

/* HV_QUERY_PORT: uint32_t port. Reply: */
struct hv_port {
  uint32_t state, max_mtu, active_mtu, gid_tbl_len, port_cap_flags, max_msg_sz, pkey_tbl_len;
  uint16_t lid, sm_lid;
  uint8_t lmc, max_vl_num, sm_sl, subnet_timeout, active_width, active_speed, phys_state, link_layer;
};

/* HV_REG_MR. Reply: uint32_t lkey, rkey. */
struct hv_reg_mr {
  uint64_t addr, length;
  uint32_t access, pad;
};

/* HV_DEREG_MR, HV_DESTROY_CQ, HV_DESTROY_QP, HV_QUERY_QP: uint32_t handle (L_Key, CQ, QPN). */

/* HV_CREATE_CQ. Reply: uint32_t cq, cqe. */
struct hv_create_cq {
  uint32_t cqe, channel; /* channel: 0 none, else the provider's number for its completion channel */
};

/* HV_REQ_NOTIFY_CQ. */
struct hv_notify {
  uint32_t cq, solicited_only;
};

/* HV_CREATE_QP. Reply: hv_qp_caps then uint32_t qpn. */
struct hv_qp_caps {
  uint32_t max_send_wr, max_recv_wr, max_send_sge, max_recv_sge, max_inline_data;
};
struct hv_create_qp {
  uint32_t qp_type, send_cq, recv_cq, sq_sig_all;
  struct hv_qp_caps cap;
  uint32_t pad;
};

/* HV_MODIFY_QP: hv_modify_qp. HV_QUERY_QP's reply: hv_qp_attr, then hv_qp_caps. */
struct hv_qp_attr {
  uint32_t qp_state, cur_qp_state, path_mtu, qkey, rq_psn, sq_psn, dest_qp_num, qp_access_flags;
  uint16_t pkey_index, dlid;
  uint8_t sl, src_path_bits, port_num, timeout, retry_cnt, rnr_retry, max_rd_atomic, max_dest_rd_atomic,
      min_rnr_timer, pad[3];
};
struct hv_modify_qp {
  uint32_t qpn, mask;
  struct hv_qp_attr attr;
};

/* HV_POST_SEND: hv_post then count x (hv_send_wr, num_sge x hv_sge, inline_bytes bytes padded to 8).
 * HV_POST_RECV: hv_post then count x (hv_recv_wr, num_sge x hv_sge).
 * Reply (err 0): uint32_t taken (the WRs posted, in order), int32_t err (0
 * when all were; else the errno the verb returns), then the reason. */
struct hv_post {
  uint32_t qpn, count;
};
struct hv_sge {
  uint64_t addr;
  uint32_t length, lkey;
};
struct hv_send_wr {
  uint64_t wr_id, remote_addr, compare_add, swap;
  uint32_t opcode, send_flags, imm_data, rkey, remote_qpn, remote_qkey, num_sge, inline_bytes;
  uint16_t dlid;
  uint8_t sl, src_path_bits;
  uint32_t pad;
};
struct hv_recv_wr {
  uint64_t wr_id;
  uint32_t num_sge, pad;
};

/* HV_POLL_CQ. Reply: uint32_t n, pad, then n x hv_wc. */
struct hv_poll {
  uint32_t cq, max;
};
struct hv_wc {
  uint64_t wr_id;
  uint32_t status, opcode, vendor_err, byte_len, imm_data, qp_num, src_qp, wc_flags;
  uint16_t pkey_index, slid;
  uint8_t sl, dlid_path_bits, pad[2];
  uint32_t sq_used; /* the QP's send WRs posted and not yet retired, after this poll */
  uint32_t pad2;
};

/* HV_POST_SEND_ASYNC: HV_POST_SEND's body, and no reply: the provider sends it
 * only when the driver's checks it mirrors (QP state as the driver sees it,
 * opcodes, SGE counts, inline size, and the send queue's room from sq_used)
 * say the post is taken, so ibv_post_send returns at once. One the server
 * refuses all the same is counted as a protocol error and logged.
 *
 * HV_WAIT_EVENT: uint32_t channel; held until an armed CQ of that channel
 * has an event. Reply: uint32_t cq. */

#endif
