#pragma once
// Small config structs that exercise every kind of field of config_io.hpp, described the way
// the model's real config structs are: defaults in the initializers, one describe() each.

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "models/config/config_io.hpp"
#include "models/config/units.hpp"

namespace hcasim::config::example {

enum class Speed { Sdr, Ddr, Qdr, Fdr, Edr, Hdr };

// Link width as "1x", "4x", "8x", "12x": a one-off format, read with io.custom.
inline uint32_t parse_width(const nlohmann::json& v, const std::string& path) {
  for (uint32_t lanes : {1u, 4u, 8u, 12u}) {
    if (v == std::to_string(lanes) + "x") return lanes;
  }
  throw ConfigError(path, json_excerpt(v) + " is not a link width; accepted: 1x, 4x, 8x, 12x");
}
inline nlohmann::json format_width(uint32_t lanes) { return std::to_string(lanes) + "x"; }

struct Entry {
  std::string name = "entry";  // label
  uint32_t weight = 1;         // arbitration weight, 1..255
  bool operator==(const Entry& o) const { return std::tie(name, weight) == std::tie(o.name, o.weight); }
};

template <class Io>
void describe(Io& io, Entry& c) {
  io.string("name", c.name, "label of the entry");
  io.uint("weight", c.weight, 1, 255, "arbitration weight");
}

struct Sub {
  bool enabled = false;  // switch for the sub-block
  double factor = 1.0;   // scale factor, 0..2
  std::vector<Entry> entries;
  bool operator==(const Sub& o) const {
    return std::tie(enabled, factor, entries) == std::tie(o.enabled, o.factor, o.entries);
  }
};

template <class Io>
void describe(Io& io, Sub& c) {
  io.boolean("enabled", c.enabled, "whether the sub-block is on");
  io.real("factor", c.factor, 0.0, 2.0, "scale factor");
  io.list("entries", c.entries, "entries of the sub-block");
}

struct LinkExample {
  uint64_t buffer = 65536;                   // bytes: receive buffer per VL
  uint32_t mtu = 4096;                       // bytes: path MTU
  uint32_t vls = 8;                          // data VLs, 1..15
  uint64_t packets = 1000;                   // packets to send
  double load = 0.5;                         // offered load, fraction of line rate
  bool lossless = true;                      // credit flow control on
  std::string name = "link";                 // label in statistics
  uint64_t latency_ps = 90000;               // ps: switch latency
  double rate_bps = 200e9;                   // bits/s: line rate
  double length_m = 3.0;                     // m: cable length
  Speed speed = Speed::Hdr;                  // IBA link speed
  uint32_t width = 4;                        // lanes
  std::vector<uint32_t> sl2vl = {0, 1, 2, 3};  // VL per SL
  std::vector<Entry> entries;                // arbitration entries, at most 4
  Sub sub;                                   // nested block

  bool operator==(const LinkExample& o) const {
    return std::tie(buffer, mtu, vls, packets, load, lossless, name, latency_ps, rate_bps, length_m, speed, width,
                    sl2vl, entries, sub) == std::tie(o.buffer, o.mtu, o.vls, o.packets, o.load, o.lossless, o.name,
                                                     o.latency_ps, o.rate_bps, o.length_m, o.speed, o.width,
                                                     o.sl2vl, o.entries, o.sub);
  }
};

template <class Io>
void describe(Io& io, LinkExample& c) {
  io.bytes("buffer", c.buffer, 64, 1ull << 30, "receive buffer per VL");
  io.uint_of("mtu", c.mtu, {256, 512, 1024, 2048, 4096}, "MTU in bytes");
  io.uint("vls", c.vls, 1, 15, "number of data VLs");
  io.uint64("packets", c.packets, 0, 1000000000000ull, "packets to send");
  io.real("load", c.load, 0.0, 1.0, "offered load as a fraction of the line rate");
  io.boolean("lossless", c.lossless, "credit-based flow control");
  io.string("name", c.name, "label in statistics");
  io.time("latency", c.latency_ps, 0, 1000000000, "switch latency");
  io.rate("rate", c.rate_bps, 1e6, 1e13, "line rate");
  io.length("length", c.length_m, 0.0, 1000.0, "cable length");
  io.choice("speed", c.speed,
            {{"SDR", Speed::Sdr}, {"DDR", Speed::Ddr}, {"QDR", Speed::Qdr}, {"FDR", Speed::Fdr},
             {"EDR", Speed::Edr}, {"HDR", Speed::Hdr}},
            "link speed");
  io.custom("width", c.width, parse_width, format_width, "1x, 4x, 8x, 12x", "link width");
  io.uint_list("sl2vl", c.sl2vl, 0, 14, 1, 16, "data VL for each SL");
  io.list("entries", c.entries, 0, 4, "arbitration entries");
  io.object("sub", c.sub, "a nested block");
}

// A fabric-like root: an object holding an object holding lists, for deep paths.
struct Root {
  LinkExample a;
  std::vector<LinkExample> links;
  bool operator==(const Root& o) const { return a == o.a && links == o.links; }
};

template <class Io>
void describe(Io& io, Root& c) {
  io.object("a", c.a, "one link");
  io.list("links", c.links, "more links");
}

// Cross-field rules: give length or propagation, not both; min_rate <= max_rate.
struct Cable {
  double length_m = 2.0;       // m: cable length, used when propagation is not given
  uint64_t propagation_ps = 0;  // ps: propagation delay; 0 = from length
  double min_rate_bps = 0;      // bits/s
  double max_rate_bps = 100e9;  // bits/s
};

template <class Io>
void describe(Io& io, Cable& c) {
  io.length("length", c.length_m, 0.0, 10000.0, "cable length");
  io.time("propagation", c.propagation_ps, 0, 1000000000, "propagation delay, instead of length");
  if (io.present("length") && io.present("propagation")) {
    io.fail("propagation", "given together with length; accepted: length or propagation, not both");
  }
  io.rate("min_rate", c.min_rate_bps, 0.0, kUnbounded, "lowest rate");
  io.rate("max_rate", c.max_rate_bps, 0.0, kUnbounded, "highest rate");
  if (c.min_rate_bps > c.max_rate_bps) {
    io.fail("min_rate", format_rate_bps(c.min_rate_bps) + " is above max_rate " + format_rate_bps(c.max_rate_bps) +
                            "; accepted: min_rate <= max_rate");
  }
}

}  // namespace hcasim::config::example
