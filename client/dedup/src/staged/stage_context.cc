#include "staged/stage_context.h"

#include <algorithm>
#include <random>

#include "absl/strings/str_cat.h"
#include "batch_reader.h"
#include "duplicate_finder.h"
#include "fingerprinter.h"
#include "neardup/base/absl_compat.h"
#include "neardup/base/json.h"
#include "neardup/base/status_macros.h"
#include "neardup/core/index/simhash_index.h"
#include "neardup/core/shingle_set.h"
#include "neardup/core/simhash.h"
#include "neardup/dedup/run_stats.h"
#include "staged/staged_files.h"

namespace neardup::dedup::staged {
namespace {

// [task * n / tasks, (task + 1) * n / tasks), without overflow.
uint64_t Cut(uint64_t n, int task, int tasks) {
  return static_cast<uint64_t>(static_cast<unsigned __int128>(n) * task /
                               tasks);
}

}  // namespace

absl::StatusOr<StageContext> StageContext::Create(const DedupOptions& options,
                                                  const StagedRun& run) {
  RETURN_IF_ERROR(ValidateStagedOptions(options, run));
  StageContext context;
  context.started_ = absl::Now();
  context.options_ = &options;
  context.run_ = &run;
  ASSIGN_OR_RETURN(context.files_, ListDedupInputs(options));
  ASSIGN_OR_RETURN(const Fingerprinter fingerprinter,
                   Fingerprinter::Create(options));
  context.signature_config_hash_ = fingerprinter.config_hash();
  context.config_hash_ =
      context.exact() ? EvidenceConfigHash(context.signature_config_hash_,
                                           options.evidence_bits)
                      : context.signature_config_hash_;
  context.minhash_config_hash_ = fingerprinter.minhasher().config_hash();
  if (run.reference_parts < 0 ||
      (options.references.empty() && run.reference_parts > 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("a run without --reference has no reference parts, got ",
                     run.reference_parts));
  }
  if (options.algorithm == Algorithm::kSimHash) {
    SimHashIndexOptions index;
    index.max_distance = options.max_distance;
    ASSIGN_OR_RETURN(context.masks_, SimHashTableMasks(index));
  } else {
    ASSIGN_OR_RETURN(
        context.lsh_,
        ChooseBanding(options.threshold, options.fingerprint.num_perm,
                      options.verify, options.bands));
  }
  return context;
}

std::pair<int, int> StageContext::KeyRange(int task) const {
  const int keys = simhash() ? static_cast<int>(masks_.size()) : lsh_.bands;
  const int tasks = run_->tasks;
  return {static_cast<int>(Cut(keys, task, tasks)),
          static_cast<int>(Cut(keys, task + 1, tasks))};
}

int StageContext::TwinsTask() const {
  int task = 0;
  while (task + 1 < run_->tasks &&
         KeyRange(task).first == KeyRange(task).second) {
    ++task;
  }
  return task;
}

double StageContext::TwinSimilarity() const {
  if (exact()) return 1.0;  // ExactJaccard64 of equal sets
  if (simhash()) return SimHashSimilarity(0);
  // As the index scores a candidate whose slots are all equal.
  const int num_perm = options_->fingerprint.num_perm;
  return num_perm * (1.0 / num_perm);
}

std::vector<dataset::InputFile> StageContext::PartFiles(int part) const {
  if (part < reference_parts()) return {};
  part -= reference_parts();
  const int tasks = run_->tasks;
  const size_t begin = Cut(files_.size(), part, tasks);
  const size_t end = Cut(files_.size(), part + 1, tasks);
  return {files_.begin() + begin, files_.begin() + end};
}

std::string StageContext::Dir(Stage stage) const {
  return absl::StrCat(run_->work_dir, "/", AbslView(StageName(stage)));
}

std::string StageContext::PartPath(int part, std::string_view suffix) const {
  return absl::StrCat(Dir(Stage::kSignatures), "/part-", part,
                      AbslView(suffix));
}

absl::Status StageContext::WriteManifest(Stage stage, int index,
                                         nlohmann::ordered_json fields) const {
  nlohmann::ordered_json manifest = {
      {"plan", run_->plan_id},
      {"stage", StageName(stage)},
      {"task", index},
      {"tasks", StageTasks(*run_, stage)},
      {"config_hash", absl::StrCat(absl::Hex(config_hash_, absl::kZeroPad16))},
      {"peak_rss_bytes", PeakRssBytes()},
  };
  // The width of the shingle sets a reference run kept (absent: 64, as
  // before widths).
  if (exact() && options_->evidence_bits != 64) {
    manifest["evidence_bits"] = options_->evidence_bits;
  }
  if (fields.is_object()) manifest.update(fields);
  // What it was made from: a task whose inputs were made again since is
  // not done (ReadManifest).
  std::mt19937_64 random{std::random_device{}()};
  manifest["generation"] = absl::StrCat(absl::Hex(random(), absl::kZeroPad16));
  manifest["inputs"] = read_;
  manifest["started_unix_micros"] = absl::ToUnixMicros(started_);
  manifest["seconds"] =
      Rounded(absl::ToDoubleSeconds(absl::Now() - started_), 3);
  RETURN_IF_ERROR(MakeDirectories(Dir(stage)));
  return WriteTextFile(absl::StrCat(Dir(stage), "/task-", index, ".json"),
                       ToJsonText(manifest) + "\n");
}

absl::StatusOr<nlohmann::json> StageContext::ReadManifest(Stage stage,
                                                          int index) const {
  const std::string path = absl::StrCat(Dir(stage), "/task-", index, ".json");
  absl::StatusOr<std::string> text = ReadTextFile(path);
  if (absl::IsNotFound(text.status())) {
    return absl::FailedPreconditionError(
        absl::StrCat("task ", index, " of stage ", AbslView(StageName(stage)),
                     " is not done (no ", path, "); run it first"));
  }
  RETURN_IF_ERROR(text.status());
  nlohmann::json manifest = nlohmann::json::parse(*text, nullptr, false);
  if (manifest.is_discarded() || !manifest.is_object()) {
    return absl::DataLossError(absl::StrCat(path, " is not a JSON object"));
  }
  const std::string expected =
      absl::StrCat(absl::Hex(config_hash_, absl::kZeroPad16));
  if (manifest.value("plan", "") != run_->plan_id ||
      manifest.value("config_hash", "") != expected ||
      manifest.value("tasks", -1) != StageTasks(*run_, stage)) {
    return absl::FailedPreconditionError(absl::StrCat(
        path, " was made by a run with other options (plan ",
        manifest.value("plan", "?"), ", config hash ",
        manifest.value("config_hash", "?"), ", ", manifest.value("tasks", -1),
        " tasks; this one: plan ", run_->plan_id, ", config hash ", expected,
        ", ", StageTasks(*run_, stage),
        " tasks): use a new work directory, or rerun the stage"));
  }
  // Made from what is there now?
  const nlohmann::json& inputs = manifest["inputs"];
  if (inputs.is_object()) {
    for (const auto& [key, generation] : inputs.items()) {
      absl::StatusOr<std::string> input =
          ReadTextFile(absl::StrCat(run_->work_dir, "/", key, ".json"));
      const nlohmann::json parsed =
          input.ok() ? nlohmann::json::parse(*input, nullptr, false)
                     : nlohmann::json();
      if (!parsed.is_object() || !generation.is_string() ||
          parsed.value("generation", "") != generation.get<std::string>()) {
        return absl::FailedPreconditionError(absl::StrCat(
            "task ", index, " of stage ", AbslView(StageName(stage)),
            " is out of date: ", key, " was run again since; run it again"));
      }
    }
  }
  read_[absl::StrCat(AbslView(StageName(stage)), "/task-", index)] =
      manifest.value("generation", "");
  return manifest;
}

absl::StatusOr<std::vector<nlohmann::json>> StageContext::ReadManifests(
    Stage stage) const {
  std::vector<nlohmann::json> out;
  for (int task = 0; task < StageTasks(*run_, stage); ++task) {
    ASSIGN_OR_RETURN(nlohmann::json manifest, ReadManifest(stage, task));
    out.push_back(std::move(manifest));
  }
  return out;
}

absl::StatusOr<std::vector<uint64_t>> StageContext::PartStarts() const {
  ASSIGN_OR_RETURN(const std::vector<nlohmann::json> parts,
                   ReadManifests(Stage::kSignatures));
  std::vector<uint64_t> starts = {0};
  for (const nlohmann::json& part : parts) {
    starts.push_back(starts.back() + part.value("docs", uint64_t{0}));
  }
  return starts;
}

std::pair<uint64_t, uint64_t> StageContext::DocRange(int task, uint64_t first,
                                                     uint64_t total) const {
  return {first + Cut(total - first, task, run_->tasks),
          first + Cut(total - first, task + 1, run_->tasks)};
}

}  // namespace neardup::dedup::staged
