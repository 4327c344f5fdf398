#pragma once
// Congestion control in a scenario ("congestion_control"; IBA Annex A10,
// docs/congestion-control.md): the settings the pre-configured mode installs
// at time zero in every switch and HCA, as the attributes a CC manager would
// Set (cc_attributes.hpp). Off by default, so that no result moves.
//
// Rules:
// - enabled false: nothing is installed; switches mark nothing, HCAs neither
//   return BECNs nor delay packets.
// - switch: one SwitchCongestionSetting for every switch (Threshold,
//   Packet_Size, Marking_Rate; victim_marking sets every port's Victim_Mask
//   bit). Per-port settings are not configurable here.
// - ca: one CACongestionSetting for every HCA port: control_type per_qp (a
//   CCTI per QP; a raw-traffic flow is a QP of its own) or per_sl (one per SL
//   of the port), and the same entry for all sixteen SLs.
// - The Congestion Control Table: cct, when given, is the list of its 16-bit
//   entries {CCT_Shift 15:14, CCT_Multiplier 13:0} from CCTI 0; otherwise it is
//   generated: entry i = {cct_shift, i x cct_step} (multiplier capped at
//   16383), for CCTIs 0..ccti_limit. So by default CCTI i delays a packet of
//   transmission time T by T x i / 4 (cc_injection.hpp): the flow's rate is
//   the link's x 4 / (4 + i).
// - In band (management.in_band) the CC manager (mgmt/cc_manager.hpp) Sets
//   the same attributes through every node's CC agent after the SM's sweep,
//   its MADs carrying cc_key.
// - ccti_min above ccti_limit, or a cct shorter than ccti_limit + 1 entries,
//   is an error.

#include <cstdint>
#include <string>
#include <vector>

#include "models/config/config_io.hpp"
#include "models/ib/cc_attributes.hpp"

namespace hcasim::config {

enum class CcControlType { PerQp, PerSl };

constexpr uint32_t kCcTableEntries = 256;  // model: CongestionInfo.ControlTableCap 4 blocks of 64 entries

struct SwitchCcConfig {
  uint32_t threshold = 8;         // 0-15: 0 never marks, 15 marks from 1/16 of the VL's transmit buffer (cc_marking.hpp)
  uint32_t marking_rate = 0;      // unmarked eligible packets between two marked ones
  uint32_t packet_size = 0;       // 64-byte credits: smaller packets are not marked; 0 = all
  bool victim_marking = false;    // every port's Victim_Mask bit: a VL without credit marks too
};

template <class Io>
void describe(Io& io, SwitchCcConfig& c) {
  io.uint("threshold", c.threshold, 0, 15,
          "Threshold: 0 never marks, t marks at a VL whose transmit queue holds (16 - t)/16 of its buffer");
  io.uint("marking_rate", c.marking_rate, 0, 0xFFFF, "Marking_Rate: unmarked eligible packets between marked ones");
  io.uint("packet_size", c.packet_size, 0, 0xFF,
          "Packet_Size in 64-byte credits: packets of fewer bytes are not marked; 0 = every packet");
  io.boolean("victim_marking", c.victim_marking,
             "Victim_Mask bit of every port: a congested VL without credit (a victim) marks too");
}

struct CaCcConfig {
  CcControlType control_type = CcControlType::PerQp;  // CACongestionSetting.Port_Control bit 0
  uint32_t ccti_increase = 1;     // CCTI added per BECN
  uint32_t ccti_limit = 127;      // largest CCTI (CongestionControlTable.CCTI_Limit)
  uint32_t ccti_min = 0;          // smallest CCTI
  uint32_t ccti_timer = 10;       // 1.024 us units between two decrements of the CCTI; 0 = never
  uint32_t trigger_threshold = 0; // CCTI that logs a congestion event
  uint32_t cct_shift = 2;         // generated table: CCT_Shift of every entry
  uint32_t cct_step = 1;          // generated table: entry i's multiplier is i x cct_step
  std::vector<uint32_t> cct;      // explicit table entries (16-bit words) from CCTI 0; [] = generated
};

template <class Io>
void describe(Io& io, CaCcConfig& c) {
  io.choice("control_type", c.control_type,
            Names<CcControlType>{{"per_qp", CcControlType::PerQp}, {"per_sl", CcControlType::PerSl}},
            "Port_Control: a CCTI per QP (a raw-traffic flow is a QP of its own) or per SL");
  io.uint("ccti_increase", c.ccti_increase, 0, 0xFF, "CCTI_Increase: added to the CCTI per BECN received");
  io.uint("ccti_limit", c.ccti_limit, 0, kCcTableEntries - 1,
          "CCTI_Limit: the largest CCTI (the table's last entry; the model's table has 4 blocks of 64)");
  io.uint("ccti_min", c.ccti_min, 0, 0xFF, "CCTI_Min: the CCTI timer never lowers the CCTI below it");
  io.uint("ccti_timer", c.ccti_timer, 0, 0xFFFF,
          "CCTI_Timer in 1.024 us: each expiry lowers the CCTI by 1; 0 = never expires");
  io.uint("trigger_threshold", c.trigger_threshold, 0, 0xFF,
          "Trigger_Threshold: a CCTI reaching it counts a congestion event");
  io.uint("cct_shift", c.cct_shift, 0, 3, "generated table: CCT_Shift of every entry");
  io.uint("cct_step", c.cct_step, 0, 0x3FFF,
          "generated table: entry i is {cct_shift, i x cct_step}; delay after a packet of time T = T x multiplier "
          "/ 2^shift");
  io.uint_list("cct", c.cct, 0, 0xFFFF, 0, kCcTableEntries,
               "explicit Congestion Control Table: 16-bit entries (shift 15:14, multiplier 13:0) from CCTI 0, at "
               "least ccti_limit + 1 of them; [] = generated");
  if (c.ccti_min > c.ccti_limit)
    io.fail("ccti_min", std::to_string(c.ccti_min) + " is above ccti_limit (" + std::to_string(c.ccti_limit) +
                            "); accepted: 0.." + std::to_string(c.ccti_limit));
  if (!c.cct.empty() && c.cct.size() < c.ccti_limit + 1u)
    io.fail("cct", std::to_string(c.cct.size()) + " entries for ccti_limit " + std::to_string(c.ccti_limit) +
                       "; accepted: at least " + std::to_string(c.ccti_limit + 1u) + " entries, or [] for generated");
}

struct CongestionControlConfig {
  bool enabled = false;           // off: no marking, no BECNs, no delays
  uint64_t cc_key = 0;            // in band: the CC_Key the CC manager's MADs carry (OpenSM cc_key); 0 = none
  SwitchCcConfig switches;        // every switch
  CaCcConfig ca;                  // every HCA port
};

template <class Io>
void describe(Io& io, CongestionControlConfig& c) {
  io.boolean("enabled", c.enabled,
             "congestion control (IBA Annex A10) in every switch and HCA: installed at time zero, or in band set by "
             "the CC manager after the SM's sweep (docs/congestion-control.md)");
  io.uint64("cc_key", c.cc_key, 0, UINT64_MAX,
            "in band: the CC_Key every CC manager MAD carries (agents answer only their own key once set); 0 = none");
  io.object("switch", c.switches, "every switch: FECN marking (SwitchCongestionSetting)");
  io.object("ca", c.ca, "every HCA port: CCTI and injection delay (CACongestionSetting, CongestionControlTable)");
}

// The attributes the pre-configured mode installs.
ib::SwitchCongestionSetting switch_setting(const SwitchCcConfig& c);
ib::CaCongestionSetting ca_setting(const CaCcConfig& c);
// The table's entries, CCTI 0..ccti_limit (see the rules).
std::vector<ib::CctEntry> cct_entries(const CaCcConfig& c);

}  // namespace hcasim::config
