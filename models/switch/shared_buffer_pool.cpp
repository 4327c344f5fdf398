#include "models/switch/shared_buffer_pool.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace hcasim::sw {

SharedBufferPool::SharedBufferPool(uint32_t input_vls, uint64_t total_blocks, uint32_t reserved_blocks, double alpha)
    : reserved_(reserved_blocks), alpha_(alpha), draw_(input_vls, 0) {
  if (input_vls == 0) throw std::invalid_argument("shared buffer pool for no input VL");
  if (!(alpha > 0) || !std::isfinite(alpha))
    throw std::invalid_argument("shared buffer alpha " + std::to_string(alpha) + "; accepted: a number > 0");
  const uint64_t reserved_all = uint64_t{input_vls} * reserved_blocks;
  if (reserved_all > total_blocks)
    throw std::invalid_argument("shared buffer pool of " + std::to_string(total_blocks) + " blocks cannot reserve " +
                                std::to_string(reserved_blocks) + " for each of " + std::to_string(input_vls) +
                                " input VLs");
  shared_ = total_blocks - reserved_all;
}

uint32_t SharedBufferPool::resize(uint32_t input_vl, uint32_t committed_blocks) {
  uint32_t& draw = draw_[input_vl];
  drawn_ -= draw;
  const uint64_t free = shared_ - drawn_;  // what the other VLs leave
  const auto target = static_cast<uint64_t>(std::floor(alpha_ * static_cast<double>(free) / (1.0 + alpha_)));
  const uint64_t needed = committed_blocks > reserved_ ? committed_blocks - reserved_ : 0;
  // needed <= the old draw <= free: the commitment was within the old capacity.
  draw = static_cast<uint32_t>(std::min(free, std::max(needed, target)));
  drawn_ += draw;
  peak_drawn_ = std::max(peak_drawn_, drawn_);
  return reserved_ + draw;
}

}  // namespace hcasim::sw
