#include "cluster_explainer.h"

#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "batch_reader.h"
#include "neardup/base/status_macros.h"
#include "neardup/core/canonicalizer.h"
#include "neardup/core/explain.h"
#include "record_text.h"

namespace neardup::dedup {

absl::StatusOr<ClusterExplanations> ExplainClusters(
    const DedupOptions& options, std::vector<dataset::InputFile> files,
    const ClusterLog& clusters) {
  ClusterExplanations explained;
  if (clusters.edges().empty()) return explained;
  ASSIGN_OR_RETURN(const Canonicalizer canonicalizer,
                   Canonicalizer::Create(options.fingerprint.canonicalizer));
  // Each removed document's representative, and each representative's last
  // removed member (after which its text is dropped).
  absl::flat_hash_map<uint32_t, uint32_t> representative_of;
  absl::flat_hash_map<uint32_t, uint32_t> last_member;
  for (const ClusterLog::Edge& edge : clusters.edges()) {
    representative_of[edge.duplicate] = edge.representative;
    uint32_t& last = last_member[edge.representative];
    last = std::max(last, edge.duplicate);
  }
  absl::flat_hash_map<uint32_t, std::string> open_texts;

  ASSIGN_OR_RETURN(const RecordText record_text, RecordText::Create(options));
  std::string extracted;
  BatchReader reader(std::move(files), options);
  RETURN_IF_ERROR(reader.Start());
  dataset::ExtractScratch scratch;
  Batch batch;
  while (true) {
    ASSIGN_OR_RETURN(const bool got, reader.Fill(options.batch_records,
                                                 options.batch_bytes, &batch));
    if (!got) break;
    for (const RecordRef& ref : batch.records) {
      const auto rep = representative_of.find(ref.doc);
      const bool is_representative = last_member.contains(ref.doc);
      if (rep == representative_of.end() && !is_representative) continue;
      // These records were read by the run itself, so they extract again;
      // one that does not (a PDF that passed its timeout narrowly, a file
      // changed since) leaves its members unexplained, not the clusters
      // unwritten.
      const absl::StatusOr<std::string_view> text =
          record_text.Of(reader, batch, ref, scratch, extracted);
      if (is_representative) {
        if (text.ok()) open_texts.emplace(ref.doc, std::string(*text));
        continue;
      }
      const auto kept = open_texts.find(rep->second);
      if (text.ok() && kept != open_texts.end()) {
        ASSIGN_OR_RETURN(
            explained[ref.doc],
            ExplainSharedPassages(kept->second, *text, canonicalizer));
      }
      if (kept != open_texts.end() && last_member[rep->second] == ref.doc) {
        open_texts.erase(kept);
      }
    }
  }
  return explained;
}

}  // namespace neardup::dedup
