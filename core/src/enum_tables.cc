#include "neardup/core/enum_tables.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "neardup/base/absl_compat.h"

namespace neardup {

absl::Status NotOneOf(std::string_view what, const std::string_view* names,
                      size_t count, std::string_view got) {
  std::string list;
  for (size_t i = 0; i < count; ++i) {
    if (i > 0) list += i + 1 == count ? " or " : ", ";
    list += names[i];
  }
  return absl::InvalidArgumentError(absl::StrCat(
      AbslView(what), " must be ", list, ", got \"", AbslView(got), "\""));
}

bool IsAlias(std::string_view aliases, std::string_view name) {
  if (name.empty()) return false;
  for (absl::string_view alias :
       absl::StrSplit(AbslView(aliases), ' ', absl::SkipEmpty())) {
    if (alias == AbslView(name)) return true;
  }
  return false;
}

}  // namespace neardup
