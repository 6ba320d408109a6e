#ifndef NEARDUP_CORE_CANONICALIZER_H_
#define NEARDUP_CORE_CANONICALIZER_H_

// Stage 1 of the pipeline: maps text that people read as "the same" to the
// same bytes. Output is byte-identical to txtfp 0.2.x/0.3.x for the same
// options.

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace neardup {

enum class Normalization { kNfkc, kNfc, kNone };
// kFull is Unicode full case folding (ß -> ss). txtfp names it "cf-simple" in
// config strings, and we keep that name for compatibility.
enum class CaseFold { kFull, kNone };

struct CanonicalizerOptions {
  // Unicode normalization form. Default NFKC ("ﬁ" -> "fi", "Ａ" -> "A").
  Normalization normalization = Normalization::kNfkc;
  // Case folding. Default full folding.
  CaseFold case_fold = CaseFold::kFull;
  // Drop bidi controls (U+202A-202E, U+2066-2069, U+200E, U+200F).
  bool strip_bidi = true;
  // Drop zero-width/format code points, variation selectors and tags (and
  // the bidi controls). U+00AD SOFT HYPHEN is kept, as in txtfp.
  bool strip_format = true;
  // Drop every Default_Ignorable_Code_Point (soft hyphen, zero-width and
  // joiner characters, variation selectors, fillers, tags...). Default off
  // (txtfp keeps U+00AD); on in the robust profile.
  bool strip_ignorable = false;
  // UTS #39 confusable skeleton ("раураl" == "paypal"). Default off; on in
  // the robust profile. Lossy ("m" and "rn" become the same).
  bool confusable_skeleton = false;
  // After the skeleton: Latin small capitals (ᴛ ʙ ʜ ᴋ ...) and kra (ĸ) become
  // the ASCII letter they look like. The skeleton leaves Greek τ κ and
  // Cyrillic т к в н at these prototypes, though readers see t k b h.
  // Default off; on in the robust profile.
  bool fold_small_capitals = false;
  // Look-alikes that case folding hides from the skeleton. Before
  // normalization, letters of other scripts whose confusable prototype is
  // one ASCII letter become it where the context is Latin: inside a word
  // that holds a Latin letter, and in a run of words made of such letters
  // only next to one (Greek Β, Cyrillic М: capitals whose small letters look
  // like nothing Latin). Greek and Cyrillic text is left alone. At the end
  // 'i' becomes 'l', since confusables.txt reads I as l and case folding
  // reads it as i. Default off; on in the robust profile (new collections
  // from this release: the config string says "-look"). See
  // internal/look_alikes.h for what it costs Greek capitals next to Latin.
  bool fold_look_alikes = false;

  bool operator==(const CanonicalizerOptions&) const = default;
};

// Named option sets: "txtfp" (the defaults, txtfp's pipeline) and "robust"
// (the defaults + strip_ignorable + confusable_skeleton +
// fold_small_capitals + fold_look_alikes: text that reads the same despite
// invisible characters, look-alike letters, fullwidth forms or case tricks
// canonicalizes the same). INVALID_ARGUMENT otherwise.
absl::StatusOr<CanonicalizerOptions> CanonicalizerProfile(
    std::string_view name);

// Parses a config string such as "nfkc-cf-simple-bidi-fmt" back to options.
absl::StatusOr<CanonicalizerOptions> ParseCanonicalizerConfig(
    std::string_view config);

// Thread-safe and cheap to copy; build once and share.
//
// Pipeline: drop listed code points -> optional look-alikes in mixed words
// -> normalize -> case fold -> if the result is not ASCII, normalize again ->
// optional confusable skeleton -> optional small capitals -> optional i -> l.
// No whitespace collapsing or trimming.
class Canonicalizer {
 public:
  static absl::StatusOr<Canonicalizer> Create(
      const CanonicalizerOptions& options = {});

  // Returns the canonical form. Errors: INVALID_ARGUMENT on invalid UTF-8
  // (the message names the byte offset).
  absl::StatusOr<std::string> Canonicalize(std::string_view input) const;
  // Same, writing into `*out` (its capacity is reused).
  absl::Status CanonicalizeInto(std::string_view input, std::string* out) const;

  // `{nfc|nfkc|none}-{cf-simple|cf-none}[-bidi][-fmt][-ign][-conf][-sc][-look]`;
  // "-ign", "-sc" and "-look" are neardup's (txtfp has no such options).
  std::string ConfigString() const;
  const CanonicalizerOptions& options() const { return options_; }

 private:
  struct IcuState;
  Canonicalizer(const CanonicalizerOptions& options,
                std::shared_ptr<const IcuState> icu)
      : options_(options), icu_(std::move(icu)) {}

  // Everything but the final i -> l.
  absl::Status CanonicalizeSkeleton(std::string_view input,
                                    std::string* out) const;
  // Everything but the skeleton.
  absl::Status CanonicalizeText(std::string_view input, std::string* out) const;
  absl::Status SlowPath(std::string_view input, std::string* out) const;

  CanonicalizerOptions options_;
  std::shared_ptr<const IcuState> icu_;
};

}  // namespace neardup

#endif  // NEARDUP_CORE_CANONICALIZER_H_
