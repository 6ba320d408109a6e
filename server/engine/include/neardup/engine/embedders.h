#ifndef NEARDUP_ENGINE_EMBEDDERS_H_
#define NEARDUP_ENGINE_EMBEDDERS_H_

// The fastText models of collections that embed texts themselves, loaded
// on first use and shared. Files live under --models-dir: a request names
// one by a relative path and can never reach outside it. A file replaced on
// disk is loaded again (and then no longer matches the collections made
// with the old one). Thread-safe: loads of different files run in
// parallel, and a slow load blocks only users of that file.

#include <map>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "neardup/base/sync.h"
#include "neardup/embed/fasttext_embedder.h"
#include "neardup/storage/collection_record.h"

namespace neardup::engine {

class EmbedderCache {
 public:
  // Empty `models_dir`: local embeddings are off.
  explicit EmbedderCache(std::string models_dir)
      : models_dir_(std::move(models_dir)) {}

  // The model at `relative` under --models-dir. FAILED_PRECONDITION when
  // the server has no --models-dir, INVALID_ARGUMENT when the path leads
  // outside it, NOT_FOUND or INVALID_ARGUMENT when the file cannot be
  // loaded.
  absl::StatusOr<std::shared_ptr<const embed::FastTextEmbedder>> Get(
      const std::string& relative) const;
  // The model of `record`'s embedding space, checked to be the file the
  // collection was created with (FAILED_PRECONDITION when it changed).
  absl::StatusOr<std::shared_ptr<const embed::FastTextEmbedder>> ForCollection(
      const storage::CollectionRecord& record) const;

 private:
  // One file's model, loaded (at most once per version) under its own lock.
  struct Slot {
    Mutex mu;
    std::shared_ptr<const embed::FastTextEmbedder> model ABSL_GUARDED_BY(mu);
    embed::FileStamp stamp ABSL_GUARDED_BY(mu);
  };

  const std::string models_dir_;
  mutable Mutex mu_;  // held only to find or add a slot
  mutable std::map<std::string, std::shared_ptr<Slot>> slots_
      ABSL_GUARDED_BY(mu_);  // by canonical path
};

}  // namespace neardup::engine

#endif  // NEARDUP_ENGINE_EMBEDDERS_H_
