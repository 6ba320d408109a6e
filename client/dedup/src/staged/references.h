#ifndef NEARDUP_CLIENT_DEDUP_SRC_STAGED_REFERENCES_H_
#define NEARDUP_CLIENT_DEDUP_SRC_STAGED_REFERENCES_H_

// Reference corpora of a staged run (DedupOptions::references): each
// becomes signatures parts of this run, numbered before the inputs' parts,
// whose documents the clusters stage keeps without writing them. A
// reference run's part is taken over from its files (its kept documents
// only); a dump's part is made from the signatures it carries.

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "neardup/dedup/dedup_options.h"

namespace neardup::dedup::staged {

class StageContext;

struct ReferencePart {
  std::string source;  // as given: a work directory or a dump file
  bool dump = false;
  int part = 0;  // a reference run's: which of its signatures parts
};

// The parts of options.references, in order.
absl::StatusOr<std::vector<ReferencePart>> ListReferenceParts(
    const DedupOptions& options);

// Signatures task `part` (< context.reference_parts()): this run's files
// of that reference part.
absl::Status RunReferenceTask(const StageContext& context, int part);

}  // namespace neardup::dedup::staged

#endif  // NEARDUP_CLIENT_DEDUP_SRC_STAGED_REFERENCES_H_
