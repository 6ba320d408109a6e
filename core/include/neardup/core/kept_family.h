#ifndef NEARDUP_CORE_KEPT_FAMILY_H_
#define NEARDUP_CORE_KEPT_FAMILY_H_

// A fingerprint family a collection may keep per text document beside its
// MinHash (TLSH is one): made from the text, stored in a column family of its
// own name, not indexed, and reported per match as the distance between the
// probe's value and the document's. Each family is one KeptFamily, listed
// once in KeptFamilies(); the collection config, the store, the engine, the
// API and the CLI read it from there and name it by `name` alone.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "neardup/core/canonicalizer.h"

namespace neardup {

// One collection's fingerprinter of a family. Thread-safe.
class KeptFingerprinter {
 public:
  virtual ~KeptFingerprinter() = default;
  // Stamped on every value it makes; a value with another is refused.
  virtual uint64_t config_hash() const = 0;
  // The value of `text` (canonicalized inside), in the family's text form;
  // INVALID_ARGUMENT says why a text has none (too short, too uniform...).
  virtual absl::StatusOr<std::string> Fingerprint(
      std::string_view text) const = 0;
};

struct KeptFamily {
  // Lowercase ASCII: the CLI's --keep, the API's kept_families and values,
  // the store's column family and every message.
  std::string_view name;
  // One line for --help and the docs.
  std::string_view summary;
  // The fingerprinter of a collection with these canonicalizer options.
  absl::StatusOr<std::unique_ptr<KeptFingerprinter>> (*create)(
      const CanonicalizerOptions& canonicalizer);
  // A value from outside (a client, the disk) in its canonical text form,
  // or INVALID_ARGUMENT saying what is wrong with it.
  absl::StatusOr<std::string> (*normalize)(std::string_view value);
  // The distance between two normalized values; lower is closer.
  absl::StatusOr<int> (*distance)(std::string_view a, std::string_view b);
};

// Every family, sorted by name. A family is added here (kept_family.cc).
std::span<const KeptFamily* const> KeptFamilies();
// nullptr for a name no family has.
const KeptFamily* FindKeptFamily(std::string_view name);
// Position in KeptFamilies(); -1 for a name no family has.
int KeptFamilyIndex(std::string_view name);
// INVALID_ARGUMENT naming the known families when `name` is none of them.
absl::StatusOr<const KeptFamily*> KeptFamilyNamed(std::string_view name);
// "tlsh" (comma-separated names), for messages and --help.
std::string KeptFamilyNames();

// One family's value of a document or a probe, with the config hash of the
// fingerprinter that made it.
struct KeptValue {
  std::string family;
  std::string value;  // normalized text form
  uint64_t config_hash = 0;

  bool operator==(const KeptValue&) const = default;
};

// A family's config hash in one collection.
struct KeptConfigHash {
  std::string family;
  uint64_t config_hash = 0;

  bool operator==(const KeptConfigHash&) const = default;
};

// A family's distance between a probe and a document.
struct KeptDistance {
  std::string family;
  int distance = 0;

  bool operator==(const KeptDistance&) const = default;
};

// Why a text has no value of a family (KeptFingerprinter::Fingerprint's
// error message).
struct KeptUnavailable {
  std::string family;
  std::string reason;

  bool operator==(const KeptUnavailable&) const = default;
};

}  // namespace neardup

#endif  // NEARDUP_CORE_KEPT_FAMILY_H_
