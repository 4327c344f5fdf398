#pragma once
// The sweep's cluster backend: one Slurm job array, a task per run
// (docs/sweeps.md "On a Slurm cluster").
//
// Rules:
// - write_job writes DIR/tasks.tsv (line i: task i's run id, a tab, its
//   command line, shell-quoted) and DIR/sweep.sbatch: an sbatch script with
//   --array=0-(n-1) (with %K when max_running is set), --job-name, the
//   partition, time and account when given, any further #SBATCH options
//   verbatim, and a body that runs task $SLURM_ARRAY_TASK_ID's command with
//   its standard output and error in the task's files and then writes its
//   exit code to the task's exit file (what the local backend writes too).
// - submit runs `sbatch --parsable` and returns the job id; wait_for polls
//   `squeue` every poll_ms until the job is gone. SIGINT or SIGTERM while
//   waiting cancels the job (scancel) and wait_for returns false.
// - A command that cannot run, or an sbatch that refuses, is a
//   std::runtime_error with the command's own message.

#include <functional>
#include <string>
#include <vector>

namespace hcasim {

struct SlurmTask {
  std::string id;
  std::vector<std::string> argv;
  std::string stdout_file, stderr_file, exit_file;
};

struct SlurmOptions {
  std::string partition, time, account;  // empty: Slurm's default
  std::vector<std::string> extra;        // further #SBATCH options, e.g. "--mem=2G"
  unsigned max_running = 0;              // %K; 0: no cap
};

std::string shell_quote(const std::string& s);

// The script's path.
std::string write_job(const std::string& dir, const std::string& job_name, const std::vector<SlurmTask>& tasks,
                      const SlurmOptions& options);
std::string submit(const std::string& script);
bool wait_for(const std::string& job_id, unsigned poll_ms, const std::function<void()>& progress);

}  // namespace hcasim
