// libFuzzer harness: the MAD decoders (models/ib/mad.hpp: common header, SMP
// LID-routed and directed route, SA MAD; cc_mad.hpp: CC MAD) and every
// attribute and SA record body with encode/decode (mad_attributes.hpp,
// sa_record_types.hpp, sm_info.hpp, notice.hpp, cc_attributes.hpp).
//
// Input: byte 0 picks the decoder (modulo their number); the rest, cut or
// zero-padded to that decoder's size, is what it reads.
// Asserts, for every decoder (encode writes reserved bits and bytes as zero):
// - encode(decode(x)) keeps every bit of a field and sets no bit x did not
//   have (it may only clear reserved bits);
// - decode(encode(decode(x))) encodes to the same bytes (a fixed point), so a
//   decoded attribute re-encodes identically;
// - a MAD decoder that refuses (wrong base version or class) leaves its
//   output unchanged, and refuses only for those reasons.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "models/ib/cc_attributes.hpp"
#include "models/ib/cc_mad.hpp"
#include "models/ib/mad.hpp"
#include "models/ib/mad_attributes.hpp"
#include "models/ib/notice.hpp"
#include "models/ib/sa_record_types.hpp"
#include "models/ib/sm_info.hpp"
#include "testbench/fuzz/fuzz_check.hpp"

using namespace hcasim::ib;

namespace {

// y = encode(decode(x)), then the checks above. encode/decode are callables.
template <typename Decode, typename Encode>
void round_trip(const uint8_t* in, size_t bytes, Decode dec, Encode enc) {
  std::vector<uint8_t> x(bytes, 0), y(bytes, 0), z(bytes, 0);
  std::memcpy(x.data(), in, bytes);
  if (!dec(x.data(), 0)) return;
  enc(y.data(), 0);
  for (size_t i = 0; i < bytes; ++i) {
    if ((y[i] & ~x[i]) != 0) std::fprintf(stderr, "byte %zu: input %02x, re-encoded %02x\n", i, x[i], y[i]);
    FUZZ_CHECK((y[i] & ~x[i]) == 0, "re-encoding sets no bit the input did not have");
  }
  FUZZ_CHECK(dec(y.data(), 1), "the re-encoded bytes decode");
  enc(z.data(), 1);
  FUZZ_CHECK(y == z, "decode-encode is a fixed point");
}

// An attribute type T with kBytes, encode(out) and decode(in).
template <typename T>
void attribute(const uint8_t* in) {
  T a[2];
  round_trip(
      in, T::kBytes, [&](const uint8_t* b, int k) { a[k] = T{}; a[k].decode(b); return true; },
      [&](uint8_t* b, int k) { a[k].encode(b); });
}

// The management classes each MAD decoder takes (mad.hpp, cc_mad.hpp).
template <typename M> bool class_accepted(uint8_t cls);
template <> bool class_accepted<MadHeader>(uint8_t) { return true; }
template <> bool class_accepted<Smp>(uint8_t cls) { return cls == kClassSubnLid || cls == kClassSubnDr; }
template <> bool class_accepted<SaMad>(uint8_t cls) { return cls == kClassSubnAdm; }
template <> bool class_accepted<CcMad>(uint8_t cls) { return cls == kClassCongestionControl; }

// A MAD type M with free encode/decode of kMadBytes.
template <typename M>
void mad(const uint8_t* in) {
  M m[2];
  round_trip(
      in, kMadBytes,
      [&](const uint8_t* b, int k) {
        const M before = m[k];
        const bool ok = decode(b, m[k]);
        FUZZ_CHECK(ok == (b[0] == kMadBaseVersion && class_accepted<M>(b[1])),
                   "refuses exactly a wrong base version or class");
        if (!ok) {
          std::vector<uint8_t> e1(kMadBytes), e2(kMadBytes);
          encode(before, e1.data());
          encode(m[k], e2.data());
          FUZZ_CHECK(e1 == e2, "a refused MAD decode leaves its output unchanged");
        }
        return ok;
      },
      [&](uint8_t* b, int k) { encode(m[k], b); });
}

// A CongestionLog's LogType byte (0) is the type's own constant, which encode
// writes (1 switch, 2 CA) and decode does not read: the input carries it.
template <typename T>
void congestion_log(const uint8_t* in, uint8_t log_type) {
  uint8_t x[T::kBytes];
  std::memcpy(x, in, T::kBytes);
  x[0] = log_type;
  attribute<T>(x);
}
void log_switch(const uint8_t* in) { congestion_log<CongestionLogSwitch>(in, 1); }
void log_ca(const uint8_t* in) { congestion_log<CongestionLogCa>(in, 2); }

void notice_smp(const uint8_t* in) {
  Notice a[2];
  round_trip(
      in, Notice::kSmpBytes, [&](const uint8_t* b, int k) { a[k] = Notice{}; a[k].decode_smp(b); return true; },
      [&](uint8_t* b, int k) { a[k].encode_smp(b); });
}

using Fn = void (*)(const uint8_t*);
const Fn kDecoders[] = {
    mad<MadHeader>, mad<Smp>, mad<SaMad>, mad<CcMad>,
    attribute<NodeInfo>, attribute<NodeDescription>, attribute<PortInfo>, attribute<SwitchInfo>,
    attribute<LftBlock>, attribute<SlToVlTable>, attribute<VlArbBlock>, attribute<PkeyTableBlock>,
    attribute<ClassPortInfo>, attribute<SmInfo>, attribute<Notice>, notice_smp,
    attribute<NodeRecord>, attribute<PortInfoRecord>, attribute<LinkRecord>, attribute<PathRecord>,
    attribute<Sl2VlRecord>, attribute<VlArbRecord>,
    attribute<CongestionInfo>, attribute<CongestionKeyInfo>, log_switch,
    log_ca, attribute<SwitchCongestionSetting>, attribute<SwitchPortCongestionSetting>,
    attribute<CaCongestionSetting>, attribute<CongestionControlTable>, attribute<TimeStamp>,
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  uint8_t buf[kMadBytes] = {};
  std::memcpy(buf, data + 1, std::min<size_t>(size - 1, kMadBytes));
  kDecoders[data[0] % (sizeof kDecoders / sizeof kDecoders[0])](buf);
  return 0;
}
