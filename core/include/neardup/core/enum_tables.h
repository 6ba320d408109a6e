#ifndef NEARDUP_CORE_ENUM_TABLES_H_
#define NEARDUP_CORE_ENUM_TABLES_H_

// Every enum of a config, once: each value's name (CLI flags, config strings,
// JSON), the other spellings the parser takes, and its number in the API
// (neardup.v1) and on disk (storage's records.proto). The name functions, the
// API mapping (proto/convert) and the record codec (storage) all read these
// tables; tests/storage/enum_tables_test.cc checks the numbers against both
// generated protos, so a value cannot be added in one place only.
//
// The first row is the default: what an API value of 0 (UNSPECIFIED) means.
// A number of 0 in a row means "none": the API (or the disk) has no such
// value.

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

#include "absl/status/statusor.h"
#include "neardup/core/canonicalizer.h"
#include "neardup/core/chunking.h"
#include "neardup/core/collection_config.h"
#include "neardup/core/hash.h"
#include "neardup/core/index/lsh_params.h"
#include "neardup/core/query_algorithm.h"
#include "neardup/core/simhash.h"
#include "neardup/core/stateless.h"

namespace neardup {

template <typename Enum>
struct EnumRow {
  Enum value;
  std::string_view name;
  // Other spellings the parser takes, space-separated.
  std::string_view aliases;
  int api;
  int disk;
};

template <typename Enum, size_t N>
struct EnumTable {
  // What the enum is, as messages name it ("hash family").
  std::string_view what;
  std::array<EnumRow<Enum>, N> rows;

  constexpr const EnumRow<Enum>& Row(Enum value) const {
    for (const EnumRow<Enum>& row : rows) {
      if (row.value == value) return row;
    }
    return rows[0];
  }
  constexpr std::string_view Name(Enum value) const { return Row(value).name; }
  constexpr int Api(Enum value) const { return Row(value).api; }
  constexpr int Disk(Enum value) const { return Row(value).disk; }

  // INVALID_ARGUMENT "<what> must be a, b or c, got "x"".
  absl::StatusOr<Enum> Parse(std::string_view name) const;
  // nullopt for a number no row has; 0 (UNSPECIFIED) is the default.
  std::optional<Enum> FromApi(int number) const {
    if (number == 0) return rows[0].value;
    for (const EnumRow<Enum>& row : rows) {
      if (row.api == number) return row.value;
    }
    return std::nullopt;
  }
  // nullopt for a number no row has (0 included, unless a row has it).
  std::optional<Enum> FromDisk(int number) const {
    for (const EnumRow<Enum>& row : rows) {
      if (row.disk == number) return row.value;
    }
    return std::nullopt;
  }
};

// Parse's message, for any table: "<what> must be a, b or c, got "x"".
absl::Status NotOneOf(std::string_view what, const std::string_view* names,
                      size_t count, std::string_view got);
// Whether `name` is one of the space-separated `aliases`.
bool IsAlias(std::string_view aliases, std::string_view name);

template <typename Enum, size_t N>
absl::StatusOr<Enum> EnumTable<Enum, N>::Parse(std::string_view name) const {
  std::array<std::string_view, N> names;
  for (size_t i = 0; i < N; ++i) {
    if (rows[i].name == name || IsAlias(rows[i].aliases, name)) {
      return rows[i].value;
    }
    names[i] = rows[i].name;
  }
  return NotOneOf(what, names.data(), N, name);
}

inline constexpr EnumTable<Normalization, 3> kNormalizations{
    "normalization",
    {{{Normalization::kNfkc, "nfkc", "", 1, 1},
      {Normalization::kNfc, "nfc", "", 2, 2},
      {Normalization::kNone, "none", "", 3, 3}}}};

// Config strings keep txtfp's name for full folding, "cf-simple".
inline constexpr EnumTable<CaseFold, 2> kCaseFolds{
    "case folding",
    {{{CaseFold::kFull, "full", "simple", 1, 1},
      {CaseFold::kNone, "none", "", 2, 2}}}};

inline constexpr EnumTable<HashFamily, 2> kHashFamilies{
    "hash family",
    {{{HashFamily::kXxh3, "xxh3-64", "xxh3", 1, 1},
      {HashFamily::kMurmur3, "mmh3-x64-128", "mmh3 murmur3", 2, 2}}}};

// IDF weighting needs a document-frequency table: the CLI's only.
inline constexpr EnumTable<SimHashWeighting, 3> kSimHashWeightings{
    "SimHash weighting",
    {{{SimHashWeighting::kTf, "tf", "", 1, 1},
      {SimHashWeighting::kUniform, "uniform", "", 2, 2},
      {SimHashWeighting::kIdf, "idf-weighted", "idf", 0, 3}}}};

inline constexpr EnumTable<BandingRule, 2> kBandingRules{
    "banding",
    {{{BandingRule::kRecallFirst, "recall-first", "", 1, 1},
      {BandingRule::kTxtfp, "txtfp", "", 2, 2}}}};

inline constexpr EnumTable<Verification, 2> kVerifications{
    "verification",
    {{{Verification::kExact, "exact", "", 1, 1},
      {Verification::kEstimate, "estimate", "", 2, 2}}}};

// On disk the shingled family is 0: records written before the field
// existed read as shingled.
inline constexpr EnumTable<MinHashAlgorithm, 2> kMinHashAlgorithms{
    "minhash algorithm",
    {{{MinHashAlgorithm::kShingled, "shingled", "minhash", 1, 0},
      {MinHashAlgorithm::kPerceptual, "perceptual", "", 2, 1}}}};

inline constexpr EnumTable<SimHashVariant, 2> kSimHashVariants{
    "simhash variant",
    {{{SimHashVariant::kTxtfp, "txtfp", "", 1, 0},
      {SimHashVariant::kNewsbot, "newsbot", "", 2, 1}}}};

// Not stored: a query's, not a collection's.
inline constexpr EnumTable<QueryAlgorithm, 5> kQueryAlgorithms{
    "query algorithm",
    {{{QueryAlgorithm::kMinHash, "minhash", "", 1, 0},
      {QueryAlgorithm::kSimHash, "simhash", "", 2, 0},
      {QueryAlgorithm::kSemantic, "semantic", "", 3, 0},
      {QueryAlgorithm::kHybridAll, "hybrid-all", "", 4, 0},
      {QueryAlgorithm::kHybridAny, "hybrid-any", "", 5, 0}}}};

// The API's default (0) is sentence; on disk 0 is fixed (an int32 field).
inline constexpr EnumTable<ChunkMode, 3> kChunkModes{
    "chunk mode",
    {{{ChunkMode::kSentenceBounded, "sentence", "", 2, 1},
      {ChunkMode::kFixedTokens, "fixed", "", 1, 0},
      {ChunkMode::kRecursive, "recursive", "", 3, 2}}}};

// Not stored: a stateless call's. The API has no kind for MinHash or SimHash
// alone (it asks for a collection's, 0); the CLI's "tlsh --raw" is tlsh-raw.
inline constexpr EnumTable<FingerprintKind, 7> kFingerprintKinds{
    "fingerprint kind",
    {{{FingerprintKind::kCollection, "all", "collection", 0, 0},
      {FingerprintKind::kMinHash, "minhash", "", 0, 0},
      {FingerprintKind::kSimHash, "simhash", "", 0, 0},
      {FingerprintKind::kTlsh, "tlsh", "", 1, 0},
      {FingerprintKind::kTlshRaw, "tlsh-raw", "", 2, 0},
      {FingerprintKind::kNewsbot, "newsbot", "", 3, 0},
      {FingerprintKind::kPerceptual, "perceptual", "", 4, 0}}}};

}  // namespace neardup

#endif  // NEARDUP_CORE_ENUM_TABLES_H_
