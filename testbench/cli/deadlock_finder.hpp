#pragma once
// Finds a deadlock in a fabric as it stands: receive buffers that wait on each
// other in a cycle. A switch input VL waits on the next buffer when its routed
// head packet cannot enter its output VL's queue (no room), the head of that
// queue needs more credits than it has, and the peer's receive buffer on that
// VL has less free space than the head needs (so no credit is on the way). A
// buffer in such a cycle never frees space: its head waits on the next one,
// all round. HCAs consume what they receive, so a cycle runs through switches
// only. What min-hop's credit loop on a torus closes into under load.

#include <string>
#include <vector>

#include "models/fabric/fabric.hpp"

namespace hcasim {

// One cycle of waiting buffers as "<port> VL <n>" in wait order; empty = none.
std::vector<std::string> find_deadlock(const fabric::Fabric& f);

}  // namespace hcasim
