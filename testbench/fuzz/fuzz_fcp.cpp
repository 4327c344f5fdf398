// libFuzzer harness: the link flow-control packet (models/ib/codec.hpp,
// decode_fcp / encode_fcp; iba-facts 2).
//
// Input: byte 0 selects the mode, the rest is the packet's bytes.
// - bit 0 set: the LPCRC of the first 4 bytes is written into bytes 4-5
//   before decoding (when there are 6), so Op, VL and the counters are fuzzed
//   past the CRC check; clear: decoded as they are.
// Asserts: decode accepts only 6 bytes with a matching LPCRC and Op 0 or 1,
// and then encode gives exactly the input bytes (the FCP has no reserved
// bits); a refusal names its reason and leaves `out` unchanged.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "models/ib/codec.hpp"
#include "models/ib/crc.hpp"
#include "testbench/fuzz/fuzz_check.hpp"

using namespace hcasim::ib;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  std::vector<uint8_t> wire(data + 1, data + size);
  if ((data[0] & 1u) && wire.size() == kFlowControlBytes) store_le16(&wire[4], compute_lpcrc(wire.data()));

  FlowControl fc;
  fc.fccl = 0xABC;  // sentinel
  const DecodeResult r = decode_fcp(wire.data(), wire.size(), fc);
  if (!r.ok) {
    FUZZ_CHECK(!r.reason.empty(), "a refusal names its reason");
    FUZZ_CHECK(fc.fccl == 0xABC, "a refused decode leaves out unchanged");
    return 0;
  }
  FUZZ_CHECK(wire.size() == kFlowControlBytes, "only 6 bytes are accepted");
  FUZZ_CHECK(compute_lpcrc(wire.data()) == load_le16(&wire[4]), "the LPCRC matches");
  FUZZ_CHECK(fc.op == kFcpOpNormal || fc.op == kFcpOpInit, "Op is 0 or 1");
  uint8_t again[kFlowControlBytes];
  encode_fcp(fc, again);
  FUZZ_CHECK(std::memcmp(again, wire.data(), kFlowControlBytes) == 0, "re-encodes to the same 6 bytes");
  return 0;
}
