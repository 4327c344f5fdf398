#include "testbench/cli/process_pool.hpp"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <map>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

extern char** environ;

namespace hcasim {

namespace {

volatile std::sig_atomic_t g_stop = 0;
extern "C" void on_stop_signal(int) { g_stop = 1; }

ChildEnd end_of(int status, std::chrono::steady_clock::time_point started) {
  ChildEnd e;
  e.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  e.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : e.signal ? 128 + e.signal : -1;
  e.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return e;
}

pid_t spawn(const ChildJob& job) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, job.stdout_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, job.stderr_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char*> argv;
  for (const std::string& a : job.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  return rc == 0 ? pid : -1;
}

}  // namespace

bool run_jobs(const std::vector<ChildJob>& jobs, unsigned max_running,
              const std::function<void(std::size_t, const ChildEnd&)>& on_done) {
  struct sigaction stop {}, old_int{}, old_term{};
  stop.sa_handler = on_stop_signal;
  sigemptyset(&stop.sa_mask);
  stop.sa_flags = 0;  // no SA_RESTART: waitpid returns EINTR
  g_stop = 0;
  sigaction(SIGINT, &stop, &old_int);
  sigaction(SIGTERM, &stop, &old_term);
  struct Running {
    std::size_t index;
    std::chrono::steady_clock::time_point started;
  };
  std::map<pid_t, Running> running;
  std::size_t next = 0;
  if (max_running == 0) max_running = 1;
  while (!g_stop && (next < jobs.size() || !running.empty())) {
    while (!g_stop && next < jobs.size() && running.size() < max_running) {
      const pid_t pid = spawn(jobs[next]);
      if (pid < 0) on_done(next, ChildEnd{127, 0, 0.0});
      else running[pid] = {next, std::chrono::steady_clock::now()};
      ++next;
    }
    if (running.empty()) continue;
    int status = 0;
    const pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) continue;  // EINTR: a stop signal, looked at above
    const auto it = running.find(pid);
    if (it == running.end()) continue;
    const Running r = it->second;
    running.erase(it);
    on_done(r.index, end_of(status, r.started));
  }
  const bool stopped = g_stop != 0;
  for (const auto& [pid, r] : running) kill(pid, SIGTERM);
  for (const auto& [pid, r] : running) {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  return !stopped;
}

unsigned parse_jobs(const std::string& text, unsigned max) {
  char* end = nullptr;
  const unsigned long n = std::strtoul(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || text[0] == '-' || n < 1 || n > max)
    throw std::invalid_argument("--jobs '" + text + "': accepted: 1 to " + std::to_string(max));
  return static_cast<unsigned>(n);
}

std::string own_program_path() {
  std::error_code ec;
  const std::filesystem::path p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("hcasim") : p.string();
}

}  // namespace hcasim
