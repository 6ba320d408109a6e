#include "neardup/dataset/record_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "neardup/dataset/input_format.h"

namespace neardup::dataset {
namespace {

constexpr size_t kReadChunk = 1 << 20;

bool IsBlank(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
  });
}

}  // namespace

absl::StatusOr<std::unique_ptr<RecordReader>> RecordReader::Open(
    const std::string& path, Format format, bool whole_file,
    uint64_t max_record_bytes) {
  if (path == "-" || path.empty()) {
    return std::unique_ptr<RecordReader>(
        new RecordReader(STDIN_FILENO, false, "<stdin>", format, 0, whole_file,
                         max_record_bytes));
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return absl::NotFoundError(
        absl::StrCat("cannot open ", path, ": ", std::strerror(errno)));
  }
  struct stat st;
  uint64_t size = 0;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) size = st.st_size;
  return std::unique_ptr<RecordReader>(new RecordReader(
      fd, true, path, format, size, whole_file, max_record_bytes));
}

RecordReader::RecordReader(int fd, bool owns_fd, std::string name,
                           Format format, uint64_t size_hint, bool whole_file,
                           uint64_t max_record_bytes)
    : fd_(fd),
      owns_fd_(owns_fd),
      name_(std::move(name)),
      format_(format),
      delimiter_(CsvDelimiter(format)),
      size_hint_(size_hint),
      whole_file_(whole_file),
      max_record_bytes_(max_record_bytes) {}

RecordReader::~RecordReader() {
  if (owns_fd_) ::close(fd_);
}

absl::Status RecordReader::ReadMore() {
  char* data = buffer_.data();
  if (begin_ > 0) {  // drop returned bytes so the buffer stays small
    std::memmove(data, data + begin_, size_ - begin_);
    size_ -= begin_;
    scan_ -= begin_;
    begin_ = 0;
  }
  // The buffer only grows (a record longer than it), so its bytes are
  // zero-filled once, not on every read.
  if (buffer_.size() - size_ < kReadChunk) {
    buffer_.resize(size_ + kReadChunk);
    data = buffer_.data();
  }
  ssize_t n;
  do {
    n = ::read(fd_, data + size_, buffer_.size() - size_);
  } while (n < 0 && errno == EINTR);
  if (n < 0) {
    return absl::DataLossError(
        absl::StrCat("cannot read ", name_, ": ", std::strerror(errno)));
  }
  size_ += static_cast<size_t>(n);
  if (n == 0) eof_ = true;
  return absl::OkStatus();
}

size_t RecordReader::FindRecordEnd() {
  const char* data = buffer_.data();
  const size_t size = size_;
  if (whole_file_) {
    scan_ = size;
    return std::string::npos;
  }
  if (!IsCsvLike(format_)) {
    const void* nl = std::memchr(data + scan_, '\n', size - scan_);
    if (nl == nullptr) {
      scan_ = size;
      return std::string::npos;
    }
    return static_cast<const char*>(nl) - data + 1;
  }
  // RFC 4180: a newline ends the record unless it is inside quotes.
  size_t i = scan_;
  while (i < size) {
    const char c = data[i];
    switch (csv_state_) {
      case CsvState::kQuoted: {
        const void* q = std::memchr(data + i, '"', size - i);
        if (q == nullptr) {
          i = size;
          continue;
        }
        i = static_cast<const char*>(q) - data;
        csv_state_ = CsvState::kQuoteSeen;
        break;
      }
      case CsvState::kQuoteSeen:
        if (c == '"') {
          csv_state_ = CsvState::kQuoted;  // "" is an escaped quote
          break;
        }
        [[fallthrough]];
      case CsvState::kFieldStart:
      case CsvState::kUnquoted:
        if (c == '\n') {
          csv_state_ = CsvState::kFieldStart;
          scan_ = i + 1;
          return i + 1;
        }
        if (c == delimiter_) {
          csv_state_ = CsvState::kFieldStart;
        } else if (c == '"' && csv_state_ == CsvState::kFieldStart) {
          csv_state_ = CsvState::kQuoted;
        } else {
          csv_state_ = CsvState::kUnquoted;  // a stray quote is data here
        }
        break;
    }
    ++i;
  }
  scan_ = size;
  return std::string::npos;
}

size_t RecordReader::ContentBytes(size_t begin, size_t end) const {
  // The line terminator does not count against the limit.
  if (end > begin && buffer_[end - 1] == '\n') --end;
  if (end > begin && buffer_[end - 1] == '\r') --end;
  return end - begin;
}

absl::Status RecordReader::TooLong() const {
  if (whole_file_) {
    return absl::InvalidArgumentError(
        absl::StrCat(name_, " is longer than ", max_record_bytes_,
                     " bytes, the limit of one document (--max-record-bytes)"));
  }
  return absl::InvalidArgumentError(absl::StrCat(
      name_, ": the record starting at line ", line_, " is longer than ",
      max_record_bytes_,
      " bytes (--max-record-bytes); is the input missing its line breaks, or "
      "in another format?"));
}

absl::StatusOr<bool> RecordReader::Next(RawRecord* record) {
  while (true) {
    if (at_file_start_ && (size_ - begin_ >= 3 || eof_)) {
      at_file_start_ = false;
      // A whole file is copied as it is, byte order mark included.
      if (!whole_file_ &&
          std::string_view(buffer_.data() + begin_, size_ - begin_)
                  .substr(0, 3) == "\xEF\xBB\xBF") {
        begin_ += 3;
        scan_ = std::max(scan_, begin_);
        bytes_consumed_ += 3;
      }
    }
    size_t end = at_file_start_ ? std::string::npos : FindRecordEnd();
    if (end == std::string::npos) {
      // Stop growing the buffer: a newline-free input is an error, not a
      // read of the whole stream into memory.
      // (+2: a terminator may still follow and does not count.)
      if (!eof_ && size_ - begin_ > max_record_bytes_ + 2) return TooLong();
      if (!eof_) {
        absl::Status read = ReadMore();
        if (!read.ok()) return read;
        continue;
      }
      // An empty file is still one (empty) document in whole-file mode.
      if (begin_ == size_ && !(whole_file_ && !returned_whole_)) {
        return false;
      }
      returned_whole_ = true;
      end = size_;  // last record without a terminator
      csv_state_ = CsvState::kFieldStart;
    }
    if (ContentBytes(begin_, end) > max_record_bytes_) return TooLong();
    const std::string_view bytes(buffer_.data() + begin_, end - begin_);
    const uint64_t start_line = line_;
    // Outside CSV quotes and whole files a record ends at its first '\n'.
    if (IsCsvLike(format_) || whole_file_) {
      line_ += std::count(bytes.begin(), bytes.end(), '\n');
    } else {
      line_ += !bytes.empty() && bytes.back() == '\n';
    }
    begin_ = end;
    scan_ = end;
    bytes_consumed_ += bytes.size();
    // Blank lines separate nothing in JSONL or CSV; in TXT they are documents.
    if (format_ != Format::kTxt && !whole_file_ && IsBlank(bytes)) continue;
    record->bytes = bytes;
    record->line = start_line;
    return true;
  }
}

}  // namespace neardup::dataset
