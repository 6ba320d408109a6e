#ifndef NEARDUP_CORE_STREAMING_H_
#define NEARDUP_CORE_STREAMING_H_

// Chunk-fed fingerprinting: Update(bytes)... Finalize(). Produces the same
// bytes as the one-shot Fingerprint() of the concatenated input.

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "neardup/core/minhash.h"
#include "neardup/core/simhash.h"

namespace neardup {

inline constexpr size_t kDefaultStreamMaxBytes = 16 * 1024 * 1024;

// Buffers validated UTF-8. A code point split across chunks is stitched;
// invalid bytes or going over the cap fail at once (INVALID_ARGUMENT) and the
// error sticks until Reset(). Nothing is ever silently truncated.
class Utf8StreamBuffer {
 public:
  explicit Utf8StreamBuffer(size_t max_bytes = kDefaultStreamMaxBytes)
      : max_bytes_(max_bytes) {}

  absl::Status Append(std::string_view chunk);
  // The whole input; INVALID_ARGUMENT if it ends inside a UTF-8 sequence.
  absl::StatusOr<std::string_view> Complete() const;
  void Reset();
  size_t size() const { return data_.size(); }
  size_t max_bytes() const { return max_bytes_; }

 private:
  size_t max_bytes_;
  std::string data_;
  size_t validated_ = 0;  // prefix of data_ known to be complete, valid UTF-8
  absl::Status error_;
};

// `Hasher` is MinHasher or SimHasher; it must outlive the stream.
template <typename Hasher>
class StreamingFingerprinter {
 public:
  using Output = typename decltype(std::declval<const Hasher&>().Fingerprint(
      std::string_view()))::value_type;

  explicit StreamingFingerprinter(const Hasher& hasher,
                                  size_t max_bytes = kDefaultStreamMaxBytes)
      : hasher_(&hasher), buffer_(max_bytes) {}

  absl::Status Update(std::string_view chunk) { return buffer_.Append(chunk); }
  absl::StatusOr<Output> Finalize() const {
    absl::StatusOr<std::string_view> text = buffer_.Complete();
    if (!text.ok()) return text.status();
    return hasher_->Fingerprint(*text);
  }
  void Reset() { buffer_.Reset(); }
  size_t buffered_bytes() const { return buffer_.size(); }

 private:
  const Hasher* hasher_;
  Utf8StreamBuffer buffer_;
};

using MinHashStream = StreamingFingerprinter<MinHasher>;
using SimHashStream = StreamingFingerprinter<SimHasher>;

}  // namespace neardup

#endif  // NEARDUP_CORE_STREAMING_H_
