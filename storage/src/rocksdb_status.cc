#include "rocksdb_status.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "neardup/base/absl_compat.h"

namespace neardup::storage {
namespace {

absl::StatusCode CodeFor(const rocksdb::Status& status) {
  using Code = rocksdb::Status::Code;
  using SubCode = rocksdb::Status::SubCode;
  switch (status.code()) {
    case Code::kOk:
      return absl::StatusCode::kOk;
    case Code::kNotFound:
      return absl::StatusCode::kNotFound;
    case Code::kCorruption:
      return absl::StatusCode::kDataLoss;
    case Code::kNotSupported:
      return absl::StatusCode::kUnimplemented;
    case Code::kInvalidArgument:
      return absl::StatusCode::kInvalidArgument;
    case Code::kIOError:
      if (status.subcode() == SubCode::kNoSpace) {
        return absl::StatusCode::kResourceExhausted;
      }
      if (status.subcode() == SubCode::kPathNotFound) {
        return absl::StatusCode::kNotFound;
      }
      // Includes "lock held by another process": retrying later may work.
      return absl::StatusCode::kUnavailable;
    case Code::kTimedOut:
    case Code::kExpired:
      return absl::StatusCode::kDeadlineExceeded;
    case Code::kAborted:
      return absl::StatusCode::kAborted;
    case Code::kBusy:
    case Code::kTryAgain:
    case Code::kShutdownInProgress:
      return absl::StatusCode::kUnavailable;
    case Code::kCompactionTooLarge:
      return absl::StatusCode::kResourceExhausted;
    case Code::kColumnFamilyDropped:
      return absl::StatusCode::kFailedPrecondition;
    case Code::kMergeInProgress:
    case Code::kIncomplete:
    default:
      return absl::StatusCode::kInternal;
  }
}

}  // namespace

absl::Status FromRocksDb(const rocksdb::Status& status,
                         std::string_view context) {
  if (status.ok()) return absl::OkStatus();
  return absl::Status(CodeFor(status),
                      absl::StrCat(AbslView(context), ": ", status.ToString()));
}

}  // namespace neardup::storage
