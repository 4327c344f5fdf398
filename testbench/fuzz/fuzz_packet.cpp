// libFuzzer harness: the data-packet decoder and encoder (models/ib/codec.hpp),
// every header (LRH, GRH, BTH, the extended headers), ICRC and VCRC.
//
// Input: byte 0 selects the mode, the rest is one packet's wire bytes.
// - bit 0 set: the ICRC and VCRC are recomputed (reseal_crcs) before decoding,
//   so the fuzzer reaches the header checks without having to forge CRCs;
//   clear: the bytes are decoded as they are, so the CRC checks are fuzzed.
// Asserts, when decode accepts:
// - the VCRC (and for IBA packets the ICRC) in the bytes equal the ones
//   computed over them;
// - encode(decoded) has the input's length, and differs from it only where
//   encode writes zero (reserved bits, pad bytes: codec.hpp) and in the CRCs;
//   with no such bit set in the input it is byte for byte the input;
// - the re-encoded bytes decode again and encode to themselves (a fixed point).
// When decode refuses: a reason is given, and `out` is left as it was.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "models/ib/codec.hpp"
#include "models/ib/crc.hpp"
#include "models/ib/layout.hpp"
#include "testbench/fuzz/fuzz_check.hpp"

using namespace hcasim::ib;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const bool reseal = data[0] & 1u;
  std::vector<uint8_t> wire(data + 1, data + size);
  if (reseal) reseal_crcs(wire);

  Packet p;
  p.payload_len = 12345;  // a sentinel: a refused decode leaves it
  const DecodeResult r = decode(wire.data(), wire.size(), p);
  if (!r.ok) {
    FUZZ_CHECK(r.error != DecodeError::None && !r.reason.empty(), "a refusal names its reason");
    FUZZ_CHECK(p.payload_len == 12345 && p.payload.empty(), "a refused decode leaves out unchanged");
    return 0;
  }
  FUZZ_CHECK(r.error == DecodeError::None && r.reason.empty(), "an accepted decode has no reason");
  FUZZ_CHECK(p.payload.size() == p.payload_len, "the payload holds payload_len bytes");
  const size_t n = wire.size();
  const size_t vcrc_at = n - kVcrcBytes;
  FUZZ_CHECK(compute_vcrc(wire.data(), vcrc_at) == load_le16(&wire[vcrc_at]), "VCRC matches");
  const bool iba = is_iba_transport(p.hdr.lrh.lnh);
  const size_t crc_at = iba ? vcrc_at - kIcrcBytes : vcrc_at;
  if (iba) {
    FUZZ_CHECK(compute_icrc(wire.data(), crc_at) == load_le32(&wire[crc_at]), "ICRC matches");
  }

  std::vector<uint8_t> again;
  encode(p, again);
  FUZZ_CHECK(again.size() == n, "re-encoding keeps the length");
  bool canonical = true;  // no reserved bit or pad byte set in the input
  for (size_t i = 0; i < crc_at; ++i) {
    FUZZ_CHECK((again[i] & ~wire[i]) == 0, "re-encoding sets no bit the input did not have");
    if (again[i] != wire[i]) canonical = false;
  }
  if (canonical) FUZZ_CHECK(again == wire, "a canonical packet re-encodes to the same bytes");

  Packet q;
  FUZZ_CHECK(decode(again.data(), again.size(), q).ok, "the re-encoded packet decodes");
  std::vector<uint8_t> third;
  encode(q, third);
  FUZZ_CHECK(third == again, "decode-encode is a fixed point");
  return 0;
}
