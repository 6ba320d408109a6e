// Stage "signatures", one task per part of the inputs: every record's kind
// and output size, and what the later stages compare it by (band tags,
// MinHash slots or SimHash, shingle sets), in input order.

#include <xxhash.h>

#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "batch_reader.h"
#include "fingerprint_pipeline.h"
#include "fingerprinter.h"
#include "neardup/base/status_macros.h"
#include "neardup/core/index/lsh_params.h"
#include "neardup/core/shingle_set.h"
#include "record_text.h"
#include "staged/stage_context.h"
#include "staged/stage_tasks.h"
#include "staged/staged_files.h"

namespace neardup::dedup::staged {
namespace {

// The outputs of one part, written as records come.
class PartWriter {
 public:
  static absl::StatusOr<PartWriter> Create(const StageContext& context,
                                           int part) {
    PartWriter w(context);
    ASSIGN_OR_RETURN(
        w.docs_,
        FileWriter::Create(context.PartPath(part, ".docs"), FileKind::kDocs));
    if (!context.simhash()) {
      for (int task = 0; task < context.run().tasks; ++task) {
        ASSIGN_OR_RETURN(
            FileWriter tags,
            FileWriter::Create(
                context.PartPath(part, absl::StrCat(".tags-", task)),
                FileKind::kBandTags));
        w.tags_.push_back(std::move(tags));
      }
      if (!context.exact()) {
        ASSIGN_OR_RETURN(w.slots_,
                         FileWriter::Create(context.PartPath(part, ".slots"),
                                            FileKind::kSlots));
      }
    }
    if (context.exact()) {
      ASSIGN_OR_RETURN(
          w.sets_,
          FileWriter::Create(context.PartPath(part, ".sets"), FileKind::kSets));
      ASSIGN_OR_RETURN(w.set_index_,
                       FileWriter::Create(context.PartPath(part, ".setidx"),
                                          FileKind::kSetIndex));
    }
    return w;
  }

  absl::Status Add(uint64_t local, uint64_t out_bytes, DocFingerprint& print) {
    const bool ok = print.kind == DocFingerprint::Kind::kOk;
    std::span<uint64_t> set;
    if (ok && sets_) {
      set = print.token_set;
      set = set.first(SortUniqueHashes(set));
    }
    DocEntry entry;
    entry.out_bytes = out_bytes;
    entry.kind = static_cast<uint32_t>(print.kind);
    if (ok) {
      if (context_.simhash()) entry.simhash = print.simhash;
      entry.twin = TwinKeyOf(print, set);
    }
    RETURN_IF_ERROR(docs_->Put(entry));
    if (!context_.simhash()) {
      const int rows = context_.lsh().rows;
      const uint64_t* slots = print.minhash.slots.data();
      for (int task = 0; ok && task < context_.run().tasks; ++task) {
        const auto [begin, end] = context_.KeyRange(task);
        if (begin == end) continue;
        RETURN_IF_ERROR(tags_[task].Put(local));
        RETURN_IF_ERROR(tags_[task].Put(entry.twin));
        for (int band = begin; band < end; ++band) {
          RETURN_IF_ERROR(tags_[task].Put(BandTag(slots + band * rows, rows)));
        }
      }
      if (slots_) {
        low_.assign(context_.options().fingerprint.num_perm, 0);
        for (size_t i = 0; ok && i < low_.size(); ++i) {
          low_[i] = static_cast<uint16_t>(slots[i]);
        }
        RETURN_IF_ERROR(slots_->Write(low_.data(), low_.size() * 2));
      }
    }
    if (sets_) {
      RETURN_IF_ERROR(set_index_->Put(sets_->size() / sizeof(uint64_t)));
      RETURN_IF_ERROR(sets_->Write(set.data(), set.size_bytes()));
    }
    return absl::OkStatus();
  }

  absl::Status Commit() {
    if (sets_) {
      RETURN_IF_ERROR(set_index_->Put(sets_->size() / sizeof(uint64_t)));
      RETURN_IF_ERROR(sets_->Commit());
      RETURN_IF_ERROR(set_index_->Commit());
    }
    if (slots_) RETURN_IF_ERROR(slots_->Commit());
    for (FileWriter& tags : tags_) RETURN_IF_ERROR(tags.Commit());
    return docs_->Commit();
  }

 private:
  explicit PartWriter(const StageContext& context) : context_(context) {}

  // Everything the later stages compare the document by: its set (exact
  // verification), all 64 bits of its MinHash slots (its band tags and
  // estimates follow from them), its SimHash.
  TwinKey TwinKeyOf(const DocFingerprint& print,
                    std::span<const uint64_t> set) {
    XXH3_128bits_reset(twin_.get());
    XXH3_128bits_update(twin_.get(), set.data(), set.size_bytes());
    if (context_.simhash()) {
      XXH3_128bits_update(twin_.get(), &print.simhash, sizeof(print.simhash));
    } else {
      XXH3_128bits_update(twin_.get(), print.minhash.slots.data(),
                          print.minhash.slots.size() * sizeof(uint64_t));
    }
    const XXH128_hash_t hash = XXH3_128bits_digest(twin_.get());
    return {hash.low64, hash.high64};
  }

  const StageContext& context_;
  std::optional<FileWriter> docs_;
  std::vector<FileWriter> tags_;  // per bucket task
  std::optional<FileWriter> slots_;
  std::optional<FileWriter> sets_;
  std::optional<FileWriter> set_index_;
  std::vector<uint16_t> low_;
  std::unique_ptr<XXH3_state_t, decltype(&XXH3_freeState)> twin_{
      XXH3_createState(), &XXH3_freeState};
};

}  // namespace

absl::Status RunSignaturesTask(const StageContext& context, int part) {
  const DedupOptions& options = context.options();
  const std::vector<dataset::InputFile> files = context.PartFiles(part);
  RETURN_IF_ERROR(MakeDirectories(context.Dir(Stage::kSignatures)));
  ASSIGN_OR_RETURN(PartWriter writer, PartWriter::Create(context, part));
  ASSIGN_OR_RETURN(const Fingerprinter fingerprinter,
                   Fingerprinter::Create(options));
  ASSIGN_OR_RETURN(const RecordText record_text, RecordText::Create(options));

  uint64_t docs = 0, empty = 0, invalid = 0, input_bytes = 0;
  std::string header;
  std::unique_ptr<XXH3_state_t, decltype(&XXH3_freeState)> checksum(
      XXH3_createState(), &XXH3_freeState);
  XXH3_64bits_reset(checksum.get());
  nlohmann::ordered_json names = nlohmann::ordered_json::array();
  for (const dataset::InputFile& file : files) names.push_back(file.path);
  if (!files.empty()) {
    BatchReader reader(files, options);
    RETURN_IF_ERROR(reader.Start());
    header = reader.header();
    XXH3_64bits_update(checksum.get(), header.data(), header.size());
    RETURN_IF_ERROR(FingerprintInOrder(
        reader, record_text, fingerprinter, PipelineOptionsOf(options),
        [&](FingerprintedBatch& item) -> absl::Status {
          const Batch& batch = item.batch;
          for (size_t i = 0; i < batch.records.size(); ++i) {
            const RecordRef& ref = batch.records[i];
            DocFingerprint& print = item.prints[i];
            const std::string_view raw = batch.record(ref);
            XXH3_64bits_update(checksum.get(), raw.data(), raw.size());
            if (print.kind == DocFingerprint::Kind::kInvalid) {
              if (!options.skip_invalid) {
                return absl::InvalidArgumentError(absl::StrCat(
                    reader.DisplayName(ref.file), ":", ref.line, ": ",
                    print.error, " (--skip-invalid skips such records)"));
              }
              ++invalid;
            }
            if (print.kind == DocFingerprint::Kind::kEmpty) ++empty;
            RETURN_IF_ERROR(writer.Add(docs++, OutputBytes(raw), print));
          }
          return absl::OkStatus();
        }));
    input_bytes = reader.bytes_consumed();
  }
  RETURN_IF_ERROR(writer.Commit());
  {
    // Bytes as they are (a manifest's JSON would mend invalid UTF-8).
    ASSIGN_OR_RETURN(FileWriter out,
                     FileWriter::Create(context.PartPath(part, ".header"),
                                        FileKind::kHeader));
    RETURN_IF_ERROR(out.Write(header.data(), header.size()));
    RETURN_IF_ERROR(out.Commit());
  }
  return context.WriteManifest(
      Stage::kSignatures, part,
      {{"files", std::move(names)},
       {"docs", docs},
       {"empty", empty},
       {"invalid", invalid},
       {"input_bytes", input_bytes},
       {"checksum", absl::StrCat(absl::Hex(XXH3_64bits_digest(checksum.get()),
                                           absl::kZeroPad16))}});
}

}  // namespace neardup::dedup::staged
