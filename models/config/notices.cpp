#include "models/config/notices.hpp"

#include <algorithm>

namespace hcasim::config {

namespace {
thread_local NoticeCollector* current = nullptr;
}  // namespace

NoticeCollector::NoticeCollector() : previous_(current) { current = this; }

NoticeCollector::~NoticeCollector() { current = previous_; }

void NoticeCollector::add(Notice n) {
  const bool seen = std::any_of(notices_.begin(), notices_.end(), [&](const Notice& o) { return o.path == n.path; });
  if (!seen) notices_.push_back(std::move(n));
}

void notice(const std::string& path, const std::string& text) {
  if (current != nullptr) current->add({path, text});
}

std::vector<std::string> notice_lines(const std::vector<Notice>& notices, const std::string& prefix,
                                      std::size_t max) {
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < notices.size() && i < max; ++i) lines.push_back(prefix + notices[i].line());
  if (notices.size() > max)
    lines.push_back(prefix + std::to_string(notices.size() - max) + " more notices like these (" +
                    std::to_string(notices.size()) + " in all)");
  return lines;
}

std::string grouped(unsigned long long n) {
  std::string digits = std::to_string(n);
  for (std::size_t i = digits.size(); i > 3; i -= 3) digits.insert(i - 3, ",");
  return digits;
}

}  // namespace hcasim::config
