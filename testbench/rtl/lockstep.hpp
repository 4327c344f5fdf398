#pragma once
// The C++ side of the rtl+check lock step, as plain logic: the reference
// credit accounting fed the same events as the RTL credit manager, the
// comparisons, and the one-line reports of a divergence (what went in, what
// the C++ model expected, what the RTL gave).

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/link/credits.hpp"
#include "models/link/tx_cosim.hpp"
#include "models/link/vl_arbiter.hpp"

namespace hcasim::rtl {

// One VL's credit registers, as the RTL's read port shows them.
struct CreditRegisters {
  uint16_t fctbs = 0;
  uint16_t fccl = 0;       // the limit the peer advertised
  uint16_t abr = 0;
  uint16_t fccl_adv = 0;   // the limit to advertise
  uint32_t used = 0;       // blocks in the receive buffer
  bool operator==(const CreditRegisters& o) const {
    return fctbs == o.fctbs && fccl == o.fccl && abr == o.abr && fccl_adv == o.fccl_adv && used == o.used;
  }
};

// The model's credit classes (credits.hpp) for every data VL of a port.
class CreditReference {
 public:
  explicit CreditReference(const std::vector<uint32_t>& capacity_blocks);
  void apply(link::CreditEvent e, unsigned vl, uint32_t a, uint32_t b);
  CreditRegisters registers(unsigned vl) const;
  // Bit per VL: its head packet passes the credit test.
  uint32_t may_send(const link::VlCandidates& heads) const;

 private:
  std::array<link::CreditSender, link::kMaxDataVls> senders_{};
  std::array<link::CreditReceiver, link::kMaxDataVls> receivers_;
};

// "VL0 65 blocks, VL2 1 block" ("none" when empty), with "VL15" first when it waits.
std::string describe_requests(const link::VlCandidates& c, bool vl15 = false);
std::string describe_vl_mask(uint32_t mask);
std::string describe_grant(int vl);
std::string describe_event(link::CreditEvent e, unsigned vl, uint32_t a, uint32_t b);
// The registers that differ, "FCTBS C++ 65, RTL 64; ABR ..."; empty when equal.
std::string credit_differences(const CreditRegisters& expected, const CreditRegisters& actual);
// "1.234567 us".
std::string describe_time(uint64_t ps);

}  // namespace hcasim::rtl
