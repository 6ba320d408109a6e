// Stage "buckets", one task per range of bands (minhash-lsh, perceptual) or
// SimHash tables: documents filed under the same band tag (table key) are
// candidate pairs, as they would be each other's in the one-process index.
// SimHash pairs further apart than --max-distance are dropped here (the
// index drops them too). The pairs go out sorted, distinct, cut by the
// verify task of their later document.

#include <bit>
#include <compare>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "fingerprinter.h"
#include "neardup/base/status_macros.h"
#include "staged/sorted_runs.h"
#include "staged/stage_context.h"
#include "staged/stage_tasks.h"
#include "staged/staged_files.h"

namespace neardup::dedup::staged {
namespace {

// A document filed under a band tag or a table key.
struct Filed {
  uint64_t bucket;  // band << 32 | tag, or table key (masked SimHash)
  uint32_t table;   // simhash: the table (0 for bands)
  uint32_t reserved;
  uint64_t doc;
  uint64_t simhash;  // simhash: the document's
  TwinKey twin;
  friend bool operator<(const Filed& a, const Filed& b) {
    return std::tie(a.table, a.bucket, a.doc) <
           std::tie(b.table, b.bucket, b.doc);
  }
};

absl::Status FileBands(const StageContext& context, int task,
                       const std::vector<uint64_t>& starts,
                       SortedRuns<Filed>& filed) {
  const auto [begin, end] = context.KeyRange(task);
  std::vector<uint32_t> tags(end - begin);
  for (int part = 0; part + 1 < static_cast<int>(starts.size()); ++part) {
    ASSIGN_OR_RETURN(
        FileReader reader,
        FileReader::Open(context.PartPath(part, absl::StrCat(".tags-", task)),
                         FileKind::kBandTags));
    uint64_t local;
    TwinKey twin;
    while (true) {
      ASSIGN_OR_RETURN(const bool got, reader.Get(&local));
      if (!got) break;
      ASSIGN_OR_RETURN(bool whole, reader.Get(&twin));
      if (whole) {
        ASSIGN_OR_RETURN(whole, reader.Read(tags.data(), tags.size() * 4));
      }
      if (!whole) return absl::DataLossError(reader.path() + " is cut short");
      for (int band = begin; band < end; ++band) {
        RETURN_IF_ERROR(
            filed.Add({static_cast<uint64_t>(band) << 32 | tags[band - begin],
                       0, 0, starts[part] + local, 0, twin}));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status FileSimHashes(const StageContext& context, int task,
                           const std::vector<uint64_t>& starts,
                           SortedRuns<Filed>& filed) {
  const auto [begin, end] = context.KeyRange(task);
  for (int part = 0; part + 1 < static_cast<int>(starts.size()); ++part) {
    ASSIGN_OR_RETURN(
        FileReader reader,
        FileReader::Open(context.PartPath(part, ".docs"), FileKind::kDocs));
    DocEntry entry;
    for (uint64_t doc = starts[part];; ++doc) {
      ASSIGN_OR_RETURN(const bool got, reader.Get(&entry));
      if (!got) break;
      if (entry.kind != static_cast<uint32_t>(DocFingerprint::Kind::kOk)) {
        continue;
      }
      for (int table = begin; table < end; ++table) {
        RETURN_IF_ERROR(filed.Add({entry.simhash & context.masks()[table],
                                   static_cast<uint32_t>(table), 0, doc,
                                   entry.simhash, entry.twin}));
      }
    }
  }
  return absl::OkStatus();
}

struct TwinKeyHash {
  size_t operator()(const TwinKey& key) const { return key.low; }
};

// "<prefix>.twins": every twin and its leader, by twin; "<prefix>.leaders":
// every leader of twins and its last twin, by leader.
absl::Status WriteTwins(const std::string& prefix, const StagedRun& run,
                        SortedRuns<Twin>& twins) {
  ASSIGN_OR_RETURN(FileWriter out,
                   FileWriter::Create(prefix + ".twins", FileKind::kTwins));
  SortedRuns<TwinLeader> leaders(prefix + ".leader-run-", run.memory_bytes / 4);
  std::optional<Twin> last;
  RETURN_IF_ERROR(twins.Merge([&](const Twin& twin) -> absl::Status {
    if (last == twin) return absl::OkStatus();  // found in every band
    last = twin;
    RETURN_IF_ERROR(leaders.Add({twin.leader, twin.member}));
    return out.Put(twin);
  }));
  RETURN_IF_ERROR(out.Commit());
  ASSIGN_OR_RETURN(
      FileWriter leader_out,
      FileWriter::Create(prefix + ".leaders", FileKind::kTwinLeaders));
  std::optional<TwinLeader> current;
  RETURN_IF_ERROR(leaders.Merge([&](const TwinLeader& one) -> absl::Status {
    if (current && current->leader != one.leader) {
      RETURN_IF_ERROR(leader_out.Put(*current));
    }
    current = one;  // ascending: the last one seen is the last twin
    return absl::OkStatus();
  }));
  if (current) RETURN_IF_ERROR(leader_out.Put(*current));
  return leader_out.Commit();
}

}  // namespace

absl::Status RunBucketsTask(const StageContext& context, int task) {
  const StagedRun& run = context.run();
  ASSIGN_OR_RETURN(const std::vector<uint64_t> starts, context.PartStarts());
  const uint64_t total = starts.back();
  // Reference documents are kept whatever they pair with: only pairs whose
  // later document is an input's are made.
  const uint64_t first_input = starts[context.reference_parts()];
  const std::string dir = context.Dir(Stage::kBuckets);
  RETURN_IF_ERROR(MakeDirectories(dir));
  const std::string prefix = absl::StrCat(dir, "/task-", task);
  SortedRuns<Filed> filed(prefix + ".filed-run-", run.memory_bytes / 2);
  if (context.simhash()) {
    RETURN_IF_ERROR(FileSimHashes(context, task, starts, filed));
  } else {
    RETURN_IF_ERROR(FileBands(context, task, starts, filed));
  }

  // Every pair of a bucket's documents (in ascending order), but twins:
  // only the first of each class is paired, the others are listed as its
  // twins (by one task: every class shares every bucket).
  SortedRuns<DocPair> pairs(prefix + ".pair-run-", run.memory_bytes / 4);
  const bool lists_twins = task == context.TwinsTask();
  SortedRuns<Twin> twins(prefix + ".twin-run-", run.memory_bytes / 4);
  const int max_distance = context.options().max_distance;
  std::vector<Filed> bucket;
  std::vector<const Filed*> firsts;  // of each class in the bucket
  absl::flat_hash_map<TwinKey, uint64_t, TwinKeyHash> leader_of;
  const auto pair_up = [&]() -> absl::Status {
    firsts.clear();
    leader_of.clear();
    for (const Filed& one : bucket) {
      const auto [it, first] = leader_of.try_emplace(one.twin, one.doc);
      if (first) {
        firsts.push_back(&one);
      } else if (lists_twins) {
        RETURN_IF_ERROR(twins.Add({one.doc, it->second}));
      }
    }
    for (size_t later = 1; later < firsts.size(); ++later) {
      if (firsts[later]->doc < first_input) continue;
      for (size_t earlier = 0; earlier < later; ++earlier) {
        if (context.simhash() &&
            std::popcount(firsts[later]->simhash ^ firsts[earlier]->simhash) >
                max_distance) {
          continue;
        }
        RETURN_IF_ERROR(pairs.Add({firsts[later]->doc, firsts[earlier]->doc}));
      }
    }
    bucket.clear();
    return absl::OkStatus();
  };
  RETURN_IF_ERROR(filed.Merge([&](const Filed& one) -> absl::Status {
    if (!bucket.empty() && (bucket.front().table != one.table ||
                            bucket.front().bucket != one.bucket)) {
      RETURN_IF_ERROR(pair_up());
    }
    bucket.push_back(one);
    return absl::OkStatus();
  }));
  RETURN_IF_ERROR(pair_up());
  if (lists_twins) RETURN_IF_ERROR(WriteTwins(prefix, run, twins));

  // Sorted by the later document: each verify task's share is a stretch.
  std::vector<FileWriter> out;
  for (int k = 0; k < run.tasks; ++k) {
    ASSIGN_OR_RETURN(FileWriter writer,
                     FileWriter::Create(absl::StrCat(prefix, ".pairs-", k),
                                        FileKind::kPairs));
    out.push_back(std::move(writer));
  }
  uint64_t distinct = 0;
  std::optional<DocPair> last;
  int k = 0;
  RETURN_IF_ERROR(pairs.Merge([&](const DocPair& pair) -> absl::Status {
    if (last == pair) return absl::OkStatus();
    last = pair;
    ++distinct;
    while (pair.later >= context.DocRange(k, first_input, total).second) ++k;
    return out[k].Put(pair);
  }));
  for (FileWriter& writer : out) RETURN_IF_ERROR(writer.Commit());
  return context.WriteManifest(
      Stage::kBuckets, task,
      {{"pairs", distinct},
       {"spilled_bytes", filed.spilled_bytes() + pairs.spilled_bytes() +
                             twins.spilled_bytes()}});
}

}  // namespace neardup::dedup::staged
