#include "testbench/cli/slurm_backend.hpp"

#include <csignal>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <sys/wait.h>
#include <thread>

namespace hcasim {

namespace {

volatile std::sig_atomic_t g_cancel = 0;
extern "C" void on_cancel_signal(int) { g_cancel = 1; }

struct Captured {
  int exit_code = -1;
  std::string out;  // standard output and error together
};

Captured capture(const std::string& command) {
  Captured c;
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  if (p == nullptr) throw std::runtime_error(command + ": cannot start");
  char buf[4096];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) c.out.append(buf, n);
  const int status = pclose(p);
  c.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  while (!c.out.empty() && (c.out.back() == '\n' || c.out.back() == '\r')) c.out.pop_back();
  return c;
}

std::string up_to_newline(const std::string& s) { return s.substr(0, s.find('\n')); }

}  // namespace

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string write_job(const std::string& dir, const std::string& job_name, const std::vector<SlurmTask>& tasks,
                      const SlurmOptions& options) {
  const std::string manifest = dir + "/tasks.tsv", script = dir + "/sweep.sbatch";
  std::ofstream m(manifest);
  for (const SlurmTask& t : tasks) {
    std::string command;
    for (const std::string& a : t.argv) command += (command.empty() ? "" : " ") + shell_quote(a);
    command += " >" + shell_quote(t.stdout_file) + " 2>" + shell_quote(t.stderr_file);
    m << t.id << '\t' << command << '\t' << t.exit_file << '\n';
  }
  if (!m.flush()) throw std::runtime_error(manifest + ": cannot write");
  std::ofstream s(script);
  s << "#!/bin/bash\n"
    << "# One hcasim run per array task; the commands are in tasks.tsv beside this file.\n"
    << "#SBATCH --job-name=" << job_name << "\n"
    << "#SBATCH --array=0-" << (tasks.empty() ? 0 : tasks.size() - 1);
  if (options.max_running) s << "%" << options.max_running;
  s << "\n#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n"
    << "#SBATCH --output=" << dir << "/slurm-%A_%a.out\n";
  if (!options.partition.empty()) s << "#SBATCH --partition=" << options.partition << "\n";
  if (!options.time.empty()) s << "#SBATCH --time=" << options.time << "\n";
  if (!options.account.empty()) s << "#SBATCH --account=" << options.account << "\n";
  for (const std::string& e : options.extra) s << "#SBATCH " << e << "\n";
  s << "set -u\n"
    << "line=\"$(sed -n \"$((SLURM_ARRAY_TASK_ID + 1))p\" " << shell_quote(manifest) << ")\"\n"
    << "IFS=$'\\t' read -r id command exit_file <<<\"$line\"\n"
    << "eval \"$command\"\n"
    << "echo $? >\"$exit_file\"\n";
  if (!s.flush()) throw std::runtime_error(script + ": cannot write");
  return script;
}

std::string submit(const std::string& script) {
  const Captured c = capture("sbatch --parsable " + shell_quote(script));
  if (c.exit_code == 127) throw std::runtime_error("sbatch not found; install Slurm's client (Debian: slurm-client) or use --backend local");
  if (c.exit_code != 0) throw std::runtime_error("sbatch refused the job: " + up_to_newline(c.out));
  const std::string id = up_to_newline(c.out).substr(0, c.out.find(';'));  // "id" or "id;cluster"
  if (id.empty()) throw std::runtime_error("sbatch printed no job id");
  return id;
}

bool wait_for(const std::string& job_id, unsigned poll_ms, const std::function<void()>& progress) {
  struct sigaction cancel {}, old_int{}, old_term{};
  cancel.sa_handler = on_cancel_signal;
  sigemptyset(&cancel.sa_mask);
  g_cancel = 0;
  sigaction(SIGINT, &cancel, &old_int);
  sigaction(SIGTERM, &cancel, &old_term);
  bool done = false;
  while (!g_cancel) {
    const Captured c = capture("squeue -h -o %i -j " + shell_quote(job_id));
    // Gone: squeue lists nothing, or no longer knows the id.
    if (c.exit_code == 0 && c.out.empty()) { done = true; break; }
    if (c.exit_code != 0 && c.out.find("Invalid job id") != std::string::npos) { done = true; break; }
    if (c.exit_code != 0) throw std::runtime_error("squeue: " + up_to_newline(c.out));
    progress();
    for (unsigned waited = 0; waited < poll_ms && !g_cancel; waited += 100)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (!done) capture("scancel " + shell_quote(job_id));
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  return done;
}

}  // namespace hcasim
