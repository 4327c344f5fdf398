#pragma once
// A port's transmit decisions shared with logic outside the model: an RTL VL
// arbiter or credit manager behind a transactor (testbench/rtl), which
// answers in delta cycles at the same simulated time.
//
// Rules:
// - A cosim takes part in the arbitration (the grant of VL15 and data
//   decisions), in the credits (the credit test of data decisions and the
//   FCTBS and FCCL a flow-control packet carries), or both.
// - At a transmit decision it takes part in, the port asks (TxQuestion),
//   holds the Timeline and returns; the cosim answers (Port::tx_answer) later,
//   at the same simulated time; the port acts on the answer and releases the
//   Timeline. Nothing else in the model runs in between, so the model runs as
//   if the answer had come at once (timeline.hpp).
// - A credits cosim is told every credit event of the port's data VLs, in the
//   order they happen (a data packet sent, a flow-control packet taken, a data
//   packet buffered, buffer space released); they all come before the next
//   question.
// - The port keeps its own C++ credit accounting in every case (it decides
//   when flow-control packets are due and how long a VL stalls).

#include <cstdint>

#include "models/link/vl_arbiter.hpp"

namespace hcasim::link {

struct TxQuestion {
  enum class Kind : uint8_t { Vl15, FlowControl, Data };
  Kind kind = Kind::Data;
  uint8_t fc_vl = 0;          // FlowControl: the VL whose packet goes now
  VlCandidates heads{};       // blocks of each data VL's head packet, 0 = none
  VlCandidates candidates{};  // the heads that pass the port's own credit test
};

struct TxAnswer {
  TxQuestion::Kind kind = TxQuestion::Kind::Data;  // of the question answered
  uint8_t fc_vl = 0;
  int grant = -1;             // arbitration: 15 (Vl15), a data VL or -1 (Data)
  VlCandidates candidates{};  // Data: the heads that may go (the cosim's credit test, or the port's)
  uint16_t fctbs = 0;         // FlowControl: what the packet carries
  uint16_t fccl = 0;
};

enum class CreditEvent : uint8_t { Sent, FlowControl, Received, Released };

class TxCosim {
 public:
  TxCosim(bool arbitration, bool credits) : arbitration_(arbitration), credits_(credits) {}
  virtual ~TxCosim() = default;
  TxCosim(const TxCosim&) = delete;
  TxCosim& operator=(const TxCosim&) = delete;

  bool arbitration() const { return arbitration_; }
  bool credits() const { return credits_; }

  // Starts a decision; the answer goes to the port's tx_answer.
  virtual void ask(const TxQuestion& q) = 0;
  // Sent, Received, Released: a = blocks. FlowControl: a = FCCL, b = FCTBS.
  virtual void credit_event(CreditEvent e, unsigned vl, uint32_t a, uint32_t b) = 0;

 private:
  bool arbitration_;
  bool credits_;
};

}  // namespace hcasim::link
