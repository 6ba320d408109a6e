#include "document_decider.h"

#include <algorithm>
#include <utility>

#include "neardup/base/status_macros.h"

namespace neardup::dedup {
namespace {

// The MinHash index is reserved for at most this many documents up front
// (about 100 MB of tables at 32 bands).
constexpr uint64_t kMaxReservedDocs = uint64_t{1} << 18;

}  // namespace

absl::StatusOr<DocumentDecider> DocumentDecider::Create(
    const DedupOptions& options, uint64_t expected_docs, bool size_known,
    bool log_clusters) {
  absl::StatusOr<std::unique_ptr<DuplicateFinder>> finder =
      absl::InvalidArgumentError(
          "suffix-array removes spans, not documents: it has no finder");
  switch (options.algorithm) {
    case Algorithm::kMinHashLsh:
    case Algorithm::kPerceptual:
      // Reserved only from a known input size: an estimate from a few
      // records can be wildly high. Past it the index grows as it fills.
      finder = MakeMinHashFinder(
          options, size_known ? std::min(expected_docs, kMaxReservedDocs) : 0);
      break;
    case Algorithm::kSimHash:
      finder = MakeSimHashFinder(options, expected_docs);
      break;
    case Algorithm::kLshBloom:
      finder = MakeLshBloomFinder(options, expected_docs);
      break;
    case Algorithm::kSuffixArray:
      break;
  }
  if (!finder.ok()) return finder.status();
  return DocumentDecider(options, *std::move(finder), log_clusters);
}

DocumentDecider::DocumentDecider(const DedupOptions& options,
                                 std::unique_ptr<DuplicateFinder> finder,
                                 bool log_clusters)
    : skip_invalid_(options.skip_invalid),
      drop_empty_(options.drop_empty),
      finder_(std::move(finder)) {
  if (log_clusters) clusters_ = std::make_unique<ClusterLog>();
  stats_.algorithm = std::string(AlgorithmName(options.algorithm));
  stats_.verify = std::string(VerifyName(options.verify));
}

absl::StatusOr<Decision> DocumentDecider::Decide(uint32_t doc,
                                                 DocFingerprint* print) {
  ++stats_.total;
  Decision decision;
  switch (print->kind) {
    case DocFingerprint::Kind::kInvalid:
      if (!skip_invalid_) {
        decision.outcome = Outcome::kInvalid;
        return decision;
      }
      ++stats_.invalid;
      decision.outcome = Outcome::kSkipped;
      return decision;
    case DocFingerprint::Kind::kEmpty:
      ++stats_.empty;
      if (drop_empty_) {
        decision.outcome = Outcome::kDropped;
        return decision;
      }
      break;
    case DocFingerprint::Kind::kOk: {
      ASSIGN_OR_RETURN(const std::optional<Match> match,
                       finder_->FindOrKeep(doc, print));
      if (match) {
        ++stats_.duplicates;
        if (clusters_ && match->representative != kUnknownDoc) {
          clusters_->Add(match->representative, doc, match->similarity);
        }
        decision.outcome = Outcome::kDuplicate;
        decision.representative = match->representative;
        decision.similarity = match->similarity;
        return decision;
      }
      break;
    }
  }
  ++stats_.unique;
  return decision;
}

}  // namespace neardup::dedup
