#include "neardup/engine/query.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "neardup/base/absl_compat.h"
#include "neardup/base/status_macros.h"
#include "neardup/core/enum_tables.h"
#include "neardup/core/kept_family.h"
#include "neardup/core/simhash.h"

namespace neardup::engine {

std::string ExplainBudgetSpent() {
  return absl::StrCat(
      "this query's explain budget went to better matches (at most ",
      kExplainMatchesPerQuery, " matches and ", kExplainTextBytesPerQuery >> 20,
      " MiB of text per query); ask with a smaller top_k");
}
namespace {

// The algorithm as the API names it, for messages ("hybrid-all" is
// ALGORITHM_HYBRID_ALL).
std::string ApiName(QueryAlgorithm algorithm) {
  std::string name =
      absl::StrCat("ALGORITHM_", AbslView(kQueryAlgorithms.Name(algorithm)));
  for (char& c : name) c = c == '-' ? '_' : absl::ascii_toupper(c);
  return name;
}

bool IsHybrid(QueryAlgorithm algorithm) {
  return algorithm == QueryAlgorithm::kHybridAll ||
         algorithm == QueryAlgorithm::kHybridAny;
}

bool UsesVectors(QueryAlgorithm algorithm) {
  return algorithm == QueryAlgorithm::kSemantic || IsHybrid(algorithm);
}

// The probe, fingerprinted as the algorithm needs it.
struct Probe {
  MinHashSignature minhash;
  std::optional<uint64_t> simhash;
  // The probe's shingle set, when the collection verifies exactly.
  std::optional<std::vector<uint64_t>> shingles;
  // The probe's values of the collection's kept families.
  std::vector<KeptValue> kept;
  std::optional<std::vector<float>> vector;
};

absl::StatusOr<Probe> Fingerprint(const Collection& collection,
                                  const QuerySpec& spec,
                                  const EmbedderCache* embedders) {
  const CollectionConfig& config = collection.record().config;
  const CollectionFingerprinter& fingerprinter = collection.fingerprinter();
  Probe probe;
  probe.vector = spec.embedding;
  if (spec.text) {
    const std::string_view text = *spec.text;
    if (spec.algorithm == QueryAlgorithm::kSimHash) {
      if (!fingerprinter.has_simhash()) {
        return absl::FailedPreconditionError(
            absl::StrCat("collection '", collection.name(),
                         "' was created without SimHash"));
      }
      auto h = fingerprinter.SimHash(text);
      RETURN_IF_ERROR(Prefixed("text", h.status()));
      probe.simhash = *h;
    } else if (spec.algorithm != QueryAlgorithm::kSemantic) {
      if (config.verification == Verification::kExact) {
        probe.shingles.emplace();
      }
      auto sig = fingerprinter.MinHash(
          text, probe.shingles ? &*probe.shingles : nullptr);
      RETURN_IF_ERROR(Prefixed("text", sig.status()));
      probe.minhash = *std::move(sig);
    }
    if (UsesVectors(spec.algorithm) && !probe.vector) {
      ASSIGN_OR_RETURN(probe.vector, collection.EmbedText(text, embedders));
    }
    // Too short or uniform for a family: matches carry no distance of it.
    probe.kept = fingerprinter.Kept(text);
  } else if (spec.signatures) {
    probe.minhash = spec.signatures->minhash;
    probe.simhash = spec.signatures->simhash;
    probe.kept = spec.signatures->kept;
    if (spec.algorithm == QueryAlgorithm::kSimHash && !probe.simhash) {
      return absl::InvalidArgumentError(
          "a SimHash query by signatures needs signatures.simhash");
    }
  } else if (spec.algorithm != QueryAlgorithm::kSemantic) {
    // A semantic query may name only its vector.
    return absl::InvalidArgumentError("set either text or signatures");
  }
  return probe;
}

}  // namespace

absl::Status CallBudget::Check(std::string_view doing) const {
  if (cancelled && cancelled()) {
    return absl::CancelledError(
        absl::StrCat("the caller went away while ", AbslView(doing)));
  }
  if (absl::Now() > deadline) {
    return absl::DeadlineExceededError(
        absl::StrCat("the call's deadline passed while ", AbslView(doing)));
  }
  return absl::OkStatus();
}

absl::Status CheckQuery(const Collection& collection, const QuerySpec& spec) {
  const CollectionConfig& config = collection.record().config;
  if (UsesVectors(spec.algorithm)) {
    if (!config.embedding.enabled()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "collection '", collection.name(),
          "' was created without an embedding space (config.embedding): "
          "it has no vectors for ",
          AbslView(ApiName(spec.algorithm))));
    }
    if (spec.embedding &&
        spec.embedding->size() != static_cast<size_t>(config.embedding.dim)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "embedding has ", spec.embedding->size(), " values; collection '",
          collection.name(), "' has ", config.embedding.dim, " dimensions"));
    }
    if (!spec.embedding &&
        (config.embedding.fasttext_model.empty() || !spec.text)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "algorithm ", AbslView(ApiName(spec.algorithm)),
          " needs the probe's embedding (or a text probe, in a collection "
          "that embeds texts with a fastText model)"));
    }
    const double min_cosine =
        spec.min_cosine.value_or(config.embedding.min_cosine);
    if (!(min_cosine > -1 && min_cosine <= 1)) {
      return absl::InvalidArgumentError(
          absl::StrCat("min_cosine must be in (-1, 1], got ", min_cosine));
    }
  } else if (spec.embedding || spec.min_cosine) {
    return absl::InvalidArgumentError(
        "embedding and min_cosine apply to ALGORITHM_SEMANTIC and the hybrid "
        "algorithms");
  }
  return absl::OkStatus();
}

absl::StatusOr<QueryPlan> PlanQuery(const Collection& collection,
                                    const QuerySpec& spec) {
  RETURN_IF_ERROR(CheckQuery(collection, spec));
  const CollectionConfig& config = collection.record().config;
  QueryPlan plan;
  plan.algorithm = spec.algorithm;
  plan.threshold = spec.threshold == 0 ? config.threshold : spec.threshold;
  plan.max_distance =
      spec.max_distance
          ? static_cast<int>(std::min<uint32_t>(*spec.max_distance, 64))
          : config.simhash_max_distance;
  plan.min_cosine = spec.min_cosine.value_or(config.embedding.min_cosine);
  plan.wanted = spec.top_k + (spec.exclude_id.empty() ? 0 : 1);
  // Hybrid queries filter or merge the MinHash matches afterwards, so they
  // take more of them than top_k: the best kMaxHybridMinHash.
  plan.minhash_take = IsHybrid(spec.algorithm)
                          ? std::max<size_t>(plan.wanted, kMaxHybridMinHash)
                          : plan.wanted;
  return plan;
}

namespace {

// Probe: the index the algorithm asks. MinHash matches come verified (the
// exact Jaccard of the shingle sets, where the collection verifies
// exactly: Collection::QueryMinHash).
absl::StatusOr<ProbeResult> ProbeIndexes(const Collection& collection,
                                         const QueryPlan& plan,
                                         const Probe& probe,
                                         IndexQueryStats* stats) {
  ProbeResult result;
  std::vector<QueryHit>& hits = result.hits;
  if (plan.algorithm == QueryAlgorithm::kSimHash) {
    ASSIGN_OR_RETURN(const std::vector<IdDistance> found,
                     collection.QuerySimHash(*probe.simhash, plan.max_distance,
                                             plan.wanted, stats));
    for (const IdDistance& m : found) {
      hits.push_back(
          {m.id, SimHashSimilarity(m.distance), m.distance, {}, {}, {}});
    }
  } else if (plan.algorithm == QueryAlgorithm::kSemantic) {
    ASSIGN_OR_RETURN(
        const std::vector<IdCosine> found,
        collection.QuerySemantic(*probe.vector, plan.min_cosine, plan.wanted));
    for (const IdCosine& m : found) {
      hits.push_back({m.id, m.cosine, {}, {}, m.cosine, {}});
    }
  } else {
    ASSIGN_OR_RETURN(
        const std::vector<MinHashMatch> found,
        collection.QueryMinHash(probe.minhash,
                                probe.shingles ? &*probe.shingles : nullptr,
                                plan.threshold, plan.minhash_take, stats));
    if (IsHybrid(plan.algorithm) && found.size() >= plan.minhash_take) {
      result.truncated = true;
    }
    for (const MinHashMatch& m : found) {
      hits.push_back({m.internal_id, m.score(), {}, m, {}, {}});
    }
  }
  return result;
}

// Hybrids: the MinHash matches weighed by cosine (hybrid-all: only those
// reaching min_cosine), hybrid-any with the semantic matches added, all
// ranked by cosine.
absl::Status MergeHybrid(const Collection& collection, const QueryPlan& plan,
                         const Probe& probe, std::vector<QueryHit>* hits) {
  std::vector<uint32_t> ids;
  for (const QueryHit& hit : *hits) ids.push_back(hit.internal_id);
  ASSIGN_OR_RETURN(const std::vector<std::optional<float>> cosines,
                   collection.CosineTo(*probe.vector, ids));
  for (size_t h = 0; h < hits->size(); ++h) (*hits)[h].cosine = cosines[h];
  // No vector: deleted since MinHash answered.
  std::erase_if(*hits, [&](const QueryHit& hit) {
    return !hit.cosine ||
           (plan.algorithm == QueryAlgorithm::kHybridAll &&
            !ReachesCosine(*hit.cosine, static_cast<float>(plan.min_cosine)));
  });
  if (plan.algorithm == QueryAlgorithm::kHybridAny) {
    ASSIGN_OR_RETURN(
        const std::vector<IdCosine> semantic,
        collection.QuerySemantic(*probe.vector, plan.min_cosine, plan.wanted));
    const absl::flat_hash_set<uint32_t> have(ids.begin(), ids.end());
    for (const IdCosine& m : semantic) {
      if (!have.contains(m.id))
        hits->push_back({m.id, 0, {}, {}, m.cosine, {}});
    }
  }
  for (QueryHit& hit : *hits) hit.similarity = *hit.cosine;
  std::sort(
      hits->begin(), hits->end(), [](const QueryHit& a, const QueryHit& b) {
        return a.similarity != b.similarity ? a.similarity > b.similarity
                                            : a.internal_id < b.internal_id;
      });
  if (hits->size() > plan.wanted) hits->resize(plan.wanted);  // before reads
  return absl::OkStatus();
}

// Kept families' distances: one read per family for every hit, only for a
// family the probe has a value of.
absl::Status AddKeptDistances(const Collection& collection, const Probe& probe,
                              std::vector<QueryHit>* hits) {
  std::vector<uint32_t> ids;
  for (const QueryHit& hit : *hits) ids.push_back(hit.internal_id);
  for (const KeptValue& value : probe.kept) {
    if (ids.empty()) break;
    ASSIGN_OR_RETURN(const KeptFamily* family, KeptFamilyNamed(value.family));
    ASSIGN_OR_RETURN(const auto stored, collection.KeptOf(value.family, ids));
    for (size_t h = 0; h < hits->size(); ++h) {
      if (!stored[h]) continue;
      ASSIGN_OR_RETURN(const int distance,
                       family->distance(value.value, *stored[h]));
      (*hits)[h].kept_distances.push_back({value.family, distance});
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ProbeResult> ProbeQuery(const Collection& collection,
                                       const QuerySpec& spec,
                                       const QueryPlan& plan,
                                       const EmbedderCache* embedders,
                                       IndexQueryStats* stats) {
  ASSIGN_OR_RETURN(const Probe probe, Fingerprint(collection, spec, embedders));
  ASSIGN_OR_RETURN(ProbeResult result,
                   ProbeIndexes(collection, plan, probe, stats));
  if (IsHybrid(plan.algorithm)) {
    RETURN_IF_ERROR(MergeHybrid(collection, plan, probe, &result.hits));
  }
  RETURN_IF_ERROR(AddKeptDistances(collection, probe, &result.hits));
  return result;
}

namespace {

// The passages `probe_text` shares with document `internal_id`, or why
// there are none. Adds the text it read (as explain reads it: at most
// 1 MiB a side) to `*explained_bytes`.
absl::Status Explain(const Collection& collection,
                     const std::string* probe_text, uint32_t internal_id,
                     ResolvedMatch* match, size_t* explained_bytes) {
  if (probe_text == nullptr) {
    match->explain_unavailable = "the probe came as signatures, not text";
    return absl::OkStatus();
  }
  if (!collection.record().config.store_text) {
    match->explain_unavailable =
        "the collection keeps no text (create it with store_text)";
    return absl::OkStatus();
  }
  auto doc = collection.GetByInternalId(internal_id);
  if (absl::IsNotFound(doc.status())) return absl::OkStatus();
  RETURN_IF_ERROR(doc.status());
  if (!doc->text) {
    match->explain_unavailable = "the document came as signatures";
    return absl::OkStatus();
  }
  // What was read: the whole stored text (explain then looks at its first
  // MiB), and the probe's first MiB.
  *explained_bytes +=
      std::min(probe_text->size(), ExplainOptions().max_text_bytes) +
      doc->text->size();
  ASSIGN_OR_RETURN(
      match->passages,
      ExplainSharedPassages(*probe_text, *doc->text,
                            collection.fingerprinter().canonicalizer()));
  return absl::OkStatus();
}

}  // namespace

absl::Status ResolveMatches(
    const Collection& collection, const QuerySpec& spec,
    const ProbeResult& probe, const ResolveOptions& options,
    const CallBudget& call,
    absl::FunctionRef<bool(const ResolvedMatch&)> emit) {
  size_t emitted = 0, explained_matches = 0, explained_bytes = 0;
  for (size_t h = 0; h < probe.hits.size(); ++h) {
    if (emitted >= spec.top_k) break;
    const QueryHit& hit = probe.hits[h];
    auto doc = collection.GetByInternalId(hit.internal_id,
                                          storage::DocumentParts::kRecordOnly);
    if (absl::IsNotFound(doc.status())) continue;  // deleted meanwhile
    RETURN_IF_ERROR(doc.status());
    if (doc->external_id == spec.exclude_id) continue;
    ResolvedMatch match;
    match.hit = &hit;
    match.external_id = std::move(doc->external_id);
    if (options.explain) {
      RETURN_IF_ERROR(call.Check("explaining matches"));
      if (explained_matches >= kExplainMatchesPerQuery ||
          explained_bytes >= kExplainTextBytesPerQuery) {
        match.explain_unavailable = ExplainBudgetSpent();
      } else {
        ++explained_matches;
        RETURN_IF_ERROR(Explain(collection, options.probe_text, hit.internal_id,
                                &match, &explained_bytes));
      }
    } else if (h % 64 == 63) {
      RETURN_IF_ERROR(call.Check("reading matches"));
    }
    if (options.include_metadata) match.metadata = std::move(doc->metadata);
    if (!emit(match)) break;
    ++emitted;
  }
  return absl::OkStatus();
}

}  // namespace neardup::engine
