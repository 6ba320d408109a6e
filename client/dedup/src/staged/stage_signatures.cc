// Stage "signatures", one task per part of the inputs: every record's kind
// and output size, and what the later stages compare it by (band tags,
// MinHash slots or SimHash, shingle sets), in input order.

#include <xxhash.h>

#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "batch_reader.h"
#include "fingerprint_pipeline.h"
#include "fingerprinter.h"
#include "neardup/base/status_macros.h"
#include "neardup/core/index/lsh_params.h"
#include "neardup/core/shingle_set.h"
#include "record_text.h"
#include "staged/part_writer.h"
#include "staged/references.h"
#include "staged/stage_context.h"
#include "staged/stage_tasks.h"
#include "staged/staged_files.h"

namespace neardup::dedup::staged {

absl::Status RunSignaturesTask(const StageContext& context, int part) {
  if (part < context.reference_parts()) return RunReferenceTask(context, part);
  const DedupOptions& options = context.options();
  const std::vector<dataset::InputFile> files = context.PartFiles(part);
  RETURN_IF_ERROR(MakeDirectories(context.Dir(Stage::kSignatures)));
  ASSIGN_OR_RETURN(PartWriter writer, PartWriter::Create(context, part));
  ASSIGN_OR_RETURN(const Fingerprinter fingerprinter,
                   Fingerprinter::Create(options));
  ASSIGN_OR_RETURN(const RecordText record_text, RecordText::Create(options));

  uint64_t docs = 0, empty = 0, invalid = 0, input_bytes = 0;
  std::string header;
  std::unique_ptr<XXH3_state_t, decltype(&XXH3_freeState)> checksum(
      XXH3_createState(), &XXH3_freeState);
  XXH3_64bits_reset(checksum.get());
  nlohmann::ordered_json names = nlohmann::ordered_json::array();
  for (const dataset::InputFile& file : files) names.push_back(file.path);
  if (!files.empty()) {
    BatchReader reader(files, options);
    RETURN_IF_ERROR(reader.Start());
    header = reader.header();
    XXH3_64bits_update(checksum.get(), header.data(), header.size());
    RETURN_IF_ERROR(FingerprintInOrder(
        reader, record_text, fingerprinter, PipelineOptionsOf(options),
        [&](FingerprintedBatch& item) -> absl::Status {
          const Batch& batch = item.batch;
          for (size_t i = 0; i < batch.records.size(); ++i) {
            const RecordRef& ref = batch.records[i];
            DocFingerprint& print = item.prints[i];
            const std::string_view raw = batch.record(ref);
            XXH3_64bits_update(checksum.get(), raw.data(), raw.size());
            if (print.kind == DocFingerprint::Kind::kInvalid) {
              if (!options.skip_invalid) {
                return absl::InvalidArgumentError(absl::StrCat(
                    reader.DisplayName(ref.file), ":", ref.line, ": ",
                    print.error, " (--skip-invalid skips such records)"));
              }
              ++invalid;
            }
            if (print.kind == DocFingerprint::Kind::kEmpty) ++empty;
            RETURN_IF_ERROR(writer.Add(docs++, OutputBytes(raw), print));
          }
          return absl::OkStatus();
        }));
    input_bytes = reader.bytes_consumed();
  }
  RETURN_IF_ERROR(writer.Commit());
  {
    // Bytes as they are (a manifest's JSON would mend invalid UTF-8).
    ASSIGN_OR_RETURN(FileWriter out,
                     FileWriter::Create(context.PartPath(part, ".header"),
                                        FileKind::kHeader));
    RETURN_IF_ERROR(out.Write(header.data(), header.size()));
    RETURN_IF_ERROR(out.Commit());
  }
  return context.WriteManifest(
      Stage::kSignatures, part,
      {{"files", std::move(names)},
       {"layout", PartLayout(context)},
       {"docs", docs},
       {"empty", empty},
       {"invalid", invalid},
       {"input_bytes", input_bytes},
       {"checksum", absl::StrCat(absl::Hex(XXH3_64bits_digest(checksum.get()),
                                           absl::kZeroPad16))}});
}

}  // namespace neardup::dedup::staged
