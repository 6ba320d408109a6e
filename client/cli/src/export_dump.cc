#include "neardup/cli/internal/export_dump.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "embedding_input.h"
#include "neardup/base/absl_compat.h"
#include "neardup/base/json.h"
#include "neardup/base/status_macros.h"
#include "neardup/core/tlsh.h"
#include "neardup/proto/kept_proto.h"

namespace neardup::cli {
namespace {

constexpr char kMarker[] = "neardup_export";

std::string Hex64(uint64_t value) { return absl::StrFormat("%016x", value); }

absl::StatusOr<uint64_t> ParseHex64(const nlohmann::json& value,
                                    std::string_view field) {
  uint64_t out = 0;
  if (!value.is_string() || value.get<std::string>().size() != 16 ||
      !absl::SimpleHexAtoi(value.get<std::string>(), &out)) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", AbslView(field), "\" must be 16 hex digits"));
  }
  return out;
}

absl::StatusOr<nlohmann::json> ParseObject(std::string_view line) {
  nlohmann::json json =
      nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) {
    return absl::InvalidArgumentError("not a JSON object");
  }
  return json;
}

// signatures.kept, and "tlsh" + "tlsh_config_hash" as dumps before kept
// families wrote them; set in both of the API's spellings, so a server
// before kept families keeps the TLSH too.
absl::Status KeptFromJson(const nlohmann::json& sigs, v1::Signatures* out) {
  std::vector<KeptValue> values;
  if (sigs.contains("kept")) {
    const nlohmann::json& kept = sigs["kept"];
    if (!kept.is_object()) {
      return absl::InvalidArgumentError(
          "\"kept\" must be an object of family -> {value, config_hash}");
    }
    for (const auto& [family, entry] : kept.items()) {
      if (!entry.is_object() || !entry.contains("value") ||
          !entry["value"].is_string()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "kept \"", family, "\" must be an object with a string \"value\""));
      }
      ASSIGN_OR_RETURN(
          const uint64_t config_hash,
          ParseHex64(entry.value("config_hash", nlohmann::json()),
                     absl::StrCat("kept \"", family, "\" config_hash")));
      values.push_back(
          {family, entry["value"].get<std::string>(), config_hash});
    }
  }
  if (sigs.contains("tlsh")) {
    if (!sigs["tlsh"].is_string()) {
      return absl::InvalidArgumentError("\"tlsh\" must be a string");
    }
    ASSIGN_OR_RETURN(
        const uint64_t config_hash,
        ParseHex64(sigs.value("tlsh_config_hash", nlohmann::json()),
                   "tlsh_config_hash"));
    const bool listed = std::any_of(
        values.begin(), values.end(),
        [](const KeptValue& v) { return v.family == kTlshFamily.name; });
    if (!listed) {
      values.push_back({std::string(kTlshFamily.name),
                        sigs["tlsh"].get<std::string>(), config_hash});
    }
  }
  proto::KeptToProto(values, out);
  return absl::OkStatus();
}

}  // namespace

std::string EncodeExportLine(const v1::Document& doc) {
  nlohmann::ordered_json line;
  line[kMarker] = 1;
  line["id"] = doc.id();
  nlohmann::ordered_json metadata = nlohmann::ordered_json::object();
  // Sorted: the same document always gives the same line.
  std::map<std::string, std::string> sorted(doc.metadata().begin(),
                                            doc.metadata().end());
  for (const auto& [key, value] : sorted) metadata[key] = value;
  line["metadata"] = std::move(metadata);
  if (!doc.text().empty()) line["text"] = doc.text();
  if (doc.has_signatures()) {
    const v1::Signatures& sigs = doc.signatures();
    nlohmann::ordered_json out;
    out["minhash"] = absl::Base64Escape(sigs.minhash());
    out["minhash_config_hash"] = Hex64(sigs.minhash_config_hash());
    if (sigs.has_simhash()) {
      out["simhash"] = Hex64(sigs.simhash());
      out["simhash_config_hash"] = Hex64(sigs.simhash_config_hash());
    }
    if (!sigs.shingle_set().empty()) {
      out["shingle_set"] = absl::Base64Escape(sigs.shingle_set());
      // Absent means 64: the dumps of builds before the width.
      if (sigs.evidence_bits() != 0 && sigs.evidence_bits() != 64) {
        out["evidence_bits"] = sigs.evidence_bits();
      }
    }
    // {"tlsh": {"value": "T1...", "config_hash": "..."}}: one entry per
    // kept family (a server before kept families sent tlsh alone). TLSH
    // also under the keys an older neardup's import reads.
    nlohmann::ordered_json kept = nlohmann::ordered_json::object();
    for (const KeptValue& value : proto::KeptFromProto(sigs)) {
      kept[value.family] = {{"value", value.value},
                            {"config_hash", Hex64(value.config_hash)}};
      if (value.family == kTlshFamily.name) {
        out["tlsh"] = value.value;
        out["tlsh_config_hash"] = Hex64(value.config_hash);
      }
    }
    if (!kept.empty()) out["kept"] = std::move(kept);
    line["signatures"] = std::move(out);
  }
  if (doc.has_embedding()) {
    nlohmann::ordered_json embedding;
    embedding["model_id"] = doc.embedding().model_id();
    embedding["values"] = std::vector<float>(doc.embedding().values().begin(),
                                             doc.embedding().values().end());
    line["embedding"] = std::move(embedding);
  }
  return ToJsonText(line);
}

bool IsExportLine(std::string_view line) {
  auto json = ParseObject(line);
  return json.ok() && json->contains(kMarker);
}

absl::StatusOr<v1::Document> DecodeExportLine(std::string_view line) {
  auto parsed = ParseObject(line);
  if (!parsed.ok()) return parsed.status();
  const nlohmann::json& json = *parsed;
  if (!json.contains(kMarker)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "not a line of `neardup export` (no \"", kMarker, "\" key)"));
  }
  v1::Document doc;
  if (!json.contains("id") || !json["id"].is_string()) {
    return absl::InvalidArgumentError("\"id\" must be a string");
  }
  doc.set_id(json["id"].get<std::string>());
  if (json.contains("metadata")) {
    const nlohmann::json& metadata = json["metadata"];
    if (!metadata.is_object()) {
      return absl::InvalidArgumentError("\"metadata\" must be an object");
    }
    for (const auto& [key, value] : metadata.items()) {
      if (!value.is_string()) {
        return absl::InvalidArgumentError(
            absl::StrCat("metadata \"", key, "\" must be a string"));
      }
      (*doc.mutable_metadata())[key] = value.get<std::string>();
    }
  }
  if (json.contains("text")) {
    if (!json["text"].is_string()) {
      return absl::InvalidArgumentError("\"text\" must be a string");
    }
    doc.set_text(json["text"].get<std::string>());
  }
  if (json.contains("signatures")) {
    const nlohmann::json& sigs = json["signatures"];
    if (!sigs.is_object() || !sigs.contains("minhash") ||
        !sigs["minhash"].is_string()) {
      return absl::InvalidArgumentError(
          "\"signatures\" must be an object with a base64 \"minhash\"");
    }
    v1::Signatures* out = doc.mutable_signatures();
    std::string minhash;
    if (!absl::Base64Unescape(sigs["minhash"].get<std::string>(), &minhash)) {
      return absl::InvalidArgumentError("\"minhash\" is not base64");
    }
    out->set_minhash(std::move(minhash));
    auto hash = ParseHex64(sigs.value("minhash_config_hash", nlohmann::json()),
                           "minhash_config_hash");
    if (!hash.ok()) return hash.status();
    out->set_minhash_config_hash(*hash);
    if (sigs.contains("simhash")) {
      auto simhash = ParseHex64(sigs["simhash"], "simhash");
      if (!simhash.ok()) return simhash.status();
      auto simhash_config =
          ParseHex64(sigs.value("simhash_config_hash", nlohmann::json()),
                     "simhash_config_hash");
      if (!simhash_config.ok()) return simhash_config.status();
      out->set_simhash(*simhash);
      out->set_simhash_config_hash(*simhash_config);
    }
    if (sigs.contains("shingle_set")) {
      std::string shingle_set;
      if (!sigs["shingle_set"].is_string() ||
          !absl::Base64Unescape(sigs["shingle_set"].get<std::string>(),
                                &shingle_set)) {
        return absl::InvalidArgumentError("\"shingle_set\" is not base64");
      }
      out->set_shingle_set(std::move(shingle_set));
      if (sigs.contains("evidence_bits")) {
        const nlohmann::json& bits = sigs["evidence_bits"];
        if (!bits.is_number_unsigned() ||
            (bits.get<uint64_t>() != 32 && bits.get<uint64_t>() != 64)) {
          return absl::InvalidArgumentError(
              "\"evidence_bits\" must be 32 or 64");
        }
        out->set_evidence_bits(bits.get<uint32_t>());
      }
    }
    RETURN_IF_ERROR(KeptFromJson(sigs, out));
  }
  if (json.contains("embedding")) {
    const nlohmann::json& embedding = json["embedding"];
    if (!embedding.is_object() || !embedding.contains("model_id") ||
        !embedding["model_id"].is_string()) {
      return absl::InvalidArgumentError(
          "\"embedding\" must be an object with a string \"model_id\" and an "
          "array of numbers \"values\"");
    }
    auto parsed = EmbeddingFromJson(embedding, "", "\"embedding\"");
    if (!parsed.ok()) return parsed.status();
    *doc.mutable_embedding() = *std::move(parsed);
  }
  return doc;
}

absl::StatusOr<v1::UpsertRequest> UpsertFromExport(
    v1::Document doc, const v1::Collection& collection) {
  v1::UpsertRequest request;
  request.set_collection(collection.name());
  request.set_id(doc.id());
  *request.mutable_metadata() = doc.metadata();
  // The vector goes with either, into a collection with a space (which
  // checks its model); one without takes none.
  if (doc.has_embedding() && collection.config().has_embedding()) {
    *request.mutable_embedding() = doc.embedding();
  }
  // Text first: under the same config it gives the same signatures, and
  // also the exact evidence (and stored text) that signatures alone lack.
  if (!doc.text().empty()) {
    request.set_text(doc.text());
    return request;
  }
  if (!doc.has_signatures()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "document \"", doc.id(),
        "\" has neither text nor signatures: export from a collection that "
        "stores text, or with --with-signatures"));
  }
  const v1::Signatures& sigs = doc.signatures();
  const bool simhash_matches =
      collection.simhash_config_hash() == 0 ||
      (sigs.has_simhash() &&
       sigs.simhash_config_hash() == collection.simhash_config_hash());
  if (sigs.minhash_config_hash() != collection.minhash_config_hash() ||
      !simhash_matches) {
    return absl::InvalidArgumentError(absl::StrCat(
        "document \"", doc.id(), "\" has signatures of config ",
        Hex64(sigs.minhash_config_hash()), " but collection \"",
        collection.name(), "\" has config ",
        Hex64(collection.minhash_config_hash()),
        (simhash_matches ? "" : " (or another SimHash config)"),
        ", and no text to fingerprint again: ingest into a collection "
        "created with the exported one's config, or export from one that "
        "stores text"));
  }
  v1::Signatures* out = request.mutable_signatures();
  *out = sigs;
  if (collection.simhash_config_hash() == 0) {  // not kept by the target
    out->clear_simhash();
    out->set_simhash_config_hash(0);
  }
  return request;
}

}  // namespace neardup::cli
