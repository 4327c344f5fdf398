#include "models/switch/crossbar_allocator.hpp"

#include <stdexcept>

namespace hcasim::sw {

CrossbarAllocator::CrossbarAllocator(unsigned inputs, unsigned outputs)
    : inputs_(inputs),
      words_((inputs * kVlSlots + 63) / 64),
      mask_(static_cast<std::size_t>(outputs) * words_, 0),
      out_ptr_(outputs, 0),
      requests_(outputs, 0),
      input_vls_(inputs, 0),
      in_ptr_(inputs, 0),
      target_(static_cast<std::size_t>(inputs) * kVlSlots, 0),
      input_busy_(inputs, 0),
      output_busy_(outputs, 0) {
  if (inputs == 0 || outputs == 0) throw std::invalid_argument("crossbar needs at least one input and one output");
}

void CrossbarAllocator::request(unsigned input, unsigned vl, unsigned output) {
  const std::size_t id = slot(input, vl);
  target_[id] = static_cast<uint16_t>(output);
  input_vls_[input] = static_cast<uint16_t>(input_vls_[input] | (1u << vl));
  mask_[static_cast<std::size_t>(output) * words_ + id / 64] |= uint64_t{1} << (id % 64);
  ++requests_[output];
}

void CrossbarAllocator::grant(const Grant& g) {
  const std::size_t id = slot(g.input, g.vl);
  mask_[static_cast<std::size_t>(g.output) * words_ + id / 64] &= ~(uint64_t{1} << (id % 64));
  --requests_[g.output];
  input_vls_[g.input] = static_cast<uint16_t>(input_vls_[g.input] & ~(1u << g.vl));
  input_busy_[g.input] = 1;
  output_busy_[g.output] = 1;
  out_ptr_[g.output] = static_cast<uint32_t>((id + 1) % (static_cast<std::size_t>(inputs_) * kVlSlots));
  in_ptr_[g.input] = static_cast<uint8_t>((g.vl + 1) % kVlSlots);
}

void CrossbarAllocator::release(unsigned input, unsigned output) {
  input_busy_[input] = 0;
  output_busy_[output] = 0;
}

}  // namespace hcasim::sw
