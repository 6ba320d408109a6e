#include "neardup/engine/collection.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "neardup/base/absl_compat.h"
#include "neardup/base/batch_pipeline.h"
#include "neardup/base/status_macros.h"
#include "neardup/core/collection_config.h"
#include "neardup/core/collection_fingerprinter.h"
#include "neardup/core/config_hash.h"
#include "neardup/core/hash.h"
#include "neardup/core/shingle_set.h"
#include "neardup/storage/validation.h"

namespace neardup::engine {
namespace {

// Whether a document's evidence has the collection's width `bits`.
bool FitsEvidenceWidth(const PreparedDocument& doc, int bits) {
  if (doc.evidence_bits != 0 && doc.evidence_bits != bits) return false;
  return doc.shingles->empty() || bits == 64 ||
         (doc.shingles->back() >> bits) == 0;
}

// Shards of a semantic index. They do not follow --shards below 4: HNSW
// inserts are dear enough that writes and rebuilds need the parallelism,
// while MinHash and SimHash queries are cheapest with one shard.
constexpr int kMinSemanticShards = 4;
constexpr int kMaxSemanticShards = 8;

// Exact verification reads the shingle set of every candidate of a query
// (or dedup-on-write check) that has at most this many candidate
// documents; beyond that it first drops those whose estimate is below
// EstimateFloorForExact. That floor takes the equal slots as binomial, and
// this hash's slots are not independent (slot i of a shingle is lo + i *
// hi, so one shingle can win a run of slots): its estimate falls 5
// binomial deviations below the Jaccard ~1,000 times more often than the
// binomial says, and the floor dropped pairs at 0.92 (bench/README.md,
// "The estimate filter"). Few candidates is the common case, and their
// reads are cheap; many (boilerplate, floods) keep the filter.
constexpr size_t kVerifyEveryCandidate = 64;

// Up to this many queued puts go into one RocksDB batch.
constexpr size_t kMaxGroupCommit = 256;

// Signatures handed to the indexes per bulk insert while loading.
constexpr size_t kLoadBatch = 1 << 14;

// A record read back from disk gets the checks a request gets: it may have
// been written by an older build, by hand or by a bug, and an unchecked
// config can crash the index at every start.
absl::Status ValidateStoredRecord(const storage::CollectionRecord& record) {
  auto normalized = NormalizeCollectionConfig(record.config);
  if (!normalized.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("invalid config: ", normalized.status().message()));
  }
  if (!(*normalized == record.config)) {
    return absl::FailedPreconditionError(
        "config is not in normalized form (a derived field differs)");
  }
  ASSIGN_OR_RETURN(const ConfigHashes hashes,
                   ComputeConfigHashes(record.config));
  if (hashes.minhash != record.minhash_config_hash ||
      hashes.simhash != record.simhash_config_hash ||
      hashes.kept != record.kept_config_hashes) {
    auto kept = [](const std::vector<KeptConfigHash>& hashes) {
      std::string out;
      for (const KeptConfigHash& hash : hashes) {
        absl::StrAppend(&out, ", ", hash.family, " ",
                        FormatHex64(hash.config_hash));
      }
      return out;
    };
    return absl::FailedPreconditionError(absl::StrCat(
        "stored config hashes (", FormatHex64(record.minhash_config_hash), ", ",
        FormatHex64(record.simhash_config_hash),
        kept(record.kept_config_hashes),
        ") differ from the hashes of its config (", FormatHex64(hashes.minhash),
        ", ", FormatHex64(hashes.simhash), kept(hashes.kept), ")"));
  }
  return absl::OkStatus();
}

// A digest of a shingle set: odd (0 stands for "no evidence").
uint64_t DigestOfEvidence(const std::vector<uint64_t>& set) {
  return Xxh3Hash64(std::string_view(reinterpret_cast<const char*>(set.data()),
                                     set.size() * sizeof(uint64_t))) |
         1;
}

// Slots of `a` and `b` (of equal length) equal in their low `bits` bits:
// how the index, which keeps only those, scores a pair.
int KeptEqualSlots(std::span<const uint64_t> a, std::span<const uint64_t> b,
                   int bits) {
  const uint64_t mask = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  int equal = 0;
  for (size_t i = 0; i < a.size(); ++i) equal += ((a[i] ^ b[i]) & mask) == 0;
  return equal;
}

// Adds the sets a query read to its stats (nullptr: none kept).
void CountEvidence(
    const std::vector<std::optional<std::vector<uint64_t>>>& sets,
    IndexQueryStats* stats) {
  if (stats == nullptr) return;
  for (const auto& set : sets) {
    if (!set) continue;
    ++stats->evidence_reads;
    stats->evidence_bytes += set->size() * sizeof(uint64_t);
  }
}

// A document's twin key: the digest of its evidence, 0 for none; nullopt
// when it cannot be read.
std::optional<uint64_t> EvidenceDigest(const storage::Store& store,
                                       const storage::CollectionRecord& record,
                                       uint32_t internal_id) {
  const uint32_t ids[] = {internal_id};
  auto sets = store.GetShingleSets(record, ids);
  if (!sets.ok()) return std::nullopt;
  const std::optional<std::vector<uint64_t>>& set = (*sets)[0];
  if (!set) return 0;
  return DigestOfEvidence(*set);
}

}  // namespace

Collection::Collection(storage::Store* store, storage::CollectionRecord record,
                       CollectionFingerprinter fingerprinter,
                       std::unique_ptr<MinHashLshIndex> minhash_index,
                       std::unique_ptr<SimHashIndex> simhash_index,
                       std::unique_ptr<SemanticIndex> semantic_index)
    : store_(store),
      record_(std::move(record)),
      fingerprinter_(std::move(fingerprinter)),
      committer_(kMaxGroupCommit,
                 [this](std::span<PendingPut* const> round,
                        absl::FunctionRef<void()> hand_over_lead) {
                   CommitRound(round, hand_over_lead);
                 }),
      minhash_index_(std::move(minhash_index)),
      simhash_index_(std::move(simhash_index)),
      semantic_index_(std::move(semantic_index)) {}

absl::StatusOr<std::unique_ptr<Collection>> Collection::Create(
    storage::Store* store, storage::CollectionRecord record, int index_shards,
    size_t hot_band_rows) {
  RETURN_IF_ERROR(ValidateStoredRecord(record));
  const CollectionConfig& config = record.config;
  ASSIGN_OR_RETURN(CollectionFingerprinter fingerprinter,
                   CollectionFingerprinter::Create(config));
  MinHashIndexOptions index_options{.num_perm = config.num_perm,
                                    .lsh = config.lsh,
                                    .slot_bits = config.slot_bits,
                                    .shards = index_shards,
                                    .hot_band_rows = hot_band_rows};
  if (config.verification == Verification::kExact) {
    // Equal signatures need not mean equal shingle sets, and exact answers
    // tell such documents apart: only documents with equal evidence (or
    // equally none) may share an index entry.
    index_options.twin_key = [store, record](uint32_t internal_id) {
      return EvidenceDigest(*store, record, internal_id);
    };
  }
  ASSIGN_OR_RETURN(auto minhash_index, MinHashLshIndex::Create(index_options));
  std::unique_ptr<SimHashIndex> simhash_index;
  if (config.simhash_enabled) {
    ASSIGN_OR_RETURN(
        simhash_index,
        SimHashIndex::Create({config.simhash_max_distance, 0, index_shards}));
  }
  std::unique_ptr<SemanticIndex> semantic_index;
  if (const EmbeddingSpace& space = config.embedding; space.enabled()) {
    // Each HNSW shard has a fixed cost (hnswlib's 65536 update locks, ~2.6
    // MB): a few shards give the write and rebuild parallelism.
    ASSIGN_OR_RETURN(
        semantic_index,
        SemanticIndex::Create(
            {.dim = space.dim,
             .m = space.hnsw_m,
             .ef_construction = space.ef_construction,
             .ef_search = space.ef_search},
            std::clamp(index_shards, kMinSemanticShards, kMaxSemanticShards),
            /*exact=*/!space.hnsw));
  }
  return std::unique_ptr<Collection>(
      new Collection(store, std::move(record), std::move(fingerprinter),
                     std::move(minhash_index), std::move(simhash_index),
                     std::move(semantic_index)));
}

absl::Status Collection::IndexDocument(uint32_t internal_id,
                                       const storage::DocumentWrite& doc) {
  RETURN_IF_ERROR(minhash_index_->Insert(internal_id, doc.minhash));
  if (simhash_index_) {
    RETURN_IF_ERROR(simhash_index_->Insert(internal_id, *doc.simhash));
  }
  if (semantic_index_) {
    RETURN_IF_ERROR(semantic_index_->Upsert(internal_id, *doc.embedding));
  }
  return absl::OkStatus();
}

absl::StatusOr<PreparedDocument> Collection::PrepareText(
    std::string external_id, std::string_view text,
    storage::Metadata metadata) const {
  PreparedDocument doc;
  doc.external_id = std::move(external_id);
  doc.metadata = std::move(metadata);
  if (record_.config.verification == Verification::kExact) {
    doc.shingles.emplace();
    doc.evidence_bits = EvidenceBitsOf(record_.config);
  }
  ASSIGN_OR_RETURN(
      doc.minhash,
      fingerprinter_.MinHash(text, doc.shingles ? &*doc.shingles : nullptr));
  doc.minhash_config_hash = fingerprinter_.minhash_config_hash();
  if (fingerprinter_.has_simhash()) {
    ASSIGN_OR_RETURN(doc.simhash, fingerprinter_.SimHash(text));
    doc.simhash_config_hash = fingerprinter_.simhash_config_hash();
  }
  // A text too short or too uniform for a family is stored without it.
  doc.kept = fingerprinter_.Kept(text);
  if (record_.config.store_text) doc.text = std::string(text);
  return doc;
}

absl::StatusOr<std::optional<std::vector<float>>> Collection::EmbedText(
    std::string_view text, const EmbedderCache* embedders,
    std::string* model_id) const {
  const EmbeddingSpace& space = record_.config.embedding;
  if (space.fasttext_model.empty()) return std::nullopt;
  if (embedders == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "collection '", record_.name,
        "' embeds texts with a fastText model, and none is at hand"));
  }
  ASSIGN_OR_RETURN(const auto model, embedders->ForCollection(record_));
  absl::StatusOr<std::vector<float>> vector =
      model->Embed(text, space.chunking);
  RETURN_IF_ERROR(Prefixed("text", vector.status()));
  if (model_id != nullptr) *model_id = model->model_id();
  return *std::move(vector);
}

absl::StatusOr<PreparedDocument> Collection::Prepare(
    const DocumentInput& input, const EmbedderCache* embedders) const {
  if (input.text.has_value() == input.signatures.has_value()) {
    return absl::InvalidArgumentError("set either text or signatures");
  }
  PreparedDocument doc;
  if (input.text) {
    absl::StatusOr<PreparedDocument> fingerprinted =
        PrepareText(input.external_id, *input.text, input.metadata);
    RETURN_IF_ERROR(Prefixed("text", fingerprinted.status()));
    doc = *std::move(fingerprinted);
    if (!input.embedding) {
      ASSIGN_OR_RETURN(doc.embedding, EmbedText(*input.text, embedders,
                                                &doc.embedding_model_id));
    }
  } else {
    const SignatureInput& signatures = *input.signatures;
    if (record_.config.simhash_enabled && !signatures.simhash) {
      return absl::InvalidArgumentError(
          absl::StrCat("collection '", record_.name,
                       "' has SimHash on: signatures.simhash is required"));
    }
    doc.external_id = input.external_id;
    doc.metadata = input.metadata;
    doc.minhash = signatures.minhash;
    doc.minhash_config_hash = record_.minhash_config_hash;
    doc.simhash = signatures.simhash;
    doc.simhash_config_hash = record_.simhash_config_hash;
    if (signatures.evidence &&
        record_.config.verification == Verification::kExact) {
      doc.shingles = signatures.evidence;
      // The request's width was checked against the collection's.
      doc.evidence_bits = EvidenceBitsOf(record_.config);
    }
    doc.kept = signatures.kept;
  }
  if (input.embedding) {
    doc.embedding = input.embedding;
    doc.embedding_model_id = input.embedding_model_id;
  }
  // What Apply would refuse for the document itself is refused here, so a
  // prepared document fails to apply only for the store's state (a dropped
  // collection, a full disk), never for what it carries.
  RETURN_IF_ERROR(storage::ValidateDocumentWrite(record_, doc));
  ASSIGN_OR_RETURN(doc.metadata,
                   storage::SortedMetadata(std::move(doc.metadata)));
  return doc;
}

struct Collection::PendingPut {
  const storage::DocumentWrite* doc = nullptr;
  // The evidence as stored, encoded before the write lock (empty: none).
  std::string encoded_evidence;
  bool sync = false;
  uint64_t log_sequence = 0;
  int64_t unix_micros = 0;
  absl::StatusOr<storage::PutResult> result = absl::UnknownError("not written");
};

// How many shingle sets exact verification reads at once: few at first,
// then as many of the largest size seen so far as fit kVerifyChunkBytes (a
// 16 MiB document's set decodes to tens of MB), never more than
// kMaxVerifyChunk. Sets larger than any seen yet can still come in one
// chunk; each chunk then shrinks to what the largest needs.
class ChunkSizer {
 public:
  static constexpr size_t kFirstChunk = 4;
  static constexpr size_t kMaxVerifyChunk = 256;
  static constexpr size_t kVerifyChunkBytes = size_t{32} << 20;

  size_t next() const { return next_; }
  void Saw(const std::vector<std::optional<std::vector<uint64_t>>>& sets) {
    for (const auto& set : sets) {
      if (set) largest_ = std::max(largest_, set->size() * sizeof(uint64_t));
    }
    if (largest_ == 0) return;  // nothing learnt yet
    next_ =
        std::clamp<size_t>(kVerifyChunkBytes / largest_, 1, kMaxVerifyChunk);
  }

 private:
  size_t next_ = kFirstChunk;
  size_t largest_ = 0;
};

absl::StatusOr<std::vector<MinHashMatch>> Collection::BlockingLocked(
    const PreparedDocument& doc, double threshold) const {
  ASSIGN_OR_RETURN(
      std::vector<MinHashMatch> matches,
      FindMinHashMatches(doc.minhash, doc.shingles ? &*doc.shingles : nullptr,
                         threshold, 0, nullptr, /*skip_hot_bands=*/false));
  // A document never blocks its own replacement.
  if (!matches.empty()) {
    auto existing = store_->GetDocument(record_, doc.external_id);
    if (existing.ok()) {
      std::erase_if(matches, [&](const MinHashMatch& m) {
        return m.internal_id == existing->internal_id;
      });
    } else if (existing.status().code() != absl::StatusCode::kNotFound) {
      return existing.status();
    }
  }
  return matches;
}

bool Collection::MayBlock(const PreparedDocument& doc,
                          const PreparedDocument& other,
                          double threshold) const {
  if (other.external_id == doc.external_id) return false;  // a replacement
  const std::vector<uint64_t>& a = doc.minhash.slots;
  const std::vector<uint64_t>& b = other.minhash.slots;
  if (a.empty() || a.size() != b.size()) return true;  // not comparable: maybe
  // Scored as the index scores, so never below the score Apply's check sees.
  const int equal = KeptEqualSlots(a, b, record_.config.slot_bits);
  const double score =
      static_cast<double>(equal) * (1.0 / static_cast<double>(a.size()));
  const bool exact = record_.config.verification == Verification::kExact &&
                     doc.shingles && other.shingles;
  if (!exact) return score >= threshold;
  // Both sets are at hand: no estimate filter (see kVerifyEveryCandidate).
  return ExactJaccard64(*doc.shingles, *other.shingles) >= threshold;
}

absl::StatusOr<std::vector<MinHashMatch>> Collection::Blocking(
    const PreparedDocument& doc, double threshold) {
  RETURN_IF_ERROR(CheckThreshold(threshold, "insert_only_below"));
  MutexLock lock(&write_mu_);
  MutexLock index_lock(&index_mu_);
  return BlockingLocked(doc, threshold);
}

absl::StatusOr<UpsertOutcome> Collection::Apply(const PreparedDocument& doc,
                                                const UpsertOptions& options) {
  UpsertOutcome outcome;
  if (options.insert_only_below) {
    // Check-then-insert must be atomic: this path holds the write lock.
    RETURN_IF_ERROR(
        CheckThreshold(*options.insert_only_below, "insert_only_below"));
    MutexLock lock(&write_mu_);
    // Every stored document must be in the index before it is asked.
    MutexLock index_lock(&index_mu_);
    ASSIGN_OR_RETURN(std::vector<MinHashMatch> matches,
                     BlockingLocked(doc, *options.insert_only_below));
    if (!matches.empty()) {
      outcome.blocking = std::move(matches);
      return outcome;
    }
    if (semantic_index_) RETURN_IF_ERROR(semantic_index_->Reserve(1));
    ASSIGN_OR_RETURN(outcome.put,
                     store_->PutDocument(record_, doc, options.write));
    RETURN_IF_ERROR(IndexDocument(outcome.put.internal_id, doc));
    outcome.written = true;
    return outcome;
  }

  const storage::DocumentWrite* const one[] = {&doc};
  std::vector<absl::StatusOr<storage::PutResult>> results =
      ApplyMany(one, options.write);
  ASSIGN_OR_RETURN(outcome.put, std::move(results[0]));
  outcome.written = true;
  return outcome;
}

std::vector<absl::StatusOr<storage::PutResult>> Collection::ApplyMany(
    std::span<const PreparedDocument* const> docs,
    const storage::WriteOptions& options) {
  std::vector<PendingPut> mine(docs.size());
  const bool exact = record_.config.verification == Verification::kExact;
  for (size_t i = 0; i < docs.size(); ++i) {
    mine[i].doc = docs[i];
    mine[i].sync = options.sync;
    mine[i].log_sequence = options.log_sequence;
    mine[i].unix_micros = options.unix_micros;
    // Here, in parallel, rather than in the store under the write lock.
    // A document the store refuses (say, of another config) wastes it.
    // Only evidence the store will take: one of another width (a peer's
    // log entry, say) is left to its validation, which refuses it.
    if (exact && docs[i]->shingles &&
        FitsEvidenceWidth(*docs[i], EvidenceBitsOf(record_.config))) {
      mine[i].encoded_evidence =
          storage::Store::EncodeEvidence(record_, *docs[i]->shingles);
    }
  }
  committer_.Submit(std::span<PendingPut>(mine));
  std::vector<absl::StatusOr<storage::PutResult>> results;
  results.reserve(mine.size());
  for (PendingPut& put : mine) results.push_back(std::move(put.result));
  return results;
}

void Collection::CommitRound(std::span<PendingPut* const> round,
                             absl::FunctionRef<void()> hand_over_lead) {
  bool indexing = false;
  // However this ends (exceptions included), the index lock is let go.
  const absl::Cleanup finish = [&]() ABSL_NO_THREAD_SAFETY_ANALYSIS {
    if (indexing) {
      unindexed_ -= round.size();
      index_mu_.Unlock();
    }
  };
  {
    MutexLock lock(&write_mu_);
    try {
      std::vector<const storage::DocumentWrite*> docs;
      std::vector<std::string> encoded_evidence;
      docs.reserve(round.size());
      encoded_evidence.reserve(round.size());
      bool sync = false;
      // A replica's round (one applier: its entries alone): its last
      // entry's sequence and time.
      uint64_t log_sequence = 0;
      int64_t unix_micros = 0;
      for (PendingPut* put : round) {
        docs.push_back(put->doc);
        encoded_evidence.push_back(std::move(put->encoded_evidence));
        sync = sync || put->sync;
        log_sequence = std::max(log_sequence, put->log_sequence);
        unix_micros = std::max(unix_micros, put->unix_micros);
      }
      // Room in the vector index first: it must not fail once the store
      // holds the documents. Rows of a round still being indexed count too.
      const absl::Status room =
          semantic_index_
              ? semantic_index_->Reserve(unindexed_.load() + docs.size())
              : absl::OkStatus();
      using Results =
          absl::StatusOr<std::vector<absl::StatusOr<storage::PutResult>>>;
      Results results =
          room.ok() ? store_->PutDocuments(
                          record_, docs,
                          storage::WriteOptions{.sync = sync,
                                                .log_sequence = log_sequence,
                                                .unix_micros = unix_micros},
                          encoded_evidence)
                    : Results(room);
      for (size_t i = 0; i < round.size(); ++i) {
        round[i]->result =
            results.ok() ? std::move((*results)[i]) : results.status();
      }
    } catch (const std::exception& e) {
      // Out of memory before or while building the batch: RocksDB applies
      // a batch whole or not at all, so the round failed as a whole.
      for (PendingPut* put : round) {
        put->result = absl::ResourceExhaustedError(e.what());
      }
    }
    unindexed_ += round.size();
    // Taken before the store lock is let go: rounds reach the indexes in
    // the order they reached the store.
    index_mu_.Lock();
    indexing = true;
  }
  // The next round may be written to the store while this one is indexed
  // (a pipeline of two: index inserts no longer wait for the WAL).
  hand_over_lead();
  for (PendingPut* put : round) {
    if (!put->result.ok()) continue;
    // The store accepted the signatures, so the indexes will too.
    try {
      if (absl::Status indexed =
              IndexDocument(put->result->internal_id, *put->doc);
          !indexed.ok()) {
        put->result = indexed;
      }
    } catch (const std::exception& e) {
      put->result = absl::ResourceExhaustedError(
          absl::StrCat("indexing a stored document: ", e.what(),
                       " (the index catches up at the next start)"));
    }
  }
}

absl::Status Collection::Delete(std::string_view external_id,
                                const storage::WriteOptions& options) {
  MutexLock lock(&write_mu_);
  MutexLock index_lock(&index_mu_);  // after rounds still being indexed
  ASSIGN_OR_RETURN(uint32_t internal_id,
                   store_->DeleteDocument(record_, external_id, options));
  minhash_index_->Remove(internal_id);
  if (simhash_index_) simhash_index_->Remove(internal_id);
  // Every document of a space is indexed; NOT_FOUND cannot happen.
  if (semantic_index_) semantic_index_->Remove(internal_id).IgnoreError();
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> Collection::LogSequence() const {
  return store_->LogSequence(record_);
}

absl::Status Collection::RecordLogSequence(uint64_t sequence) {
  return store_->RecordLogSequence(record_, sequence);
}

absl::Status Collection::MarkSnapshotLoading() {
  return store_->MarkSnapshotLoading(record_);
}

absl::Status Collection::FinishSnapshotLoading(uint64_t log_sequence) {
  return store_->FinishSnapshotLoading(record_, log_sequence);
}

absl::StatusOr<bool> Collection::SnapshotLoading() const {
  return store_->SnapshotLoading(record_);
}

absl::StatusOr<storage::StoredDocument> Collection::Get(
    std::string_view external_id) const {
  store_->NoteActivity();
  return store_->GetDocument(record_, external_id);
}

absl::StatusOr<storage::StoredDocument> Collection::GetByInternalId(
    uint32_t internal_id, storage::DocumentParts parts) const {
  store_->NoteActivity();
  return store_->GetDocumentByInternalId(record_, internal_id, parts);
}

absl::Status Collection::CheckThreshold(double threshold,
                                        std::string_view field) const {
  const CollectionConfig& config = record_.config;
  if (!(threshold > 0 && threshold <= 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat(AbslView(field), " must be in (0, 1], got ", threshold));
  }
  // The tolerance forgives decimal round-off in what clients send.
  if (threshold < config.min_threshold - 1e-9) {
    return absl::InvalidArgumentError(absl::StrCat(
        AbslView(field), " ", threshold,
        " is below the recall floor of collection \"", record_.name,
        "\" (min_threshold ", config.min_threshold, "): its LSH banding (",
        config.lsh.bands, " x ", config.lsh.rows,
        ") is not built to find pairs that far apart. Ask for at least ",
        config.min_threshold,
        ", or create a collection with "
        "config.min_threshold <= ",
        threshold,
        " (neardup collections create --min-threshold) and ingest into it"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<MinHashMatch>> Collection::QueryMinHash(
    const MinHashSignature& signature, const std::vector<uint64_t>* shingles,
    double threshold, size_t top_k, IndexQueryStats* stats) const {
  RETURN_IF_ERROR(CheckThreshold(threshold, "threshold"));
  store_->NoteActivity();
  return FindMinHashMatches(signature, shingles, threshold, top_k, stats,
                            /*skip_hot_bands=*/true);
}

absl::StatusOr<std::vector<MinHashMatch>> Collection::FindMinHashMatches(
    const MinHashSignature& signature, const std::vector<uint64_t>* shingles,
    double threshold, size_t top_k, IndexQueryStats* stats,
    bool skip_hot_bands) const {
  // The Jaccard level the index may leave hot band keys out for (0: none).
  const double found_at = skip_hot_bands ? threshold : 0.0;
  std::vector<MinHashMatch> matches;
  const bool exact = shingles != nullptr &&
                     record_.config.verification == Verification::kExact;
  if (!exact && !EstimateFromStore()) {
    ASSIGN_OR_RETURN(
        std::vector<ScoredId> found,
        minhash_index_->Query(signature, threshold, stats, top_k, found_at));
    matches.reserve(found.size());
    for (const ScoredId& m : found) matches.push_back({m.id, m.score, {}});
    return matches;
  }
  const auto best_first = [](const MinHashMatch& a, const MinHashMatch& b) {
    return a.score() != b.score() ? a.score() > b.score()
                                  : a.internal_id < b.internal_id;
  };
  if (!exact) {
    // Few kept bits only ever raise a score: every document whose stored
    // signature reaches the threshold is among these groups.
    ASSIGN_OR_RETURN(const std::vector<ScoredGroup> groups,
                     minhash_index_->QueryGroups(signature, threshold, top_k,
                                                 stats, found_at));
    ASSIGN_OR_RETURN(matches, RescoredFromStore(signature, groups, threshold));
    std::sort(matches.begin(), matches.end(), best_first);
    if (top_k > 0 && matches.size() > top_k) matches.resize(top_k);
    return matches;
  }
  // Exact: a loose estimate filter first, then the shingle sets decide.
  // Twins in the index have equal evidence (see twin_key), so one member's
  // set decides for its group, and a flood of N costs one read, not N.
  // The filter first; when the candidate documents are few and some fell
  // below it, asked again without it (see kVerifyEveryCandidate). Counted
  // in documents, not index rows: replicas that hold the same documents
  // count alike whatever their --shards and twin classes, so they decide
  // insert_only_below alike.
  IndexQueryStats index_stats;
  ASSIGN_OR_RETURN(
      std::vector<ScoredGroup> groups,
      minhash_index_->QueryGroups(
          signature, EstimateFloorForExact(threshold, record_.config.num_perm),
          top_k, &index_stats, found_at));
  size_t passed = 0;
  for (const ScoredGroup& group : groups) passed += group.size;
  if (index_stats.candidates <= kVerifyEveryCandidate &&
      passed < index_stats.candidates) {
    ASSIGN_OR_RETURN(groups, minhash_index_->QueryGroups(signature, 0.0, top_k,
                                                         nullptr, found_at));
  }
  if (stats) {
    stats->candidates += index_stats.candidates;
    stats->scored += index_stats.scored;
    stats->hot_bands_skipped += index_stats.hot_bands_skipped;
  }
  size_t accepted = 0;  // documents verification accepted
  // Groups without evidence, decided by their stored signatures.
  std::vector<ScoredGroup> by_signature;
  auto add_group = [&](const ScoredGroup& group,
                       const std::optional<std::vector<uint64_t>>& set) {
    if (!set && EstimateFromStore()) {
      // Kept bits only raise a score: below the threshold, the stored
      // signature cannot reach it.
      if (group.score >= threshold) by_signature.push_back(group);
      return;
    }
    MinHashMatch match{0, group.score, {}};
    if (set) match.exact = ExactJaccard64(*shingles, *set);
    if (match.score() < threshold) return;
    accepted += group.size;
    for (uint32_t id : group.ids) {
      match.internal_id = id;
      matches.push_back(match);
    }
  };
  // Evidence is read in chunks whose sets stay within a byte budget, so
  // memory stays bounded however many candidates pass and however large
  // their documents: the first chunk is small, later ones hold as many
  // sets of the size seen so far as fit.
  ChunkSizer chunks;
  // Groups whose members must be read one by one: the member read for the
  // group was deleted or replaced after the index answered (its evidence no
  // longer has the group's key).
  std::vector<ScoredGroup> apart;
  std::vector<uint32_t> ids;
  std::vector<const ScoredGroup*> read;
  for (size_t begin = 0, end; begin < groups.size(); begin = end) {
    end = std::min(groups.size(), begin + chunks.next());
    ids.clear();
    read.clear();
    for (size_t i = begin; i < end; ++i) {
      const ScoredGroup& group = groups[i];
      if (group.twin_key == uint64_t{0}) {
        add_group(group, std::nullopt);  // twins without evidence
        continue;
      }
      ids.push_back(group.ids.front());
      read.push_back(&group);
    }
    ASSIGN_OR_RETURN(const auto sets, store_->GetShingleSets(record_, ids));
    chunks.Saw(sets);
    CountEvidence(sets, stats);
    for (size_t r = 0; r < read.size(); ++r) {
      const ScoredGroup& group = *read[r];
      if (group.ids.size() == 1 ||
          (sets[r] && group.twin_key == DigestOfEvidence(*sets[r]))) {
        add_group(group, sets[r]);
        continue;
      }
      for (uint32_t id : group.ids) apart.push_back({group.score, {id}, 1, {}});
    }
  }
  for (size_t begin = 0, end; begin < apart.size(); begin = end) {
    end = std::min(apart.size(), begin + chunks.next());
    ids.clear();
    for (size_t i = begin; i < end; ++i) ids.push_back(apart[i].ids.front());
    ASSIGN_OR_RETURN(const auto sets, store_->GetShingleSets(record_, ids));
    chunks.Saw(sets);
    CountEvidence(sets, stats);
    for (size_t i = begin; i < end; ++i) add_group(apart[i], sets[i - begin]);
  }
  if (!by_signature.empty()) {
    ASSIGN_OR_RETURN(std::vector<MinHashMatch> decided,
                     RescoredFromStore(signature, by_signature, threshold));
    accepted += decided.size();
    matches.insert(matches.end(), decided.begin(), decided.end());
  }
  if (stats) stats->accepted += accepted;
  std::sort(matches.begin(), matches.end(), best_first);
  if (top_k > 0 && matches.size() > top_k) matches.resize(top_k);
  return matches;
}

absl::StatusOr<std::vector<MinHashMatch>> Collection::RescoredFromStore(
    const MinHashSignature& signature, std::span<const ScoredGroup> groups,
    double threshold) const {
  std::vector<MinHashMatch> matches;
  // Twins have equal signatures, so one member's decides for its group,
  // unless that member changed after the index answered (deleted, replaced
  // or its id reused: its kept bits no longer give the group's score);
  // then each member is read.
  struct Read {
    double estimate;  // of the stored signature
    int kept_equal;   // slots equal in the kept bits, as the index scored
  };
  // on_read(position, what was read); nullopt for a document that is gone.
  auto score_reads = [&](std::span<const uint32_t> ids,
                         auto&& on_read) -> absl::Status {
    constexpr size_t kChunk = 256;  // ~256 KB of signatures at a time
    for (size_t begin = 0; begin < ids.size(); begin += kChunk) {
      const auto chunk =
          ids.subspan(begin, std::min(kChunk, ids.size() - begin));
      ASSIGN_OR_RETURN(const auto stored, store_->GetMinHashes(record_, chunk));
      for (size_t i = 0; i < chunk.size(); ++i) {
        std::optional<Read> read;
        if (stored[i]) {
          ASSIGN_OR_RETURN(const double estimate,
                           EstimateJaccard(signature, *stored[i]));
          read =
              Read{estimate, KeptEqualSlots(stored[i]->slots, signature.slots,
                                            record_.config.slot_bits)};
        }
        on_read(begin + i, read);
      }
    }
    return absl::OkStatus();
  };
  std::vector<uint32_t> firsts;
  for (const ScoredGroup& group : groups) firsts.push_back(group.ids.front());
  std::vector<uint32_t> apart;
  const double slots = static_cast<double>(record_.config.num_perm);
  RETURN_IF_ERROR(
      score_reads(firsts, [&](size_t g, const std::optional<Read>& read) {
        const ScoredGroup& group = groups[g];
        const bool unchanged =
            read && read->kept_equal ==
                        static_cast<int>(std::lround(group.score * slots));
        if (!unchanged && group.ids.size() > 1) {
          apart.insert(apart.end(), group.ids.begin(), group.ids.end());
          return;
        }
        // A lone document decides by what it is now (nothing if gone).
        if (!read || read->estimate < threshold) return;
        for (uint32_t id : group.ids) {
          matches.push_back({id, read->estimate, {}});
        }
      }));
  RETURN_IF_ERROR(
      score_reads(apart, [&](size_t i, const std::optional<Read>& read) {
        if (read && read->estimate >= threshold) {
          matches.push_back({apart[i], read->estimate, {}});
        }
      }));
  return matches;
}

absl::StatusOr<std::vector<std::optional<std::string>>> Collection::KeptOf(
    std::string_view family, std::span<const uint32_t> internal_ids) const {
  return store_->GetKeptValues(record_, family, internal_ids);
}

absl::StatusOr<std::vector<IdDistance>> Collection::QuerySimHash(
    uint64_t simhash, int max_distance, size_t top_k,
    IndexQueryStats* stats) const {
  store_->NoteActivity();
  if (!simhash_index_) {
    return absl::FailedPreconditionError(absl::StrCat(
        "collection '", record_.name, "' was created without SimHash"));
  }
  return simhash_index_->Query(simhash, max_distance, stats, top_k);
}

absl::StatusOr<std::vector<IdCosine>> Collection::QuerySemantic(
    std::span<const float> unit, double min_cosine, size_t top_k) const {
  store_->NoteActivity();
  if (!semantic_index_) {
    return absl::FailedPreconditionError(
        absl::StrCat("collection '", record_.name,
                     "' was created without an embedding "
                     "space (config.embedding)"));
  }
  if (!(min_cosine > -1 && min_cosine <= 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("min_cosine must be in (-1, 1], got ", min_cosine));
  }
  return semantic_index_->Search(unit, std::max<size_t>(top_k, 1),
                                 static_cast<float>(min_cosine));
}

absl::StatusOr<std::vector<std::optional<float>>> Collection::CosineTo(
    std::span<const float> unit, std::span<const uint32_t> ids) const {
  if (!semantic_index_) {
    return absl::FailedPreconditionError(
        absl::StrCat("collection '", record_.name, "' has no embedding space"));
  }
  return semantic_index_->CosineTo(unit, ids);
}

namespace {

// Documents read from the store for the indexes, one batch.
struct LoadBatch {
  std::vector<uint32_t> ids;
  std::vector<MinHashSignature> minhashes;
  std::vector<uint64_t> simhashes;
  std::vector<float> vectors;  // dim floats per id

  void clear() {
    ids.clear();
    minhashes.clear();
    simhashes.clear();
    vectors.clear();
  }
};

}  // namespace

absl::StatusOr<uint64_t> Collection::LoadIndexes(int threads) {
  MutexLock lock(&write_mu_);
  MutexLock index_lock(&index_mu_);
  uint64_t loaded = 0;
  ASSIGN_OR_RETURN(const uint32_t id_bound, store_->InternalIdBound(record_));
  minhash_index_->Reserve(id_bound);
  if (simhash_index_) simhash_index_->Reserve(id_bound);
  if (semantic_index_) {
    // Ids spread evenly over the shards (id % shards): sized once, not by
    // doubling as they come.
    RETURN_IF_ERROR(
        semantic_index_->Reserve(id_bound / semantic_index_->shards() + 1));
  }
  // The scan (this thread) reads the next batch while the pipeline's thread
  // indexes the last: at 10M documents the two took turns for 35 s, each
  // about half of it.
  BatchPipeline<LoadBatch> indexer([&](LoadBatch& batch) -> absl::Status {
    RETURN_IF_ERROR(
        minhash_index_->BulkInsert(batch.ids, batch.minhashes, threads));
    if (simhash_index_) {
      RETURN_IF_ERROR(
          simhash_index_->BulkInsert(batch.ids, batch.simhashes, threads));
    }
    if (semantic_index_) {
      RETURN_IF_ERROR(
          semantic_index_->BulkUpsert(batch.ids, batch.vectors, threads));
    }
    return absl::OkStatus();
  });
  LoadBatch batch;
  auto push = [&]() -> absl::Status {
    loaded += batch.ids.size();
    return indexer.Push(batch);
  };
  // Ids not seen by the scan are free: puts reuse them (ids and index rows
  // then follow the live documents).
  std::vector<uint32_t> free_ids;
  uint32_t expected = 0;
  const absl::Status scanned = store_->ForEachSignature(
      record_, [&](storage::StoredSignatures stored) -> absl::Status {
        for (; expected < stored.internal_id; ++expected) {
          free_ids.push_back(expected);
        }
        expected = stored.internal_id + 1;
        if (simhash_index_ && !stored.simhash) {
          return absl::DataLossError(
              absl::StrCat("document ", stored.internal_id, " of collection '",
                           record_.name, "' has no SimHash"));
        }
        if (semantic_index_ && !stored.embedding) {
          return absl::DataLossError(
              absl::StrCat("document ", stored.internal_id, " of collection '",
                           record_.name, "' has no embedding"));
        }
        batch.ids.push_back(stored.internal_id);
        batch.minhashes.push_back(std::move(stored.minhash));
        if (simhash_index_) batch.simhashes.push_back(*stored.simhash);
        if (semantic_index_) {
          batch.vectors.insert(batch.vectors.end(), stored.embedding->begin(),
                               stored.embedding->end());
        }
        return batch.ids.size() >= kLoadBatch ? push() : absl::OkStatus();
      });
  // The indexer's error first: a scan stopped by it reports it too.
  const absl::Status pushed =
      scanned.ok() && !batch.ids.empty() ? push() : absl::OkStatus();
  RETURN_IF_ERROR(indexer.Finish());
  RETURN_IF_ERROR(scanned);
  RETURN_IF_ERROR(pushed);
  for (; expected < id_bound; ++expected) free_ids.push_back(expected);
  RETURN_IF_ERROR(store_->SetFreeInternalIds(record_, std::move(free_ids)));
  return loaded;
}

size_t Collection::index_bytes() const {
  return minhash_index_->MemoryBytes() +
         (simhash_index_ ? simhash_index_->MemoryBytes() : 0) +
         (semantic_index_ ? semantic_index_->memory_bytes() : 0);
}

}  // namespace neardup::engine
