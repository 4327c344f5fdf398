// timeseries.csv's rows (models/trace/time_series.hpp): the header, an empty
// vl column for flows and QPs, full 64-bit values, everything written by close.
#include <catch2/catch.hpp>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "models/trace/time_series.hpp"
#include "testbench/tests/scratch_dir.hpp"

TEST_CASE("time series rows: header, port and flow rows, large values, all written on close") {
  hcasim::test::ScratchDir dir("ts-rows");
  const std::string path = dir.file("timeseries.csv");
  hcasim::trace::CsvRowWriter w(path);
  w.row(1000000, "port", "sw0.p3", 2, "bytes_sent", 24780);
  w.row(1000000, "flow", "bulk", hcasim::trace::CsvRowWriter::kNoVl, "bytes_delivered", UINT64_MAX);
  for (int i = 0; i < 100000; ++i) w.row(2000000, "port", "hca0.p1", 0, "credit_stall_ps", 0);  // past one block
  w.close();
  CHECK(w.rows() == 100002);
  std::ifstream in(path);
  std::string header, a, b;
  std::getline(in, header);
  std::getline(in, a);
  std::getline(in, b);
  CHECK(header == "time_ps,kind,name,vl,metric,value");
  CHECK(a == "1000000,port,sw0.p3,2,bytes_sent,24780");
  CHECK(b == "1000000,flow,bulk,,bytes_delivered,18446744073709551615");
  int lines = 3;
  for (std::string line; std::getline(in, line);) lines += line == "2000000,port,hca0.p1,0,credit_stall_ps,0";
  CHECK(lines == 100003);
}

TEST_CASE("time series rows: a file that cannot be written is named, with the key that asked for it") {
  try {
    hcasim::trace::CsvRowWriter w("/nonexistent-folder/timeseries.csv");
    FAIL("no error");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).rfind("outputs.sample_interval: cannot write '/nonexistent-folder/timeseries.csv'", 0) == 0);
  }
}
