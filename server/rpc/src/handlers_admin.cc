// Administration: backups, exports, statistics.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "absl/cleanup/cleanup.h"
#include "absl/random/distributions.h"
#include "absl/random/random.h"
#include "absl/strings/str_cat.h"
#include "neardup/base/beneath.h"
#include "neardup/base/status_macros.h"
#include "neardup/server/internal/backup_path.h"
#include "neardup/server/internal/handlers.h"
#include "neardup/server/internal/proto_convert.h"

namespace neardup::server {

absl::Status Handlers::CreateBackup(const v1::CreateBackupRequest& request,
                                    const std::string& backup_root,
                                    v1::CreateBackupResponse* response) {
  if (backup_running_.exchange(true)) {
    return absl::AbortedError(
        "another backup is running; retry when it has finished");
  }
  const absl::Cleanup done = [this] { backup_running_.store(false); };
  const auto start = std::chrono::steady_clock::now();
  ASSIGN_OR_RETURN(
      const std::filesystem::path destination,
      ResolveBackupDestination(backup_root, request.destination()));
  // The checkpoint is built through descriptors, never through names
  // someone else could swap: its parent is opened beneath the root, and
  // RocksDB stages (and first empties) "<name>.tmp", so it builds in a
  // private directory of ours inside the parent, and the finished
  // checkpoint is renamed into place (never over an existing name).
  std::error_code error;
  const std::filesystem::path root = std::filesystem::weakly_canonical(
      std::filesystem::path(backup_root), error);
  const std::filesystem::path parent =
      destination.parent_path().lexically_relative(root);
  ASSIGN_OR_RETURN(
      const UniqueFd parent_dir,
      OpenBeneath(root.string(), parent.empty() ? "." : parent.string(),
                  O_PATH | O_DIRECTORY));
  const std::string name = destination.filename().string();
  // A fresh name each time: a staging directory left by a crash never
  // blocks a later backup.
  std::string staging;
  for (int attempt = 0;; ++attempt) {
    staging = absl::StrCat(".neardup-staging-",
                           absl::Hex(absl::Uniform<uint64_t>(bitgen_)));
    if (mkdirat(parent_dir.get(), staging.c_str(), 0700) == 0) break;
    if (errno != EEXIST || attempt == 8) {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot create a staging directory next to ",
                       destination.string(), ": ", std::strerror(errno)));
    }
  }
  const UniqueFd staging_dir(
      openat(parent_dir.get(), staging.c_str(),
             O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  const absl::Cleanup remove_staging = [&] {
    std::error_code ignored;
    if (staging_dir.get() >= 0) {
      // Whatever is in it: the checkpoint, or RocksDB's half-built
      // "checkpoint.tmp".
      for (const auto& entry : std::filesystem::directory_iterator(
               staging_dir.ProcPath(), ignored)) {
        std::filesystem::remove_all(entry.path(), ignored);
      }
    }
    unlinkat(parent_dir.get(), staging.c_str(), AT_REMOVEDIR);
  };
  if (staging_dir.get() < 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot open the staging directory: ", std::strerror(errno)));
  }
  ASSIGN_OR_RETURN(
      const storage::CheckpointInfo info,
      db_->store().Checkpoint(staging_dir.ProcPath() + "/checkpoint"));
  int moved = renameat2(staging_dir.get(), "checkpoint", parent_dir.get(),
                        name.c_str(), RENAME_NOREPLACE);
  if (moved != 0 && (errno == EINVAL || errno == ENOSYS)) {
    // No rename flags on this filesystem (NFS): a plain rename once the
    // name is checked free; it replaces a name, never follows one.
    struct stat existing;
    if (fstatat(parent_dir.get(), name.c_str(), &existing,
                AT_SYMLINK_NOFOLLOW) == 0) {
      errno = EEXIST;
    } else if (errno == ENOENT) {
      moved = renameat(staging_dir.get(), "checkpoint", parent_dir.get(),
                       name.c_str());
    }
  }
  if (moved != 0) {
    return errno == EEXIST
               ? absl::AlreadyExistsError(absl::StrCat(
                     "destination ", destination.string(),
                     " appeared while the backup was made; nothing was "
                     "written there"))
               : absl::InternalError(absl::StrCat(
                     "cannot move the checkpoint to ", destination.string(),
                     ": ", std::strerror(errno)));
  }
  // The new name survives a power loss once its directory is on disk.
  if (const int dir =
          openat(parent_dir.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      dir >= 0) {
    fsync(dir);
    close(dir);
  }
  response->set_path(destination.string());
  response->set_sequence_number(info.sequence_number);
  for (const auto& [name, documents] : info.documents) {
    v1::BackupCollection* out = response->add_collections();
    out->set_name(name);
    out->set_documents(documents);
  }
  response->set_bytes(info.bytes);
  response->set_seconds(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count());
  return absl::OkStatus();
}

absl::StatusOr<Handlers::ExportStart> Handlers::StartExport(
    const v1::ExportRequest& request) {
  ASSIGN_OR_RETURN(auto collection, FindCollection(request.collection()));
  ASSIGN_OR_RETURN(const int shards, ShardsOf(request.collection()));
  if (shards > 1 && !request.replica_only()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "collection \"", request.collection(), "\" has ", shards,
        " shards and this node holds one: export each shard from one of its "
        "replicas with replica_only (export across shards is not built)"));
  }
  ExportStart start;
  // Evidence travels with the signatures: an import then verifies exactly.
  ASSIGN_OR_RETURN(start.cursor,
                   db_->store().OpenDocumentCursor(collection->record(),
                                                   request.with_signatures()));
  start.collection = CollectionToProto(*collection);
  start.record = collection->record();
  return start;
}

absl::Status Handlers::Stats(const v1::StatsRequest& request,
                             v1::StatsResponse* response) {
  std::vector<std::shared_ptr<engine::Collection>> collections;
  if (request.collection().empty()) {
    collections = db_->ListCollections();
    for (const engine::QuarantinedCollection& bad :
         db_->QuarantinedCollections()) {
      v1::QuarantinedCollection* out = response->add_quarantined();
      out->set_name(bad.name);
      out->set_reason(std::string(bad.reason.message()));
    }
  } else {
    ASSIGN_OR_RETURN(auto collection, FindCollection(request.collection()));
    collections.push_back(std::move(collection));
  }
  for (const auto& collection : collections) {
    v1::CollectionStats* out = response->add_collections();
    out->set_name(collection->name());
    out->set_document_count(collection->num_documents());
    out->set_index_bytes(collection->index_bytes());
    out->set_bands(collection->record().config.lsh.bands);
    out->set_rows(collection->record().config.lsh.rows);
    out->set_simhash(collection->record().config.simhash_enabled);
    out->set_min_threshold(collection->record().config.min_threshold);
    if (const SemanticIndex* semantic = collection->semantic_index()) {
      const size_t vectors = semantic->size();
      const size_t bytes = semantic->memory_bytes();
      out->set_semantic_vectors(vectors);
      out->set_semantic_index_bytes(bytes);
      out->set_semantic_bytes_per_vector(
          vectors == 0 ? 0.0 : static_cast<double>(bytes) / vectors);
    }
  }
  const storage::StoreStats store = db_->store().Stats();
  response->set_store_live_bytes(store.live_sst_bytes + store.live_blob_bytes);
  response->set_store_blob_garbage_bytes(store.blob_garbage_bytes);
  response->set_store_blob_gc_on(store.blob_gc_on);
  response->set_store_pending_compaction_bytes(
      store.estimated_pending_compaction_bytes);
  response->set_store_memtable_bytes(store.memtable_bytes);
  response->set_disk_available_bytes(store.disk_available_bytes);
  response->set_disk_capacity_bytes(store.disk_capacity_bytes);
  response->set_disk_full(store.disk_full);
  response->set_disk_full_reason(store.disk_full_reason);
  response->set_disk_reserve_bytes(store.disk_reserve_bytes);
  return absl::OkStatus();
}

}  // namespace neardup::server
