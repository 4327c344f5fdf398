#pragma once
// Runs programs as child processes, at most N at a time, each with its
// standard output and error in files of its own: the local sweep backend.
//
// Rules:
// - Jobs start in the order given; when one ends the next starts, and
//   on_done(index, how it ended) runs in this process: its exit code (128 +
//   the signal for a child a signal ended, as shells say; 127 for one that
//   could not start), the signal, and its wall time.
// - SIGINT or SIGTERM while running (the first of either): every running
//   child gets SIGTERM and is waited for, no further job starts, and run()
//   returns false; the handlers are restored on return. Otherwise true.

#include <functional>
#include <string>
#include <vector>

namespace hcasim {

struct ChildJob {
  std::vector<std::string> argv;  // argv[0] is the program's path
  std::string stdout_file;
  std::string stderr_file;
};

struct ChildEnd {
  int exit_code = 0;
  int signal = 0;       // the signal that ended it; 0: it exited
  double seconds = 0;   // from its start to its end
};

bool run_jobs(const std::vector<ChildJob>& jobs, unsigned max_running,
              const std::function<void(std::size_t index, const ChildEnd& end)>& on_done);

// A --jobs value: a whole number from 1 to max, else std::invalid_argument
// "--jobs '<text>': accepted: 1 to <max>".
unsigned parse_jobs(const std::string& text, unsigned max);

// The path of the running program (/proc/self/exe).
std::string own_program_path();

}  // namespace hcasim
