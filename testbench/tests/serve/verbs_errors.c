/* A verbs program that gets errors, for verbs_apps_test.py: opens two
 * devices (argv[1], argv[2]) and connects an RC QP on each to the other.
 *
 * 1. ibv_post_send's own errors, as libibverbs returns them: a post to a QP
 *    in INIT is EINVAL; a post past max_send_wr (4 unsignaled WRITEs taken,
 *    the fifth refused) is ENOMEM with bad_wr at the fifth. The provider
 *    posts without waiting for the server when its mirror of the driver's
 *    checks says the post is taken, so these show that mirror holds.
 * 2. An RDMA WRITE to the second's buffer with its R_Key changed: the IBA
 *    says the responder NAKs it (remote access error, IBA 9.7.5.2.4) and
 *    the requester's QP goes to the Error state (IBA 10.8.3.3).
 *
 * Prints one line per check and exits 0 when all hold, 1 when one does not,
 * 2 on a setup failure.
 */
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct side {
  struct ibv_context *ctx;
  struct ibv_pd *pd;
  struct ibv_cq *cq;
  struct ibv_qp *qp;
  struct ibv_mr *mr;
  uint16_t lid;
  char buf[4096];
};

static int open_side(struct ibv_device **list, const char *name, struct side *s) {
  for (int i = 0; list[i]; ++i)
    if (strcmp(ibv_get_device_name(list[i]), name) == 0) s->ctx = ibv_open_device(list[i]);
  if (!s->ctx) return fprintf(stderr, "no device %s\n", name), -1;
  struct ibv_port_attr port;
  if (ibv_query_port(s->ctx, 1, &port)) return -1;
  s->lid = port.lid;
  s->pd = ibv_alloc_pd(s->ctx);
  s->cq = ibv_create_cq(s->ctx, 16, NULL, NULL, 0);
  s->mr = ibv_reg_mr(s->pd, s->buf, sizeof s->buf,
                     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
  struct ibv_qp_init_attr init = {.send_cq = s->cq, .recv_cq = s->cq, .qp_type = IBV_QPT_RC,
                                  .cap = {.max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1}};
  if (!s->pd || !s->cq || !s->mr) return -1;
  s->qp = ibv_create_qp(s->pd, &init);
  return s->qp ? 0 : -1;
}

static int connect_qp(struct side *s, const struct side *peer) {
  struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1,
                          .qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ};
  if (ibv_modify_qp(s->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)) return -1;
  memset(&a, 0, sizeof a);
  a.qp_state = IBV_QPS_RTR;
  a.path_mtu = IBV_MTU_1024;
  a.dest_qp_num = peer->qp->qp_num;
  a.rq_psn = 1;
  a.max_dest_rd_atomic = 1;
  a.min_rnr_timer = 12;
  a.ah_attr.dlid = peer->lid;
  a.ah_attr.port_num = 1;
  if (ibv_modify_qp(s->qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                                   IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
    return -1;
  memset(&a, 0, sizeof a);
  a.qp_state = IBV_QPS_RTS;
  a.timeout = 14;
  a.retry_cnt = 7;
  a.rnr_retry = 7;
  a.sq_psn = 1;
  a.max_rd_atomic = 1;
  return ibv_modify_qp(s->qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                                      IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

int main(int argc, char **argv) {
  if (argc != 3) return fprintf(stderr, "usage: verbs_errors DEVICE_A DEVICE_B\n"), 2;
  struct ibv_device **list = ibv_get_device_list(NULL);
  static struct side a, b;
  if (!list || open_side(list, argv[1], &a) || open_side(list, argv[2], &b) || connect_qp(&a, &b) ||
      connect_qp(&b, &a))
    return fprintf(stderr, "setup failed\n"), 2;
  int failed = 0;
  /* 1. post errors */
  {
    struct ibv_qp_init_attr init = {.send_cq = a.cq, .recv_cq = a.cq, .qp_type = IBV_QPT_RC,
                                    .cap = {.max_send_wr = 4, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1}};
    struct ibv_qp *idle = ibv_create_qp(a.pd, &init);
    struct ibv_qp_attr ia = {.qp_state = IBV_QPS_INIT, .port_num = 1};
    if (!idle || ibv_modify_qp(idle, &ia, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
      return fprintf(stderr, "setup failed\n"), 2;
    struct ibv_sge g = {.addr = (uintptr_t)b.buf, .length = 8, .lkey = b.mr->lkey};
    struct ibv_send_wr w = {.wr_id = 1, .sg_list = &g, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE}, *bad = NULL;
    w.wr.rdma.remote_addr = (uintptr_t)a.buf;
    w.wr.rdma.rkey = a.mr->rkey;
    int r = ibv_post_send(idle, &w, &bad);
    printf("post to a QP in INIT: %s\n", r == EINVAL ? "EINVAL" : "not EINVAL");
    failed |= r != EINVAL;
    int taken = 0;
    for (int i = 0; i < 4; ++i) taken += ibv_post_send(b.qp, &w, &bad) == 0; /* unsignaled */
    bad = NULL;
    r = ibv_post_send(b.qp, &w, &bad);
    printf("posts to a 4-deep send queue: %d taken, the fifth %s\n", taken, r == ENOMEM && bad == &w ? "ENOMEM" : "not ENOMEM");
    failed |= taken != 4 || r != ENOMEM || bad != &w;
  }
  /* 2. a wrong R_Key */
  struct ibv_sge sge = {.addr = (uintptr_t)a.buf, .length = 64, .lkey = a.mr->lkey};
  struct ibv_send_wr wr = {.wr_id = 7, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
                           .send_flags = IBV_SEND_SIGNALED}, *bad;
  wr.wr.rdma.remote_addr = (uintptr_t)b.buf;
  wr.wr.rdma.rkey = b.mr->rkey + 1; /* not the region's key */
  if (ibv_post_send(a.qp, &wr, &bad)) return fprintf(stderr, "post failed\n"), 2;
  struct ibv_wc wc;
  int n;
  while ((n = ibv_poll_cq(a.cq, 1, &wc)) == 0) {
  }
  if (n < 0) return fprintf(stderr, "poll failed\n"), 2;
  struct ibv_qp_attr attr;
  struct ibv_qp_init_attr init;
  if (ibv_query_qp(a.qp, &attr, IBV_QP_STATE, &init)) return fprintf(stderr, "query failed\n"), 2;
  printf("a wrong R_Key: status %s state %d wr_id %llu\n", ibv_wc_status_str(wc.status), (int)attr.qp_state,
         (unsigned long long)wc.wr_id);
  failed |= !(wc.status == IBV_WC_REM_ACCESS_ERR && attr.qp_state == IBV_QPS_ERR && wc.wr_id == 7);
  return failed ? 1 : 0;
}
