#include "staged_dedup.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "neardup/base/absl_compat.h"
#include "neardup/base/json.h"
#include "neardup/base/status_macros.h"
#include "neardup/dedup/staged.h"
#include "simdjson.h"

extern char** environ;

namespace neardup::cli {
namespace {

using dedup::Stage;
using dedup::StagedRun;

// Flags that choose how a plan runs, not what it computes: left out of its
// id, so that a rerun may change them.
bool IsRunnerFlag(std::string_view arg, bool* takes_value) {
  for (std::string_view flag : {"--work-dir", "--memory", "--runner",
                                "--parallel", "--slurm-option", "--threads"}) {
    if (arg == flag) {
      *takes_value = true;
      return true;
    }
    if (arg.size() > flag.size() && arg.substr(0, flag.size()) == flag &&
        arg[flag.size()] == '=') {
      *takes_value = false;
      return true;
    }
  }
  *takes_value = false;
  return arg == "--no-progress" || arg == "--no-wait" || arg == "--plan-only";
}

std::string PlanId(const std::string& cwd,
                   const std::vector<std::string>& args) {
  std::string canonical = cwd;
  for (size_t i = 0; i < args.size(); ++i) {
    bool takes_value;
    if (IsRunnerFlag(args[i], &takes_value)) {
      if (takes_value) ++i;
      continue;
    }
    canonical.push_back('\0');
    canonical += args[i];
  }
  return absl::StrCat(absl::Hex(XXH3_64bits(canonical.data(), canonical.size()),
                                absl::kZeroPad16));
}

// What would fail only at the end of a long run, or not survive the plan
// (JSON holds UTF-8 only): refused before any task starts.
absl::Status CheckPlannable(const DedupCommand& cmd, const std::string& cwd) {
  for (const std::string& word : cmd.args) {
    if (!simdjson::validate_utf8(word.data(), word.size())) {
      return absl::InvalidArgumentError(
          absl::StrCat("a staged run's options and paths must be UTF-8; \"",
                       absl::CHexEscape(word), "\" is not"));
    }
  }
  if (!simdjson::validate_utf8(cwd.data(), cwd.size())) {
    return absl::InvalidArgumentError(
        "a staged run starts in a directory whose path is UTF-8");
  }
  const dedup::DedupOptions& o = cmd.options;
  for (const std::string* path : {&o.output, &o.clusters_path, &o.stats_path}) {
    if (path->empty()) continue;
    std::filesystem::path dir = std::filesystem::path(*path).parent_path();
    if (dir.empty()) dir = ".";
    if (::access(dir.c_str(), W_OK) != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot write into ", dir.string(), " (for ", *path,
                       "): ", std::strerror(errno)));
    }
  }
  return absl::OkStatus();
}

std::string PlanPath(const std::string& work_dir) {
  return work_dir + "/plan.json";
}

absl::StatusOr<std::string> Absolute(const std::string& path) {
  std::error_code error;
  const std::filesystem::path absolute = std::filesystem::absolute(path, error);
  if (error) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad path ", path, ": ", error.message()));
  }
  return absolute.lexically_normal().string();
}

// The plan's count of signatures tasks for the references (none in a plan
// made before references were).
absl::StatusOr<int> PlannedReferenceParts(const nlohmann::json& plan,
                                          const std::string& path) {
  const nlohmann::json parts = plan.value("reference_parts", nlohmann::json());
  if (parts.is_null()) return 0;
  if (!parts.is_number_integer() || parts.get<int64_t>() < 0 ||
      parts.get<int64_t>() > 1 << 20) {
    return absl::DataLossError(
        absl::StrCat(path, "'s reference_parts is damaged"));
  }
  return parts.get<int>();
}

// Writes the plan, or checks that the one there is this run's. How many
// signatures tasks the references take is counted once, here (the plan
// keeps it: tasks after the signatures stage no longer need the
// references).
absl::Status WritePlan(const DedupCommand& cmd, StagedRun& run,
                       const std::string& cwd) {
  std::error_code error;
  std::filesystem::create_directories(run.work_dir, error);
  if (error) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot create --work-dir ", run.work_dir, ": ", error.message()));
  }
  const std::string path = PlanPath(run.work_dir);
  if (std::filesystem::exists(path)) {
    std::ifstream in(path);
    const nlohmann::json plan = nlohmann::json::parse(in, nullptr, false);
    if (plan.is_discarded() || plan.value("plan_id", "") != run.plan_id) {
      return absl::FailedPreconditionError(absl::StrCat(
          run.work_dir,
          " holds a staged run with other inputs or options (its plan.json); "
          "use another --work-dir, or remove it to start over"));
    }
    ASSIGN_OR_RETURN(run.reference_parts, PlannedReferenceParts(plan, path));
  } else {
    ASSIGN_OR_RETURN(run.reference_parts, dedup::ReferenceParts(cmd.options));
  }
  nlohmann::ordered_json plan = {{"plan_id", run.plan_id},
                                 {"cwd", cwd},
                                 {"args", cmd.args},
                                 {"tasks", run.tasks},
                                 {"reference_parts", run.reference_parts},
                                 {"memory_bytes", run.memory_bytes}};
  std::ofstream out(path + ".tmp", std::ios::trunc);
  out << ToJsonText(plan) << "\n";
  out.close();
  if (!out || std::rename((path + ".tmp").c_str(), path.c_str()) != 0) {
    return absl::DataLossError(absl::StrCat("cannot write ", path));
  }
  return absl::OkStatus();
}

}  // namespace

std::string TaskLogPath(const StagedRun& run, Stage stage, int task) {
  return absl::StrCat(run.work_dir, "/logs/", AbslView(dedup::StageName(stage)),
                      "-", task, ".log");
}

std::string LogTail(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
    if (lines.size() > 8) lines.erase(lines.begin());
  }
  std::string out;
  for (const std::string& line : lines) absl::StrAppend(&out, "\n  ", line);
  return out;
}

void PrintStageProgress(std::ostream& out, int stage_number, Stage stage,
                        size_t done, int tasks, double seconds,
                        std::optional<double> left) {
  out << absl::StrFormat(
      "dedup: stage %d of 6 (%s): %d of %d tasks done, "
      "%.1f s",
      stage_number, AbslView(dedup::StageName(stage)), done, tasks, seconds);
  if (left) out << absl::StrFormat(", about %.0f s left in this stage", *left);
  out << "\n";
}

namespace {

// Starts `neardup dedup-task` for one task, its output to its log.
absl::StatusOr<pid_t> Spawn(const StagedRun& run, Stage stage, int task) {
  const std::string log = TaskLogPath(run, stage, task);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  const std::string stage_name(dedup::StageName(stage));
  const std::string index = std::to_string(task);
  std::vector<std::string> args = {"neardup",      "dedup-task", "--work-dir",
                                   run.work_dir,   "--stage",    stage_name,
                                   "--task-index", index};
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  pid_t pid;
  const int error = posix_spawn(&pid, "/proc/self/exe", &actions, nullptr,
                                argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) {
    return absl::InternalError(
        absl::StrCat("cannot start a task: ", std::strerror(error)));
  }
  return pid;
}

// Runs the tasks of `stage` not done yet, `parallel` at once.
absl::Status RunStageLocally(const dedup::DedupOptions& options,
                             const StagedRun& run, Stage stage, int parallel,
                             int stage_number, bool progress) {
  const int tasks = dedup::StageTasks(run, stage);
  std::vector<int> pending;
  for (int task = 0; task < tasks; ++task) {
    if (!dedup::StageTaskDone(options, run, stage, task)) {
      pending.push_back(task);
    }
  }
  const auto start = std::chrono::steady_clock::now();
  std::map<pid_t, int> running;
  size_t next = 0, done = tasks - pending.size();
  std::string failure;
  // After a failure nothing more starts; the running tasks are waited for.
  while ((failure.empty() && next < pending.size()) || !running.empty()) {
    while (failure.empty() && next < pending.size() &&
           static_cast<int>(running.size()) < parallel) {
      ASSIGN_OR_RETURN(const pid_t pid, Spawn(run, stage, pending[next]));
      running[pid] = pending[next++];
    }
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      return absl::InternalError(
          absl::StrCat("waiting for tasks: ", std::strerror(errno)));
    }
    const auto it = running.find(pid);
    if (it == running.end()) continue;
    const int task = it->second;
    running.erase(it);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
      ++done;
    } else if (failure.empty()) {
      failure = absl::StrCat(
          "stage ", AbslView(dedup::StageName(stage)), " task ", task,
          WIFEXITED(status)
              ? absl::StrCat(" failed (exit code ", WEXITSTATUS(status), ")")
              : absl::StrCat(" was killed (signal ", WTERMSIG(status), ")"),
          "; its log ", TaskLogPath(run, stage, task),
          " ends:", LogTail(TaskLogPath(run, stage, task)),
          "\n(a rerun of the same command redoes only the tasks not done)");
    }
    if (progress) {
      const double seconds = std::chrono::duration<double>(
                                 std::chrono::steady_clock::now() - start)
                                 .count();
      const size_t ran = done - (tasks - pending.size());
      const size_t left = tasks - done;
      std::optional<double> eta;
      if (ran > 0 && left > 0) {
        eta = seconds / ran * std::ceil(static_cast<double>(left) / parallel) *
              std::min<double>(parallel, ran);
      }
      PrintStageProgress(std::cerr, stage_number, stage, done, tasks, seconds,
                         eta);
    }
  }
  if (!failure.empty()) return absl::InternalError(failure);
  return absl::OkStatus();
}

absl::StatusOr<int> TaskIndexFromEnvironment() {
  for (const char* name : {"SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX"}) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') continue;
    int index;
    if (!absl::SimpleAtoi(value, &index) || index < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("$", name, " is not a task index: \"", value, "\""));
    }
    return index;
  }
  return absl::InvalidArgumentError(
      "no --task-index, and neither $SLURM_ARRAY_TASK_ID nor "
      "$JOB_COMPLETION_INDEX is set");
}

}  // namespace

absl::StatusOr<uint64_t> ParseByteSize(std::string_view text) {
  std::string digits(text);
  uint64_t unit = 1;
  if (!digits.empty()) {
    switch (absl::ascii_toupper(digits.back())) {
      case 'K':
        unit = uint64_t{1} << 10;
        break;
      case 'M':
        unit = uint64_t{1} << 20;
        break;
      case 'G':
        unit = uint64_t{1} << 30;
        break;
      case 'T':
        unit = uint64_t{1} << 40;
        break;
    }
    if (unit != 1) digits.pop_back();
  }
  uint64_t value;
  if (!absl::SimpleAtoi(digits, &value) || value > UINT64_MAX / unit) {
    return absl::InvalidArgumentError(absl::StrCat(
        "not a size: \"", AbslView(text), "\" (bytes, or 512M, 2G, ...)"));
  }
  return value * unit;
}

absl::StatusOr<std::optional<dedup::RunStats>> RunStagedDedup(
    const DedupCommand& cmd, std::ostream& out) {
  if (cmd.runner != "local" && cmd.runner != "slurm") {
    return absl::InvalidArgumentError(absl::StrCat(
        "--runner must be local or slurm, got \"", cmd.runner, "\""));
  }
  if (cmd.tasks < 1) {
    return absl::InvalidArgumentError("--work-dir goes with --tasks N");
  }
  StagedRun run;
  run.tasks = cmd.tasks;
  if (cmd.work_dir.empty()) {
    return absl::InvalidArgumentError("--tasks needs --work-dir");
  }
  ASSIGN_OR_RETURN(run.work_dir, Absolute(cmd.work_dir));
  ASSIGN_OR_RETURN(run.memory_bytes, ParseByteSize(cmd.memory));
  ASSIGN_OR_RETURN(const std::string cwd, Absolute("."));
  run.plan_id = PlanId(cwd, cmd.args);
  RETURN_IF_ERROR(dedup::ValidateStagedOptions(cmd.options, run));
  RETURN_IF_ERROR(CheckPlannable(cmd, cwd));
  RETURN_IF_ERROR(WritePlan(cmd, run, cwd));
  std::error_code error;
  std::filesystem::create_directories(run.work_dir + "/logs", error);
  if (error) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot create ", run.work_dir, "/logs: ", error.message()));
  }
  const int parallel =
      cmd.parallel > 0
          ? cmd.parallel
          : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  if (cmd.plan_only) {
    out << "dedup: planned " << run.tasks << " tasks per stage in "
        << run.work_dir << " (plan " << run.plan_id
        << "); run each stage's tasks in order with `neardup dedup-task "
           "--work-dir "
        << run.work_dir << " --stage <stage> --task-index <i>`: signatures"
        << (run.reference_parts > 0
                ? absl::StrCat(" (", dedup::StageTasks(run, Stage::kSignatures),
                               " tasks: ", run.reference_parts,
                               " for the references)")
                : "")
        << ", buckets, verify, clusters (1 task), filter, commit (1 task)\n";
    return std::nullopt;
  }
  if (cmd.runner == "slurm") {
    RETURN_IF_ERROR(RunOnSlurm(cmd, run, out));
    if (cmd.no_wait) return std::nullopt;
  } else {
    int number = 0;
    for (Stage stage : dedup::kStages) {
      RETURN_IF_ERROR(RunStageLocally(cmd.options, run, stage, parallel,
                                      ++number, cmd.options.progress));
    }
  }
  return dedup::StagedRunStats(cmd.options, run);
}

CLI::App* AddDedupTaskCommand(CLI::App* app, DedupTaskCommand* cmd) {
  CLI::App* sub = app->add_subcommand(
      "dedup-task",
      "Run one task of a staged dedup (what `dedup --tasks` planned in "
      "--work-dir): for job arrays of Slurm or Kubernetes");
  sub->add_option("--work-dir", cmd->work_dir, "The run's work directory")
      ->required();
  sub->add_option("--stage", cmd->stage,
                  "signatures, buckets, verify, clusters, filter or commit")
      ->required();
  sub->add_option("--task-index", cmd->task_index,
                  "The task (-1: $SLURM_ARRAY_TASK_ID or "
                  "$JOB_COMPLETION_INDEX)")
      ->capture_default_str();
  return sub;
}

absl::Status RunDedupTaskCommand(const DedupTaskCommand& cmd) {
  // A task opens a few files per task of the run (a buckets task writes one
  // per verify task): as many as this process may.
  struct rlimit files;
  if (::getrlimit(RLIMIT_NOFILE, &files) == 0 &&
      files.rlim_cur < files.rlim_max) {
    files.rlim_cur = files.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &files);
  }
  ASSIGN_OR_RETURN(const Stage stage, dedup::ParseStage(cmd.stage));
  int index = cmd.task_index;
  if (index < 0) {
    ASSIGN_OR_RETURN(index, TaskIndexFromEnvironment());
  }
  ASSIGN_OR_RETURN(const std::string work_dir, Absolute(cmd.work_dir));
  std::ifstream in(PlanPath(work_dir));
  if (!in) {
    return absl::FailedPreconditionError(
        absl::StrCat("no ", PlanPath(work_dir),
                     ": plan the run with `neardup dedup "
                     "--tasks N --work-dir ",
                     work_dir, " ...` first"));
  }
  const nlohmann::json plan = nlohmann::json::parse(in, nullptr, false);
  if (plan.is_discarded() || !plan.contains("args") || !plan.contains("cwd")) {
    return absl::DataLossError(
        absl::StrCat(PlanPath(work_dir), " is not a staged dedup plan"));
  }
  // The options as the planning command had them, relative paths included.
  const std::string cwd = plan["cwd"].get<std::string>();
  if (::chdir(cwd.c_str()) != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot enter ", cwd,
                     " (where the run was planned): ", std::strerror(errno)));
  }
  CLI::App app;
  DedupCommand dedup;
  CLI::App* sub = AddDedupCommand(&app, &dedup);
  std::vector<std::string> words = {"neardup", "dedup"};
  for (const auto& arg : plan["args"]) words.push_back(arg.get<std::string>());
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    return absl::InvalidArgumentError(absl::StrCat(
        PlanPath(work_dir), "'s options do not parse: ", e.what()));
  }
  if (!sub->parsed()) return absl::DataLossError("the plan is not a dedup");
  StagedRun run;
  run.work_dir = work_dir;
  run.tasks = plan.value("tasks", 0);
  run.memory_bytes = plan.value("memory_bytes", uint64_t{1} << 30);
  run.plan_id = plan.value("plan_id", "");
  ASSIGN_OR_RETURN(run.reference_parts,
                   PlannedReferenceParts(plan, PlanPath(work_dir)));
  if (PlanId(cwd, plan["args"].get<std::vector<std::string>>()) !=
      run.plan_id) {
    return absl::DataLossError(absl::StrCat(
        PlanPath(work_dir), " was edited: its id does not match its options"));
  }
  // A job array submitted again runs its done tasks too.
  if (dedup::StageTaskDone(dedup.options, run, stage, index)) {
    std::cerr << "dedup-task: task " << index << " of stage "
              << dedup::StageName(stage) << " is done already\n";
    return absl::OkStatus();
  }
  return dedup::RunStageTask(dedup.options, run, stage, index);
}

}  // namespace neardup::cli
