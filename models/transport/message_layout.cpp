#include "models/transport/message_layout.hpp"

#include <algorithm>

#include "models/ib/opcodes.hpp"

namespace hcasim::transport {

namespace {
// Opcodes of a message type at each position: First, Middle, Last, Only.
struct Positions {
  uint8_t op[4];
};
constexpr Positions kRcSend{{ib::op::kRcSendFirst, ib::op::kRcSendMiddle, ib::op::kRcSendLast, ib::op::kRcSendOnly}};
constexpr Positions kRcSendImm{{ib::op::kRcSendFirst, ib::op::kRcSendMiddle, ib::op::kRcSendLastImm, ib::op::kRcSendOnlyImm}};
constexpr Positions kRcSendInv{{ib::op::kRcSendFirst, ib::op::kRcSendMiddle, ib::op::kRcSendLastInv, ib::op::kRcSendOnlyInv}};
constexpr Positions kRcWrite{{ib::op::kRcWriteFirst, ib::op::kRcWriteMiddle, ib::op::kRcWriteLast, ib::op::kRcWriteOnly}};
constexpr Positions kRcWriteImm{{ib::op::kRcWriteFirst, ib::op::kRcWriteMiddle, ib::op::kRcWriteLastImm, ib::op::kRcWriteOnlyImm}};
constexpr Positions kReadResp{{ib::op::kRcReadRespFirst, ib::op::kRcReadRespMiddle, ib::op::kRcReadRespLast, ib::op::kRcReadRespOnly}};

// Calls f(address, bytes, position in the copy) for the pieces of [offset, offset + len).
template <class F>
void walk(const std::vector<Sge>& sg, uint64_t offset, uint64_t len, F&& f) {
  uint64_t done = 0;
  for (const Sge& s : sg) {
    if (len == done) return;
    if (offset >= s.length) {
      offset -= s.length;
      continue;
    }
    const uint64_t n = std::min<uint64_t>(s.length - offset, len - done);
    f(s.lkey, s.addr + offset, n, done);
    done += n;
    offset = 0;
  }
}
}  // namespace

uint8_t request_opcode(QpType type, WrOpcode op, uint32_t index, uint32_t count) {
  const auto at = static_cast<unsigned>(position(index, count));
  if (type == QpType::Ud) return op == WrOpcode::SendWithImm ? ib::op::kUdSendOnlyImm : ib::op::kUdSendOnly;
  uint8_t code = 0;
  switch (op) {
    case WrOpcode::Send: code = kRcSend.op[at]; break;
    case WrOpcode::SendWithImm: code = kRcSendImm.op[at]; break;
    case WrOpcode::SendWithInv: code = kRcSendInv.op[at]; break;
    case WrOpcode::RdmaWrite: code = kRcWrite.op[at]; break;
    case WrOpcode::RdmaWriteWithImm: code = kRcWriteImm.op[at]; break;
    case WrOpcode::RdmaRead: code = ib::op::kRcReadRequest; break;
    case WrOpcode::AtomicCmpSwp: code = ib::op::kRcCmpSwap; break;
    case WrOpcode::AtomicFetchAdd: code = ib::op::kRcFetchAdd; break;
  }
  return type == QpType::Uc ? static_cast<uint8_t>(code | ib::op::kUcPrefix) : code;
}

uint8_t read_response_opcode(Position p) { return kReadResp.op[static_cast<unsigned>(p)]; }

bool uses_recv_wqe(uint8_t opcode) {
  const uint8_t prefix = opcode & 0xE0;
  if (prefix != ib::op::kRcPrefix && prefix != ib::op::kUcPrefix && prefix != ib::op::kUdPrefix) return false;
  const uint8_t op = opcode & 0x1F;
  return op <= ib::op::kRcSendOnlyImm || op == ib::op::kRcSendLastInv || op == ib::op::kRcSendOnlyInv ||
         op == ib::op::kRcWriteLastImm || op == ib::op::kRcWriteOnlyImm;
}

bool is_read_or_atomic(WrOpcode op) {
  return op == WrOpcode::RdmaRead || op == WrOpcode::AtomicCmpSwp || op == WrOpcode::AtomicFetchAdd;
}

uint64_t sg_length(const std::vector<Sge>& sg) {
  uint64_t n = 0;
  for (const Sge& s : sg) n += s.length;
  return n;
}

KeyCheck check_sg(const HostMemory& m, const std::vector<Sge>& sg, uint32_t access) {
  for (const Sge& s : sg) {
    const KeyCheck c = m.check_local(s.lkey, s.addr, s.length, access);
    if (c != KeyCheck::Ok) return c;
  }
  return KeyCheck::Ok;
}

uint64_t gather(HostMemory& m, const std::vector<Sge>& sg, uint64_t offset, uint8_t* out, uint64_t len) {
  uint64_t ready = 0;
  walk(sg, offset, len, [&](uint32_t key, uint64_t addr, uint64_t n, uint64_t at) {
    ready = std::max(ready, m.read(key, addr, out + at, n));
  });
  return ready;
}

void scatter(HostMemory& m, const std::vector<Sge>& sg, uint64_t offset, const uint8_t* data, uint64_t len) {
  walk(sg, offset, len, [&](uint32_t key, uint64_t addr, uint64_t n, uint64_t at) { m.write(key, addr, data + at, n); });
}

void fill_lrh_bth(ib::Packet& p, uint8_t sl, uint16_t dlid, uint16_t slid, uint8_t opcode, uint32_t dest_qp,
                  uint32_t psn) {
  ib::Headers& h = p.hdr;
  h.lrh.sl = sl;
  h.lrh.lnh = ib::Lnh::IbaLocal;
  h.lrh.dlid = dlid;
  h.lrh.slid = slid;
  h.bth.opcode = opcode;
  h.bth.dest_qp = dest_qp;
  h.bth.psn = psn;
}

}  // namespace hcasim::transport
