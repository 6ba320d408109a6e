#include "neardup/dedup/in_memory_dedup.h"

#include <algorithm>
#include <future>
#include <limits>
#include <optional>
#include <thread>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "document_decider.h"
#include "fingerprinter.h"
#include "neardup/base/absl_compat.h"
#include "neardup/base/status_macros.h"
#include "neardup/base/sync.h"
#include "neardup/base/worker_pool.h"
#include "neardup/dedup/internal/hash_chunk.h"

namespace neardup::dedup {
namespace {

// Documents per fingerprinting task: small enough that deciding starts
// soon after a batch arrives, large enough to amortize a task.
constexpr size_t kPartDocs = 128;

// A run over files takes these; documents in memory have none of them.
absl::Status RefuseFileOptions(const DedupOptions& o) {
  const char* file_option = !o.input.inputs.empty()    ? "inputs"
                            : !o.output.empty()        ? "output"
                            : o.stream                 ? "stream"
                            : !o.clusters_path.empty() ? "a clusters file"
                            : !o.stats_path.empty()    ? "a stats file"
                            : !o.spans_path.empty()    ? "a spans file"
                            : o.explain                ? "explain"
                            : !o.references.empty()    ? "references"
                                                       : nullptr;
  if (file_option != nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("a dedup of documents in memory takes no ", file_option,
                     ": those belong to a run over files (neardup dedup)"));
  }
  if (o.algorithm == Algorithm::kSuffixArray) {
    return absl::InvalidArgumentError(
        "suffix-array rewrites records instead of keeping or removing them: "
        "run it over files (neardup dedup --method suffix-array)");
  }
  return absl::OkStatus();
}

// A document without a text to fingerprint, and why.
void MarkInvalid(DocFingerprint& print, std::string_view why) {
  print.kind = DocFingerprint::Kind::kInvalid;
  print.error = std::string(why);
  print.token_set = {};
  print.token_chunk.reset();
}

}  // namespace

// Token-set writers for the fingerprinting tasks: a task takes a free one
// and gives it back, so no writer is ever used by two threads at once.
class WriterShelf {
 public:
  HashChunkWriter* Take() {
    MutexLock lock(&mu_);
    if (free_.empty()) {
      all_.push_back(std::make_unique<HashChunkWriter>());
      return all_.back().get();
    }
    HashChunkWriter* writer = free_.back();
    free_.pop_back();
    return writer;
  }
  void Give(HashChunkWriter* writer) {
    MutexLock lock(&mu_);
    free_.push_back(writer);
  }

 private:
  Mutex mu_;
  std::vector<std::unique_ptr<HashChunkWriter>> all_ ABSL_GUARDED_BY(mu_);
  std::vector<HashChunkWriter*> free_ ABSL_GUARDED_BY(mu_);
};

struct InMemoryDedup::State {
  State(Fingerprinter fingerprinter, DocumentDecider decider, int workers)
      : fingerprinter(std::move(fingerprinter)),
        decider(std::move(decider)),
        pool(workers) {}

  Fingerprinter fingerprinter;
  DocumentDecider decider;
  WriterShelf writers;
  std::vector<DocFingerprint> prints;  // reused from batch to batch
  uint64_t next_doc = 0;
  uint64_t text_bytes = 0;
  bool failed = false;  // an error stopped it (a malformed document, ...)
  bool lshbloom = false;
  // Documents are of this type (not plain text) and made text by this.
  std::optional<extract::ContentType> content_type;
  TextExtraction extract_text;
  // Last: destroyed first, while what its tasks use still lives.
  WorkerPool pool;
};

absl::StatusOr<std::unique_ptr<InMemoryDedup>> InMemoryDedup::Create(
    const DedupOptions& options, uint64_t expected_docs,
    TextExtraction extract_text) {
  RETURN_IF_ERROR(RefuseFileOptions(options));
  RETURN_IF_ERROR(ValidateMethodOptions(options));
  std::optional<extract::ContentType> content_type;
  if (!options.content_type.empty()) {
    ASSIGN_OR_RETURN(content_type,
                     extract::ParseContentType(options.content_type));
    if (*content_type == extract::ContentType::kPlainText) {
      content_type.reset();
    } else if (!extract_text) {
      return absl::InvalidArgumentError(absl::StrCat(
          "this build reads plain text only: it has no extractor for ",
          AbslView(extract::ContentTypeName(*content_type)),
          " (extract the text first, or run neardup dedup --content-type "
          "over the files)"));
    }
  }
  ASSIGN_OR_RETURN(Fingerprinter fingerprinter, Fingerprinter::Create(options));
  const bool size_known = options.expected_docs > 0 || expected_docs > 0;
  const uint64_t expected = options.expected_docs > 0 ? options.expected_docs
                            : expected_docs > 0       ? expected_docs
                                                      : kDefaultExpectedDocs;
  ASSIGN_OR_RETURN(DocumentDecider decider,
                   DocumentDecider::Create(options, expected, size_known,
                                           /*log_clusters=*/true));
  const int workers =
      options.threads > 0
          ? options.threads
          : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  auto state = std::make_unique<State>(std::move(fingerprinter),
                                       std::move(decider), workers);
  state->lshbloom = options.algorithm == Algorithm::kLshBloom;
  if (content_type) {
    state->content_type = content_type;
    state->extract_text = std::move(extract_text);
  }
  return std::unique_ptr<InMemoryDedup>(new InMemoryDedup(std::move(state)));
}

InMemoryDedup::InMemoryDedup(std::unique_ptr<State> state)
    : state_(std::move(state)) {}
InMemoryDedup::~InMemoryDedup() = default;

absl::Status InMemoryDedup::Decide(std::span<const Document> documents,
                                   std::vector<Decision>* decisions) {
  decisions->clear();
  State& s = *state_;
  if (s.failed) {
    return absl::FailedPreconditionError(
        "this dedup stopped at an earlier error and takes no more documents");
  }
  if (s.next_doc + documents.size() >
      uint64_t{std::numeric_limits<uint32_t>::max()}) {
    return absl::ResourceExhaustedError(
        "a dedup takes at most 2^32 - 1 documents");
  }
  // The workers fingerprint the batch in parts, in order, while this
  // thread decides the parts already done (as a run over files overlaps
  // its batches): the outcome does not depend on which thread made which
  // fingerprint.
  // Until this call ends well: an exception half-way leaves the finder
  // with some of the batch, and the numbering behind.
  s.failed = true;
  s.prints.resize(documents.size());
  const size_t parts = (documents.size() + kPartDocs - 1) / kPartDocs;
  std::vector<std::promise<void>> done(parts);
  std::vector<std::future<void>> ready;
  ready.reserve(parts);
  for (std::promise<void>& promise : done) {
    ready.push_back(promise.get_future());
  }
  // Every task submitted must end before this returns, however it returns
  // (an error, or an exception such as bad_alloc): they use the caller's
  // texts and these promises.
  size_t submitted = 0;
  size_t waited = 0;
  absl::Cleanup wait_all = [&] {
    for (; waited < submitted; ++waited) ready[waited].wait();
  };
  for (size_t part = 0; part < parts; ++part) {
    s.pool.SubmitUnbounded([&s, &documents, &done, part] {
      HashChunkWriter* writer = s.writers.Take();
      std::vector<uint64_t> token_set;
      const size_t end = std::min(documents.size(), (part + 1) * kPartDocs);
      for (size_t i = part * kPartDocs; i < end; ++i) {
        DocFingerprint& print = s.prints[i];
        if (!documents[i].error.empty()) {
          MarkInvalid(print, documents[i].error);
          continue;
        }
        if (!s.content_type) {
          s.fingerprinter.Compute(documents[i].text, &print, &token_set,
                                  writer);
          continue;
        }
        const absl::StatusOr<std::string> text =
            s.extract_text(documents[i].text, *s.content_type);
        if (!text.ok()) {
          MarkInvalid(print, StdView(text.status().message()));
          continue;
        }
        s.fingerprinter.Compute(*text, &print, &token_set, writer);
      }
      s.writers.Give(writer);
      done[part].set_value();
    });
    ++submitted;
  }
  decisions->reserve(documents.size());
  for (size_t i = 0; i < documents.size(); ++i) {
    if (i % kPartDocs == 0) ready[waited++].wait();
    const uint32_t doc = static_cast<uint32_t>(s.next_doc);
    absl::StatusOr<Decision> decided = s.decider.Decide(doc, &s.prints[i]);
    if (decided.ok() && decided->outcome == Outcome::kInvalid) {
      decided = absl::InvalidArgumentError(
          absl::StrCat("record ", doc, ": ", s.prints[i].error));
    }
    if (!decided.ok()) return decided.status();
    ++s.next_doc;
    s.text_bytes += documents[i].text.size();
    decisions->push_back(*decided);
  }
  // Fingerprints of kept documents were moved into the finder; the others
  // are not needed, and their token chunks go once no kept set shares them.
  for (DocFingerprint& print : s.prints) print.token_chunk.reset();
  s.failed = false;
  return absl::OkStatus();
}

RunStats InMemoryDedup::stats() const {
  RunStats stats = state_->decider.stats();
  stats.method_stats = state_->decider.finder().Stats();
  stats.input_bytes = state_->text_bytes;
  return stats;
}

absl::StatusOr<std::string> InMemoryDedup::ClustersJsonLines() const {
  if (state_->lshbloom) {
    return absl::FailedPreconditionError(
        "lshbloom cannot name cluster representatives (it keeps no "
        "documents); clusters need minhash-lsh, simhash or perceptual");
  }
  return state_->decider.clusters()->ToJsonLines();
}

}  // namespace neardup::dedup
