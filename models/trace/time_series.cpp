#include "models/trace/time_series.hpp"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <stdexcept>

#include "models/link/credits.hpp"

namespace hcasim::trace {

namespace {
constexpr std::size_t kFlushBytes = std::size_t(1) << 20;  // a block written at a time

void append_number(std::string& s, uint64_t v) {
  char digits[24];
  const auto r = std::to_chars(digits, digits + sizeof digits, v);
  s.append(digits, r.ptr);
}
}  // namespace

CsvRowWriter::CsvRowWriter(const std::string& path) : path_(path) {
  file_ = std::fopen(path.c_str(), "w");
  if (file_ == nullptr)
    throw std::invalid_argument("outputs.sample_interval: cannot write '" + path + "': " + std::strerror(errno));
  buffer_.reserve(kFlushBytes + 256);
  buffer_ = kHeader;
}

CsvRowWriter::~CsvRowWriter() {
  if (file_ != nullptr) std::fclose(file_);
}

std::string CsvRowWriter::key(std::string_view kind, std::string_view name, int vl, std::string_view metric) {
  std::string k = ",";
  k += kind;
  k += ',';
  k += name;
  k += ',';
  if (vl != kNoVl) append_number(k, static_cast<uint64_t>(vl));
  k += ',';
  k += metric;
  k += ',';
  return k;
}

std::string CsvRowWriter::time_text(uint64_t time_ps) {
  std::string t;
  append_number(t, time_ps);
  return t;
}

void CsvRowWriter::row(uint64_t time_ps, std::string_view kind, std::string_view name, int vl,
                       std::string_view metric, uint64_t value) {
  row(time_text(time_ps), key(kind, name, vl, metric), value);
}

void CsvRowWriter::row(std::string_view time_text, std::string_view key, uint64_t value) {
  buffer_ += time_text;
  buffer_ += key;
  append_number(buffer_, value);
  buffer_ += '\n';
  ++rows_;
  if (buffer_.size() >= kFlushBytes) flush();
}

void CsvRowWriter::flush() {
  if (file_ == nullptr || buffer_.empty()) return;
  if (std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size())
    throw std::invalid_argument("outputs.sample_interval: cannot write '" + path_ + "': " + std::strerror(errno));
  buffer_.clear();
}

void CsvRowWriter::close() {
  if (file_ == nullptr) return;
  flush();
  std::FILE* f = file_;
  file_ = nullptr;
  if (std::fclose(f) != 0)
    throw std::invalid_argument("outputs.sample_interval: cannot write '" + path_ + "': " + std::strerror(errno));
}

TimeSeries::TimeSeries(const std::string& path, uint64_t interval_ps, const std::vector<link::Port*>& ports)
    : out_(path), interval_ps_(interval_ps), timeline_(link::Timeline::current()) {
  if (interval_ps == 0) throw std::invalid_argument("outputs.sample_interval: 0; accepted: a time above zero");
  for (const link::Port* p : ports) {
    ports_.push_back(p);
    PortLast last;
    last.tx_bytes.assign(p->vl_count(), 0);
    last.stall_ps.assign(p->vl_count(), 0);
    for (unsigned vl = 0; vl < p->vl_count(); ++vl)
      for (const char* metric : {"bytes_sent", "credits_available", "rx_buffer_bytes", "credit_stall_ps"})
        last.keys.push_back(CsvRowWriter::key("port", p->name(), static_cast<int>(vl), metric));
    port_last_.push_back(std::move(last));
  }
}

TimeSeries::~TimeSeries() {
  alarm_.cancel();
  timeline_.remove_background(&alarm_);
}

void TimeSeries::add_counters(std::string kind, std::string metric, CounterSource source) {
  counters_.push_back({std::move(kind), std::move(metric), std::move(source), {}});
}

void TimeSeries::add_gauges(std::string kind, std::string metric, CounterSource source) {
  counters_.push_back({std::move(kind), std::move(metric), std::move(source), {}, true});
}

void TimeSeries::start() {
  timeline_.remove_background(&alarm_);
  timeline_.add_background(&alarm_);
  if (timeline_.queued() > 0) alarm_.notify_at(last_ps_ + interval_ps_);
}

void TimeSeries::on_alarm() {
  sample(link::now_ps());
  // Dropped again at the end of this dispatch when nothing else is queued.
  alarm_.notify_at(last_ps_ + interval_ps_);
}

void TimeSeries::finish(uint64_t end_ps) {
  alarm_.cancel();
  timeline_.remove_background(&alarm_);
  for (uint64_t at = last_ps_ + interval_ps_; at < end_ps; at += interval_ps_) sample(at);
  if (last_ps_ < end_ps) sample(end_ps);
  out_.close();
}

void TimeSeries::sample(uint64_t at_ps) {
  const std::string time = CsvRowWriter::time_text(at_ps);
  for (std::size_t i = 0; i < ports_.size(); ++i) {
    const link::Port& p = *ports_[i];
    PortLast& last = port_last_[i];
    const link::PortStats& stats = p.stats();
    const std::string* key = last.keys.data();
    for (unsigned vl = 0; vl < p.vl_count(); ++vl, key += 4) {
      const uint64_t tx = stats.vl[vl].tx_bytes;
      const uint64_t stall = p.credit_stall_ps_until(vl, at_ps);
      out_.row(time, key[0], tx - last.tx_bytes[vl]);
      out_.row(time, key[1], p.credits_available(vl));
      out_.row(time, key[2], static_cast<uint64_t>(p.rx_used_blocks(vl)) * link::kCreditBlockBytes);
      out_.row(time, key[3], stall - last.stall_ps[vl]);
      last.tx_bytes[vl] = tx;
      last.stall_ps[vl] = stall;
    }
  }
  for (Counters& c : counters_) {
    c.source([&](std::string_view name, uint64_t cumulative) {
      Counters::Last& last = c.last[std::string(name)];
      if (last.key.empty()) last.key = CsvRowWriter::key(c.kind, name, CsvRowWriter::kNoVl, c.metric);
      out_.row(time, last.key, c.gauge ? cumulative : cumulative - last.value);
      last.value = cumulative;
    });
  }
  last_ps_ = at_ps;
  ++samples_;
}

}  // namespace hcasim::trace
