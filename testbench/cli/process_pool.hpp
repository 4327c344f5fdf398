#pragma once
// Runs programs as child processes, at most N at a time, each with its
// standard output and error in files of its own: the local sweep backend.
//
// Rules:
// - Jobs start in the order given; when one ends the next starts, and
//   on_done(index, exit code) runs in this process (a child ended by a signal
//   reports 128 + the signal, one that could not start 127).
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

bool run_jobs(const std::vector<ChildJob>& jobs, unsigned max_running,
              const std::function<void(std::size_t index, int exit_code)>& on_done);

// The path of the running program (/proc/self/exe).
std::string own_program_path();

}  // namespace hcasim
