#include "models/mgmt/ar_programming.hpp"

#include <algorithm>

#include "models/ib/mad.hpp"
#include "models/routing/routing.hpp"

namespace hcasim::mgmt {

namespace {

constexpr uint32_t kGroupBlocks = sw::kArGroupCap / ib::kArGroupsPerBlock;
constexpr uint32_t kLidBlocks = (routing::kMaxUnicastLid + 1u) / ib::kArLidsPerBlock;  // the LFT's reach

}  // namespace

bool is_ar_attribute(uint16_t attr) {
  return attr == ib::kAttrHcasimArInfo || attr == ib::kAttrHcasimArGroupTable || attr == ib::kAttrHcasimArLidTable;
}

ib::ArInfo ar_info_of(const sw::AdaptiveRoutingConfig& c) {
  ib::ArInfo i;
  i.mode = static_cast<uint8_t>(c.mode);
  i.choice = static_cast<uint8_t>(c.choice);
  i.k = static_cast<uint8_t>(std::min<uint32_t>(c.k, 255));
  i.sl_mask = c.sl_mask;
  i.group_cap = static_cast<uint16_t>(sw::kArGroupCap);
  i.ageing_ps = c.ageing_ps;
  return i;
}

uint16_t get_ar_attribute(const sw::AdaptiveRouter& ar, uint16_t attr, uint32_t mod, uint8_t* out) {
  const sw::ArGroupTable& t = ar.groups();
  switch (attr) {
    case ib::kAttrHcasimArInfo:
      if (mod != 0) return ib::kStatusInvalidAttribute;
      ar_info_of(ar.config()).encode(out);
      return ib::kStatusOk;
    case ib::kAttrHcasimArGroupTable: {
      if (mod >= kGroupBlocks) return ib::kStatusInvalidAttribute;
      ib::ArGroupBlock b;
      for (unsigned i = 0; i < ib::kArGroupsPerBlock; ++i)
        if (const std::size_t g = mod * ib::kArGroupsPerBlock + i; g < t.ports.size()) b.ports[i] = t.ports[g];
      b.encode(out);
      return ib::kStatusOk;
    }
    case ib::kAttrHcasimArLidTable: {
      if (mod >= kLidBlocks) return ib::kStatusInvalidAttribute;
      ib::ArLidBlock b;
      for (unsigned i = 0; i < ib::kArLidsPerBlock; ++i)
        b.group[i] = t.group(static_cast<uint16_t>(mod * ib::kArLidsPerBlock + i));
      b.encode(out);
      return ib::kStatusOk;
    }
    default: return ib::kStatusUnsupportedMethodAttr;
  }
}

uint16_t set_ar_attribute(sw::AdaptiveRouter& ar, unsigned port_count, uint16_t attr, uint32_t mod, const uint8_t* in) {
  switch (attr) {
    case ib::kAttrHcasimArInfo: {
      ib::ArInfo i;
      i.decode(in);
      if (mod != 0 || i.mode > 2 || i.choice > 2 || i.k == 0) return ib::kStatusInvalidAttribute;
      sw::AdaptiveRoutingConfig c = ar.config();
      c.mode = static_cast<sw::ArMode>(i.mode);
      c.choice = static_cast<sw::ArChoice>(i.choice);
      c.k = i.k;
      c.sl_mask = i.sl_mask;
      c.ageing_ps = i.ageing_ps;
      ar.set_settings(c);
      return ib::kStatusOk;
    }
    case ib::kAttrHcasimArGroupTable: {
      if (mod >= kGroupBlocks) return ib::kStatusInvalidAttribute;
      ib::ArGroupBlock b;
      b.decode(in);
      for (const std::vector<uint8_t>& ports : b.ports)
        if (!ports.empty() && ports.back() > port_count) return ib::kStatusInvalidAttribute;
      for (unsigned i = 0; i < ib::kArGroupsPerBlock; ++i)
        ar.set_group(static_cast<uint16_t>(mod * ib::kArGroupsPerBlock + i), std::move(b.ports[i]));
      return ib::kStatusOk;
    }
    case ib::kAttrHcasimArLidTable: {
      if (mod >= kLidBlocks) return ib::kStatusInvalidAttribute;
      ib::ArLidBlock b;
      b.decode(in);
      for (uint16_t g : b.group)
        if (g >= sw::kArGroupCap) return ib::kStatusInvalidAttribute;
      ar.set_lid_groups(static_cast<uint16_t>(mod * ib::kArLidsPerBlock), b.group.data(), ib::kArLidsPerBlock);
      return ib::kStatusOk;
    }
    default: return ib::kStatusUnsupportedMethodAttr;
  }
}

}  // namespace hcasim::mgmt
