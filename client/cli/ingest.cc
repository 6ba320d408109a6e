#include "client/cli/ingest.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <deque>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "client/dedup/input_format.h"
#include "client/dedup/record_reader.h"
#include "client/dedup/text_extractor.h"
#include "neardup/client/client.h"
#include "neardup/core/status_macros.h"
#include "neardup/core/sync.h"

namespace neardup::cli {
namespace {

using Clock = std::chrono::steady_clock;

// Reads (id, text) pairs from the inputs, one file after the other.
class DocumentSource {
 public:
  DocumentSource(const ServerCommands& cmd, dedup::Format format)
      : cmd_(cmd), format_(format) {}

  // Fills `request`; false at the end or on an error (see status()).
  bool Next(v1::UpsertRequest* request) {
    while (true) {
      if (reader_ == nullptr && !OpenNext()) return false;
      dedup::RawRecord record;
      auto more = reader_->Next(&record);
      if (!more.ok()) return Fail(more.status());
      if (!*more) {
        reader_.reset();
        continue;
      }
      bytes_ += record.bytes.size();
      if (IsTxt() &&
          record.bytes.find_first_not_of(" \t\r\n") == std::string_view::npos) {
        continue;  // blank line: no document
      }
      // simdjson reads ahead of the record: give it padded bytes.
      padded_.assign(record.bytes);
      padded_.append(dedup::ExtractPadding(), '\0');
      const std::string_view bytes(padded_.data(), record.bytes.size());
      auto text = text_->Extract(bytes, &text_scratch_);
      absl::StatusOr<std::string_view> id =
          id_ ? id_->Extract(bytes, &id_scratch_)
              : absl::StatusOr<std::string_view>(std::string_view());
      absl::Status bad = !text.ok() ? text.status() : id.status();
      if (bad.ok() && id_ && id->empty()) {
        bad = absl::InvalidArgumentError(
            absl::StrCat("empty id in field '", cmd_.id_field, "'"));
      }
      if (!bad.ok()) {
        bad = absl::InvalidArgumentError(absl::StrCat(
            reader_->name(), ":", record.line, ": ", bad.message()));
        if (!cmd_.skip_invalid) return Fail(bad);
        ++invalid_;
        continue;
      }
      request->set_collection(cmd_.collection);
      request->set_id(id_ ? std::string(*id)
                          : absl::StrCat(base_name_, ":", record.line));
      request->set_text(std::string(*text));
      if (cmd_.insert_only_below > 0) {
        request->set_insert_only_below(cmd_.insert_only_below);
      }
      return true;
    }
  }

  const absl::Status& status() const { return status_; }
  uint64_t invalid() const { return invalid_; }
  uint64_t bytes() const { return bytes_; }

 private:
  bool IsTxt() const { return current_format_ == dedup::Format::kTxt; }

  bool Fail(absl::Status status) {
    status_ = std::move(status);
    return false;
  }

  bool OpenNext() {
    if (next_input_ >= cmd_.inputs.size()) return false;
    const std::string& path = cmd_.inputs[next_input_++];
    auto format = dedup::ResolveFormat(path, format_);
    if (!format.ok()) return Fail(format.status());
    current_format_ = *format;
    auto reader = dedup::RecordReader::Open(path, *format);
    if (!reader.ok()) return Fail(reader.status());
    reader_ = *std::move(reader);
    base_name_ = std::filesystem::path(path).filename().string();
    switch (*format) {
      case dedup::Format::kJsonl:
        text_ = dedup::TextExtractor::ForJsonl(cmd_.field);
        if (!cmd_.id_field.empty()) {
          id_ = dedup::TextExtractor::ForJsonl(cmd_.id_field);
        }
        return true;
      case dedup::Format::kCsv:
      case dedup::Format::kTsv: {
        dedup::RawRecord header;
        auto has_header = reader_->Next(&header);
        if (!has_header.ok()) return Fail(has_header.status());
        if (!*has_header) {
          reader_.reset();
          return OpenNext();  // empty file
        }
        const char delimiter = dedup::CsvDelimiter(*format);
        auto text =
            dedup::TextExtractor::ForCsv(header.bytes, delimiter, cmd_.field);
        if (!text.ok()) return Fail(InPath(path, text.status()));
        text_ = *std::move(text);
        if (!cmd_.id_field.empty()) {
          auto id = dedup::TextExtractor::ForCsv(header.bytes, delimiter,
                                                 cmd_.id_field);
          if (!id.ok()) return Fail(InPath(path, id.status()));
          id_ = *std::move(id);
        }
        return true;
      }
      default:
        if (!cmd_.id_field.empty()) {
          return Fail(absl::InvalidArgumentError(
              absl::StrCat(path, ": --id-field needs JSONL, CSV or TSV")));
        }
        text_ = dedup::TextExtractor::ForTxt(false);
        return true;
    }
  }

  static absl::Status InPath(const std::string& path,
                             const absl::Status& status) {
    return absl::Status(status.code(),
                        absl::StrCat(path, ": ", status.message()));
  }

  const ServerCommands& cmd_;
  const dedup::Format format_;
  size_t next_input_ = 0;
  std::unique_ptr<dedup::RecordReader> reader_;
  dedup::Format current_format_ = dedup::Format::kTxt;
  std::string base_name_;
  std::optional<dedup::TextExtractor> text_;
  std::optional<dedup::TextExtractor> id_;
  dedup::ExtractScratch text_scratch_;
  dedup::ExtractScratch id_scratch_;
  std::string padded_;
  absl::Status status_;
  uint64_t invalid_ = 0;
  uint64_t bytes_ = 0;
};

}  // namespace

absl::Status RunIngest(const ServerCommands& cmd,
                       const client::ClientOptions& options,
                       std::ostream& out) {
  ASSIGN_OR_RETURN(dedup::Format format, dedup::ParseFormatName(cmd.format));
  client::Client client(options);
  // Fail fast, with a clear message, before reading anything.
  RETURN_IF_ERROR(client.GetCollection(cmd.collection).status());

  DocumentSource source(cmd, format);
  const bool progress = !cmd.no_progress && isatty(STDERR_FILENO);
  const Clock::time_point start = Clock::now();
  Mutex mu;  // the writer thread reads, this thread counts results
  std::deque<std::string> pending_ids;  // guarded by mu
  uint64_t sent = 0, written = 0, refused = 0, failed = 0;
  std::string first_failure;
  Clock::time_point last_progress = start;

  const absl::Status stream = client.BulkUpsert(
      [&](v1::UpsertRequest* request) {
        if (!source.Next(request)) return false;
        MutexLock lock(&mu);
        pending_ids.push_back(request->id());
        ++sent;
        return true;
      },
      [&](const v1::BulkUpsertResult& result) {
        std::string id;
        {
          MutexLock lock(&mu);
          id = std::move(pending_ids.front());
          pending_ids.pop_front();
        }
        if (result.code() != 0) {
          if (failed++ == 0) first_failure = id + ": " + result.message();
        } else if (result.response().written()) {
          ++written;
        } else {
          ++refused;
        }
        if (progress &&
            Clock::now() - last_progress > std::chrono::milliseconds(500)) {
          last_progress = Clock::now();
          const double seconds =
              std::chrono::duration<double>(last_progress - start).count();
          std::fprintf(
              stderr, "\r%llu documents, %.1f MB, %.0f docs/s   ",
              static_cast<unsigned long long>(written + refused + failed),
              source.bytes() / 1e6, (written + refused + failed) / seconds);
        }
      });
  if (progress) std::fprintf(stderr, "\n");
  const double seconds =
      std::chrono::duration<double>(Clock::now() - start).count();
  const uint64_t done = written + refused + failed;
  if (!cmd.server.json) {
    out << "ingested " << done << " of " << sent << " documents into "
        << cmd.collection << ": " << written << " written, " << refused
        << " refused as near-duplicates, " << failed << " failed, "
        << source.invalid() << " invalid records skipped ("
        << static_cast<uint64_t>(done / std::max(seconds, 1e-9)) << " docs/s, "
        << source.bytes() / 1e6 / std::max(seconds, 1e-9) << " MB/s)\n";
  } else {
    out << "{\"sent\":" << sent << ",\"written\":" << written
        << ",\"refused\":" << refused << ",\"failed\":" << failed
        << ",\"invalid\":" << source.invalid() << ",\"seconds\":" << seconds
        << "}\n";
  }
  RETURN_IF_ERROR(source.status());
  RETURN_IF_ERROR(stream);
  if (failed > 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        failed, " documents were refused; the first: ", first_failure));
  }
  return absl::OkStatus();
}

}  // namespace neardup::cli
