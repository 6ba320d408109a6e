#include "neardup/server/internal/backup_path.h"

#include <algorithm>
#include <system_error>

#include "absl/strings/str_cat.h"

namespace neardup::server {
namespace {

namespace fs = std::filesystem;

// True when `path` is `root` followed by at least one more component.
bool StrictlyInside(const fs::path& path, const fs::path& root) {
  auto p = path.begin();
  for (auto r = root.begin(); r != root.end(); ++r, ++p) {
    if (r->empty()) continue;  // a trailing separator of root
    if (p == path.end() || *p != *r) return false;
  }
  return std::any_of(p, path.end(),
                     [](const fs::path& part) { return !part.empty(); });
}

}  // namespace

absl::StatusOr<fs::path> ResolveBackupDestination(
    const std::string& root, const std::string& destination) {
  if (root.empty()) {
    return absl::FailedPreconditionError(
        "backups are off: start neardupd with --backup-dir ROOT (a directory "
        "on the server under which backups are written)");
  }
  if (destination.empty()) {
    return absl::InvalidArgumentError(
        "destination: give a new directory under --backup-dir");
  }
  if (destination.find('\0') != std::string::npos) {
    return absl::InvalidArgumentError("destination: contains a NUL byte");
  }
  std::error_code error;
  const fs::path root_path = fs::weakly_canonical(root, error);
  if (error) {
    return absl::FailedPreconditionError(absl::StrCat(
        "--backup-dir ", root, " cannot be resolved: ", error.message()));
  }
  // weakly_canonical resolves the symlinks of the part that exists and
  // removes `.` and `..` from the rest.
  const fs::path wanted = fs::path(destination).is_absolute()
                              ? fs::path(destination)
                              : root_path / destination;
  fs::path resolved = fs::weakly_canonical(wanted, error);
  // "nightly/" names the directory nightly, not an empty name inside it.
  while (!resolved.empty() && !resolved.has_filename()) {
    resolved = resolved.parent_path();
  }
  if (error) {
    return absl::InvalidArgumentError(absl::StrCat(
        "destination ", destination, " cannot be resolved: ", error.message()));
  }
  if (!StrictlyInside(resolved, root_path)) {
    return absl::InvalidArgumentError(
        absl::StrCat("destination ", destination, " resolves to ",
                     resolved.string(), ", outside --backup-dir ",
                     root_path.string(), "; give a path inside it"));
  }
  if (fs::exists(fs::symlink_status(resolved, error))) {
    return absl::AlreadyExistsError(
        absl::StrCat("destination ", resolved.string(),
                     " already exists; a backup goes into a new directory"));
  }
  // RocksDB builds a checkpoint in "<destination>.tmp", emptying it first:
  // never point it at a directory that may be another backup.
  const fs::path staging = resolved.string() + ".tmp";
  if (fs::exists(fs::symlink_status(staging, error))) {
    return absl::AlreadyExistsError(absl::StrCat(
        staging.string(),
        " exists (a backup under that name, or an interrupted one): the "
        "checkpoint would build in it and empty it first; pick another "
        "name or remove it"));
  }
  fs::create_directories(resolved.parent_path(), error);
  if (error) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot create ", resolved.parent_path().string(), ": ",
                     error.message()));
  }
  return resolved;
}

}  // namespace neardup::server
