#pragma once
// Notices: one-line remarks on how a scenario was read that are not errors: a size
// with a decimal prefix ("64KB" is 64,000 bytes, not 65,536), a VL arbitration entry
// for a VL the port does not operate (skipped).
//
// Rules:
// - A reader reports one with notice(path, text): path is the JSON path, as in
//   ConfigError; text says what was understood and how to write the other meaning.
// - It goes to the newest NoticeCollector alive on the calling thread. With none
//   alive it is dropped, so tests and library users that load scenarios print
//   nothing; the program collects around loading and prints what it got.
// - A collector keeps the first notice of each path and drops later ones for the
//   same path, so a value read more than once gives one line.
// - (A collector, not a parameter: sizes are parsed deep inside the generic config
//   reader and its custom fields, whose signature (value, path) stays as it is.)

#include <cstddef>
#include <string>
#include <vector>

namespace hcasim::config {

struct Notice {
  std::string path;  // JSON path, e.g. "port.tx_buffer"
  std::string text;  // what was understood, one line
  std::string line() const { return path.empty() ? text : path + ": " + text; }
};

class NoticeCollector {
 public:
  NoticeCollector();   // becomes the thread's collector until destroyed
  ~NoticeCollector();  // hands the thread back to the collector before it
  NoticeCollector(const NoticeCollector&) = delete;
  NoticeCollector& operator=(const NoticeCollector&) = delete;

  const std::vector<Notice>& notices() const { return notices_; }
  void add(Notice n);

 private:
  std::vector<Notice> notices_;
  NoticeCollector* previous_;
};

// Reports a notice to the thread's collector (see the rules above).
void notice(const std::string& path, const std::string& text);

// Notices as lines for stderr, each "<prefix><path>: <text>": at most `max`, then one
// line counting the rest, so a scenario with many of them does not flood the terminal.
std::vector<std::string> notice_lines(const std::vector<Notice>& notices, const std::string& prefix,
                                      std::size_t max = 10);

// 64000 -> "64,000": the digits in groups of three, as notices write byte counts.
std::string grouped(unsigned long long n);

}  // namespace hcasim::config
