#ifndef NEARDUP_CLIENT_DEDUP_SRC_STAGED_PART_WRITER_H_
#define NEARDUP_CLIENT_DEDUP_SRC_STAGED_PART_WRITER_H_

// The files of one signatures part, written as its records come (by the
// signatures stage from inputs, or from a dump's signatures).

#include <xxhash.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <vector>

#include "absl/strings/str_cat.h"
#include "fingerprinter.h"
#include "neardup/base/status_macros.h"
#include "neardup/core/index/lsh_params.h"
#include "neardup/core/shingle_set.h"
#include "staged/stage_context.h"
#include "staged/staged_files.h"

namespace neardup::dedup::staged {

// How a part's band tags are laid out (a later run taking the part over
// as a reference needs the same bands to read them).
inline nlohmann::ordered_json PartLayout(const StageContext& context) {
  if (context.simhash()) return {{"simhash", true}};
  return {{"bands", context.lsh().bands},
          {"rows", context.lsh().rows},
          {"tag_files", context.run().tasks}};
}

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

}  // namespace neardup::dedup::staged

#endif  // NEARDUP_CLIENT_DEDUP_SRC_STAGED_PART_WRITER_H_
