// CRCs against the [MPGA] test vectors of iba-facts ("Test vectors").
#include <catch2/catch.hpp>

#include <vector>

#include "models/ib/crc.hpp"

using namespace hcasim::ib;

namespace {
// 52-byte local (LNH 2) packet, LRH through pad, from iba-facts "Test vectors".
const std::vector<uint8_t> kMpga = {
    0x70, 0x12, 0x37, 0x5C, 0x00, 0x0E, 0x17, 0xD2, 0x0A, 0x20, 0x24, 0x87, 0x00,
    0x87, 0xB1, 0xB3, 0x00, 0x0D, 0xEC, 0x2A, 0x01, 0x71, 0x0A, 0x1C, 0x01, 0x5D,
    0x40, 0x02, 0x38, 0xF2, 0x7A, 0x05, 0x00, 0x00, 0x00, 0x0E, 0xBB, 0x88, 0x4D,
    0x85, 0xFD, 0x5C, 0xFB, 0xA4, 0x72, 0x8B, 0xC0, 0x69, 0x0E, 0xD4, 0x00, 0x00};
}  // namespace

TEST_CASE("standard CRC-32 check value", "[crc]") {
  const uint8_t s[] = {'1', '2', '3', '4', '5', '6', '7', '8', '9'};
  CHECK(crc32_iba(s, sizeof s) == 0xCBF43926u);  // the CRC-32 (zlib) check value
}

TEST_CASE("ICRC of the MPGA vector is 0x5AB72596 - sent as 96 25 B7 5A", "[crc]") {
  const uint32_t icrc = compute_icrc(kMpga.data(), kMpga.size());
  CHECK(icrc == 0x5AB72596u);
  uint8_t wire[4];
  store_le32(wire, icrc);
  CHECK(wire[0] == 0x96);
  CHECK(wire[1] == 0x25);
  CHECK(wire[2] == 0xB7);
  CHECK(wire[3] == 0x5A);
}

TEST_CASE("ICRC ignores the variant fields of a local packet", "[crc]") {
  std::vector<uint8_t> p = kMpga;
  p[0] = static_cast<uint8_t>((p[0] & 0x0F) | 0xE0);  // another VL
  p[12] = 0xC3;                                       // BTH Resv8a (FECN/BECN)
  CHECK(compute_icrc(p.data(), p.size()) == 0x5AB72596u);
  p[0] ^= 0x01;  // LVer is invariant
  CHECK(compute_icrc(p.data(), p.size()) != 0x5AB72596u);
}

TEST_CASE("ICRC of a global packet masks the whole LRH and the GRH variant fields", "[crc]") {
  // Same transport part behind a GRH; LNH 3.
  std::vector<uint8_t> p(kMpga.begin(), kMpga.begin() + 8);
  p[1] = static_cast<uint8_t>((p[1] & 0xFC) | 3);
  std::vector<uint8_t> grh(40);
  for (size_t i = 0; i < grh.size(); ++i) grh[i] = static_cast<uint8_t>(i * 7 + 1);
  grh[0] = 0x60;
  grh[6] = 0x1B;
  p.insert(p.end(), grh.begin(), grh.end());
  p.insert(p.end(), kMpga.begin() + 8, kMpga.end());
  const uint32_t base = compute_icrc(p.data(), p.size());
  std::vector<uint8_t> q = p;
  for (int i = 0; i < 8; ++i) q[i] = static_cast<uint8_t>(q[i] ^ 0x5C);  // any LRH change but LNH
  q[8] ^= 0x0F;                   // TClass high nibble
  q[9] ^= 0xFF;                   // TClass low nibble + FlowLabel high nibble
  q[10] ^= 0xFF;                  // FlowLabel
  q[11] ^= 0xFF;
  q[15] ^= 0xFF;                  // HopLmt
  q[8 + 40 + 4] ^= 0xFF;          // BTH Resv8a
  CHECK(compute_icrc(q.data(), q.size()) == base);
  for (size_t i : {size_t{8 + 4}, size_t{8 + 6}, size_t{8 + 8}, size_t{8 + 39}, size_t{8 + 40}}) {
    INFO("invariant byte " << i);  // PayLen, NxtHdr, SGID, DGID, opcode
    std::vector<uint8_t> r = p;
    r[i] ^= 0x01;
    CHECK(compute_icrc(r.data(), r.size()) != base);
  }
  std::vector<uint8_t> r = p;
  r[8] ^= 0x10;  // IPVer is invariant
  CHECK(compute_icrc(r.data(), r.size()) != base);
}

TEST_CASE("VCRC of the MPGA vector is 0xFA45 and the residue is 0xAA90 with little-endian VCRC", "[crc]") {
  std::vector<uint8_t> p = kMpga;
  p.resize(56);
  store_le32(&p[52], 0x5AB72596u);
  const uint16_t vcrc = compute_vcrc(p.data(), p.size());
  CHECK(vcrc == 0xFA45);
  p.resize(58);
  store_le16(&p[56], vcrc);
  CHECK(crc16_iba(p.data(), p.size()) == kVcrcResidue);
  // Big-endian order would not give the constant residue.
  p[56] = static_cast<uint8_t>(vcrc >> 8);
  p[57] = static_cast<uint8_t>(vcrc);
  CHECK(crc16_iba(p.data(), p.size()) != kVcrcResidue);
}

TEST_CASE("streaming updates equal one-shot CRCs", "[crc]") {
  const uint32_t r32 = crc32_update(crc32_update(kCrc32Init, kMpga.data(), 20),
                                    kMpga.data() + 20, kMpga.size() - 20);
  CHECK((r32 ^ kCrc32Init) == crc32_iba(kMpga.data(), kMpga.size()));
  const uint16_t r16 = crc16_update(crc16_update(kCrc16Init, kMpga.data(), 7),
                                    kMpga.data() + 7, kMpga.size() - 7);
  CHECK(static_cast<uint16_t>(r16 ^ kCrc16Init) == crc16_iba(kMpga.data(), kMpga.size()));
}

TEST_CASE("ICRC of short or raw input does not read past it", "[crc]") {
  for (size_t n = 0; n < kMpga.size(); ++n) {
    std::vector<uint8_t> copy(kMpga.begin(), kMpga.begin() + static_cast<long>(n));
    (void)compute_icrc(copy.data(), copy.size());  // ASan checks the bounds
  }
  std::vector<uint8_t> raw = kMpga;
  raw[1] &= 0xFC;  // LNH 0
  CHECK(compute_icrc(raw.data(), raw.size()) == 0);
}
