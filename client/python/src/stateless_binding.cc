// neardup.fingerprint and neardup.compare: core's stateless calls (the
// server's Fingerprint and Compare, the CLI's fingerprint and compare) in
// process, with the CLI's option names.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bindings.h"
#include "neardup/core/canonicalizer.h"
#include "neardup/core/collection_config.h"
#include "neardup/core/enum_tables.h"
#include "neardup/core/explain.h"
#include "neardup/core/fingerprint_settings.h"
#include "neardup/core/stateless.h"
#include "neardup/core/tlsh.h"

namespace neardup::python {
namespace {

// The CLI's words for a stateless call, as keyword arguments.
struct Words {
  std::string kind;
  int num_perm;
  int ngram;
  std::string tokenizer;
  uint64_t seed;
  std::string hash_family;
  std::string profile;
  bool simhash;
  std::vector<std::string> keep;
  int bits;
  int winnow_window;
};

StatelessOptions OptionsOf(const Words& words) {
  StatelessOptions options;
  options.kind = ValueOrRaise(kFingerprintKinds.Parse(words.kind));
  FingerprintSettings& settings = options.settings;
  settings.canonicalizer = ValueOrRaise(CanonicalizerProfile(words.profile));
  settings.tokenizer = words.tokenizer;
  settings.shingle_k = words.ngram;
  settings.num_perm = words.num_perm;
  settings.seed = words.seed;
  settings.family = ValueOrRaise(kHashFamilies.Parse(words.hash_family));
  options.newsbot_bits = words.bits;
  options.winnow_window = words.winnow_window;
  if (options.kind == FingerprintKind::kCollection) {
    CollectionConfig config = ValueOrRaise(CollectionConfigOf(settings));
    config.simhash_enabled = words.simhash;
    config.kept_families = words.keep;
    options.collection = std::move(config);
  } else if (words.simhash || !words.keep.empty()) {
    throw py::value_error("simhash and keep apply to kind 'all' only");
  }
  return options;
}

py::object Optional(const auto& value) {
  return value ? py::cast(*value) : py::none();
}

py::dict FingerprintDict(const TextFingerprint& f) {
  py::dict out;
  if (f.minhash) {
    out["minhash"] = py::bytes(f.minhash->Serialize());
    out["minhash_config_hash"] = f.minhash_config_hash;
    out["shingle_count"] = f.shingle_count;
    out["minhash_tokenizer"] = f.minhash_tokenizer;
  }
  if (f.simhash) {
    out["simhash"] = *f.simhash;
    out["simhash_config_hash"] = f.simhash_config_hash;
    out["simhash_tokenizer"] = f.simhash_tokenizer;
  }
  if (f.tlsh) {
    out["tlsh"] = FormatTlsh(*f.tlsh);
    out["tlsh_config_hash"] = f.tlsh_config_hash;
  }
  if (!f.tlsh_unavailable.empty()) {
    out["tlsh_unavailable"] = f.tlsh_unavailable;
  }
  if (f.newsbot) {
    // An int of newsbot_bits bits (128-bit ones are Python ints too).
    py::int_ value = py::int_(f.newsbot->high);
    value = py::reinterpret_steal<py::int_>(
        PyNumber_Lshift(value.ptr(), py::int_(64).ptr()));
    value = py::reinterpret_steal<py::int_>(
        PyNumber_Or(value.ptr(), py::int_(f.newsbot->low).ptr()));
    out["newsbot"] = value;
    out["newsbot_bits"] = f.newsbot->bits;
    out["newsbot_config_hash"] = f.newsbot_config_hash;
    out["newsbot_tokens"] = f.newsbot_tokens;
  }
  if (f.perceptual) {
    out["perceptual_shingles"] = f.perceptual->shingles;
    out["perceptual_winnowed"] = f.perceptual->winnowed;
  }
  py::dict kept, unavailable;
  for (const KeptValue& value : f.kept)
    kept[py::str(value.family)] = value.value;
  for (const KeptUnavailable& why : f.kept_unavailable) {
    unavailable[py::str(why.family)] = why.reason;
  }
  out["kept"] = kept;
  out["kept_unavailable"] = unavailable;
  out["algorithm"] = f.algorithm;
  out["canonicalizer"] = f.canonicalizer;
  return out;
}

}  // namespace

void BindStateless(py::module_& m) {
  auto words = [](const std::string& kind, int num_perm, int ngram,
                  const std::string& tokenizer, uint64_t seed,
                  const std::string& hash_family, const std::string& profile,
                  bool simhash, std::vector<std::string> keep, int bits,
                  int winnow_window) {
    return Words{kind,         num_perm, ngram,   tokenizer,       seed,
                 hash_family,  profile,  simhash, std::move(keep), bits,
                 winnow_window};
  };
  m.def("_fingerprint",
        [words](const std::string& text, const std::string& kind, int num_perm,
                int ngram, const std::string& tokenizer, uint64_t seed,
                const std::string& hash_family, const std::string& profile,
                bool simhash, std::vector<std::string> keep, int bits,
                int winnow_window) {
          const StatelessOptions options = OptionsOf(
              words(kind, num_perm, ngram, tokenizer, seed, hash_family,
                    profile, simhash, std::move(keep), bits, winnow_window));
          absl::StatusOr<TextFingerprint> fingerprint;
          {
            py::gil_scoped_release release;
            fingerprint = FingerprintText(options, {"text", text});
          }
          return FingerprintDict(ValueOrRaise(std::move(fingerprint)));
        });
  m.def("_compare", [words](const std::string& a, const std::string& b,
                            const std::string& kind, int num_perm, int ngram,
                            const std::string& tokenizer, uint64_t seed,
                            const std::string& hash_family,
                            const std::string& profile, bool simhash,
                            std::vector<std::string> keep, int bits,
                            int winnow_window, bool explain) {
    const StatelessOptions options = OptionsOf(
        words(kind, num_perm, ngram, tokenizer, seed, hash_family, profile,
              simhash, std::move(keep), bits, winnow_window));
    const Canonicalizer canonicalizer =
        ValueOrRaise(Canonicalizer::Create(options.settings.canonicalizer));
    absl::StatusOr<TextComparison> compared;
    std::optional<absl::StatusOr<Explanation>> explained;
    {
      py::gil_scoped_release release;
      compared = CompareTexts(options, {"a", a}, {"b", b});
      if (explain) explained = ExplainSharedPassages(a, b, canonicalizer);
    }
    const TextComparison c = ValueOrRaise(std::move(compared));
    py::dict out;
    out["estimated_jaccard"] = Optional(c.estimated_jaccard);
    out["exact_jaccard"] = Optional(c.exact_jaccard);
    out["hamming_distance"] = Optional(c.hamming_distance);
    out["cosine_estimate"] = Optional(c.cosine_estimate);
    out["tlsh_distance"] = Optional(c.tlsh_distance);
    out["tlsh_distance_without_length"] =
        Optional(c.tlsh_distance_without_length);
    out["tlsh_unavailable"] = c.tlsh_unavailable;
    py::dict distances, unavailable;
    for (const KeptDistance& d : c.kept_distances) {
      distances[py::str(d.family)] = d.distance;
    }
    for (const KeptUnavailable& why : c.kept_unavailable) {
      unavailable[py::str(why.family)] = why.reason;
    }
    out["kept_distances"] = distances;
    out["kept_unavailable"] = unavailable;
    out["a"] = FingerprintDict(c.a);
    out["b"] = FingerprintDict(c.b);
    if (explained) {
      const Explanation e = ValueOrRaise(std::move(*explained));
      py::list passages;
      for (const SharedPassage& p : e.passages) {
        passages.append(py::make_tuple(p.a_begin, p.a_end, p.b_begin, p.b_end));
      }
      out["passages"] = passages;
      out["passages_truncated"] = e.truncated;
    }
    return out;
  });
}

}  // namespace neardup::python
