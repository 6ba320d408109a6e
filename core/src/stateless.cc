#include "neardup/core/stateless.h"

#include <cmath>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "neardup/base/absl_compat.h"
#include "neardup/base/status_macros.h"
#include "neardup/core/collection_fingerprinter.h"
#include "neardup/core/config_hash.h"
#include "neardup/core/shingle_set.h"
#include "neardup/core/simhash.h"

namespace neardup {
namespace {

// Prefixes core's message ("empty document") with the text's name.
template <typename T>
absl::StatusOr<T> About(std::string_view name, absl::StatusOr<T> result) {
  if (!result.ok()) return Prefixed(name, result.status());
  return result;
}

absl::StatusOr<PerceptualHasher> PerceptualHasherOf(
    const StatelessOptions& options) {
  if (options.winnow_window < 1 || options.winnow_window > 1024) {
    return absl::InvalidArgumentError(absl::StrCat(
        "winnow_window (--winnow-window) must be in [1, 1024], got ",
        options.winnow_window));
  }
  return PerceptualHasher::Create(
      PerceptualConfigOf(options.settings, options.winnow_window),
      options.settings.canonicalizer);
}

// The collection config of kCollection, normalized as a collection's is.
absl::StatusOr<CollectionConfig> CollectionOf(const StatelessOptions& options) {
  if (options.collection) return NormalizeCollectionConfig(*options.collection);
  ASSIGN_OR_RETURN(CollectionConfig config,
                   CollectionConfigOf(options.settings));
  return NormalizeCollectionConfig(std::move(config));
}

// A collection's fingerprints; `evidence` gets its shingle set.
absl::StatusOr<TextFingerprint> OfCollection(const CollectionConfig& config,
                                             NamedText text,
                                             std::vector<uint64_t>* evidence) {
  ASSIGN_OR_RETURN(const CollectionFingerprinter fingerprinter,
                   CollectionFingerprinter::Create(config));
  TextFingerprint out;
  ASSIGN_OR_RETURN(out.minhash, About(text.name, fingerprinter.MinHash(
                                                     text.text, evidence)));
  out.minhash_config_hash = fingerprinter.minhash_config_hash();
  out.shingle_count = evidence->size();
  out.minhash_tokenizer = config.minhash_tokenizer;
  out.canonicalizer = fingerprinter.canonicalizer().ConfigString();
  if (fingerprinter.has_simhash()) {
    ASSIGN_OR_RETURN(out.simhash,
                     About(text.name, fingerprinter.SimHash(text.text)));
    out.simhash_config_hash = fingerprinter.simhash_config_hash();
    out.simhash_tokenizer = config.simhash_variant == SimHashVariant::kNewsbot
                                ? std::string("newsbot")
                                : config.simhash_tokenizer;
  }
  out.kept = fingerprinter.Kept(text.text, &out.kept_unavailable);
  for (const KeptValue& kept : out.kept) {
    if (kept.family != kTlshFamily.name) continue;
    ASSIGN_OR_RETURN(out.tlsh, ParseTlsh(kept.value));
    out.tlsh_config_hash = kept.config_hash;
  }
  for (const KeptUnavailable& none : out.kept_unavailable) {
    if (none.family == kTlshFamily.name) out.tlsh_unavailable = none.reason;
  }
  return out;
}

// One text's fingerprint of a kind other than kCollection; `evidence` gets
// the shingle set of the MinHash kinds.
absl::StatusOr<TextFingerprint> OfKind(const StatelessOptions& options,
                                       NamedText text,
                                       std::vector<uint64_t>* evidence) {
  TextFingerprint out;
  switch (options.kind) {
    case FingerprintKind::kCollection: {
      ASSIGN_OR_RETURN(const CollectionConfig config, CollectionOf(options));
      return OfCollection(config, text, evidence);
    }
    case FingerprintKind::kMinHash: {
      ASSIGN_OR_RETURN(const MinHashConfig config,
                       MinHashConfigOf(options.settings));
      ASSIGN_OR_RETURN(const MinHasher hasher, MinHasher::Create(config));
      ASSIGN_OR_RETURN(out.minhash, About(text.name, hasher.Fingerprint(
                                                         text.text, evidence)));
      out.minhash_config_hash = hasher.config_hash();
      out.shingle_count = evidence->size();
      out.minhash_tokenizer = hasher.tokenizer().Name();
      out.algorithm = hasher.algorithm();
      out.canonicalizer = hasher.canonicalizer().ConfigString();
      return out;
    }
    case FingerprintKind::kSimHash: {
      ASSIGN_OR_RETURN(const SimHashConfig config,
                       SimHashConfigOf(options.settings));
      ASSIGN_OR_RETURN(const SimHasher hasher, SimHasher::Create(config));
      ASSIGN_OR_RETURN(out.simhash,
                       About(text.name, hasher.Fingerprint(text.text)));
      out.simhash_config_hash = hasher.config_hash();
      out.simhash_tokenizer = hasher.tokenizer().Name();
      out.algorithm = hasher.algorithm();
      out.canonicalizer = hasher.canonicalizer().ConfigString();
      return out;
    }
    case FingerprintKind::kTlsh:
    case FingerprintKind::kTlshRaw: {
      const bool raw = options.kind == FingerprintKind::kTlshRaw;
      ASSIGN_OR_RETURN(
          const TlshFingerprinter fingerprinter,
          TlshFingerprinter::Create(options.settings.canonicalizer));
      ASSIGN_OR_RETURN(
          out.tlsh,
          About(text.name, raw ? TlshOfBytes(text.text)
                               : fingerprinter.Fingerprint(text.text)));
      out.tlsh_config_hash = raw ? TlshFingerprinter::RawConfigHash()
                                 : fingerprinter.config_hash();
      out.algorithm = std::string(TlshFingerprinter::Algorithm());
      out.canonicalizer = raw ? std::string("raw")
                              : fingerprinter.canonicalizer().ConfigString();
      return out;
    }
    case FingerprintKind::kNewsbot: {
      ASSIGN_OR_RETURN(out.newsbot,
                       NewsbotSimHash(text.text, options.newsbot_bits));
      out.newsbot_config_hash = NewsbotConfigHash(options.newsbot_bits);
      out.newsbot_tokens = NewsbotTokenize(text.text).size();
      out.algorithm = NewsbotAlgorithm(options.newsbot_bits);
      return out;
    }
    case FingerprintKind::kPerceptual: {
      ASSIGN_OR_RETURN(const PerceptualHasher hasher,
                       PerceptualHasherOf(options));
      ASSIGN_OR_RETURN(
          PerceptualFingerprint fp,
          About(text.name, hasher.Fingerprint(text.text,
                                              /*include_intermediates=*/true)));
      *evidence = WinnowedSet(fp);
      out.minhash = std::move(fp.minhash);
      out.minhash_config_hash = hasher.config_hash();
      out.shingle_count = evidence->size();
      out.perceptual = std::move(fp.meta);
      out.algorithm = hasher.algorithm();
      out.canonicalizer = hasher.canonicalizer().ConfigString();
      return out;
    }
  }
  return absl::InvalidArgumentError("kind: unknown value");
}

const KeptValue* KeptOf(const TextFingerprint& fingerprint,
                        std::string_view family) {
  for (const KeptValue& kept : fingerprint.kept) {
    if (kept.family == family) return &kept;
  }
  return nullptr;
}

std::string_view UnavailableOf(const TextFingerprint& fingerprint,
                               std::string_view family) {
  for (const KeptUnavailable& none : fingerprint.kept_unavailable) {
    if (none.family == family) return none.reason;
  }
  return {};
}

// Each kept family's distance, or why one text has no value.
absl::Status CompareKept(NamedText a, NamedText b, TextComparison& out) {
  for (const KeptValue& left : out.a.kept) {
    const KeptValue* right = KeptOf(out.b, left.family);
    if (right == nullptr) continue;
    ASSIGN_OR_RETURN(const KeptFamily* family, KeptFamilyNamed(left.family));
    ASSIGN_OR_RETURN(const int distance,
                     family->distance(left.value, right->value));
    out.kept_distances.push_back({left.family, distance});
  }
  // One reason per family: a's when neither text has a value.
  for (const KeptUnavailable& none : out.a.kept_unavailable) {
    out.kept_unavailable.push_back(
        {none.family, absl::StrCat(AbslView(a.name), ": ", none.reason)});
  }
  for (const KeptUnavailable& none : out.b.kept_unavailable) {
    if (!UnavailableOf(out.a, none.family).empty()) continue;
    out.kept_unavailable.push_back(
        {none.family, absl::StrCat(AbslView(b.name), ": ", none.reason)});
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<TextFingerprint> FingerprintText(const StatelessOptions& options,
                                                NamedText text) {
  std::vector<uint64_t> evidence;
  return OfKind(options, text, &evidence);
}

absl::StatusOr<TextComparison> CompareTexts(const StatelessOptions& options,
                                            NamedText a, NamedText b) {
  StatelessOptions measured = options;
  if (options.kind == FingerprintKind::kCollection) {
    // Every measure a collection of the config could take: SimHash always
    // (neardup's unless the config asks for newsbot's), TLSH where the
    // texts allow one.
    ASSIGN_OR_RETURN(CollectionConfig config, CollectionOf(options));
    config.simhash_enabled = true;
    config.kept_families.clear();
    for (const KeptFamily* family : KeptFamilies()) {
      config.kept_families.emplace_back(family->name);
    }
    ASSIGN_OR_RETURN(measured.collection,
                     NormalizeCollectionConfig(std::move(config)));
  }
  std::vector<uint64_t> set_a, set_b;
  TextComparison out;
  ASSIGN_OR_RETURN(out.a, OfKind(measured, a, &set_a));
  ASSIGN_OR_RETURN(out.b, OfKind(measured, b, &set_b));
  if (out.a.minhash && out.b.minhash) {
    ASSIGN_OR_RETURN(out.estimated_jaccard,
                     EstimateJaccard(*out.a.minhash, *out.b.minhash));
    out.exact_jaccard = ExactJaccard64(set_a, set_b);
  }
  if (out.a.simhash && out.b.simhash) {
    out.hamming_distance = Hamming(*out.a.simhash, *out.b.simhash);
    out.cosine_estimate = CosineEstimate(*out.a.simhash, *out.b.simhash);
  }
  if (out.a.newsbot && out.b.newsbot) {
    ASSIGN_OR_RETURN(const int distance,
                     NewsbotHamming(*out.a.newsbot, *out.b.newsbot));
    out.hamming_distance = distance;
    out.cosine_estimate = std::cos(M_PI * distance / options.newsbot_bits);
  }
  RETURN_IF_ERROR(CompareKept(a, b, out));
  if (out.a.tlsh && out.b.tlsh) {
    out.tlsh_distance = TlshDistance(*out.a.tlsh, *out.b.tlsh);
    out.tlsh_distance_without_length =
        TlshDistance(*out.a.tlsh, *out.b.tlsh, /*include_length=*/false);
  } else if (options.kind == FingerprintKind::kCollection) {
    const bool a_has_one = out.a.tlsh.has_value();
    out.tlsh_unavailable = absl::StrCat(
        AbslView(a_has_one ? b.name : a.name), ": ",
        a_has_one ? out.b.tlsh_unavailable : out.a.tlsh_unavailable);
  }
  return out;
}

}  // namespace neardup
