// The CQs and receives workload.perftest makes, against perftest 4.5's rules
// (perftest_parameters.c force_dependecies, perftest_resources.c create_cqs):
// a send CQ of tx_depth per QP (DEF_TX_LAT 1 for latency tests), both cut to
// the iterations; receives posted ahead rx_depth cut to the iterations, on UD
// and UC a default rx_depth (DEF_RX_SEND 512) becoming the iterations up to
// UC_MAX_RX 16000, then one more when odd.

#include <catch2/catch.hpp>

#include "models/config/verbs_workload_config.hpp"

namespace config = hcasim::config;
using config::PerftestKind;
using hcasim::transport::QpType;

namespace {
config::PerftestConfig perftest_config(PerftestKind kind, uint64_t iterations, QpType type = QpType::Rc) {
  config::PerftestConfig t;
  t.test = kind;
  t.iterations = iterations;
  t.qp_type = type;
  return t;
}
}  // namespace

TEST_CASE("perftest's send CQ: tx_depth per QP, one for latency tests, at most the iterations") {
  CHECK(config::perftest_send_cq_depth(perftest_config(PerftestKind::WriteBw, 5000)) == 128);
  CHECK(config::perftest_send_cq_depth(perftest_config(PerftestKind::WriteBw, 50)) == 50);
  CHECK(config::perftest_send_cq_depth(perftest_config(PerftestKind::ReadLat, 1000)) == 1);
  CHECK(config::perftest_send_cq_depth(perftest_config(PerftestKind::SendLat, 1000)) == 1);
  CHECK(config::perftest_has_receive_cq(perftest_config(PerftestKind::SendBw, 1)));
  CHECK(config::perftest_has_receive_cq(perftest_config(PerftestKind::SendLat, 1)));
  CHECK_FALSE(config::perftest_has_receive_cq(perftest_config(PerftestKind::WriteBw, 1)));
  CHECK_FALSE(config::perftest_has_receive_cq(perftest_config(PerftestKind::WriteLat, 1)));
}

TEST_CASE("perftest's receives posted ahead: rx_depth cut to the iterations, UD and UC up to 16000, even") {
  CHECK(config::perftest_receives_ahead(perftest_config(PerftestKind::SendLat, 1000)) == 512);
  CHECK(config::perftest_receives_ahead(perftest_config(PerftestKind::SendLat, 200)) == 200);
  CHECK(config::perftest_receives_ahead(perftest_config(PerftestKind::SendLat, 101)) == 102);  // odd: one more
  CHECK(config::perftest_receives_ahead(perftest_config(PerftestKind::SendBw, 5000, QpType::Ud)) == 5000);
  CHECK(config::perftest_receives_ahead(perftest_config(PerftestKind::SendBw, 20000, QpType::Uc)) == 16000);
  config::PerftestConfig set = perftest_config(PerftestKind::SendBw, 5000, QpType::Ud);
  set.rx_depth = 64;  // not the default: kept
  CHECK(config::perftest_receives_ahead(set) == 64);
}
