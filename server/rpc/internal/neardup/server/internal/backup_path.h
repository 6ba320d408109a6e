#ifndef NEARDUP_SERVER_INTERNAL_BACKUP_PATH_H_
#define NEARDUP_SERVER_INTERNAL_BACKUP_PATH_H_

// Where a CreateBackup may write: a new directory strictly inside the
// server's --backup-dir, whatever `..`, symlinks or absolute paths the
// request holds.

#include <filesystem>
#include <string>

#include "absl/status/statusor.h"

namespace neardup::server {

// The absolute, symlink-resolved path of `destination` (relative to `root`,
// or absolute), creating its missing parents inside `root`.
// FAILED_PRECONDITION when `root` is empty (backups are off);
// INVALID_ARGUMENT for an empty destination or one outside `root`;
// ALREADY_EXISTS when it exists, or when "<it>.tmp" does (RocksDB stages a
// checkpoint there and empties it first).
absl::StatusOr<std::filesystem::path> ResolveBackupDestination(
    const std::string& root, const std::string& destination);

}  // namespace neardup::server

#endif  // NEARDUP_SERVER_INTERNAL_BACKUP_PATH_H_
