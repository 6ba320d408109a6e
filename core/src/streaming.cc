#include "neardup/core/streaming.h"

#include "absl/strings/str_cat.h"
#include "neardup/core/internal/utf8.h"

namespace neardup {

absl::Status Utf8StreamBuffer::Append(std::string_view chunk) {
  if (!error_.ok()) return error_;
  if (chunk.size() > max_bytes_ - data_.size()) {
    error_ = absl::InvalidArgumentError(absl::StrCat(
        "input exceeds the streaming limit of ", max_bytes_, " bytes"));
    return error_;
  }
  data_.append(chunk);
  // Validate everything but a trailing sequence that may still be completed.
  const std::string_view pending = std::string_view(data_).substr(validated_);
  const size_t tail = internal::IncompleteUtf8Tail(pending);
  const std::string_view complete = pending.substr(0, pending.size() - tail);
  const size_t bad = internal::FindInvalidUtf8(complete);
  if (bad != internal::kNoError) {
    error_ = absl::InvalidArgumentError(
        absl::StrCat("invalid UTF-8 at byte ", validated_ + bad));
    return error_;
  }
  validated_ += complete.size();
  return absl::OkStatus();
}

absl::StatusOr<std::string_view> Utf8StreamBuffer::Complete() const {
  if (!error_.ok()) return error_;
  if (validated_ != data_.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("input ends inside a UTF-8 sequence (",
                     data_.size() - validated_, " trailing bytes)"));
  }
  return std::string_view(data_);
}

void Utf8StreamBuffer::Reset() {
  data_.clear();
  validated_ = 0;
  error_ = absl::OkStatus();
}

}  // namespace neardup
