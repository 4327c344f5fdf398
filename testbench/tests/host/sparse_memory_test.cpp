// Sparse host memory: pages on first write, zeros elsewhere.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "models/host/sparse_memory.hpp"

using hcasim::host::SparseMemory;

TEST_CASE("writes far apart allocate one page each") {
  SparseMemory m;
  uint8_t b = 0xAB;
  m.write(uint64_t{1} << 60, &b, 1);
  m.write(0, &b, 1);
  REQUIRE(m.pages() == 2);
  REQUIRE(m.bytes_allocated() == 2 * 4096);
  uint8_t r = 0;
  m.read(uint64_t{1} << 60, &r, 1);
  REQUIRE(r == 0xAB);
}

TEST_CASE("untouched bytes read as zero and allocate nothing") {
  SparseMemory m;
  std::vector<uint8_t> out(10000, 0xFF);
  m.read(123456789, out.data(), out.size());
  for (uint8_t v : out) REQUIRE(v == 0);
  REQUIRE(m.pages() == 0);
  REQUIRE(m.read_u64(uint64_t{1} << 40) == 0);
  REQUIRE(m.pages() == 0);
}

TEST_CASE("a write across page boundaries reads back") {
  SparseMemory m;
  std::vector<uint8_t> data(3 * 4096 + 10);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 7 + 1);
  const uint64_t addr = 4096 - 5;  // starts 5 bytes before a page boundary
  m.write(addr, data.data(), data.size());
  REQUIRE(m.pages() == 5);  // pages 0 to 4
  std::vector<uint8_t> back(data.size() + 20);
  m.read(addr - 10, back.data(), back.size());
  for (size_t i = 0; i < 10; ++i) REQUIRE(back[i] == 0);
  for (size_t i = 0; i < data.size(); ++i) REQUIRE(back[10 + i] == data[i]);
  for (size_t i = 10 + data.size(); i < back.size(); ++i) REQUIRE(back[i] == 0);
}

TEST_CASE("u64 helpers are little-endian and may straddle pages") {
  SparseMemory m;
  m.write_u64(4092, 0x0102030405060708ull);
  uint8_t b[8];
  m.read(4092, b, 8);
  for (int i = 0; i < 8; ++i) REQUIRE(b[i] == 8 - i);
  REQUIRE(m.read_u64(4092) == 0x0102030405060708ull);
  REQUIRE(m.pages() == 2);
}

TEST_CASE("the last page of the address space is usable") {
  SparseMemory m;
  const uint64_t top = ~uint64_t{0} - 7;
  m.write_u64(top, 42);
  REQUIRE(m.read_u64(top) == 42);
  REQUIRE(m.pages() == 1);
}
