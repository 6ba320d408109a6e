#ifndef NEARDUP_ENGINE_COLLECTION_H_
#define NEARDUP_ENGINE_COLLECTION_H_

// A live collection: its record, fingerprinters and in-memory indexes, kept
// in step with the store. Every write goes to RocksDB first and to the
// indexes after, under the collection's write lock, so the indexes never
// hold a document the store does not.

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "neardup/base/sync.h"
#include "neardup/core/collection_fingerprinter.h"
#include "neardup/core/index/minhash_lsh_index.h"
#include "neardup/core/index/semantic_index.h"
#include "neardup/core/index/simhash_index.h"
#include "neardup/core/kept_family.h"
#include "neardup/core/minhash.h"
#include "neardup/engine/embedders.h"
#include "neardup/engine/group_committer.h"
#include "neardup/storage/collection_record.h"
#include "neardup/storage/document.h"
#include "neardup/storage/store.h"

namespace neardup::engine {

// A document that reached a MinHash threshold, and how that was decided.
struct MinHashMatch {
  uint32_t internal_id = 0;
  // Fraction of equal slots: as the index keeps them, or of the stored
  // signature where it decided and the index keeps fewer than 16 bits.
  double estimate = 0;
  // Exact Jaccard of the shingle sets: when the collection verifies exactly
  // and both the probe and the document have evidence. It decided the
  // match; without it the estimate did.
  std::optional<double> exact;

  double score() const { return exact ? *exact : estimate; }
  bool operator==(const MinHashMatch&) const = default;
};

// Signatures a client computed, decoded and checked against the
// collection's config hashes by whoever translated the request.
struct SignatureInput {
  MinHashSignature minhash;
  std::optional<uint64_t> simhash;
  // The shingle set behind `minhash`; kept when the collection verifies
  // exactly.
  std::optional<std::vector<uint64_t>> evidence;
  // Values of kept families, normalized and with the collection's config
  // hashes (a family the collection does not keep is left out).
  std::vector<KeptValue> kept;
};

// What a write brings before it is prepared: a text (fingerprinted by
// Prepare) or signatures, and optionally the document's vector.
struct DocumentInput {
  std::string external_id;
  storage::Metadata metadata;
  // Exactly one of text and signatures. The text must outlive Prepare.
  std::optional<std::string_view> text;
  std::optional<SignatureInput> signatures;
  // A unit vector checked against the collection's space; without one, a
  // text is embedded by the collection's fastText model, if it has one.
  std::optional<std::vector<float>> embedding;
  std::string embedding_model_id;
};

// A document ready to apply: fingerprinted once (by the node that received
// it), with every signature stamped with its config hash. Applying it
// computes nothing from the text again.
using PreparedDocument = storage::DocumentWrite;

struct UpsertOptions {
  storage::WriteOptions write;
  // Dedup-on-write: when set, the document is stored only if no *other*
  // document reaches this Jaccard (decided as queries decide it);
  // otherwise the matches come back and nothing is written. Checked and
  // applied atomically. At least the collection's min_threshold.
  std::optional<double> insert_only_below;
};

struct UpsertOutcome {
  bool written = false;
  storage::PutResult put;              // when written
  std::vector<MinHashMatch> blocking;  // when refused by insert_only_below
};

class Collection {
 public:
  // Builds the fingerprinters and empty indexes for `record`. Queries
  // leave out MinHash band keys of more than `hot_band_rows` rows (0: none;
  // MinHashIndexOptions::hot_band_rows); dedup-on-write never does.
  static absl::StatusOr<std::unique_ptr<Collection>> Create(
      storage::Store* store, storage::CollectionRecord record, int index_shards,
      size_t hot_band_rows = 0);

  const storage::CollectionRecord& record() const { return record_; }
  const std::string& name() const { return record_.name; }
  const CollectionFingerprinter& fingerprinter() const {
    return fingerprinter_;
  }

  // A write happens in two calls: Prepare (fingerprinting, embedding: the
  // costly, stateless part, which may run anywhere) and Apply (the write
  // and the index update, in the collection's order).
  //
  // Prepares `input` for this collection: a text is fingerprinted (text
  // kept only when the collection stores text, shingles when it verifies
  // exactly, each kept family's value the text has) and embedded
  // by the collection's model through `embedders` when it has one and the
  // input brings no vector; MinHash and SimHash are stamped with the
  // collection's config hashes (kept values carry theirs, checked). Reads no
  // collection state: the same input gives the same document on every node.
  // Errors name the input's field.
  absl::StatusOr<PreparedDocument> Prepare(
      const DocumentInput& input,
      const EmbedderCache* embedders = nullptr) const;
  // The vector of `text` from the collection's fastText model (through
  // `embedders`), and the model's id in `model_id`; nullopt when the
  // collection has no model.
  absl::StatusOr<std::optional<std::vector<float>>> EmbedText(
      std::string_view text, const EmbedderCache* embedders,
      std::string* model_id = nullptr) const;
  // Prepare of a text without a vector.
  absl::StatusOr<PreparedDocument> PrepareText(
      std::string external_id, std::string_view text,
      storage::Metadata metadata) const;

  // Writes a prepared document to the store, then to the indexes.
  absl::StatusOr<UpsertOutcome> Apply(const PreparedDocument& doc,
                                      const UpsertOptions& options = {});
  // Whether `other`, stored, might block `doc` under insert_only_below =
  // `threshold`: scored as Apply's check scores (the index's score of equal
  // slots, then exact Jaccard where both have evidence and the collection
  // verifies exactly) but without the index's banding, so never false
  // where Apply would block.
  bool MayBlock(const PreparedDocument& doc, const PreparedDocument& other,
                double threshold) const;
  // The documents that would block `doc` under insert_only_below =
  // `threshold` now (Apply's check, without writing): best first.
  absl::StatusOr<std::vector<MinHashMatch>> Blocking(
      const PreparedDocument& doc, double threshold);
  // Plain applies (no insert_only_below) of many documents, in order as if
  // one by one, but written in as few RocksDB batches as the group commit
  // allows. One result per document.
  std::vector<absl::StatusOr<storage::PutResult>> ApplyMany(
      std::span<const PreparedDocument* const> docs,
      const storage::WriteOptions& options);
  // NOT_FOUND when absent.
  absl::Status Delete(std::string_view external_id,
                      const storage::WriteOptions& options = {});
  // The cluster log's last sequence applied here (WriteOptions::
  // log_sequence); 0 for none.
  absl::StatusOr<uint64_t> LogSequence() const;
  // Store::RecordLogSequence, MarkSnapshotLoading, FinishSnapshotLoading,
  // SnapshotLoading of this collection (a cluster replica's).
  absl::Status RecordLogSequence(uint64_t sequence);
  absl::Status MarkSnapshotLoading();
  absl::Status FinishSnapshotLoading(uint64_t log_sequence);
  absl::StatusOr<bool> SnapshotLoading() const;
  absl::StatusOr<storage::StoredDocument> Get(
      std::string_view external_id) const;
  absl::StatusOr<storage::StoredDocument> GetByInternalId(
      uint32_t internal_id,
      storage::DocumentParts parts = storage::DocumentParts::kAll) const;

  // Matches at or above `threshold`, best first (by exact Jaccard where
  // known, else the estimate; ties to the lower id), at most `top_k` (0:
  // all). With `shingles` (the probe's evidence) and a collection that
  // verifies exactly, exact Jaccard decides for every document with
  // evidence. INVALID_ARGUMENT below the collection's min_threshold.
  absl::StatusOr<std::vector<MinHashMatch>> QueryMinHash(
      const MinHashSignature& signature, const std::vector<uint64_t>* shingles,
      double threshold, size_t top_k = 0,
      IndexQueryStats* stats = nullptr) const;
  // INVALID_ARGUMENT naming the floor when `threshold` is below
  // min_threshold (or not in (0, 1]); `field` names it in the message.
  absl::Status CheckThreshold(double threshold, std::string_view field) const;
  // FAILED_PRECONDITION when the collection has no SimHash.
  absl::StatusOr<std::vector<IdDistance>> QuerySimHash(
      uint64_t simhash, int max_distance = -1, size_t top_k = 0,
      IndexQueryStats* stats = nullptr) const;
  // The stored value of a kept family of each document, in order (nullopt:
  // none). All nullopt when the collection does not keep the family.
  absl::StatusOr<std::vector<std::optional<std::string>>> KeptOf(
      std::string_view family, std::span<const uint32_t> internal_ids) const;

  // Documents whose vectors have cosine >= min_cosine with `unit` (a
  // UnitEmbedding of the space's dim), best first, at most top_k (>= 1):
  // approximate, see EmbeddingSpace::ef_search. FAILED_PRECONDITION when
  // the collection has no embedding space.
  absl::StatusOr<std::vector<IdCosine>> QuerySemantic(
      std::span<const float> unit, double min_cosine, size_t top_k) const;
  // The exact cosine between `unit` and each document's vector (nullopt
  // for a document not indexed); FAILED_PRECONDITION without a space.
  absl::StatusOr<std::vector<std::optional<float>>> CosineTo(
      std::span<const float> unit, std::span<const uint32_t> ids) const;

  // Fills the freshly created, empty indexes from the store, on up to
  // `threads` threads. Call once, before the collection serves requests.
  // Returns the number of documents indexed.
  absl::StatusOr<uint64_t> LoadIndexes(int threads);

  size_t num_documents() const { return minhash_index_->size(); }
  size_t index_bytes() const;
  const MinHashLshIndex& minhash_index() const { return *minhash_index_; }
  const SimHashIndex* simhash_index() const { return simhash_index_.get(); }
  // Null without an embedding space.
  const SemanticIndex* semantic_index() const { return semantic_index_.get(); }

 private:
  Collection(storage::Store* store, storage::CollectionRecord record,
             CollectionFingerprinter fingerprinter,
             std::unique_ptr<MinHashLshIndex> minhash_index,
             std::unique_ptr<SimHashIndex> simhash_index,
             std::unique_ptr<SemanticIndex> semantic_index);
  // Adds a written document to every index.
  absl::Status IndexDocument(uint32_t internal_id,
                             const storage::DocumentWrite& doc)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(index_mu_);

  storage::Store* const store_;
  const storage::CollectionRecord record_;
  const CollectionFingerprinter fingerprinter_;
  // A put waiting to be written by the current group-commit leader.
  struct PendingPut;
  // Writes one round of queued puts as one RocksDB batch, hands the lead
  // to the next writer, then indexes the round. index_mu_ is taken inside
  // write_mu_'s scope and let go after it (hand over hand), which the
  // static analysis cannot follow: the function is checked by the tests
  // under TSan instead.
  void CommitRound(std::span<PendingPut* const> round,
                   absl::FunctionRef<void()> hand_over_lead)
      ABSL_LOCKS_EXCLUDED(write_mu_, index_mu_) ABSL_NO_THREAD_SAFETY_ANALYSIS;
  absl::StatusOr<std::vector<MinHashMatch>> BlockingLocked(
      const PreparedDocument& doc, double threshold) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(write_mu_, index_mu_);
  // `skip_hot_bands`: queries may leave hot band keys out; dedup-on-write
  // may not (replicas decide it alone, and an index's hot keys depend on
  // its node's --shards).
  absl::StatusOr<std::vector<MinHashMatch>> FindMinHashMatches(
      const MinHashSignature& signature, const std::vector<uint64_t>* shingles,
      double threshold, size_t top_k, IndexQueryStats* stats,
      bool skip_hot_bands) const;
  // Below 16 kept bits a slot (8, the exact collections' default) the
  // index's score only filters; where the estimate decides (a probe or a
  // document without shingle sets) it comes from the stored signatures.
  bool EstimateFromStore() const { return record_.config.slot_bits < 16; }
  // The members of `groups` whose stored signature's estimate against
  // `signature` reaches `threshold`, with that estimate.
  absl::StatusOr<std::vector<MinHashMatch>> RescoredFromStore(
      const MinHashSignature& signature, std::span<const ScoredGroup> groups,
      double threshold) const;

  // Serialises writes to the store, so that dedup-on-write admits one of
  // two racing near-duplicates.
  Mutex write_mu_ ABSL_ACQUIRED_BEFORE(index_mu_);
  // Serialises index changes. Taken while write_mu_ is held, so the indexes
  // change in the store's order; a round's index inserts then run under
  // this lock alone, while the next round is written.
  Mutex index_mu_;
  // Documents written to the store but not yet indexed.
  std::atomic<size_t> unindexed_{0};
  // Plain upserts queue here; one writer at a time commits a round.
  GroupCommitter<PendingPut> committer_;
  std::unique_ptr<MinHashLshIndex> minhash_index_;
  std::unique_ptr<SimHashIndex> simhash_index_;
  std::unique_ptr<SemanticIndex> semantic_index_;
};

}  // namespace neardup::engine

#endif  // NEARDUP_ENGINE_COLLECTION_H_
