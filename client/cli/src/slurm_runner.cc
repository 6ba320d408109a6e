// --runner slurm: one sbatch script per stage under <work>/slurm, each a job
// array of the stage's tasks running `neardup dedup-task`, submitted with a
// dependency on the stage before (afterok). Waits by watching the tasks'
// manifests and squeue: a stage whose job left the queue with tasks not done
// failed, and the jobs after it are cancelled.

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "neardup/base/absl_compat.h"
#include "neardup/base/status_macros.h"
#include "neardup/dedup/staged.h"
#include "staged_dedup.h"

namespace neardup::cli {
namespace {

using dedup::Stage;
using dedup::StagedRun;

// 'text' for sh, whatever it holds.
std::string ShellQuoted(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out.push_back(c);
    }
  }
  return out + "'";
}

struct CommandOutput {
  int exit_code = -1;
  std::string out;  // stdout and stderr
};

CommandOutput Run(const std::string& command) {
  CommandOutput result;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> buffer;
  size_t n;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) {
    result.out.append(buffer.data(), n);
  }
  const int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

absl::StatusOr<std::string> SelfPath() {
  std::error_code error;
  const std::filesystem::path self =
      std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) {
    return absl::InternalError(
        absl::StrCat("cannot find this binary: ", error.message()));
  }
  return self.string();
}

// The stage's job script: an array of its tasks.
absl::StatusOr<std::string> WriteScript(const DedupCommand& cmd,
                                        const StagedRun& run, Stage stage,
                                        const std::string& self) {
  const std::string name(dedup::StageName(stage));
  std::string script = absl::StrCat(
      "#!/bin/sh\n"
      "# neardup staged dedup, stage ",
      name, " (written by `neardup dedup --runner slurm`; plan ", run.plan_id,
      ")\n"
      "#SBATCH --job-name=neardup-",
      name, "\n#SBATCH --array=0-", dedup::StageTasks(run, stage) - 1,
      "\n#SBATCH --output=", run.work_dir, "/logs/", name, "-%a.log\n");
  for (const std::string& option : cmd.slurm_options) {
    absl::StrAppend(&script, "#SBATCH ", option, "\n");
  }
  absl::StrAppend(&script, "exec ", ShellQuoted(self),
                  " dedup-task --work-dir ", ShellQuoted(run.work_dir),
                  " --stage ", name, "\n");
  const std::string dir = run.work_dir + "/slurm";
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  const std::string path = absl::StrCat(dir, "/", name, ".sbatch");
  std::ofstream out(path, std::ios::trunc);
  out << script;
  out.close();
  if (!out) return absl::DataLossError(absl::StrCat("cannot write ", path));
  return path;
}

// The job ids squeue still lists (an array's tasks under its job id).
absl::StatusOr<std::set<std::string>> QueuedJobs() {
  const CommandOutput queue = Run("squeue -h -o %F");
  if (queue.exit_code != 0) {
    return absl::UnavailableError(absl::StrCat("squeue failed: ", queue.out));
  }
  std::set<std::string> jobs;
  for (absl::string_view line : absl::StrSplit(queue.out, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (!line.empty()) jobs.insert(std::string(line));
  }
  return jobs;
}

void Cancel(const std::vector<std::string>& jobs) {
  if (!jobs.empty()) Run("scancel " + absl::StrJoin(jobs, " "));
}

}  // namespace

absl::Status RunOnSlurm(const DedupCommand& cmd, const StagedRun& run,
                        std::ostream& out) {
  ASSIGN_OR_RETURN(const std::string self, SelfPath());
  const dedup::DedupOptions& options = cmd.options;
  // Jobs an earlier call submitted (--no-wait) that are still queued are
  // waited for, not submitted again.
  const std::string jobs_path = run.work_dir + "/slurm/jobs.json";
  std::vector<std::pair<Stage, std::string>> jobs;  // stage, job id
  int first = 0;  // stages done before the first job
  {
    std::ifstream in(jobs_path);
    const nlohmann::json stored = nlohmann::json::parse(in, nullptr, false);
    ASSIGN_OR_RETURN(const std::set<std::string> queued, QueuedJobs());
    if (stored.is_object() && stored.value("plan", "") == run.plan_id &&
        stored["jobs"].is_array()) {
      bool any_queued = false;
      for (const auto& job : stored["jobs"]) {
        if (!job.is_array() || job.size() != 2 || !job[0].is_string() ||
            !job[1].is_string()) {
          continue;
        }
        absl::StatusOr<Stage> stage =
            dedup::ParseStage(job[0].get<std::string>());
        if (!stage.ok()) continue;
        jobs.emplace_back(*stage, job[1].get<std::string>());
        any_queued |= queued.contains(jobs.back().second);
      }
      if (any_queued) {
        first = stored.value("first", 0);
        out << "dedup: waiting for the Slurm jobs submitted before\n";
      } else {
        jobs.clear();
      }
    }
  }
  if (jobs.empty()) {
    // The stages not done yet, each depending on the one before.
    for (Stage stage : dedup::kStages) {
      if (jobs.empty() && dedup::StageTasksDone(options, run, stage) ==
                              dedup::StageTasks(run, stage)) {
        ++first;
        continue;
      }
      ASSIGN_OR_RETURN(const std::string script,
                       WriteScript(cmd, run, stage, self));
      std::string submit = "sbatch --parsable";
      if (!jobs.empty()) {
        absl::StrAppend(&submit, " --dependency=afterok:", jobs.back().second);
      }
      const CommandOutput submitted =
          Run(absl::StrCat(submit, " ", ShellQuoted(script)));
      // "<id>" or "<id>;<cluster>".
      const std::string id(absl::StripAsciiWhitespace(AbslView(
          std::string_view(submitted.out).substr(0, submitted.out.find(';')))));
      uint64_t number;
      if (submitted.exit_code != 0 || !absl::SimpleAtoi(id, &number)) {
        std::vector<std::string> ids;
        for (const auto& [_, job] : jobs) ids.push_back(job);
        Cancel(ids);
        return absl::UnavailableError(absl::StrCat(
            "sbatch refused the ", AbslView(dedup::StageName(stage)),
            " job: ", submitted.out));
      }
      jobs.emplace_back(stage, id);
      out << "dedup: submitted stage " << dedup::StageName(stage)
          << " as Slurm job " << id << "\n";
    }
    nlohmann::json stored = {{"plan", run.plan_id}, {"first", first}};
    stored["jobs"] = nlohmann::json::array();
    for (const auto& [stage, id] : jobs) {
      stored["jobs"].push_back({std::string(dedup::StageName(stage)), id});
    }
    std::ofstream(jobs_path, std::ios::trunc) << stored.dump() << "\n";
  }
  if (cmd.no_wait || jobs.empty()) return absl::OkStatus();

  // A job that left the queue with tasks not done failed, once that lasts
  // a while (a shared filesystem may show a new manifest late).
  constexpr auto kGrace = std::chrono::seconds(10);
  const auto start = std::chrono::steady_clock::now();
  std::vector<int> reported(std::size(dedup::kStages), -1);
  std::map<std::string, std::chrono::steady_clock::time_point> gone;
  while (true) {
    ASSIGN_OR_RETURN(const std::set<std::string> queued, QueuedJobs());
    bool all_done = true;
    for (size_t j = 0; j < jobs.size(); ++j) {
      const auto& [stage, id] = jobs[j];
      const int stage_number = first + static_cast<int>(j) + 1;
      const int tasks = dedup::StageTasks(run, stage);
      const int done = dedup::StageTasksDone(options, run, stage);
      if (options.progress && done > 0 && done != reported[stage_number - 1]) {
        reported[stage_number - 1] = done;
        PrintStageProgress(std::cerr, stage_number, stage, done, tasks,
                           std::chrono::duration<double>(
                               std::chrono::steady_clock::now() - start)
                               .count(),
                           std::nullopt);
      }
      if (done == tasks) {
        gone.erase(id);
        continue;
      }
      all_done = false;
      if (queued.contains(id)) continue;
      const auto now = std::chrono::steady_clock::now();
      const auto since = gone.try_emplace(id, now).first->second;
      if (now - since < kGrace) continue;
      // Failed: those after it never start (afterok).
      int failed = 0;
      while (failed < tasks &&
             dedup::StageTaskDone(options, run, stage, failed)) {
        ++failed;
      }
      std::vector<std::string> later;
      for (size_t k = j + 1; k < jobs.size(); ++k) {
        later.push_back(jobs[k].second);
      }
      Cancel(later);
      const std::string log = TaskLogPath(run, stage, failed);
      return absl::InternalError(absl::StrCat(
          "Slurm job ", id, " (stage ", AbslView(dedup::StageName(stage)),
          ") ended with task ", failed, " not done; its log ", log, " ends:",
          LogTail(log), "\n(the same command submits again what is not done)"));
    }
    if (all_done) return absl::OkStatus();
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

}  // namespace neardup::cli
