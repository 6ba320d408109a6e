#ifndef NEARDUP_PROTO_FINGERPRINT_SETTINGS_PROTO_H_
#define NEARDUP_PROTO_FINGERPRINT_SETTINGS_PROTO_H_

// neardup.v1.FingerprintConfig's fingerprint fields <-> core's
// FingerprintSettings, in one place for the server (requests) and the CLI
// (`collections create`): one mapping each way.

#include "absl/status/statusor.h"
#include "neardup/core/chunking.h"
#include "neardup/core/fingerprint_settings.h"
#include "neardup/v1/neardup.pb.h"

namespace neardup::proto {

// canonicalizer, tokenizer, shingle_k, num_perm, seed, hash_family and
// simhash_weighting as settings; 0, empty and unset mean the defaults.
// INVALID_ARGUMENT, naming the field, for an enum value this build does not
// know. Ranges are checked by core when the settings are used.
absl::StatusOr<FingerprintSettings> SettingsFromProto(
    const v1::FingerprintConfig& proto);

// Writes `settings` into those fields of `proto`, every one explicitly.
void SettingsToProto(const FingerprintSettings& settings,
                     v1::FingerprintConfig* proto);

// A collection's banding rule and verification, both ways. UNSPECIFIED
// reads as the default (recall-first, exact); callers check that a wire
// value is a known enum value first (v1::Banding_IsValid, ...).
v1::Banding BandingToProto(BandingRule rule);
BandingRule BandingFromProto(v1::Banding banding);
v1::Verification VerificationToProto(Verification verification);
Verification VerificationFromProto(v1::Verification verification);
// CHUNK_MODE_UNSPECIFIED reads as sentence, the default.
v1::EmbeddingSpace::ChunkMode ChunkModeToProto(ChunkMode mode);
ChunkMode ChunkModeFromProto(v1::EmbeddingSpace::ChunkMode mode);

// A collection's fingerprint families: minhash_algorithm, winnow_window,
// simhash_variant and kept_families (with the deprecated tlsh), both ways.
// UNSPECIFIED reads as the default (shingled, neardup); callers check that enum
// values are known first. From the wire, a perceptual config with shingle_k 0
// gets UCFP's k = 9.
void FamiliesToProto(const CollectionConfig& config,
                     v1::FingerprintConfig* proto);
absl::Status FamiliesFromProto(const v1::FingerprintConfig& proto,
                               CollectionConfig* config);

}  // namespace neardup::proto

#endif  // NEARDUP_PROTO_FINGERPRINT_SETTINGS_PROTO_H_
