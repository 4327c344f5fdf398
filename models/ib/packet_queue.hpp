#pragma once
// A FIFO of packets linked through Packet::next (an intrusive queue).
//
// Rules:
// - A packet is in at most one PacketQueue at a time; push_back requires that
//   it is in none. The queue does not own its packets.
// - Two pointers, no allocation: a port keeps one per VL and direction, so
//   thousands of ports cost little memory and a hop touches no queue node
//   beyond the packets themselves.

#include "models/ib/packet.hpp"

namespace hcasim::ib {

class PacketQueue {
 public:
  bool empty() const { return head_ == nullptr; }
  Packet* front() const { return head_; }
  void push_back(Packet* p) {
    p->next = nullptr;
    if (tail_ != nullptr) tail_->next = p;
    else head_ = p;
    tail_ = p;
  }
  // Requires !empty().
  Packet* pop_front() {
    Packet* p = head_;
    head_ = p->next;
    if (head_ == nullptr) tail_ = nullptr;
    p->next = nullptr;
    return p;
  }

 private:
  Packet* head_ = nullptr;
  Packet* tail_ = nullptr;
};

}  // namespace hcasim::ib
