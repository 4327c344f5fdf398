#pragma once
// The hop-pointer rules of directed-route SMPs (iba-facts 6, after the rules
// C14-9 (outbound) and C14-13 (return) that Linux's smi.c quotes). Pure logic.
//
// Rules, for an SMP whose DrSLID and DrDLID are both the permissive LID (the
// only kind the model's SM sends; iba-facts 6: OpenSM does the same):
// - Sending (the SM with D = 0 and hop pointer 0; an SMA answering with D = 1
//   and hop pointer hop count + 1): hop count 0 = the node's own SMA / SM,
//   never on the wire. Else outbound: hop pointer + 1, out of
//   InitialPath[hop pointer]; return: hop pointer - 1, out of
//   ReturnPath[hop pointer].
// - Receiving outbound (D = 0) on port `in`: with 0 < hop pointer < hop count
//   only a switch forwards: ReturnPath[hop pointer] = in, hop pointer + 1, out
//   of InitialPath[hop pointer]; with hop pointer = hop count the directed
//   part ends here: ReturnPath[hop pointer] = in, hop pointer + 1, deliver to
//   the node's SMA. Anything else is dropped.
// - Receiving return (D = 1): with 2 <= hop pointer <= hop count only a switch
//   forwards: hop pointer - 1, out of ReturnPath[hop pointer]; with hop
//   pointer 1: hop pointer 0, deliver to the node's SM. Anything else is
//   dropped.
// - An output port must exist (1..ports); a switch may send an SMP back out
//   of the port it came in on.

#include <cstdint>

#include "models/ib/mad.hpp"

namespace hcasim::mgmt {

enum class DrStep : uint8_t { Deliver, Forward, Drop };

struct DrAction {
  DrStep step = DrStep::Drop;
  unsigned out_port = 0;     // Forward: port number
};

// The originator's step (see the rules); updates the hop pointer.
DrAction dr_send(ib::Smp& smp, unsigned ports);
// A node's step for an SMP that arrived on port `in`; updates the hop pointer
// and the return path.
DrAction dr_receive(ib::Smp& smp, bool is_switch, unsigned in, unsigned ports);

}  // namespace hcasim::mgmt
