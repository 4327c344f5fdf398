#pragma once
// The time series of a run (outputs.sample_interval): every interval, the
// metrics of each port's data VLs and the bytes each flow and transport QP
// delivered, as rows of a CSV file in long format, written as the run goes.
//
// Rules:
// - Header, exactly: time_ps,kind,name,vl,metric,value. time_ps is the end
//   of the interval a row describes: interval k ends at k x interval; the
//   last row set is at the run's end (finish), which may close a partial
//   interval. Every row is written, zeros included; rows of one time come
//   ports first (in the fabric's port order, VL by VL), then the counters in
//   the order they were added.
// - kind "port", name = the port's name as stats.json gives it, vl = the data
//   VL (0 .. operational VLs - 1; VL15 is not flow-controlled and has none):
//   bytes_sent        wire bytes (LRH through VCRC) of data packets that
//                     started on the wire in the interval (VlStats::tx_bytes);
//   credits_available 64-byte blocks the port may send on the VL at the
//                     sample time (CreditSender::available);
//   rx_buffer_bytes   receive-buffer occupancy of the VL at the sample time,
//                     in bytes (blocks x 64, as rx_high_water_bytes);
//   credit_stall_ps   credit-stall time accrued in the interval (a stall open
//                     at the sample time counts up to it).
// - Counters (add_counters): a cumulative count per name, written as its
//   increase over the interval with vl empty (the run's flows and QPs:
//   bytes_delivered). A name that appears during the run starts from zero.
// - Gauges (add_gauges): like counters, but the value at the sample time is
//   written as it is (a level, e.g. a congestion control CCTI).
// - One background alarm (timeline.hpp) samples the whole model once per
//   interval; it never keeps a run going that has nothing else to do, and
//   costs nothing between samples (no per-packet or per-port event). Counters
//   the model keeps cumulatively are differenced between samples.
// - When the model went idle before the run's end (a run.duration longer
//   than the traffic), finish writes the interval ends the alarm no longer
//   reached, from the same counters (nothing moved in between).

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "models/link/port.hpp"
#include "models/link/timeline.hpp"

namespace hcasim::trace {

// Formats the rows into a buffer and writes it out in large blocks.
class CsvRowWriter {
 public:
  static constexpr const char* kHeader = "time_ps,kind,name,vl,metric,value\n";
  // Opens (truncates) the file and writes the header. Throws
  // std::invalid_argument naming the file when it cannot be written.
  explicit CsvRowWriter(const std::string& path);
  ~CsvRowWriter();
  CsvRowWriter(const CsvRowWriter&) = delete;
  CsvRowWriter& operator=(const CsvRowWriter&) = delete;

  static constexpr int kNoVl = -1;  // an empty vl column
  void row(uint64_t time_ps, std::string_view kind, std::string_view name, int vl, std::string_view metric,
           uint64_t value);
  // The same row from parts made once: the middle of a row, from the comma
  // after time_ps to the comma before value (key()), and time_ps as text
  // (time_text()). A sample writes tens of thousands of rows that differ
  // only in their values.
  static std::string key(std::string_view kind, std::string_view name, int vl, std::string_view metric);
  static std::string time_text(uint64_t time_ps);
  void row(std::string_view time_text, std::string_view key, uint64_t value);
  // Writes what is buffered and closes the file; throws as the constructor.
  void close();
  uint64_t rows() const { return rows_; }

 private:
  void flush();
  std::string path_;
  std::FILE* file_ = nullptr;
  std::string buffer_;
  uint64_t rows_ = 0;
};

class TimeSeries {
 public:
  // Calls visit(name, cumulative) for each counter that exists now.
  using CounterVisit = std::function<void(std::string_view name, uint64_t cumulative)>;
  using CounterSource = std::function<void(const CounterVisit& visit)>;

  TimeSeries(const std::string& path, uint64_t interval_ps, const std::vector<link::Port*>& ports);
  ~TimeSeries();
  TimeSeries(const TimeSeries&) = delete;
  TimeSeries& operator=(const TimeSeries&) = delete;
  // Rows of this kind and metric from what `source` visits at each sample.
  void add_counters(std::string kind, std::string metric, CounterSource source);
  // Rows of this kind and metric with the values `source` visits, as they are.
  void add_gauges(std::string kind, std::string metric, CounterSource source);

  // Arms the first sample (at the end of elaboration, time 0), unless the
  // model has nothing queued at all.
  void start();
  // The run ended at end_ps: the interval ends not yet written, then the
  // partial interval to end_ps; closes the file.
  void finish(uint64_t end_ps);
  uint64_t samples() const { return samples_; }  // row sets written
  uint64_t rows() const { return out_.rows(); }

 private:
  struct Counters {
    std::string kind, metric;
    CounterSource source;
    struct Last {
      uint64_t value = 0;
      std::string key;  // CsvRowWriter::key of its rows
    };
    std::unordered_map<std::string, Last> last;  // by name
    bool gauge = false;  // write the value, not its increase
  };
  struct PortLast {
    std::vector<uint64_t> tx_bytes, stall_ps;  // by data VL, at the last sample
    std::vector<std::string> keys;             // CsvRowWriter::key of each row, by VL then metric
  };
  void on_alarm();
  void sample(uint64_t at_ps);

  CsvRowWriter out_;
  uint64_t interval_ps_;
  std::vector<const link::Port*> ports_;
  std::vector<PortLast> port_last_;
  std::vector<Counters> counters_;
  uint64_t last_ps_ = 0;   // time of the last row set
  uint64_t samples_ = 0;
  link::Timeline& timeline_;
  link::Alarm alarm_ = link::Alarm::method<&TimeSeries::on_alarm>(this);
};

}  // namespace hcasim::trace
