#include "testbench/workloads/connection.hpp"

#include <stdexcept>

#include "models/link/timeline.hpp"
#include "models/transport/qp_wait.hpp"

namespace hcasim::workloads {

QpEnd create_qp_on(host::Driver& h, unsigned port, uint32_t cq, const ConnectionParams& p) {
  return create_qp_on(h, port, cq, cq, p);
}

QpEnd create_qp_on(host::Driver& h, unsigned port, uint32_t cq, uint32_t recv_cq, const ConnectionParams& p) {
  QpEnd e;
  e.driver = &h;
  e.port = port;
  e.cq = cq;
  transport::QpInit init;
  init.type = p.type;
  init.send_cq = e.cq;
  init.recv_cq = recv_cq;
  init.max_send_wr = p.max_send_wr;
  init.max_recv_wr = p.max_recv_wr;
  init.weight = p.weight;
  init.out_of_order = p.out_of_order;
  e.qpn = h.create_qp(init);
  return e;
}

namespace {
QpEnd make_qp(host::Driver& h, unsigned port, const ConnectionParams& p) {
  return create_qp_on(h, port, h.create_cq(p.cq_depth), p);
}

void modify(const QpEnd& e, const transport::QpAttr& attr, uint32_t mask) {
  const std::string why = e.driver->modify_qp(e.qpn, attr, mask);
  if (!why.empty()) throw std::runtime_error("modify_qp of QP " + std::to_string(e.qpn) + ": " + why);
}
}  // namespace

void bring_up(const QpEnd& self, uint16_t peer_lid, uint32_t peer_qpn, uint32_t send_psn, uint32_t expect_psn,
              const ConnectionParams& p) {
  using namespace transport;
  const bool ud = p.type == QpType::Ud;
  const bool rc = p.type == QpType::Rc;
  QpAttr a;
  a.qp_state = QpState::Init;
  a.pkey_index = p.pkey_index;
  a.port_num = static_cast<uint8_t>(self.port + 1);
  a.qp_access_flags = rc ? p.access : (p.access & (kLocalWrite | kRemoteWrite));
  a.qkey = p.qkey;
  modify(self, a, kAttrState | kAttrPkeyIndex | kAttrPort | (ud ? kAttrQkey : kAttrAccessFlags));

  a.qp_state = QpState::Rtr;
  a.ah_attr.dlid = peer_lid;
  a.ah_attr.sl = sl_towards(p, self.driver->lid(self.port), peer_lid);
  a.path_mtu = p.mtu;
  a.dest_qp_num = peer_qpn;
  a.rq_psn = expect_psn;
  a.max_dest_rd_atomic = p.max_dest_rd_atomic;
  a.min_rnr_timer = p.min_rnr_timer;
  uint32_t mask = kAttrState;
  if (!ud) mask |= kAttrAv | kAttrPathMtu | kAttrDestQpn | kAttrRqPsn;
  if (rc) mask |= kAttrMaxDestRdAtomic | kAttrMinRnrTimer;
  modify(self, a, mask);

  a.qp_state = QpState::Rts;
  a.sq_psn = send_psn;
  a.timeout = p.timeout;
  a.retry_cnt = p.retry_cnt;
  a.rnr_retry = p.rnr_retry;
  a.max_rd_atomic = p.max_rd_atomic;
  mask = kAttrState | kAttrSqPsn;
  if (rc) mask |= kAttrTimeout | kAttrRetryCnt | kAttrRnrRetry | kAttrMaxQpRdAtomic;
  modify(self, a, mask);
}

std::pair<QpEnd, QpEnd> connect(host::Driver& a, unsigned port_a, host::Driver& b, unsigned port_b,
                                const ConnectionParams& p) {
  const QpEnd ea = make_qp(a, port_a, p);
  const QpEnd eb = make_qp(b, port_b, p);
  bring_up(ea, b.lid(port_b), eb.qpn, p.psn_a, p.psn_b, p);
  bring_up(eb, a.lid(port_a), ea.qpn, p.psn_b, p.psn_a, p);
  return {ea, eb};
}

std::string describe_wait(const QpEnd& e, const std::string& port_name, bool* blocked) {
  using transport::QpWaitKind;
  const transport::Qp* qp = e.driver->hca().transport().find(e.qpn);
  if (qp == nullptr) return "";
  const transport::QpWait wait = transport::describe_qp_wait(*qp, link::now_ps());
  if (wait.kind == QpWaitKind::None) return "";
  bool held = wait.kind == QpWaitKind::Error || wait.kind == QpWaitKind::State || wait.kind == QpWaitKind::RnrNak ||
              (wait.kind == QpWaitKind::Ack && qp->stats.timeouts > 0);
  std::string text = "QP " + std::to_string(e.qpn) + " on " + port_name + " " + wait.text;
  if (wait.kind == QpWaitKind::Link || wait.kind == QpWaitKind::Ack) {
    // What holds the port: its link, its state, or its VL's credits.
    const link::Port& port = e.driver->hca().port(e.port);
    const unsigned vl = port.sl2vl()[qp->attr.ah_attr.sl & 15];
    std::string note;
    if (!port.link_trained()) note = "the link of " + port_name + " is down";
    else if (port.state() != link::PortState::Active)
      note = port_name + " is " + link::to_string(port.state()) + ", not Active";
    else if (vl < port.vl_count() && port.credits_available(vl) == 0)
      note = port_name + " has no credits on VL " + std::to_string(vl);
    if (!note.empty()) {
      text += ", and " + note;
      held = true;
    }
  }
  if (blocked != nullptr) *blocked = *blocked || held;
  return text;
}

}  // namespace hcasim::workloads
