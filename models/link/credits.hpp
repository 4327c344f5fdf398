#pragma once
// Link-level credit flow control for one data VL, as plain arithmetic.
//
// Rules (IBA 7.9.4; seed 004 "Link-Level Flow Control"; iba-facts 2):
// - Credits are counted in 64-byte blocks; a packet of B bytes (LRH through
//   VCRC) costs ceil(B / 64) blocks.
// - The transmitter counts blocks sent in FCTBS, modulo 4096, and holds the
//   last FCCL the receiver advertised.
// - The receiver counts blocks received in ABR, modulo 4096; an arriving
//   flow-control packet sets ABR to its FCTBS (this heals lost packets); a
//   discarded packet does not count.
// - The receiver advertises FCCL = ABR + min(free blocks, 2048), modulo 4096.
// - Transmit test (the model's choice, iba-facts "Where the sources are
//   silent"): a packet of B blocks may go when
//   (FCCL - (FCTBS + B)) mod 4096 <= 2048.
// - VL15 is not flow-controlled and never uses these classes.

#include <algorithm>
#include <cstdint>

namespace hcasim::link {

constexpr uint32_t kCreditBlockBytes = 64;   // IBA 7.9.4 / iba-facts 2: 64-byte blocks
constexpr uint32_t kCreditModulus = 4096;    // FCTBS, ABR and FCCL are 12-bit counters
constexpr uint32_t kCreditMask = kCreditModulus - 1;
constexpr uint32_t kMaxAdvertisedBlocks = 2048;  // half the counter space (iba-facts 2)

constexpr uint32_t blocks_for(uint32_t bytes) {
  return (bytes + kCreditBlockBytes - 1) / kCreditBlockBytes;
}

// Transmitter side of one VL.
class CreditSender {
 public:
  bool may_send(uint32_t blocks) const {
    return ((uint32_t{fccl_} - (fctbs_ + blocks)) & kCreditMask) <= kMaxAdvertisedBlocks;
  }
  void on_sent(uint32_t blocks) { fctbs_ = static_cast<uint16_t>((fctbs_ + blocks) & kCreditMask); }
  void on_flow_control(uint16_t fccl) { fccl_ = static_cast<uint16_t>(fccl & kCreditMask); }

  uint16_t fctbs() const { return fctbs_; }
  uint16_t fccl() const { return fccl_; }
  // Blocks the transmitter may still send before the limit, when that is in
  // the valid window; 0 otherwise.
  uint32_t available() const {
    uint32_t a = (uint32_t{fccl_} - fctbs_) & kCreditMask;
    return a <= kMaxAdvertisedBlocks ? a : 0;
  }

 private:
  // 12-bit counters, 16 bits each: the pair shares its cache line with the
  // VL's queues (Port::Lane).
  uint16_t fctbs_ = 0;
  uint16_t fccl_ = 0;  // nothing may be sent before the first flow-control packet
};

// Receiver side of one VL: ABR and buffer occupancy in blocks.
class CreditReceiver {
 public:
  explicit CreditReceiver(uint32_t capacity_blocks = 0) : capacity_(capacity_blocks) {}

  // A data packet arrived. Returns false, and counts nothing, when it does not
  // fit in the buffer (an overflow: the sender broke the credit rule).
  bool on_packet(uint32_t blocks) {
    if (used_ + blocks > capacity_) return false;
    used_ += blocks;
    abr_ = (abr_ + blocks) & kCreditMask;
    return true;
  }
  void on_released(uint32_t blocks) { used_ -= std::min(blocks, used_); }
  void on_flow_control(uint16_t fctbs) { abr_ = fctbs & kCreditMask; }
  // Link (re-)initialization: ABR restarts at 0 (iba-facts 2); what the
  // buffer holds stays.
  void restart() { abr_ = 0; }

  uint16_t fccl() const {
    uint32_t free = capacity_ - used_;
    return static_cast<uint16_t>((abr_ + std::min(free, kMaxAdvertisedBlocks)) & kCreditMask);
  }
  // Blocks the sender can still send under an FCCL this receiver advertised.
  uint32_t sender_headroom(uint16_t advertised_fccl) const {
    return (advertised_fccl - abr_) & kCreditMask;
  }
  uint16_t abr() const { return static_cast<uint16_t>(abr_); }
  uint32_t used_blocks() const { return used_; }
  uint32_t capacity_blocks() const { return capacity_; }
  // A new buffer size (a shared-buffer switch's); not below used_blocks().
  void set_capacity(uint32_t blocks) { capacity_ = std::max(blocks, used_); }

 private:
  uint32_t capacity_ = 0;
  uint32_t used_ = 0;
  uint32_t abr_ = 0;
};

}  // namespace hcasim::link
