#include "neardup/engine/embedders.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "neardup/base/beneath.h"

namespace neardup::engine {

absl::StatusOr<std::shared_ptr<const embed::FastTextEmbedder>>
EmbedderCache::Get(const std::string& relative) const {
  if (models_dir_.empty()) {
    return absl::FailedPreconditionError(
        "this server embeds no texts: start it with --models-dir to use "
        "fastText models");
  }
  // Opened beneath the directory and used by descriptor from then on: a
  // symlink or `..` cannot lead out, and nothing can be swapped in between
  // a check and the open.
  // O_PATH: nothing is read (a FIFO would block) until fstat says it is a
  // regular file; the loader opens it again through /proc/self/fd.
  absl::StatusOr<UniqueFd> file = OpenBeneath(models_dir_, relative, O_PATH);
  if (!file.ok()) {
    if (absl::IsNotFound(file.status())) {
      return absl::NotFoundError(absl::StrCat("fastText model \"", relative,
                                              "\" is not in --models-dir"));
    }
    if (absl::IsFailedPrecondition(file.status())) {
      return absl::FailedPreconditionError(
          absl::StrCat("--models-dir ", models_dir_,
                       " is not usable: ", file.status().message()));
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "fastText model \"", relative, "\" is not a file inside --models-dir"));
  }
  struct stat info;
  if (fstat(file->get(), &info) != 0 || !S_ISREG(info.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "fastText model \"", relative, "\" is not a file inside --models-dir"));
  }
  const std::string path = file->ProcPath();
  const std::optional<embed::FileStamp> stamp = embed::StampOf(path);
  if (!stamp) {
    return absl::NotFoundError(absl::StrCat("fastText model \"", relative,
                                            "\" is not in --models-dir"));
  }
  // The cache knows a model by its name; a file replaced under that name
  // (another stamp) is loaded again in the same slot.
  const std::string key =
      std::filesystem::path(relative).lexically_normal().string();
  std::shared_ptr<Slot> slot;
  {
    MutexLock lock(&mu_);
    std::shared_ptr<Slot>& entry = slots_[key];
    if (entry == nullptr) entry = std::make_shared<Slot>();
    slot = entry;
  }
  MutexLock lock(&slot->mu);
  if (slot->model != nullptr && slot->stamp == *stamp) return slot->model;
  auto model = embed::FastTextEmbedder::Load(path);
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

}  // namespace neardup::engine
