// Stage "verify", one task per range of later documents: each candidate
// pair scored as the one-process run scores it (exact Jaccard of the
// shingle sets; the index's estimate from the low 16 bits of each MinHash
// slot; the SimHash distance), kept when it reaches the threshold.

#include <algorithm>
#include <bit>
#include <queue>
#include <vector>

#include "absl/strings/str_cat.h"
#include "neardup/base/status_macros.h"
#include "neardup/core/shingle_set.h"
#include "neardup/core/simhash.h"
#include "staged/stage_context.h"
#include "staged/stage_tasks.h"
#include "staged/staged_files.h"

namespace neardup::dedup::staged {
namespace {

// Reads what a document is compared by, from its part's files.
class Lookup {
 public:
  static absl::StatusOr<Lookup> Open(const StageContext& context,
                                     std::vector<uint64_t> starts) {
    Lookup lookup;
    lookup.starts_ = std::move(starts);
    lookup.num_perm_ = context.options().fingerprint.num_perm;
    for (size_t part = 0; part + 1 < lookup.starts_.size(); ++part) {
      const int p = static_cast<int>(part);
      // Small buffers: these are read at random.
      if (context.exact()) {
        ASSIGN_OR_RETURN(FileReader sets,
                         FileReader::Open(context.PartPath(p, ".sets"),
                                          FileKind::kSets, 4096));
        ASSIGN_OR_RETURN(FileReader index,
                         FileReader::Open(context.PartPath(p, ".setidx"),
                                          FileKind::kSetIndex, 4096));
        lookup.sets_.push_back(std::move(sets));
        lookup.set_index_.push_back(std::move(index));
      } else if (context.simhash()) {
        ASSIGN_OR_RETURN(FileReader docs,
                         FileReader::Open(context.PartPath(p, ".docs"),
                                          FileKind::kDocs, 4096));
        lookup.docs_.push_back(std::move(docs));
      } else {
        ASSIGN_OR_RETURN(FileReader slots,
                         FileReader::Open(context.PartPath(p, ".slots"),
                                          FileKind::kSlots, 4096));
        lookup.slots_.push_back(std::move(slots));
      }
    }
    return lookup;
  }

  absl::Status Set(uint64_t doc, std::vector<uint64_t>* set) const {
    const auto [part, local] = Locate(doc);
    uint64_t range[2];
    RETURN_IF_ERROR(set_index_[part].ReadAt(range, sizeof(range), local * 8));
    if (range[1] < range[0]) {
      return absl::DataLossError(set_index_[part].path() + " is corrupt");
    }
    set->resize(range[1] - range[0]);
    return sets_[part].ReadAt(set->data(), set->size() * 8, range[0] * 8);
  }

  absl::Status Slots(uint64_t doc, std::vector<uint16_t>* slots) const {
    const auto [part, local] = Locate(doc);
    slots->resize(num_perm_);
    return slots_[part].ReadAt(slots->data(), num_perm_ * 2,
                               local * num_perm_ * 2);
  }

  absl::StatusOr<uint64_t> SimHash(uint64_t doc) const {
    const auto [part, local] = Locate(doc);
    DocEntry entry;
    RETURN_IF_ERROR(
        docs_[part].ReadAt(&entry, sizeof(entry), local * sizeof(entry)));
    return entry.simhash;
  }

 private:
  Lookup() = default;
  std::pair<size_t, uint64_t> Locate(uint64_t doc) const {
    const size_t part = std::upper_bound(starts_.begin(), starts_.end(), doc) -
                        starts_.begin() - 1;
    return {part, doc - starts_[part]};
  }

  std::vector<uint64_t> starts_;
  size_t num_perm_ = 0;
  std::vector<FileReader> sets_, set_index_, docs_, slots_;
};

}  // namespace

absl::Status RunVerifyTask(const StageContext& context, int task) {
  const DedupOptions& options = context.options();
  const StagedRun& run = context.run();
  ASSIGN_OR_RETURN(std::vector<uint64_t> starts, context.PartStarts());
  RETURN_IF_ERROR(context.ReadManifests(Stage::kBuckets).status());
  ASSIGN_OR_RETURN(const Lookup lookup, Lookup::Open(context, starts));
  const std::string dir = context.Dir(Stage::kVerify);
  RETURN_IF_ERROR(MakeDirectories(dir));

  // The buckets tasks' pairs for this range, merged.
  std::vector<FileReader> inputs;
  using Head = std::pair<DocPair, size_t>;
  std::priority_queue<Head, std::vector<Head>, std::greater<Head>> heads;
  // Sequential reads: a MiB each is plenty (and within any budget).
  const size_t share =
      std::clamp<size_t>(run.memory_bytes / 4 / run.tasks, 64 << 10, 1 << 20);
  for (int j = 0; j < run.tasks; ++j) {
    ASSIGN_OR_RETURN(
        FileReader reader,
        FileReader::Open(absl::StrCat(context.Dir(Stage::kBuckets), "/task-", j,
                                      ".pairs-", task),
                         FileKind::kPairs, share));
    inputs.push_back(std::move(reader));
    DocPair pair;
    ASSIGN_OR_RETURN(const bool got, inputs.back().Get(&pair));
    if (got) heads.push({pair, inputs.size() - 1});
  }

  ASSIGN_OR_RETURN(
      FileWriter edges,
      FileWriter::Create(absl::StrCat(dir, "/task-", task, ".edges"),
                         FileKind::kEdges));
  const double inverse_h = 1.0 / options.fingerprint.num_perm;
  const double floor =
      options.verify == Verify::kNone ? 0.0 : options.threshold;
  std::optional<uint64_t> loaded;  // whose data `later_*` hold
  std::vector<uint64_t> later_set, earlier_set;
  std::vector<uint16_t> later_slots, earlier_slots;
  uint64_t later_simhash = 0;
  std::optional<DocPair> last;
  uint64_t candidates = 0, kept = 0;
  while (!heads.empty()) {
    const auto [pair, input] = heads.top();
    heads.pop();
    DocPair next;
    ASSIGN_OR_RETURN(const bool got, inputs[input].Get(&next));
    if (got) heads.push({next, input});
    if (last == pair) continue;  // found by several bands
    last = pair;
    ++candidates;
    if (loaded != pair.later) {
      if (context.exact()) {
        RETURN_IF_ERROR(lookup.Set(pair.later, &later_set));
      } else if (context.simhash()) {
        ASSIGN_OR_RETURN(later_simhash, lookup.SimHash(pair.later));
      } else {
        RETURN_IF_ERROR(lookup.Slots(pair.later, &later_slots));
      }
      loaded = pair.later;
    }
    double similarity;
    if (context.exact()) {
      RETURN_IF_ERROR(lookup.Set(pair.earlier, &earlier_set));
      // As KeptSets::BestMatch: the document's own set first.
      similarity = ExactJaccard64(later_set, earlier_set);
      if (!(similarity >= options.threshold)) continue;
    } else if (context.simhash()) {
      ASSIGN_OR_RETURN(const uint64_t earlier, lookup.SimHash(pair.earlier));
      similarity = SimHashSimilarity(std::popcount(later_simhash ^ earlier));
    } else {
      RETURN_IF_ERROR(lookup.Slots(pair.earlier, &earlier_slots));
      int equal = 0;
      for (size_t i = 0; i < later_slots.size(); ++i) {
        equal += later_slots[i] == earlier_slots[i];
      }
      // As the index scores a candidate.
      similarity = equal * inverse_h;
      if (!(similarity >= floor)) continue;
    }
    ++kept;
    RETURN_IF_ERROR(edges.Put(Edge{pair.later, pair.earlier, similarity}));
  }
  RETURN_IF_ERROR(edges.Commit());
  return context.WriteManifest(Stage::kVerify, task,
                               {{"candidates", candidates}, {"edges", kept}});
}

}  // namespace neardup::dedup::staged
