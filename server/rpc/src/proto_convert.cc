#include "neardup/server/internal/proto_convert.h"

#include <algorithm>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "neardup/base/absl_compat.h"
#include "neardup/base/status_macros.h"
#include "neardup/core/config_hash.h"
#include "neardup/core/fingerprint_settings.h"
#include "neardup/core/index/hnsw_index.h"
#include "neardup/core/shingle_set.h"
#include "neardup/proto/fingerprint_settings_proto.h"
#include "neardup/proto/kept_proto.h"

namespace neardup::server {
namespace {

// verify_bits is read (and written) on purpose, for one release.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

// slot_bits, or its deprecated old name verify_bits.
uint32_t SlotBitsOf(const v1::FingerprintConfig& proto) {
  return proto.slot_bits() != 0 ? proto.slot_bits() : proto.verify_bits();
}

// Range checks on the wire values, before any of them is narrowed to int or
// multiplied: core checks the converted config again.
absl::Status CheckRanges(const v1::FingerprintConfig& proto) {
  auto out_of_range = [](std::string_view field, auto value,
                         const std::string& range) {
    return absl::InvalidArgumentError(absl::StrCat("config.", AbslView(field),
                                                   " must be ", AbslView(range),
                                                   ", got ", value));
  };
  if (proto.shingle_k() > 64) {
    return out_of_range("shingle_k", proto.shingle_k(), "in [0, 64]");
  }
  const uint32_t num_perm = proto.num_perm();
  if (num_perm != 0 && num_perm != 64 && num_perm != 128 && num_perm != 256) {
    return out_of_range(
        "num_perm", num_perm,
        absl::StrCat("0 (", CollectionConfig{}.num_perm, "), 64, 128 or 256"));
  }
  const double t = proto.threshold();
  if (!(t == 0 || (t > 0 && t < 1))) {
    return out_of_range(
        "threshold", t,
        absl::StrCat("0 (", kDefaultThreshold, ") or in (0, 1)"));
  }
  const double floor = proto.min_threshold();
  if (!(floor == 0 || (floor > 0 && floor < 1))) {
    return out_of_range("min_threshold", floor, "0 (default) or in (0, 1)");
  }
  if (!v1::Banding_IsValid(proto.banding())) {
    return out_of_range("banding", proto.banding(),
                        "BANDING_RECALL_FIRST or BANDING_TXTFP");
  }
  if (!v1::MinHashAlgorithm_IsValid(proto.minhash_algorithm())) {
    return out_of_range("minhash_algorithm", proto.minhash_algorithm(),
                        "MINHASH_ALGORITHM_SHINGLED or _PERCEPTUAL");
  }
  if (!v1::SimHashVariant_IsValid(proto.simhash_variant())) {
    return out_of_range("simhash_variant", proto.simhash_variant(),
                        "SIMHASH_VARIANT_TXTFP or _NEWSBOT");
  }
  if (proto.winnow_window() > 1024) {
    return out_of_range("winnow_window", proto.winnow_window(), "in [0, 1024]");
  }
  if (!v1::Verification_IsValid(proto.verification())) {
    return out_of_range("verification", proto.verification(),
                        "VERIFICATION_EXACT or VERIFICATION_ESTIMATE");
  }
  if (proto.bands() > 256) {
    return out_of_range("bands", proto.bands(), "in [0, 256]");
  }
  if (proto.rows() > 256) {
    return out_of_range("rows", proto.rows(), "in [0, 256]");
  }
  if ((proto.bands() == 0) != (proto.rows() == 0)) {
    return absl::InvalidArgumentError(
        "config.bands and config.rows are set together or both left 0");
  }
  if (proto.slot_bits() != 0 && proto.verify_bits() != 0 &&
      proto.slot_bits() != proto.verify_bits()) {
    return absl::InvalidArgumentError(
        absl::StrCat("config.slot_bits (", proto.slot_bits(),
                     ") and its deprecated old name config.verify_bits (",
                     proto.verify_bits(), ") disagree; set slot_bits only"));
  }
  const uint32_t bits = SlotBitsOf(proto);
  if (bits != 0 && bits != 8 && bits != 16 && bits != 32 && bits != 64) {
    return out_of_range(
        "slot_bits", bits,
        "0 (8 with exact verification, 16 with estimate), 8, 16, 32 or 64");
  }
  // Only a collection with SimHash uses it (older records may hold more).
  if (proto.has_embedding()) {
    const v1::EmbeddingSpace& space = proto.embedding();
    if (!v1::EmbeddingSpace::Metric_IsValid(space.metric())) {
      return out_of_range("embedding.metric", space.metric(), "METRIC_COSINE");
    }
    if (space.dim() > 4096) {
      return out_of_range("embedding.dim", space.dim(), "in [1, 4096]");
    }
    if (!v1::EmbeddingSpace::ChunkMode_IsValid(space.chunk_mode())) {
      return out_of_range("embedding.chunk_mode", space.chunk_mode(),
                          "a CHUNK_MODE_ value");
    }
    if (space.chunk_max_tokens() > 65536 || space.chunk_overlap() > 65536) {
      return absl::InvalidArgumentError(
          "config.embedding: chunk_max_tokens and chunk_overlap must be at "
          "most 65536");
    }
    if (space.hnsw_m() > 64 || space.ef_construction() > 4096 ||
        space.ef_search() > 4096) {
      return absl::InvalidArgumentError(
          "config.embedding: hnsw_m must be at most 64, ef_construction and "
          "ef_search at most 4096");
    }
  }
  if (proto.simhash() && proto.has_simhash_max_distance() &&
      proto.simhash_max_distance() > 16) {
    return out_of_range("simhash_max_distance", proto.simhash_max_distance(),
                        "in [0, 16]");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<CollectionConfig> ConfigFromProto(
    const v1::FingerprintConfig& proto) {
  RETURN_IF_ERROR(CheckRanges(proto));
  // The wire fields are core's FingerprintSettings, the vocabulary the CLI
  // and dedup use too; core turns them into the fingerprinter configs.
  ASSIGN_OR_RETURN(const FingerprintSettings settings,
                   neardup::proto::SettingsFromProto(proto));
  absl::StatusOr<CollectionConfig> config = CollectionConfigOf(settings);
  if (!config.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("config.tokenizer: ", config.status().message()));
  }
  if (proto.threshold() != 0) config->threshold = proto.threshold();
  config->min_threshold = proto.min_threshold();
  config->banding = neardup::proto::BandingFromProto(proto.banding());
  config->lsh = {static_cast<int>(proto.bands()),
                 static_cast<int>(proto.rows())};
  config->verification =
      neardup::proto::VerificationFromProto(proto.verification());
  if (const uint32_t bits = SlotBitsOf(proto); bits != 0) {
    config->slot_bits = static_cast<int>(bits);
  }
  if (const uint32_t bits = proto.evidence_bits();
      bits != 0 && bits != 32 && bits != 64) {
    return absl::InvalidArgumentError(absl::StrCat(
        "config.evidence_bits must be 0 (32), 32 or 64, got ", bits));
  }
  config->evidence_bits = static_cast<int>(proto.evidence_bits());
  config->simhash_enabled = proto.simhash();
  if (proto.simhash() && proto.has_simhash_max_distance()) {
    config->simhash_max_distance =
        static_cast<int>(proto.simhash_max_distance());
  }
  config->store_text = proto.store_text();
  if (absl::Status families =
          neardup::proto::FamiliesFromProto(proto, &*config);
      !families.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("config: ", families.message()));
  }
  if (proto.has_embedding()) {
    const v1::EmbeddingSpace& wire = proto.embedding();
    EmbeddingSpace& space = config->embedding;
    space.model_id = wire.model_id();
    space.dim = static_cast<int>(wire.dim());
    if (wire.hnsw_m() != 0) space.hnsw_m = static_cast<int>(wire.hnsw_m());
    if (wire.ef_construction() != 0) {
      space.ef_construction = static_cast<int>(wire.ef_construction());
    }
    if (wire.ef_search() != 0) {
      space.ef_search = static_cast<int>(wire.ef_search());
    }
    if (wire.min_cosine() != 0) space.min_cosine = wire.min_cosine();
    space.hnsw = wire.hnsw();
    space.fasttext_model = wire.fasttext_model();
    space.chunking.mode = neardup::proto::ChunkModeFromProto(wire.chunk_mode());
    if (wire.chunk_max_tokens() != 0) {
      space.chunking.max_tokens = static_cast<int>(wire.chunk_max_tokens());
    }
    // Unset: 32, less for small chunks (a quarter of them).
    space.chunking.overlap =
        wire.has_chunk_overlap()
            ? static_cast<int>(wire.chunk_overlap())
            : (wire.chunk_max_tokens() == 0
                   ? ChunkingOptions{}.overlap
                   : DefaultChunkOverlap(space.chunking.max_tokens));
    if (space.dim == 0) {
      return absl::InvalidArgumentError(
          "config.embedding.dim must be in [1, 4096], got 0");
    }
  }
  auto normalized = NormalizeCollectionConfig(*std::move(config));
  if (!normalized.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("config: ", normalized.status().message()));
  }
  return normalized;
}

v1::FingerprintConfig ConfigToProto(const CollectionConfig& config) {
  v1::FingerprintConfig proto;
  FingerprintSettings settings;
  settings.canonicalizer = config.canonicalizer;
  // Normalized configs hold names made by ShingledTokenizerName.
  const absl::StatusOr<SplitTokenizer> minhash =
      SplitTokenizerName(config.minhash_tokenizer);
  settings.tokenizer = minhash.ok() ? minhash->base : config.simhash_tokenizer;
  settings.shingle_k = minhash.ok() ? minhash->shingle_k : 0;
  settings.num_perm = config.num_perm;
  settings.seed = config.seed;
  settings.family = config.family;
  settings.weighting = config.simhash_weighting;
  neardup::proto::SettingsToProto(settings, &proto);
  proto.set_threshold(config.threshold);
  proto.set_min_threshold(config.min_threshold);
  proto.set_banding(neardup::proto::BandingToProto(config.banding));
  proto.set_verification(
      neardup::proto::VerificationToProto(config.verification));
  proto.set_bands(config.lsh.bands);
  proto.set_rows(config.lsh.rows);
  proto.set_slot_bits(config.slot_bits);
  proto.set_verify_bits(config.slot_bits);  // deprecated name, one release
  proto.set_evidence_bits(static_cast<uint32_t>(config.evidence_bits));
  proto.set_simhash(config.simhash_enabled);
  proto.set_simhash_max_distance(config.simhash_max_distance);
  proto.set_store_text(config.store_text);
  neardup::proto::FamiliesToProto(config, &proto);
  if (const EmbeddingSpace& space = config.embedding; space.enabled()) {
    v1::EmbeddingSpace* out = proto.mutable_embedding();
    out->set_model_id(space.model_id);
    out->set_dim(static_cast<uint32_t>(space.dim));
    out->set_metric(v1::EmbeddingSpace::METRIC_COSINE);
    out->set_hnsw_m(static_cast<uint32_t>(space.hnsw_m));
    out->set_ef_construction(static_cast<uint32_t>(space.ef_construction));
    out->set_ef_search(static_cast<uint32_t>(space.ef_search));
    out->set_min_cosine(space.min_cosine);
    out->set_hnsw(space.hnsw);
    if (!space.fasttext_model.empty()) {
      out->set_fasttext_model(space.fasttext_model);
      out->set_chunk_mode(
          neardup::proto::ChunkModeToProto(space.chunking.mode));
      out->set_chunk_max_tokens(
          static_cast<uint32_t>(space.chunking.max_tokens));
      out->set_chunk_overlap(static_cast<uint32_t>(space.chunking.overlap));
    }
  }
  return proto;
}

v1::Collection CollectionToProto(const engine::Collection& collection) {
  v1::Collection proto;
  const storage::CollectionRecord& record = collection.record();
  proto.set_name(record.name);
  proto.set_cluster_shards(1);  // a node's own replica; a cluster says how many
  *proto.mutable_config() = ConfigToProto(record.config);
  proto.set_minhash_config_hash(record.minhash_config_hash);
  proto.set_simhash_config_hash(record.simhash_config_hash);
  proto::KeptConfigHashesToProto(record.kept_config_hashes, &proto);
  proto.set_document_count(collection.num_documents());
  proto.set_created_unix_micros(record.created_unix_micros);
  proto.set_candidate_probability_at_floor(
      LshCandidateProbability(record.config.min_threshold, record.config.lsh));
  proto.set_candidate_probability_at_threshold(
      LshCandidateProbability(record.config.threshold, record.config.lsh));
  return proto;
}

absl::StatusOr<std::vector<KeptValue>> KeptFromProto(
    const v1::Signatures& proto, const storage::CollectionRecord& record) {
  std::vector<KeptValue> kept;
  for (KeptValue& value : proto::KeptFromProto(proto)) {
    const std::string field = absl::StrCat(
        "signatures.kept[\"", absl::CHexEscape(value.family), "\"]");
    ASSIGN_OR_RETURN(const KeptFamily* family,
                     Prefixed(field, KeptFamilyNamed(value.family)));
    if (std::any_of(kept.begin(), kept.end(), [&](const KeptValue& other) {
          return other.family == value.family;
        })) {
      return absl::InvalidArgumentError(absl::StrCat(field, " is given twice"));
    }
    const auto expected = std::find_if(record.kept_config_hashes.begin(),
                                       record.kept_config_hashes.end(),
                                       [&](const KeptConfigHash& hash) {
                                         return hash.family == value.family;
                                       });
    if (expected == record.kept_config_hashes.end()) continue;  // not kept
    if (value.config_hash != expected->config_hash) {
      return absl::FailedPreconditionError(
          absl::StrCat(field, ".config_hash ", FormatHex64(value.config_hash),
                       " does not match collection '", record.name, "' (",
                       FormatHex64(expected->config_hash), ")"));
    }
    ASSIGN_OR_RETURN(value.value, Prefixed(absl::StrCat(field, ".value"),
                                           family->normalize(value.value)));
    kept.push_back(std::move(value));
  }
  // In KeptFamilies() order, as values computed from a text are.
  std::sort(kept.begin(), kept.end(),
            [](const KeptValue& a, const KeptValue& b) {
              return KeptFamilyIndex(a.family) < KeptFamilyIndex(b.family);
            });
  return kept;
}

namespace {

// The width of a message's shingle_set: 0 is 64, as before the field.
int SignaturesEvidenceBits(const v1::Signatures& proto) {
  return proto.evidence_bits() == 0
             ? 64
             : static_cast<int>(std::min<uint32_t>(proto.evidence_bits(), 65));
}

}  // namespace

absl::Status SignaturesFromProto(const v1::Signatures& proto,
                                 const engine::Collection& collection,
                                 MinHashSignature* minhash,
                                 std::optional<uint64_t>* simhash) {
  const storage::CollectionRecord& record = collection.record();
  if (proto.minhash_config_hash() != record.minhash_config_hash) {
    return absl::FailedPreconditionError(absl::StrCat(
        "signatures.minhash_config_hash ",
        FormatHex64(proto.minhash_config_hash()),
        " does not match collection '", record.name, "' (",
        FormatHex64(record.minhash_config_hash),
        "); fingerprint with the collection's config (see GetCollection)"));
  }
  auto parsed = MinHashSignature::Parse(proto.minhash());
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("signatures.minhash: ", parsed.status().message()));
  }
  if (parsed->num_perm() != record.config.num_perm) {
    return absl::InvalidArgumentError(absl::StrCat(
        "signatures.minhash has ", parsed->num_perm(), " slots; collection '",
        record.name, "' uses ", record.config.num_perm));
  }
  *minhash = *std::move(parsed);
  simhash->reset();
  if (proto.has_simhash()) {
    if (!record.config.simhash_enabled) {
      return absl::InvalidArgumentError(
          absl::StrCat("collection '", record.name,
                       "' has SimHash off; leave signatures.simhash unset"));
    }
    if (proto.simhash_config_hash() != record.simhash_config_hash) {
      return absl::FailedPreconditionError(
          absl::StrCat("signatures.simhash_config_hash ",
                       FormatHex64(proto.simhash_config_hash()),
                       " does not match collection '", record.name, "' (",
                       FormatHex64(record.simhash_config_hash), ")"));
    }
    *simhash = proto.simhash();
  }
  return absl::OkStatus();
}

absl::StatusOr<engine::SignatureInput> SignatureInputFromProto(
    const v1::Signatures& proto, const engine::Collection& collection,
    const SignatureRules& rules) {
  const storage::CollectionRecord& record = collection.record();
  engine::SignatureInput signatures;
  RETURN_IF_ERROR(SignaturesFromProto(proto, collection, &signatures.minhash,
                                      &signatures.simhash));
  // Before the costlier checks: a client that left it out hears so first.
  if (rules.simhash_required && record.config.simhash_enabled &&
      !signatures.simhash) {
    return absl::InvalidArgumentError(
        absl::StrCat("collection '", record.name,
                     "' has SimHash on: signatures.simhash is required"));
  }
  const std::string& shingle_set = proto.shingle_set();
  if (rules.max_shingle_set_bytes > 0 && !shingle_set.empty() &&
      record.config.verification == Verification::kExact) {
    // 3-7 bytes per distinct shingle: it can outgrow its text (CJK), so its
    // bytes are bounded by the message, and its count by the text's.
    if (shingle_set.size() > rules.max_shingle_set_bytes) {
      return absl::InvalidArgumentError(
          absl::StrCat("signatures.shingle_set is ", shingle_set.size(),
                       " bytes, over the message limit (--max-message-bytes)"));
    }
    const int bits = SignaturesEvidenceBits(proto);
    if (bits != 32 && bits != 64) {
      return absl::InvalidArgumentError(absl::StrCat(
          "signatures.evidence_bits must be 0 (64), 32 or 64, got ",
          proto.evidence_bits()));
    }
    if (bits != EvidenceBitsOf(record.config)) {
      return absl::FailedPreconditionError(
          absl::StrCat("signatures.shingle_set holds ", bits,
                       "-bit hashes (signatures.evidence_bits); collection '",
                       record.name, "' keeps ", EvidenceBitsOf(record.config),
                       "-bit evidence: they could never share a hash"));
    }
    RETURN_IF_ERROR(
        Prefixed("signatures.shingle_set",
                 DecodeShingleSet(shingle_set, &signatures.evidence.emplace(),
                                  bits, rules.max_shingle_set_hashes)));
  }
  ASSIGN_OR_RETURN(signatures.kept, KeptFromProto(proto, record));
  return signatures;
}

absl::StatusOr<std::vector<float>> EmbeddingFromProto(
    const v1::Embedding& proto, const storage::CollectionRecord& record,
    std::string_view field) {
  const EmbeddingSpace& space = record.config.embedding;
  if (!space.enabled()) {
    return absl::FailedPreconditionError(
        absl::StrCat("collection '", record.name,
                     "' has no embedding space (config.embedding); leave ",
                     AbslView(field), " unset"));
  }
  if (proto.model_id() != space.model_id) {
    return absl::FailedPreconditionError(absl::StrCat(
        AbslView(field), ".model_id \"", absl::CHexEscape(proto.model_id()),
        "\" does not match collection '", record.name, "' (\"", space.model_id,
        "\"): vectors of different models are not comparable"));
  }
  absl::StatusOr<std::vector<float>> unit = UnitEmbedding(
      std::span<const float>(proto.values().data(), proto.values().size()),
      space.dim);
  if (!unit.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(AbslView(field), ": ", unit.status().message()));
  }
  return unit;
}

v1::Document DocumentToProto(const storage::StoredDocument& doc,
                             const storage::CollectionRecord& record) {
  v1::Document proto;
  proto.set_id(doc.external_id);
  for (const auto& [key, value] : doc.metadata) {
    (*proto.mutable_metadata())[key] = value;
  }
  if (doc.text) proto.set_text(*doc.text);
  auto* sigs = proto.mutable_signatures();
  sigs->set_minhash(doc.minhash.Serialize());
  sigs->set_minhash_config_hash(record.minhash_config_hash);
  if (doc.simhash) {
    sigs->set_simhash(*doc.simhash);
    sigs->set_simhash_config_hash(record.simhash_config_hash);
  }
  if (doc.shingles) {
    sigs->set_shingle_set(
        EncodeShingleSet(*doc.shingles, EvidenceBitsOf(record.config)));
    sigs->set_evidence_bits(
        static_cast<uint32_t>(EvidenceBitsOf(record.config)));
  }
  proto::KeptToProto(doc.kept, sigs);
  proto.set_created_unix_micros(doc.created_unix_micros);
  proto.set_updated_unix_micros(doc.updated_unix_micros);
  if (doc.embedding) {
    v1::Embedding* embedding = proto.mutable_embedding();
    embedding->set_model_id(record.config.embedding.model_id);
    embedding->mutable_values()->Add(doc.embedding->begin(),
                                     doc.embedding->end());
  }
  return proto;
}

storage::Metadata MetadataFromProto(
    const google::protobuf::Map<std::string, std::string>& proto) {
  storage::Metadata metadata(proto.begin(), proto.end());
  // Map iteration order is unspecified; stored metadata is sorted.
  std::sort(metadata.begin(), metadata.end());
  return metadata;
}

}  // namespace neardup::server
