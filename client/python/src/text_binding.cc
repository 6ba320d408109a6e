// Text functions: canonicalize, and MinHash.from_text (neardup's own
// shingled signature of a text, the one a collection stores).

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bindings.h"
#include "neardup/core/canonicalizer.h"
#include "neardup/core/enum_tables.h"
#include "neardup/core/fingerprint_settings.h"
#include "neardup/core/minhash.h"
#include "parallel.h"

namespace neardup::python {
namespace {

MinHasher TextHasher(int num_perm, int ngram, const std::string& tokenizer,
                     uint64_t seed, const std::string& hash_family,
                     const std::string& profile) {
  FingerprintSettings settings;  // the CLI's and the server's words
  settings.canonicalizer = ValueOrRaise(CanonicalizerProfile(profile));
  settings.tokenizer = tokenizer;
  settings.shingle_k = ngram;
  settings.num_perm = num_perm;
  settings.seed = seed;
  settings.family = ValueOrRaise(kHashFamilies.Parse(hash_family));
  return ValueOrRaise(
      MinHasher::Create(ValueOrRaise(MinHashConfigOf(settings))));
}

MinHash MinHashOf(const MinHasher& hasher, MinHashSignature signature,
                  std::optional<std::vector<uint64_t>> set) {
  MinHash out(hasher.config().num_perm, hasher.config().seed,
              hasher.config().family);
  out.slots = std::move(signature.slots);
  out.set = std::move(set);  // sorted and distinct, as the core makes it
  return out;
}

// A text's signature and, with keep_set, its shingle set (the 64-bit exact
// evidence dedup keeps).
absl::StatusOr<MinHashSignature> Sign(
    const MinHasher& hasher, std::string_view text,
    std::optional<std::vector<uint64_t>>* set) {
  if (!set->has_value()) return hasher.Fingerprint(text);
  return hasher.Fingerprint(text, &**set);
}

}  // namespace

void BindText(py::module_& m) {
  m.def(
      "canonicalize",
      [](const std::string& text, const std::string& profile) {
        const Canonicalizer canonicalizer = ValueOrRaise(
            Canonicalizer::Create(ValueOrRaise(CanonicalizerProfile(profile))));
        absl::StatusOr<std::string> canonical;
        {
          py::gil_scoped_release release;
          canonical = canonicalizer.Canonicalize(text);
        }
        return ValueOrRaise(std::move(canonical));
      },
      py::arg("text"), py::kw_only(), py::arg("profile") = "txtfp",
      R"(The canonical form fingerprints are made of.

profile "txtfp" (NFKC, full case folding, bidi and format characters
dropped) or "robust" (also default-ignorables, confusable skeleton, small
capitals, look-alikes in mixed-script words, i as l). ValueError for an
unknown profile.)");
  m.def(
      "minhash_text",
      [](const std::string& text, int num_perm, int ngram,
         const std::string& tokenizer, uint64_t seed,
         const std::string& hash_family, const std::string& profile,
         bool keep_set) {
        const MinHasher hasher =
            TextHasher(num_perm, ngram, tokenizer, seed, hash_family, profile);
        absl::StatusOr<MinHashSignature> signature;
        std::optional<std::vector<uint64_t>> set;
        if (keep_set) set.emplace();
        {
          py::gil_scoped_release release;
          signature = Sign(hasher, text, &set);
        }
        return MinHashOf(hasher, ValueOrRaise(std::move(signature)),
                         std::move(set));
      },
      py::arg("text"), py::kw_only(), py::arg("num_perm") = 128,
      py::arg("ngram") = 0, py::arg("tokenizer") = "word",
      py::arg("seed") = kDefaultSeed, py::arg("hash_family") = "xxh3-64",
      py::arg("profile") = "txtfp", py::arg("keep_set") = false,
      R"(neardup's MinHash of a text: canonicalized, cut into `ngram`-word
shingles (tokenizer "word", "grapheme" or "cjk"; ngram 0 is 5), hashed with txtfp's
seed: the signature a collection of these settings stores (num_perm 64,
128 or 256). keep_set=True also keeps its shingle set of 64-bit hashes,
the exact evidence of `neardup dedup` (a collection made with
evidence_bits 64 keeps the same; one of 32 bits keeps their top 32 bits).
ValueError for a text without tokens or
invalid settings.)");
  m.def(
      "minhash_texts",
      [](py::iterable texts, int num_perm, int ngram,
         const std::string& tokenizer, uint64_t seed,
         const std::string& hash_family, const std::string& profile,
         int threads, bool keep_set) {
        const MinHasher hasher =
            TextHasher(num_perm, ngram, tokenizer, seed, hash_family, profile);
        // str objects are immutable and `keep` holds them: their UTF-8
        // stays put while the GIL is released.
        const TokenBatch batch = ReadTokens(texts);
        std::vector<absl::StatusOr<MinHashSignature>> signatures(
            batch.views.size());
        std::vector<std::optional<std::vector<uint64_t>>> sets(
            batch.views.size());
        if (keep_set) {
          for (auto& set : sets) set.emplace();
        }
        {
          py::gil_scoped_release release;
          RunParallel(batch.views.size(), Workers(threads), [&](size_t i) {
            signatures[i] = Sign(hasher, batch.views[i], &sets[i]);
          });
        }
        std::vector<MinHash> out;
        out.reserve(signatures.size());
        for (size_t i = 0; i < signatures.size(); ++i) {
          if (!signatures[i].ok()) {
            Raise(absl::Status(signatures[i].status().code(),
                               absl::StrCat("text ", i, ": ",
                                            signatures[i].status().message())));
          }
          out.push_back(
              MinHashOf(hasher, *std::move(signatures[i]), std::move(sets[i])));
        }
        return out;
      },
      py::arg("texts"), py::kw_only(), py::arg("num_perm") = 128,
      py::arg("ngram") = 0, py::arg("tokenizer") = "word",
      py::arg("seed") = kDefaultSeed, py::arg("hash_family") = "xxh3-64",
      py::arg("profile") = "txtfp", py::arg("threads") = 0,
      py::arg("keep_set") = false,
      R"(minhash_text of each text (str, or UTF-8 bytes), in order, on
`threads` threads (0: one per core) without the GIL. ValueError naming the
first text without tokens.)");
}

}  // namespace neardup::python
