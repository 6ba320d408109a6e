// Stage "buckets", one task per range of bands (minhash-lsh, perceptual) or
// SimHash tables: documents filed under the same band tag (table key) are
// candidate pairs, as they would be each other's in the one-process index.
// SimHash pairs further apart than --max-distance are dropped here (the
// index drops them too). The pairs go out sorted, distinct, cut by the
// verify task of their later document.

#include <bit>
#include <compare>
#include <vector>

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
    while (true) {
      ASSIGN_OR_RETURN(const bool got, reader.Get(&local));
      if (!got) break;
      ASSIGN_OR_RETURN(const bool whole,
                       reader.Read(tags.data(), tags.size() * 4));
      if (!whole) return absl::DataLossError(reader.path() + " is cut short");
      for (int band = begin; band < end; ++band) {
        RETURN_IF_ERROR(
            filed.Add({static_cast<uint64_t>(band) << 32 | tags[band - begin],
                       0, 0, starts[part] + local, 0}));
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
        RETURN_IF_ERROR(
            filed.Add({entry.simhash & context.masks()[table],
                       static_cast<uint32_t>(table), 0, doc, entry.simhash}));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RunBucketsTask(const StageContext& context, int task) {
  const StagedRun& run = context.run();
  ASSIGN_OR_RETURN(const std::vector<uint64_t> starts, context.PartStarts());
  const uint64_t total = starts.back();
  const std::string dir = context.Dir(Stage::kBuckets);
  RETURN_IF_ERROR(MakeDirectories(dir));
  const std::string prefix = absl::StrCat(dir, "/task-", task);
  SortedRuns<Filed> filed(prefix + ".filed-run-", run.memory_bytes / 2);
  if (context.simhash()) {
    RETURN_IF_ERROR(FileSimHashes(context, task, starts, filed));
  } else {
    RETURN_IF_ERROR(FileBands(context, task, starts, filed));
  }

  // Every pair of a bucket (the documents come in ascending order).
  SortedRuns<DocPair> pairs(prefix + ".pair-run-", run.memory_bytes / 2);
  const int max_distance = context.options().max_distance;
  std::vector<Filed> bucket;
  const auto pair_up = [&]() -> absl::Status {
    for (size_t later = 1; later < bucket.size(); ++later) {
      for (size_t earlier = 0; earlier < later; ++earlier) {
        if (context.simhash() &&
            std::popcount(bucket[later].simhash ^ bucket[earlier].simhash) >
                max_distance) {
          continue;
        }
        RETURN_IF_ERROR(pairs.Add({bucket[later].doc, bucket[earlier].doc}));
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
    while (pair.later >= context.DocRange(k, total).second) ++k;
    return out[k].Put(pair);
  }));
  for (FileWriter& writer : out) RETURN_IF_ERROR(writer.Commit());
  return context.WriteManifest(
      Stage::kBuckets, task,
      {{"pairs", distinct},
       {"spilled_bytes", filed.spilled_bytes() + pairs.spilled_bytes()}});
}

}  // namespace neardup::dedup::staged
