#include "ingest.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>

#include "absl/strings/str_cat.h"
#include "embedding_input.h"
#include "neardup/base/json.h"
#include "neardup/base/status_macros.h"
#include "neardup/base/sync.h"
#include "neardup/cli/cli_options.h"
#include "neardup/cli/internal/export_dump.h"
#include "neardup/client/client.h"
#include "neardup/dataset/dataset_reader.h"
#include "neardup/dataset/progress.h"
#include "neardup/extract/content_type.h"
#include "server_command_parts.h"

namespace neardup::cli {
namespace {

using Clock = std::chrono::steady_clock;

// Where the documents of an ingest come from.
class UpsertSource {
 public:
  virtual ~UpsertSource() = default;
  // Fills `request`; false at the end or on an error (see status()).
  virtual bool Next(v1::UpsertRequest* request) = 0;
  virtual const absl::Status& status() const = 0;
  virtual uint64_t invalid() const = 0;
  // Read by the thread that counts results while this one reads on.
  virtual uint64_t bytes() const = 0;
  virtual uint64_t total_size_hint() const = 0;
};

// Reads (id, text) pairs from the inputs, one file after the other, the way
// `neardup dedup` reads them (dataset::DatasetReader).
class DocumentSource final : public UpsertSource {
 public:
  DocumentSource(const ServerCommands& cmd,
                 std::vector<dataset::InputFile> files,
                 const dataset::DatasetOptions& options)
      : cmd_(cmd),
        doc_per_file_(options.doc_per_file),
        reader_(std::move(files), options, {.id_field = cmd.id_field}) {}

  bool Next(v1::UpsertRequest* request) override {
    while (true) {
      dataset::DatasetRecord record;
      auto more = reader_.Next(&record);
      if (!more.ok()) return Fail(more.status());
      if (!*more) return false;
      bytes_ = reader_.bytes_consumed();
      if (reader_.file(record.file).format == dataset::Format::kTxt &&
          record.bytes.find_first_not_of(" \t\r\n") == std::string_view::npos) {
        continue;  // blank line: no document
      }
      // simdjson reads ahead of the record: give it padded bytes.
      padded_.assign(record.bytes);
      padded_.append(dataset::ExtractPadding(), '\0');
      const std::string_view bytes(padded_.data(), record.bytes.size());
      auto text =
          reader_.text_extractor(record.file).Extract(bytes, &text_scratch_);
      const dataset::TextExtractor* id_extractor =
          reader_.id_extractor(record.file);
      absl::StatusOr<std::string_view> id =
          id_extractor ? id_extractor->Extract(bytes, &id_scratch_)
                       : absl::StatusOr<std::string_view>(std::string_view());
      absl::Status bad = !text.ok() ? text.status() : id.status();
      if (bad.ok() && id_extractor && id->empty()) {
        bad = absl::InvalidArgumentError(
            absl::StrCat("empty id in field '", cmd_.id_field, "'"));
      }
      std::optional<v1::Embedding> embedding;
      if (!cmd_.embedding_field.empty() &&
          reader_.file(record.file).format != dataset::Format::kJsonl) {
        // Not a bad record: the whole input is the wrong kind.
        return Fail(absl::InvalidArgumentError(
            absl::StrCat(reader_.DisplayName(record.file),
                         ": --embedding-field reads JSONL records only")));
      }
      if (bad.ok() && !cmd_.embedding_field.empty()) {
        absl::StatusOr<v1::Embedding> read = EmbeddingOf(record.bytes);
        if (read.ok()) {
          embedding = *std::move(read);
        } else {
          bad = read.status();
        }
      }
      if (!bad.ok()) {
        bad = absl::InvalidArgumentError(
            absl::StrCat(reader_.DisplayName(record.file), ":", record.line,
                         ": ", bad.message()));
        if (!cmd_.skip_invalid) return Fail(bad);
        ++invalid_;
        continue;
      }
      request->set_collection(cmd_.collection);
      request->set_id(
          id_extractor ? std::string(*id)
                       : absl::StrCat(BaseName(record.file), ":", record.line));
      request->set_text(std::string(*text));
      // The server extracts markup and PDFs (and keeps the extracted text).
      request->set_content_type(ContentTypeOf(record.file));
      if (cmd_.insert_only_below > 0) {
        request->set_insert_only_below(cmd_.insert_only_below);
      }
      if (embedding) *request->mutable_embedding() = *std::move(embedding);
      return true;
    }
  }

  const absl::Status& status() const override { return status_; }
  uint64_t invalid() const override { return invalid_; }
  uint64_t bytes() const override {
    return bytes_.load(std::memory_order_relaxed);
  }
  uint64_t total_size_hint() const override {
    return reader_.total_size_hint();
  }

 private:
  bool Fail(absl::Status status) {
    status_ = std::move(status);
    return false;
  }

  // --content-type, else (one document per file) the file's extension.
  std::string ContentTypeOf(uint32_t file) const {
    if (!cmd_.content_type.empty()) return cmd_.content_type;
    if (!doc_per_file_) return "";
    const std::optional<extract::ContentType> type =
        extract::ContentTypeOfPath(reader_.file(file).path);
    return type && *type != extract::ContentType::kPlainText
               ? std::string(extract::ContentTypeName(*type))
               : std::string();
  }

  // --embedding-field of a JSONL record: an array of numbers (or an object
  // with "values" and "model_id"), tagged with --embedding-model. (The
  // record is parsed again for it: vectors are not text fields.)
  absl::StatusOr<v1::Embedding> EmbeddingOf(std::string_view bytes) const {
    const nlohmann::json json = nlohmann::json::parse(bytes, nullptr, false);
    if (!json.is_object()) {
      return absl::InvalidArgumentError("the record is not a JSON object");
    }
    if (!json.contains(cmd_.embedding_field)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "no field '", cmd_.embedding_field, "' (--embedding-field)"));
    }
    return EmbeddingFromJson(
        json[cmd_.embedding_field], cmd_.embedding_model,
        absl::StrCat("field '", cmd_.embedding_field, "'"));
  }

  std::string BaseName(uint32_t file) const {
    return std::filesystem::path(reader_.file(file).path).filename().string();
  }

  const ServerCommands& cmd_;
  const bool doc_per_file_;
  dataset::DatasetReader reader_;
  dataset::ExtractScratch text_scratch_;
  dataset::ExtractScratch id_scratch_;
  std::string padded_;
  absl::Status status_;
  uint64_t invalid_ = 0;
  std::atomic<uint64_t> bytes_{0};
};

// Reads the lines of `neardup export` dumps (export_dump.h): each document
// goes in by its text, or by its signatures when they match the
// collection's config.
class ExportDumpSource final : public UpsertSource {
 public:
  ExportDumpSource(const ServerCommands& cmd,
                   std::vector<dataset::InputFile> files,
                   v1::Collection collection)
      : cmd_(cmd),
        files_(std::move(files)),
        collection_(std::move(collection)) {
    for (const dataset::InputFile& file : files_) {
      std::error_code error;
      total_ += std::filesystem::file_size(file.path, error);
    }
  }

  bool Next(v1::UpsertRequest* request) override {
    std::string line;
    while (true) {
      if (!in_.is_open() || !std::getline(in_, line)) {
        if (in_.is_open() && in_.bad()) {
          return Fail(absl::DataLossError(
              absl::StrCat("cannot read ", files_[file_ - 1].path)));
        }
        if (file_ == files_.size()) return false;
        in_.close();
        in_.clear();
        in_.open(files_[file_].path, std::ios::binary);
        line_ = 0;
        if (!in_.is_open()) {
          return Fail(absl::NotFoundError(
              absl::StrCat("cannot open ", files_[file_].path)));
        }
        ++file_;
        continue;
      }
      ++line_;
      bytes_.fetch_add(line.size() + 1, std::memory_order_relaxed);
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      absl::StatusOr<v1::Document> doc = DecodeExportLine(line);
      absl::StatusOr<v1::UpsertRequest> upsert =
          doc.ok() ? UpsertFromExport(*std::move(doc), collection_)
                   : absl::StatusOr<v1::UpsertRequest>(doc.status());
      if (!upsert.ok()) {
        absl::Status bad = absl::InvalidArgumentError(
            absl::StrCat(files_[file_ - 1].path, ":", line_, ": ",
                         upsert.status().message()));
        if (!cmd_.skip_invalid) return Fail(std::move(bad));
        ++invalid_;
        continue;
      }
      *request = *std::move(upsert);
      if (cmd_.insert_only_below > 0) {
        request->set_insert_only_below(cmd_.insert_only_below);
      }
      return true;
    }
  }

  const absl::Status& status() const override { return status_; }
  uint64_t invalid() const override { return invalid_; }
  uint64_t bytes() const override {
    return bytes_.load(std::memory_order_relaxed);
  }
  uint64_t total_size_hint() const override { return total_; }

 private:
  bool Fail(absl::Status status) {
    status_ = std::move(status);
    return false;
  }

  const ServerCommands& cmd_;
  const std::vector<dataset::InputFile> files_;
  const v1::Collection collection_;
  std::ifstream in_;
  size_t file_ = 0;  // next file to open
  uint64_t line_ = 0;
  uint64_t total_ = 0;
  absl::Status status_;
  uint64_t invalid_ = 0;
  std::atomic<uint64_t> bytes_{0};
};

// True when the first file is a dump of `neardup export` (judged by its
// first line). Standard input is not looked at: it cannot be read twice.
bool IsExportDump(const std::vector<dataset::InputFile>& files) {
  if (files.empty() || files.front().path == "-") return false;
  std::ifstream in(files.front().path, std::ios::binary);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") != std::string::npos) {
      return IsExportLine(line);
    }
  }
  return false;
}

// Ids sent and not answered yet, in order: the writer thread adds them, the
// thread that reads results takes them.
class PendingIds {
 public:
  void Push(std::string id) {
    MutexLock lock(&mu_);
    ids_.push_back(std::move(id));
    ++pushed_;
  }
  std::string Pop() {
    MutexLock lock(&mu_);
    std::string id = std::move(ids_.front());
    ids_.pop_front();
    return id;
  }
  uint64_t pushed() const {
    MutexLock lock(&mu_);
    return pushed_;
  }

 private:
  mutable Mutex mu_;
  std::deque<std::string> ids_ ABSL_GUARDED_BY(mu_);
  uint64_t pushed_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace

absl::Status RunIngest(const ServerCommands& cmd,
                       const client::ClientOptions& options,
                       std::ostream& out) {
  if (!cmd.embedding_model.empty() && cmd.embedding_field.empty()) {
    return absl::InvalidArgumentError(
        "--embedding-model names the vectors of --embedding-field; give both");
  }
  const dataset::DatasetOptions& input = cmd.input_files;
  ASSIGN_OR_RETURN(std::vector<dataset::InputFile> files,
                   dataset::ListInputFiles(input));
  client::Client client(options);
  // Fail fast, with a clear message, before reading anything.
  ASSIGN_OR_RETURN(v1::Collection collection,
                   client.GetCollection(cmd.collection));

  std::unique_ptr<UpsertSource> source_owner;
  if (IsExportDump(files)) {
    source_owner = std::make_unique<ExportDumpSource>(cmd, std::move(files),
                                                      std::move(collection));
  } else {
    source_owner =
        std::make_unique<DocumentSource>(cmd, std::move(files), input);
  }
  UpsertSource& source = *source_owner;
  // The result callback runs on one thread: it alone draws the progress.
  dataset::Progress progress("ingest", !cmd.no_progress,
                             source.total_size_hint());
  const Clock::time_point start = Clock::now();
  PendingIds pending;
  uint64_t written = 0, refused = 0, failed = 0;
  std::string first_failure;

  const absl::Status stream = client.BulkUpsert(
      [&](v1::UpsertRequest* request) {
        if (!source.Next(request)) return false;
        pending.Push(request->id());
        return true;
      },
      [&](const v1::BulkUpsertResult& result) {
        const std::string id = pending.Pop();
        if (result.code() != 0) {
          if (failed++ == 0) first_failure = id + ": " + result.message();
        } else if (result.response().written()) {
          ++written;
        } else {
          ++refused;
        }
        progress.Update(written + refused + failed, source.bytes());
      });
  const uint64_t sent = pending.pushed();
  progress.Finish(written + refused + failed, source.bytes());
  const double seconds =
      std::chrono::duration<double>(Clock::now() - start).count();
  const uint64_t done = written + refused + failed;
  // A source that failed before its first document (a file that is not
  // there, say) has nothing to sum up: its error alone says what happened.
  if (sent == 0 && !source.status().ok()) return source.status();
  if (!cmd.server.json) {
    out << "ingested " << done << " of " << sent << " documents into "
        << cmd.collection << ": " << written << " written, " << refused
        << " refused as near-duplicates, " << failed << " failed, "
        << source.invalid() << " invalid records skipped ("
        << static_cast<uint64_t>(done / std::max(seconds, 1e-9)) << " docs/s, "
        << source.bytes() / 1e6 / std::max(seconds, 1e-9) << " MB/s)\n";
  } else {
    const nlohmann::ordered_json summary = {
        {"sent", sent},
        {"written", written},
        {"refused", refused},
        {"failed", failed},
        {"invalid", source.invalid()},
        {"seconds", Rounded(seconds, 3)},
    };
    out << ToJsonText(summary) << "\n";
  }
  RETURN_IF_ERROR(source.status());
  RETURN_IF_ERROR(stream);
  if (failed > 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        failed, " documents were refused; the first: ", first_failure));
  }
  return absl::OkStatus();
}

CLI::App* AddIngestCommand(CLI::App* app, ServerCommands* cmd) {
  CLI::App* ingest = app->add_subcommand(
      "ingest", "stream documents from files into a collection (BulkUpsert)");
  AddServerFlags(ingest, &cmd->server);
  dataset::DatasetOptions& files = cmd->input_files;
  ingest->add_option("inputs", files.inputs, "JSONL, CSV, TSV or TXT files")
      ->required();
  ingest->add_option("--collection,-c", cmd->collection)->required();
  AddParsedOption(ingest, "--format", &files.format, dataset::ParseFormatName,
                  "auto (by extension, the default), jsonl, csv, tsv or txt");
  AddContentTypeFlag(ingest, &cmd->content_type);
  ingest->add_flag("--doc-per-file", files.doc_per_file,
                   "each file (folders are read recursively) is one "
                   "document, its id the file name; .html, .md and .pdf "
                   "files are extracted by their extension");
  ingest->add_option("--field", files.field, "JSON field or column of the text")
      ->capture_default_str();
  ingest
      ->add_option("--max-record-bytes", files.max_record_bytes,
                   "refuse a record longer than this (as dedup does)")
      ->capture_default_str();
  ingest->add_option("--id-field", cmd->id_field,
                     "JSON field or column of the id (default FILE:LINE)");
  ingest->add_option("--insert-only-below", cmd->insert_only_below,
                     "skip documents with a stored near-duplicate at or above "
                     "this Jaccard (dedup-on-write)");
  ingest->add_option("--embedding-field", cmd->embedding_field,
                     "JSONL field with each document's vector (an array of "
                     "numbers), for collections with an embedding space");
  ingest->add_option("--embedding-model", cmd->embedding_model,
                     "model id of --embedding-field's vectors (must be the "
                     "collection's)");
  ingest->add_flag("--skip-invalid", cmd->skip_invalid,
                   "count and skip malformed records instead of stopping");
  ingest->add_flag("--no-progress", cmd->no_progress, "no progress line");

  return ingest;
}

}  // namespace neardup::cli
