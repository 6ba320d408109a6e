#include "neardup/storage/internal/record_codec.h"

#include <algorithm>
#include <bit>
#include <utility>

#include "absl/strings/str_cat.h"
#include "neardup/base/absl_compat.h"
#include "neardup/base/status_macros.h"
#include "neardup/core/enum_tables.h"
#include "neardup/core/shingle_set.h"
#include "neardup/core/tlsh.h"
#include "neardup/storage/config_codec.h"
#include "neardup/storage/records.pb.h"

namespace neardup::storage {
namespace {

namespace pb = ::neardup::storage::records;

absl::Status Malformed(std::string_view what, std::string_view why) {
  return absl::DataLossError(absl::StrCat("stored ", AbslView(what),
                                          " is malformed: ", AbslView(why)));
}

template <typename Message>
absl::StatusOr<Message> ParseMessage(std::string_view bytes,
                                     std::string_view what) {
  Message message;
  if (!message.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return Malformed(what, "not a valid protobuf message");
  }
  return message;
}

// Enums, both ways, by their tables (core/enum_tables.h). Most proto enums
// start at an UNSPECIFIED 0, so an unknown or missing value is an error, not
// a silent default.

template <typename Enum, size_t N>
absl::StatusOr<Enum> FromDisk(const EnumTable<Enum, N>& table, int number) {
  if (const std::optional<Enum> value = table.FromDisk(number)) return *value;
  return Malformed("collection",
                   absl::StrCat(AbslView(table.what), " ", number));
}

pb::Normalization ToProto(Normalization value) {
  return static_cast<pb::Normalization>(kNormalizations.Disk(value));
}
absl::StatusOr<Normalization> FromProto(pb::Normalization value) {
  return FromDisk(kNormalizations, value);
}
pb::CaseFold ToProto(CaseFold value) {
  return static_cast<pb::CaseFold>(kCaseFolds.Disk(value));
}
absl::StatusOr<CaseFold> FromProto(pb::CaseFold value) {
  return FromDisk(kCaseFolds, value);
}
pb::HashFamily ToProto(HashFamily value) {
  return static_cast<pb::HashFamily>(kHashFamilies.Disk(value));
}
absl::StatusOr<HashFamily> FromProto(pb::HashFamily value) {
  return FromDisk(kHashFamilies, value);
}
pb::SimHashWeighting ToProto(SimHashWeighting value) {
  return static_cast<pb::SimHashWeighting>(kSimHashWeightings.Disk(value));
}
absl::StatusOr<SimHashWeighting> FromProto(pb::SimHashWeighting value) {
  return FromDisk(kSimHashWeightings, value);
}
pb::BandingRule ToProto(BandingRule value) {
  return static_cast<pb::BandingRule>(kBandingRules.Disk(value));
}
absl::StatusOr<BandingRule> FromProto(pb::BandingRule value) {
  return FromDisk(kBandingRules, value);
}
pb::Verification ToProto(Verification value) {
  return static_cast<pb::Verification>(kVerifications.Disk(value));
}
absl::StatusOr<Verification> FromProto(pb::Verification value) {
  return FromDisk(kVerifications, value);
}

void ToProto(const CollectionConfig& config, pb::CollectionConfig* out) {
  pb::CanonicalizerOptions* canonicalizer = out->mutable_canonicalizer();
  canonicalizer->set_normalization(ToProto(config.canonicalizer.normalization));
  canonicalizer->set_case_fold(ToProto(config.canonicalizer.case_fold));
  canonicalizer->set_strip_bidi(config.canonicalizer.strip_bidi);
  canonicalizer->set_strip_format(config.canonicalizer.strip_format);
  canonicalizer->set_confusable_skeleton(
      config.canonicalizer.confusable_skeleton);
  canonicalizer->set_strip_ignorable(config.canonicalizer.strip_ignorable);
  canonicalizer->set_fold_small_capitals(
      config.canonicalizer.fold_small_capitals);
  canonicalizer->set_fold_look_alikes(config.canonicalizer.fold_look_alikes);
  out->set_minhash_tokenizer(config.minhash_tokenizer);
  out->set_num_perm(config.num_perm);
  out->set_seed(config.seed);
  out->set_family(ToProto(config.family));
  out->set_threshold(config.threshold);
  out->set_lsh_bands(config.lsh.bands);
  out->set_lsh_rows(config.lsh.rows);
  out->set_slot_bits(config.slot_bits);
  out->set_evidence_bits(EvidenceBitsOf(config));
  out->set_simhash_enabled(config.simhash_enabled);
  out->set_simhash_tokenizer(config.simhash_tokenizer);
  out->set_simhash_weighting(ToProto(config.simhash_weighting));
  out->set_simhash_max_distance(config.simhash_max_distance);
  out->set_store_text(config.store_text);
  out->set_min_threshold(config.min_threshold);
  out->set_banding(ToProto(config.banding));
  out->set_verification(ToProto(config.verification));
  out->set_minhash_algorithm(static_cast<pb::MinHashAlgorithm>(
      kMinHashAlgorithms.Disk(config.minhash_algorithm)));
  out->set_winnow_window(config.winnow_window);
  out->set_simhash_variant(static_cast<pb::SimHashVariant>(
      kSimHashVariants.Disk(config.simhash_variant)));
  for (const std::string& family : config.kept_families) {
    out->add_kept_families(family);
  }
  out->set_keep_tlsh(config.Keeps(kTlshFamily.name));
  if (config.embedding.enabled()) {
    pb::EmbeddingSpace* space = out->mutable_embedding();
    space->set_model_id(config.embedding.model_id);
    space->set_dim(config.embedding.dim);
    space->set_hnsw_m(config.embedding.hnsw_m);
    space->set_ef_construction(config.embedding.ef_construction);
    space->set_ef_search(config.embedding.ef_search);
    space->set_min_cosine(config.embedding.min_cosine);
    space->set_hnsw(config.embedding.hnsw);
    space->set_fasttext_model(config.embedding.fasttext_model);
    space->set_chunk_mode(kChunkModes.Disk(config.embedding.chunking.mode));
    space->set_chunk_max_tokens(config.embedding.chunking.max_tokens);
    space->set_chunk_overlap(config.embedding.chunking.overlap);
  }
}

// The format-3 fields; an older record has them all 0, as it meant.
absl::Status FamiliesFromProto(const pb::CollectionConfig& in,
                               CollectionConfig& config) {
  ASSIGN_OR_RETURN(config.minhash_algorithm,
                   FromDisk(kMinHashAlgorithms, in.minhash_algorithm()));
  ASSIGN_OR_RETURN(config.simhash_variant,
                   FromDisk(kSimHashVariants, in.simhash_variant()));
  config.winnow_window = in.winnow_window();
  config.kept_families.assign(in.kept_families().begin(),
                              in.kept_families().end());
  if (in.keep_tlsh() && !config.Keeps(kTlshFamily.name)) {  // format 3 and 4
    config.kept_families.emplace_back(kTlshFamily.name);
    std::sort(config.kept_families.begin(), config.kept_families.end());
  }
  for (const std::string& family : config.kept_families) {
    if (FindKeptFamily(family) == nullptr) {
      return Malformed("collection",
                       absl::StrCat("kept family \"", family,
                                    "\" is unknown to this build (written by "
                                    "a newer one?)"));
    }
  }
  if (in.has_embedding()) {  // format 4
    const pb::EmbeddingSpace& wire = in.embedding();
    EmbeddingSpace& space = config.embedding;
    space.model_id = wire.model_id();
    space.dim = wire.dim();
    space.hnsw_m = wire.hnsw_m();
    space.ef_construction = wire.ef_construction();
    space.ef_search = wire.ef_search();
    space.min_cosine = wire.min_cosine();
    space.hnsw = wire.hnsw();
    space.fasttext_model = wire.fasttext_model();
    ASSIGN_OR_RETURN(space.chunking.mode,
                     FromDisk(kChunkModes, wire.chunk_mode()));
    space.chunking.max_tokens = wire.chunk_max_tokens();
    space.chunking.overlap = wire.chunk_overlap();
  }
  return absl::OkStatus();
}

absl::StatusOr<CollectionConfig> FromProto(const pb::CollectionConfig& in) {
  CollectionConfig config;
  const pb::CanonicalizerOptions& canonicalizer = in.canonicalizer();
  ASSIGN_OR_RETURN(config.canonicalizer.normalization,
                   FromProto(canonicalizer.normalization()));
  ASSIGN_OR_RETURN(config.canonicalizer.case_fold,
                   FromProto(canonicalizer.case_fold()));
  config.canonicalizer.strip_bidi = canonicalizer.strip_bidi();
  config.canonicalizer.strip_format = canonicalizer.strip_format();
  config.canonicalizer.confusable_skeleton =
      canonicalizer.confusable_skeleton();
  config.canonicalizer.strip_ignorable = canonicalizer.strip_ignorable();
  config.canonicalizer.fold_small_capitals =
      canonicalizer.fold_small_capitals();
  config.canonicalizer.fold_look_alikes = canonicalizer.fold_look_alikes();
  config.minhash_tokenizer = in.minhash_tokenizer();
  config.num_perm = in.num_perm();
  config.seed = in.seed();
  ASSIGN_OR_RETURN(config.family, FromProto(in.family()));
  config.threshold = in.threshold();
  config.lsh = {.bands = in.lsh_bands(), .rows = in.lsh_rows()};
  config.slot_bits = in.slot_bits();
  // Absent before format 6: those collections kept 64-bit evidence.
  config.evidence_bits = in.evidence_bits() == 0 ? 64 : in.evidence_bits();
  if (!ValidEvidenceBits(config.evidence_bits)) {
    return Malformed("collection config",
                     absl::StrCat("evidence_bits ", config.evidence_bits));
  }
  config.simhash_enabled = in.simhash_enabled();
  config.simhash_tokenizer = in.simhash_tokenizer();
  ASSIGN_OR_RETURN(config.simhash_weighting, FromProto(in.simhash_weighting()));
  config.simhash_max_distance = in.simhash_max_distance();
  config.store_text = in.store_text();
  RETURN_IF_ERROR(FamiliesFromProto(in, config));
  if (in.min_threshold() == 0) {  // written before recall-first banding
    config.min_threshold = config.threshold;
    config.banding = BandingRule::kTxtfp;
    config.verification = Verification::kEstimate;
    return config;
  }
  config.min_threshold = in.min_threshold();
  ASSIGN_OR_RETURN(config.banding, FromProto(in.banding()));
  ASSIGN_OR_RETURN(config.verification, FromProto(in.verification()));
  return config;
}

}  // namespace

std::string EncodeCollectionConfig(const CollectionConfig& config) {
  pb::CollectionConfig message;
  ToProto(config, &message);
  return message.SerializeAsString();
}

absl::StatusOr<CollectionConfig> DecodeCollectionConfig(
    std::string_view bytes) {
  ASSIGN_OR_RETURN(const pb::CollectionConfig message,
                   ParseMessage<pb::CollectionConfig>(bytes, "config"));
  return FromProto(message);
}

std::string EncodeCollectionRecord(const CollectionRecord& record) {
  pb::CollectionRecord message;
  message.set_id(record.id);
  message.set_name(record.name);
  ToProto(record.config, message.mutable_config());
  message.set_minhash_config_hash(record.minhash_config_hash);
  message.set_simhash_config_hash(record.simhash_config_hash);
  message.set_created_unix_micros(record.created_unix_micros);
  for (const KeptConfigHash& kept : record.kept_config_hashes) {
    pb::KeptConfigHash* entry = message.add_kept_config_hashes();
    entry->set_family(kept.family);
    entry->set_config_hash(kept.config_hash);
    if (kept.family == kTlshFamily.name) {
      message.set_tlsh_config_hash(kept.config_hash);
    }
  }
  return message.SerializeAsString();
}

absl::StatusOr<CollectionRecord> DecodeCollectionRecord(
    std::string_view bytes) {
  ASSIGN_OR_RETURN(const pb::CollectionRecord message,
                   ParseMessage<pb::CollectionRecord>(bytes, "collection"));
  CollectionRecord record;
  record.id = message.id();
  record.name = message.name();
  ASSIGN_OR_RETURN(record.config, FromProto(message.config()));
  record.minhash_config_hash = message.minhash_config_hash();
  record.simhash_config_hash = message.simhash_config_hash();
  record.created_unix_micros = message.created_unix_micros();
  for (const pb::KeptConfigHash& kept : message.kept_config_hashes()) {
    record.kept_config_hashes.push_back({kept.family(), kept.config_hash()});
  }
  if (message.kept_config_hashes().empty() &&
      message.tlsh_config_hash() != 0) {  // formats 3 and 4
    record.kept_config_hashes.push_back(
        {std::string(kTlshFamily.name), message.tlsh_config_hash()});
  }
  return record;
}

std::string EncodeDocumentRecord(const DocumentRecord& record) {
  pb::DocumentRecord message;
  message.set_external_id(record.external_id);
  for (const auto& [key, value] : record.metadata) {
    pb::MetadataEntry* entry = message.add_metadata();
    entry->set_key(key);
    entry->set_value(value);
  }
  if (record.text.has_value()) message.set_text(*record.text);
  message.set_created_unix_micros(record.created_unix_micros);
  message.set_updated_unix_micros(record.updated_unix_micros);
  return message.SerializeAsString();
}

absl::StatusOr<DocumentRecord> DecodeDocumentRecord(std::string_view bytes) {
  ASSIGN_OR_RETURN(pb::DocumentRecord message,
                   ParseMessage<pb::DocumentRecord>(bytes, "document"));
  DocumentRecord record;
  record.external_id = std::move(*message.mutable_external_id());
  record.metadata.reserve(message.metadata_size());
  for (pb::MetadataEntry& entry : *message.mutable_metadata()) {
    record.metadata.emplace_back(std::move(*entry.mutable_key()),
                                 std::move(*entry.mutable_value()));
  }
  if (message.has_text()) record.text = std::move(*message.mutable_text());
  record.created_unix_micros = message.created_unix_micros();
  record.updated_unix_micros = message.updated_unix_micros();
  return record;
}

std::string EncodeMinHashValue(uint64_t config_hash,
                               const MinHashSignature& signature) {
  pb::MinHashValue message;
  message.set_config_hash(config_hash);
  message.set_signature(signature.Serialize());
  return message.SerializeAsString();
}

absl::StatusOr<MinHashValue> DecodeMinHashValue(std::string_view bytes) {
  ASSIGN_OR_RETURN(const pb::MinHashValue message,
                   ParseMessage<pb::MinHashValue>(bytes, "minhash value"));
  MinHashValue value;
  value.config_hash = message.config_hash();
  absl::StatusOr<MinHashSignature> signature =
      MinHashSignature::Parse(message.signature());
  if (!signature.ok()) {
    return Malformed("minhash value", StdView(signature.status().message()));
  }
  value.signature = std::move(signature).value();
  return value;
}

std::string EncodeSimHashValue(const SimHashValue& value) {
  pb::SimHashValue message;
  message.set_config_hash(value.config_hash);
  message.set_value(value.value);
  return message.SerializeAsString();
}

absl::StatusOr<SimHashValue> DecodeSimHashValue(std::string_view bytes) {
  ASSIGN_OR_RETURN(const pb::SimHashValue message,
                   ParseMessage<pb::SimHashValue>(bytes, "simhash value"));
  return SimHashValue{.config_hash = message.config_hash(),
                      .value = message.value()};
}

std::string EncodeEvidenceValue(uint64_t config_hash,
                                std::span<const uint64_t> shingles,
                                int evidence_bits) {
  pb::EvidenceValue message;
  message.set_config_hash(config_hash);
  message.set_shingle_set(EncodeShingleSet(shingles, evidence_bits));
  return message.SerializeAsString();
}

absl::StatusOr<EvidenceValue> DecodeEvidenceValue(std::string_view bytes,
                                                  int evidence_bits) {
  ASSIGN_OR_RETURN(const pb::EvidenceValue message,
                   ParseMessage<pb::EvidenceValue>(bytes, "evidence value"));
  EvidenceValue value;
  value.config_hash = message.config_hash();
  if (absl::Status decoded = DecodeShingleSet(message.shingle_set(),
                                              &value.shingles, evidence_bits);
      !decoded.ok()) {
    return Malformed("evidence value", StdView(decoded.message()));
  }
  return value;
}

std::string EncodeKeptValue(uint64_t config_hash, std::string_view value) {
  pb::KeptValue message;
  message.set_config_hash(config_hash);
  message.set_value(std::string(value));
  return message.SerializeAsString();
}

absl::StatusOr<KeptValue> DecodeKeptValue(const KeptFamily& family,
                                          std::string_view bytes) {
  const std::string what = absl::StrCat(AbslView(family.name), " value");
  ASSIGN_OR_RETURN(const pb::KeptValue message,
                   ParseMessage<pb::KeptValue>(bytes, what));
  absl::StatusOr<std::string> value = family.normalize(message.value());
  if (!value.ok()) return Malformed(what, StdView(value.status().message()));
  return KeptValue{std::string(family.name), *std::move(value),
                   message.config_hash()};
}

std::string EncodeEmbeddingValue(std::string_view model_id,
                                 std::span<const float> vector) {
  pb::EmbeddingValue message;
  message.set_model_id(std::string(model_id));
  std::string bytes;
  bytes.reserve(vector.size() * 4);
  for (float x : vector) {
    const uint32_t bits = std::bit_cast<uint32_t>(x);
    for (int shift = 0; shift < 32; shift += 8) {
      bytes.push_back(static_cast<char>((bits >> shift) & 0xff));
    }
  }
  message.set_vector(std::move(bytes));
  return message.SerializeAsString();
}

absl::StatusOr<EmbeddingValue> DecodeEmbeddingValue(std::string_view bytes) {
  ASSIGN_OR_RETURN(pb::EmbeddingValue message,
                   ParseMessage<pb::EmbeddingValue>(bytes, "embedding value"));
  const std::string& raw = message.vector();
  if (raw.size() % 4 != 0) {
    return Malformed("embedding value",
                     absl::StrCat("vector of ", raw.size(), " bytes"));
  }
  EmbeddingValue value;
  value.model_id = std::move(*message.mutable_model_id());
  value.vector.resize(raw.size() / 4);
  for (size_t i = 0; i < value.vector.size(); ++i) {
    uint32_t bits = 0;
    for (int b = 3; b >= 0; --b) {
      bits = (bits << 8) | static_cast<uint8_t>(raw[i * 4 + b]);
    }
    value.vector[i] = std::bit_cast<float>(bits);
  }
  return value;
}

}  // namespace neardup::storage
