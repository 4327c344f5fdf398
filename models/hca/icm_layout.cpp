#include "models/hca/icm_layout.hpp"

namespace hcasim::hca {

namespace {
constexpr uint64_t kAlign = 4096;
uint64_t aligned(uint64_t a) { return (a + kAlign - 1) / kAlign * kAlign; }
}  // namespace

IcmLayout::IcmLayout(uint64_t base, const IcmEntryBytes& bytes) : bytes_(bytes) {
  qpc_ = aligned(base);
  cqc_ = aligned(qpc_ + kQpcEntries * bytes.qpc);
  mpt_ = aligned(cqc_ + kCqcEntries * bytes.cqc);
  mtt_ = aligned(mpt_ + kMptEntries * bytes.mpt);
  end_ = aligned(mtt_ + kMttEntries * bytes.mtt);
}

}  // namespace hcasim::hca
