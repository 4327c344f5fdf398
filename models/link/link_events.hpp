#pragma once
// A scenario's link events: links taken physically down at a time and brought
// back up later (scenario key link_events; docs/fabric-events.md). Off by
// default: with no events nothing is scheduled.
//
// Rules:
// - An event names a link by a port at either end. At `down` the link goes
//   down (Port::take_down: both ports Down, PhysState Polling; queued and
//   in-flight packets dropped as link_down). At `up` the cable is back and
//   link training starts; `training` later the ports are LinkUp in PortState
//   Init (Port::bring_up). Armed and Active are the subnet manager's to set
//   (IBA 7.2); a pre-configured fabric without an SM leaves them in Init.
// - Training time: the sources give none (iba-facts, seeds); the default,
//   kDefaultTrainingPs, is the model's choice, stated so that a user
//   comparing with hardware sets it.
// - Events are applied in time order; one alarm (an SC_METHOD) is armed for
//   the next, so an idle schedule costs nothing. Equal times keep list order.
// - on_change runs after each transition with the two ports, so a node's
//   management agent can notice its port state change (Trap 128).

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "models/link/link_event_config.hpp"
#include "models/link/port.hpp"
#include "models/link/timeline.hpp"

namespace hcasim::link {

class LinkEvents {
 public:
  struct Event {
    Port* port = nullptr;  // one end; its peer is the other
    uint64_t down_ps = 0;
    uint64_t up_ps = 0;    // 0 = never
    uint64_t training_ps = 0;
  };
  explicit LinkEvents(std::vector<Event> events);
  LinkEvents(const LinkEvents&) = delete;
  LinkEvents& operator=(const LinkEvents&) = delete;

  void on_change(std::function<void(Port&, Port&, bool up)> f) { on_change_ = std::move(f); }
  uint64_t downs() const { return downs_; }  // links taken down so far
  uint64_t ups() const { return ups_; }      // links that finished training

 private:
  struct Step {
    uint64_t at_ps;
    Port* port;
    bool up;
  };
  void fire();

  std::vector<Step> steps_;  // in time order
  std::size_t next_ = 0;
  Alarm alarm_;
  std::function<void(Port&, Port&, bool)> on_change_;
  uint64_t downs_ = 0, ups_ = 0;
};

}  // namespace hcasim::link
