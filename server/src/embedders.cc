#include "neardup/server/internal/embedders.h"

#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"

namespace neardup::server {

absl::StatusOr<std::shared_ptr<const embed::FastTextEmbedder>>
EmbedderCache::Get(const std::string& relative) const {
  namespace fs = std::filesystem;
  if (models_dir_.empty()) {
    return absl::FailedPreconditionError(
        "this server embeds no texts: start it with --models-dir to use "
        "fastText models");
  }
  std::error_code error;
  const fs::path root = fs::canonical(models_dir_, error);
  if (error) {
    return absl::FailedPreconditionError(absl::StrCat(
        "--models-dir ", models_dir_, " is not usable: ", error.message()));
  }
  // Symbolic links are followed, then the result must still be inside.
  const fs::path path = fs::weakly_canonical(root / relative, error);
  const std::string root_prefix = root.string() + "/";
  if (error || !path.string().starts_with(root_prefix)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "fastText model \"", relative, "\" is not a file inside --models-dir"));
  }
  const std::optional<embed::FileStamp> stamp = embed::StampOf(path.string());
  if (!stamp) {
    return absl::NotFoundError(absl::StrCat("fastText model \"", relative,
                                            "\" is not in --models-dir"));
  }
  std::shared_ptr<Slot> slot;
  {
    MutexLock lock(&mu_);
    std::shared_ptr<Slot>& entry = slots_[path.string()];
    if (entry == nullptr) entry = std::make_shared<Slot>();
    slot = entry;
  }
  MutexLock lock(&slot->mu);
  if (slot->model != nullptr && slot->stamp == *stamp) return slot->model;
  auto model = embed::FastTextEmbedder::Load(path.string());
  if (!model.ok()) {
    return absl::Status(model.status().code(),
                        absl::StrCat("fastText model \"", relative,
                                     "\": ", model.status().message()));
  }
  slot->model = *model;
  slot->stamp = *stamp;
  return slot->model;
}

absl::StatusOr<std::shared_ptr<const embed::FastTextEmbedder>>
EmbedderCache::ForCollection(const storage::CollectionRecord& record) const {
  const EmbeddingSpace& space = record.config.embedding;
  auto model = Get(space.fasttext_model);
  if (!model.ok()) {
    // The request is fine; the collection's model is not usable here.
    return absl::FailedPreconditionError(
        absl::StrCat("collection '", record.name,
                     "' cannot embed texts: ", model.status().message()));
  }
  if ((*model)->model_id() != space.model_id) {
    return absl::FailedPreconditionError(absl::StrCat(
        "collection '", record.name, "' was created with fastText model \"",
        space.fasttext_model, "\" = ", space.model_id, "; the file is now ",
        (*model)->model_id(),
        ". Put the original file back (vectors of another model are not "
        "comparable), or create a new collection"));
  }
  return model;
}

}  // namespace neardup::server
