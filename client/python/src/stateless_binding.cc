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

// The options _stateless.py checked and passed as a dict (the CLI's names).
StatelessOptions OptionsOf(const py::dict& words) {
  auto text = [&](const char* name) { return words[name].cast<std::string>(); };
  auto number = [&](const char* name) { return words[name].cast<int>(); };
  StatelessOptions options;
  options.kind = ValueOrRaise(kFingerprintKinds.Parse(text("kind")));
  options.settings = FingerprintSettingsOf(words);
  const FingerprintSettings& settings = options.settings;
  options.newsbot_bits = number("bits");
  options.winnow_window = number("winnow_window");
  if (options.kind == FingerprintKind::kCollection) {
    CollectionConfig config = ValueOrRaise(CollectionConfigOf(settings));
    config.simhash_enabled = words["simhash"].cast<bool>();
    config.kept_families = words["keep"].cast<std::vector<std::string>>();
    options.collection = std::move(config);
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
  if (f.newsbot) {  // _stateless.py makes one int of the halves
    out["newsbot_high"] = f.newsbot->high;
    out["newsbot_low"] = f.newsbot->low;
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

FingerprintSettings FingerprintSettingsOf(const py::dict& words) {
  auto text = [&](const char* name) { return words[name].cast<std::string>(); };
  FingerprintSettings settings;
  settings.canonicalizer = ValueOrRaise(CanonicalizerProfile(text("profile")));
  settings.tokenizer = text("tokenizer");
  settings.shingle_k = words["ngram"].cast<int>();
  settings.num_perm = words["num_perm"].cast<int>();
  settings.seed = words["seed"].cast<uint64_t>();
  settings.family = ValueOrRaise(kHashFamilies.Parse(text("hash_family")));
  settings.weighting =
      ValueOrRaise(kSimHashWeightings.Parse(text("weighting")));
  return settings;
}

void BindStateless(py::module_& m) {
  m.def("_fingerprint", [](const std::string& text, const py::dict& words) {
    const StatelessOptions options = OptionsOf(words);
    absl::StatusOr<TextFingerprint> fingerprint;
    {
      py::gil_scoped_release release;
      fingerprint = FingerprintText(options, {"text", text});
    }
    return FingerprintDict(ValueOrRaise(std::move(fingerprint)));
  });
  m.def("_compare", [](const std::string& a, const std::string& b,
                       const py::dict& words, bool explain) {
    const StatelessOptions options = OptionsOf(words);
    std::optional<Canonicalizer> canonicalizer;
    if (explain) {
      canonicalizer =
          ValueOrRaise(Canonicalizer::Create(options.settings.canonicalizer));
    }
    absl::StatusOr<TextComparison> compared;
    std::optional<absl::StatusOr<Explanation>> explained;
    {
      py::gil_scoped_release release;
      compared = CompareTexts(options, {"a", a}, {"b", b});
      if (explain) explained = ExplainSharedPassages(a, b, *canonicalizer);
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
      // UTF-8 byte offsets; _stateless.py turns them into str indexes.
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
