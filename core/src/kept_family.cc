#include "neardup/core/kept_family.h"

#include <algorithm>
#include <array>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "neardup/base/absl_compat.h"
#include "neardup/core/tlsh.h"

namespace neardup {
namespace {

// Sorted by name; a new family is one more line.
constexpr std::array<const KeptFamily*, 1> kFamilies = {&kTlshFamily};

}  // namespace

std::span<const KeptFamily* const> KeptFamilies() { return kFamilies; }

int KeptFamilyIndex(std::string_view name) {
  for (size_t i = 0; i < kFamilies.size(); ++i) {
    if (kFamilies[i]->name == name) return static_cast<int>(i);
  }
  return -1;
}

const KeptFamily* FindKeptFamily(std::string_view name) {
  const int index = KeptFamilyIndex(name);
  return index < 0 ? nullptr : kFamilies[index];
}

absl::StatusOr<const KeptFamily*> KeptFamilyNamed(std::string_view name) {
  if (const KeptFamily* family = FindKeptFamily(name)) return family;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown kept family \"", absl::CHexEscape(AbslView(name)),
                   "\" (known: ", KeptFamilyNames(), ")"));
}

std::string KeptFamilyNames() {
  return absl::StrJoin(kFamilies, ",",
                       [](std::string* out, const KeptFamily* family) {
                         absl::StrAppend(out, AbslView(family->name));
                       });
}

}  // namespace neardup
