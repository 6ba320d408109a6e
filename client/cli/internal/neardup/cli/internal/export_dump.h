#ifndef NEARDUP_CLI_INTERNAL_EXPORT_DUMP_H_
#define NEARDUP_CLI_INTERNAL_EXPORT_DUMP_H_

// The JSONL that `neardup export` writes and `neardup ingest` reads back:
// one document per line,
//   {"neardup_export":1,"id":"...","metadata":{...},"text":"...",
//    "signatures":{"minhash":"<base64>","minhash_config_hash":"<16 hex>",
//                  "simhash":"<16 hex>","simhash_config_hash":"<16 hex>",
//                  "shingle_set":"<base64>","evidence_bits":32}}
// "text" only when the collection stores it, "signatures" only with
// --with-signatures; "evidence_bits" with a shingle set of 32-bit hashes
// (absent: 64). Every line is a plain JSON object with "id" and
// "text", so other JSONL tools (and `neardup dedup`) read a dump as is.

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "neardup/v1/neardup.pb.h"

namespace neardup::cli {

// One line, without its newline.
std::string EncodeExportLine(const v1::Document& doc);

// INVALID_ARGUMENT naming what is wrong with the line.
absl::StatusOr<v1::Document> DecodeExportLine(std::string_view line);

// True when `line` (the first of a file) is a line of an export.
bool IsExportLine(std::string_view line);

// How a dumped document goes into `collection`: by its text when it has
// one (the same config gives the same signatures, plus the exact evidence
// signatures alone lack), else by its signatures when their config hashes
// are the collection's, else INVALID_ARGUMENT saying why neither works.
absl::StatusOr<v1::UpsertRequest> UpsertFromExport(
    v1::Document doc, const v1::Collection& collection);

}  // namespace neardup::cli

#endif  // NEARDUP_CLI_INTERNAL_EXPORT_DUMP_H_
