#pragma once
// One link event of a scenario (link_events.hpp has the rules), as the
// scenario file states it. Plain data, so the fabric description carries it
// without SystemC.

#include <cstdint>
#include <string>

namespace hcasim::link {

// Link training time: no source gives one (iba-facts, seeds); 100 us is the
// model's choice, stated so that a user comparing with hardware sets it.
constexpr uint64_t kDefaultTrainingPs = 100'000'000;

struct LinkEventConfig {
  std::string link;                           // a port at either end of the link, e.g. "sw0.p3"
  uint64_t down_ps = 0;                       // when the link goes down
  uint64_t up_ps = 0;                         // when it is reconnected; 0 = never
  uint64_t training_ps = kDefaultTrainingPs;  // from reconnection to LinkUp (PortState Init)
};

}  // namespace hcasim::link
