// Text functions: canonicalize, and MinHash.from_text (neardup's own
// shingled signature of a text, the one a collection stores).

#include <pybind11/pybind11.h>

#include <string>

#include "bindings.h"
#include "neardup/core/canonicalizer.h"
#include "neardup/core/enum_tables.h"
#include "neardup/core/fingerprint_settings.h"
#include "neardup/core/minhash.h"

namespace neardup::python {

void BindText(py::module_& m) {
  m.def(
      "canonicalize",
      [](const std::string& text, const std::string& profile) {
        const Canonicalizer canonicalizer = ValueOrRaise(
            Canonicalizer::Create(ValueOrRaise(CanonicalizerProfile(profile))));
        py::gil_scoped_release release;
        return ValueOrRaise(canonicalizer.Canonicalize(text));
      },
      py::arg("text"), py::kw_only(), py::arg("profile") = "txtfp",
      R"(The canonical form fingerprints are made of.

profile "txtfp" (NFKC, full case folding, bidi and format characters
dropped) or "robust" (also default-ignorables, confusable skeleton, small
capitals). ValueError for an unknown profile.)");
  m.def(
      "minhash_text",
      [](const std::string& text, int num_perm, int ngram,
         const std::string& tokenizer, uint64_t seed,
         const std::string& hash_family, const std::string& profile) {
        FingerprintSettings settings;  // the CLI's and the server's words
        settings.canonicalizer = ValueOrRaise(CanonicalizerProfile(profile));
        settings.tokenizer = tokenizer;
        settings.shingle_k = ngram;
        settings.num_perm = num_perm;
        settings.seed = seed;
        settings.family = ValueOrRaise(kHashFamilies.Parse(hash_family));
        const MinHashConfig config = ValueOrRaise(MinHashConfigOf(settings));
        const MinHasher hasher = ValueOrRaise(MinHasher::Create(config));
        absl::StatusOr<MinHashSignature> signature;
        {
          py::gil_scoped_release release;
          signature = hasher.Fingerprint(text);
        }
        MinHash out(num_perm, seed, config.family);
        out.slots = ValueOrRaise(std::move(signature)).slots;
        return out;
      },
      py::arg("text"), py::kw_only(), py::arg("num_perm") = 128,
      py::arg("ngram") = 0, py::arg("tokenizer") = "word",
      py::arg("seed") = kDefaultSeed, py::arg("hash_family") = "xxh3-64",
      py::arg("profile") = "txtfp",
      R"(neardup's MinHash of a text: canonicalized, cut into `ngram`-word
shingles (tokenizer "word", "grapheme" or "cjk"; ngram 0 is 5), hashed with txtfp's
seed: the signature a collection of these settings stores (num_perm 64,
128 or 256). ValueError for a text without tokens or invalid settings.)");
}

}  // namespace neardup::python
