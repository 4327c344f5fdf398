#pragma once
// A completion queue: work completions in FIFO order, up to a fixed depth.
//
// Rules (ibv_create_cq(3), ibv_poll_cq(3)):
// - push adds a completion at the tail; poll(max, out) moves up to max from
//   the head to the end of out, oldest first, and returns how many it moved.
// - A push onto a full CQ is an overrun: the completion is lost, the CQ is in
//   error from then on (overrun() is true; verbs reports IBV_EVENT_CQ_ERR) and
//   every later push fails too. poll still hands out what the CQ holds.
// - Storage is a ring that grows on demand, doubling up to the depth, so an
//   idle CQ holds no completions' worth of memory (per-QP state budget).

#include <cstdint>
#include <vector>

#include "models/transport/verbs.hpp"

namespace hcasim::hca {

class CompletionQueue {
 public:
  // depth >= 1 (std::invalid_argument otherwise).
  explicit CompletionQueue(uint32_t depth);

  bool push(const transport::WorkCompletion& wc);
  uint32_t poll(uint32_t max, std::vector<transport::WorkCompletion>& out);

  uint32_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  uint32_t depth() const { return depth_; }
  bool overrun() const { return overrun_; }

 private:
  void grow();

  std::vector<transport::WorkCompletion> ring_;  // capacity ring_.size(), <= depth_
  uint32_t head_ = 0;   // index of the oldest completion
  uint32_t count_ = 0;
  uint32_t depth_;
  bool overrun_ = false;
};

}  // namespace hcasim::hca
