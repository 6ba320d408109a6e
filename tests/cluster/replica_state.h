#ifndef NEARDUP_TESTS_CLUSTER_REPLICA_STATE_H_
#define NEARDUP_TESTS_CLUSTER_REPLICA_STATE_H_

// What a replica holds of documents "d0" .. "d<ids-1>", one line each (its
// signatures, text, kept values and metadata, or why it has none), so two
// replicas can be compared whole.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "neardup/engine/collection.h"

namespace neardup::testing {

inline std::vector<std::string> ReplicaState(engine::Collection& docs,
                                             int ids) {
  std::vector<std::string> out;
  for (int i = 0; i < ids; ++i) {
    absl::StatusOr<storage::StoredDocument> doc =
        docs.Get(absl::StrCat("d", i));
    if (!doc.ok()) {
      out.push_back(std::string(doc.status().message()));
      continue;
    }
    std::string line = absl::StrCat(doc->external_id, " ");
    for (uint64_t slot : doc->minhash.slots) absl::StrAppend(&line, slot, ",");
    absl::StrAppend(&line, " ", doc->simhash.value_or(0), " ",
                    doc->text.value_or(""));
    for (const KeptValue& kept : doc->kept) {
      absl::StrAppend(&line, " ", kept.family, "=", kept.value);
    }
    for (const auto& [key, value] : doc->metadata) {
      absl::StrAppend(&line, " ", key, "=", value);
    }
    out.push_back(line);
  }
  return out;
}

}  // namespace neardup::testing

#endif  // NEARDUP_TESTS_CLUSTER_REPLICA_STATE_H_
