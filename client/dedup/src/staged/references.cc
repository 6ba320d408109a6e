// Reference parts: an earlier staged run's signatures part (its kept
// documents comparable, the others not), or a neardupd export dump's
// documents by the signatures it carries.

#include "staged/references.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string_view>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "neardup/base/absl_compat.h"
#include "neardup/base/json.h"
#include "neardup/base/status_macros.h"
#include "neardup/core/config_hash.h"
#include "neardup/core/minhash.h"
#include "neardup/core/shingle_set.h"
#include "staged/part_writer.h"
#include "staged/stage_context.h"
#include "staged/staged_files.h"

namespace neardup::dedup::staged {
namespace {

std::string Hex(uint64_t value) {
  return absl::StrCat(absl::Hex(value, absl::kZeroPad16));
}

absl::StatusOr<nlohmann::json> ReadJson(const std::string& path) {
  ASSIGN_OR_RETURN(const std::string text, ReadTextFile(path));
  nlohmann::json json = nlohmann::json::parse(text, nullptr, false);
  if (!json.is_object()) {
    return absl::DataLossError(absl::StrCat(path, " is not a JSON object"));
  }
  return json;
}

// [task * keys / tasks, (task + 1) * keys / tasks): as StageContext's.
std::pair<int, int> KeyRangeOf(int keys, int task, int tasks) {
  return {static_cast<int>(int64_t{keys} * task / tasks),
          static_cast<int>(int64_t{keys} * (task + 1) / tasks)};
}

absl::Status WriteEmptyHeader(const StageContext& context, int part) {
  ASSIGN_OR_RETURN(
      FileWriter out,
      FileWriter::Create(context.PartPath(part, ".header"), FileKind::kHeader));
  return out.Commit();
}

// `generation`: of the reference run's clusters stage the part's kept
// documents come from (empty for a dump).
nlohmann::ordered_json ReferenceManifest(const StageContext& context,
                                         const ReferencePart& ref,
                                         uint64_t docs, uint64_t counted,
                                         const std::string& generation) {
  return {{"files", nlohmann::ordered_json::array()},
          {"reference", ref.source},
          {"reference_part", ref.part},
          {"reference_generation", generation},
          {"layout", PartLayout(context)},
          {"docs", docs},
          {"reference_docs", counted},
          {"empty", 0},
          {"invalid", 0},
          {"input_bytes", 0},
          {"checksum", ""}};
}

// Part `ref.part` of the run in `ref.source`: its files as they are (hard
// links where the filesystem allows), but its documents that run removed
// are made not comparable, and its band tags are cut for this run's
// buckets tasks.
absl::Status TakeRunPart(const StageContext& context, int part,
                         const ReferencePart& ref) {
  const std::string from =
      absl::StrCat(ref.source, "/signatures/part-", ref.part);
  const std::string named = absl::StrCat("--reference ", ref.source);
  ASSIGN_OR_RETURN(const nlohmann::json manifest,
                   ReadJson(absl::StrCat(ref.source, "/signatures/task-",
                                         ref.part, ".json")));
  // Before the config hash, which mixes the width in: the clearer word.
  if (context.exact() &&
      manifest.value("evidence_bits", 64) != context.options().evidence_bits) {
    return absl::FailedPreconditionError(absl::StrCat(
        named, " kept shingle sets of ", manifest.value("evidence_bits", 64),
        "-bit hashes; this run compares ", context.options().evidence_bits,
        "-bit ones: give the same --evidence-bits"));
  }
  if (manifest.value("config_hash", "") != Hex(context.config_hash())) {
    return absl::FailedPreconditionError(absl::StrCat(
        named, " was fingerprinted with other settings (config hash ",
        manifest.value("config_hash", "?"), "; this run's ",
        Hex(context.config_hash()),
        "): dedup with the options that run was given"));
  }
  const nlohmann::json layout = manifest.value("layout", nlohmann::json());
  if (!layout.is_object()) {
    return absl::FailedPreconditionError(
        absl::StrCat(named,
                     " was made by an older neardup: run its "
                     "signatures stage again"));
  }
  if (!context.simhash() && (layout.value("bands", 0) != context.lsh().bands ||
                             layout.value("rows", 0) != context.lsh().rows)) {
    return absl::FailedPreconditionError(absl::StrCat(
        named, " banded its signatures as ", layout.value("bands", 0), " x ",
        layout.value("rows", 0), "; this run bands them as ",
        context.lsh().bands, " x ", context.lsh().rows,
        " (--threshold, --bands and --verification choose them): give the "
        "same ones"));
  }
  const bool need_slots = !context.simhash() && !context.exact();
  for (const auto& [suffix, needed] :
       {std::pair<std::string, bool>{".sets", context.exact()},
        {".setidx", context.exact()},
        {".slots", need_slots}}) {
    if (!needed) continue;
    std::error_code error;
    if (!std::filesystem::exists(from + suffix, error)) {
      return absl::FailedPreconditionError(
          absl::StrCat(named, " has no ", from, suffix,
                       ": it ran with another "
                       "--verification than this run's ",
                       AbslView(VerifyName(context.options().verify))));
    }
    RETURN_IF_ERROR(
        LinkOrCopyFile(from + suffix, context.PartPath(part, suffix)));
  }

  // Its keep-first decisions, of these signatures.
  const std::string clusters_manifest =
      absl::StrCat(ref.source, "/clusters/task-0.json");
  absl::StatusOr<nlohmann::json> clusters = ReadJson(clusters_manifest);
  if (!clusters.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat(named, ": its clusters stage is not done (",
                     clusters.status().message(),
                     "): which of its documents it keeps is not known yet"));
  }
  const nlohmann::json read = clusters->value("inputs", nlohmann::json());
  const std::string key = absl::StrCat("signatures/task-", ref.part);
  if (!read.is_object() ||
      read.value(key, "") != manifest.value("generation", "")) {
    return absl::FailedPreconditionError(absl::StrCat(
        named, ": its signatures part ", ref.part,
        " was made again after its clusters stage; run that run to its end "
        "first"));
  }
  ASSIGN_OR_RETURN(
      FileReader keep,
      FileReader::Open(absl::StrCat(ref.source, "/clusters/keep-", ref.part),
                       FileKind::kKeep));
  ASSIGN_OR_RETURN(FileReader docs_in,
                   FileReader::Open(from + ".docs", FileKind::kDocs));
  ASSIGN_OR_RETURN(
      FileWriter docs_out,
      FileWriter::Create(context.PartPath(part, ".docs"), FileKind::kDocs));
  std::vector<bool> counted;
  uint64_t kept = 0;
  DocEntry entry;
  uint8_t bits = 0;
  for (uint64_t local = 0;; ++local) {
    ASSIGN_OR_RETURN(const bool got, docs_in.Get(&entry));
    if (!got) break;
    if (local % 8 == 0) {
      ASSIGN_OR_RETURN(const bool more, keep.Get(&bits));
      if (!more) return absl::DataLossError(keep.path() + " is cut short");
    }
    const bool ok =
        entry.kind == static_cast<uint32_t>(DocFingerprint::Kind::kOk);
    const bool keeps = ok && (bits >> (local % 8) & 1);
    // Removed there: compared with nothing here (a document near it but
    // not near a kept one is not a duplicate of that corpus).
    if (ok && !keeps)
      entry.kind = static_cast<uint32_t>(DocFingerprint::Kind::kEmpty);
    counted.push_back(keeps);
    kept += keeps;
    RETURN_IF_ERROR(docs_out.Put(entry));
  }
  const uint64_t docs = counted.size();
  if (docs != manifest.value("docs", uint64_t{0})) {
    return absl::DataLossError(absl::StrCat(from, ".docs holds ", docs,
                                            " records; its manifest says ",
                                            manifest.value("docs", 0)));
  }

  if (!context.simhash()) {
    // Its tag files, read side by side: each holds its bands of every
    // comparable document, in the same order.
    const int bands = context.lsh().bands;
    const int theirs = layout.value("tag_files", 0);
    std::vector<std::pair<FileReader, std::pair<int, int>>> in;
    for (int t = 0; t < theirs; ++t) {
      const auto range = KeyRangeOf(bands, t, theirs);
      if (range.first == range.second) continue;
      ASSIGN_OR_RETURN(FileReader reader,
                       FileReader::Open(absl::StrCat(from, ".tags-", t),
                                        FileKind::kBandTags));
      in.emplace_back(std::move(reader), range);
    }
    std::vector<FileWriter> out;
    for (int task = 0; task < context.run().tasks; ++task) {
      ASSIGN_OR_RETURN(FileWriter writer,
                       FileWriter::Create(
                           context.PartPath(part, absl::StrCat(".tags-", task)),
                           FileKind::kBandTags));
      out.push_back(std::move(writer));
    }
    std::vector<uint32_t> tags(bands);
    while (!in.empty()) {
      uint64_t local = 0;
      TwinKey twin;
      bool ended = false;
      for (size_t i = 0; i < in.size(); ++i) {
        FileReader& reader = in[i].first;
        const auto [begin, end] = in[i].second;
        uint64_t their_local;
        ASSIGN_OR_RETURN(const bool got, reader.Get(&their_local));
        if (i == 0) {
          ended = !got;
          local = their_local;
        }
        if (got != !ended || (got && their_local != local)) {
          return absl::DataLossError(absl::StrCat(
              from, "'s tag files do not list the same documents"));
        }
        if (ended) continue;
        ASSIGN_OR_RETURN(bool whole, reader.Get(&twin));
        if (whole) {
          ASSIGN_OR_RETURN(whole,
                           reader.Read(tags.data() + begin,
                                       (end - begin) * sizeof(uint32_t)));
        }
        if (!whole || local >= docs) {
          return absl::DataLossError(reader.path() + " is damaged");
        }
      }
      if (ended) break;
      if (!counted[local]) continue;
      for (int task = 0; task < context.run().tasks; ++task) {
        const auto [begin, end] = context.KeyRange(task);
        if (begin == end) continue;
        RETURN_IF_ERROR(out[task].Put(local));
        RETURN_IF_ERROR(out[task].Put(twin));
        RETURN_IF_ERROR(out[task].Write(tags.data() + begin,
                                        (end - begin) * sizeof(uint32_t)));
      }
    }
    for (FileWriter& writer : out) RETURN_IF_ERROR(writer.Commit());
  }
  RETURN_IF_ERROR(docs_out.Commit());
  RETURN_IF_ERROR(WriteEmptyHeader(context, part));
  // Decided again while read: what was read may mix two decisions.
  const std::string generation = clusters->value("generation", "");
  absl::StatusOr<nlohmann::json> after = ReadJson(clusters_manifest);
  if (!after.ok() || after->value("generation", "") != generation) {
    return absl::FailedPreconditionError(absl::StrCat(
        named, " was decided again while this task read it; run it again"));
  }
  return context.WriteManifest(
      Stage::kSignatures, part,
      ReferenceManifest(context, ref, docs, kept, generation));
}

// What one line of a dump says, or why it cannot be used.
absl::Status FromDumpLine(const StageContext& context, std::string_view line,
                          DocFingerprint* print, std::vector<uint64_t>* set) {
  const nlohmann::json doc = nlohmann::json::parse(line, nullptr, false);
  if (!doc.is_object() || !doc.contains("neardup_export")) {
    return absl::InvalidArgumentError(
        "is not a line of `neardup export` (a JSON object with "
        "\"neardup_export\")");
  }
  const nlohmann::json sigs = doc.value("signatures", nlohmann::json());
  if (!sigs.is_object()) {
    return absl::InvalidArgumentError(
        "has no signatures: export with --with-signatures");
  }
  const auto hash_of = [&](const char* field) -> absl::StatusOr<uint64_t> {
    if (!sigs.contains(field) || !sigs[field].is_string()) {
      return absl::InvalidArgumentError(absl::StrCat("has no \"", field, "\""));
    }
    return ParseHex64(sigs[field].get<std::string>());
  };
  const auto same = [&](const char* field, uint64_t ours) -> absl::Status {
    ASSIGN_OR_RETURN(const uint64_t theirs, hash_of(field));
    if (theirs == ours) return absl::OkStatus();
    return absl::FailedPreconditionError(absl::StrCat(
        "has ", field, " ", Hex(theirs), "; this run's is ", Hex(ours),
        ": the collection fingerprints with other settings (tokenizer, "
        "shingles, num_perm, seed, canonicalizer): dedup with its settings"));
  };
  print->kind = DocFingerprint::Kind::kOk;
  if (context.simhash()) {
    RETURN_IF_ERROR(
        same("simhash_config_hash", context.signature_config_hash()));
    ASSIGN_OR_RETURN(print->simhash, hash_of("simhash"));
  } else {
    RETURN_IF_ERROR(
        same("minhash_config_hash", context.signature_config_hash()));
    std::string bytes;
    if (!sigs.contains("minhash") || !sigs["minhash"].is_string() ||
        !absl::Base64Unescape(sigs["minhash"].get<std::string>(), &bytes)) {
      return absl::InvalidArgumentError("has no base64 \"minhash\"");
    }
    ASSIGN_OR_RETURN(print->minhash, MinHashSignature::Parse(bytes));
    if (print->minhash.num_perm() != context.options().fingerprint.num_perm) {
      return absl::FailedPreconditionError(absl::StrCat(
          "has ", print->minhash.num_perm(), " MinHash slots; this run has ",
          context.options().fingerprint.num_perm));
    }
  }
  set->clear();
  if (context.exact()) {
    // The shingle set is made by the MinHash config, in either method.
    RETURN_IF_ERROR(same("minhash_config_hash", context.minhash_config_hash()));
    std::string bytes;
    if (!sigs.contains("shingle_set") || !sigs["shingle_set"].is_string() ||
        !absl::Base64Unescape(sigs["shingle_set"].get<std::string>(), &bytes)) {
      return absl::InvalidArgumentError(
          "has no shingle set, which exact verification needs (the "
          "collection verifies by estimate, or the export left it out for "
          "its size): use --verification estimate");
    }
    // Absent: 64 bits (every dump before collections had a width).
    const int ours = context.options().evidence_bits;
    int theirs = 64;
    if (sigs.contains("evidence_bits")) {
      const nlohmann::json& bits = sigs["evidence_bits"];
      if (!bits.is_number_unsigned() ||
          !ValidEvidenceBits(static_cast<int>(
              std::min<uint64_t>(bits.get<uint64_t>(), 1000)))) {
        return absl::InvalidArgumentError(absl::StrCat(
            "has \"evidence_bits\" ", bits.dump(), ": must be 32 or 64"));
      }
      theirs = static_cast<int>(bits.get<uint64_t>());
    }
    if (theirs != ours) {
      return absl::FailedPreconditionError(absl::StrCat(
          "has shingle sets of ", theirs,
          "-bit hashes (the collection's evidence_bits); this run compares ",
          ours, "-bit ones: dedup with --evidence-bits ", theirs,
          theirs == 64 ? " (the default)" : "",
          ", give the collection's texts as input, or verify by estimate "
          "(--verification estimate, without --evidence-bits)"));
    }
    RETURN_IF_ERROR(DecodeShingleSet(bytes, set, theirs));
  }
  print->token_set = std::span<uint64_t>(*set);
  return absl::OkStatus();
}

absl::Status TakeDump(const StageContext& context, int part,
                      const ReferencePart& ref) {
  std::ifstream in(ref.source, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat("cannot read --reference ", ref.source));
  }
  ASSIGN_OR_RETURN(PartWriter writer, PartWriter::Create(context, part));
  DocFingerprint print;
  std::vector<uint64_t> set;
  std::string line;
  uint64_t docs = 0;
  for (uint64_t number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    absl::Status status = FromDumpLine(context, line, &print, &set);
    if (!status.ok()) {
      return absl::Status(status.code(),
                          absl::StrCat("--reference ", ref.source, ":", number,
                                       ": ", status.message()));
    }
    RETURN_IF_ERROR(writer.Add(docs++, 0, print));
  }
  if (in.bad()) {
    return absl::DataLossError(absl::StrCat("cannot read ", ref.source));
  }
  RETURN_IF_ERROR(writer.Commit());
  RETURN_IF_ERROR(WriteEmptyHeader(context, part));
  return context.WriteManifest(Stage::kSignatures, part,
                               ReferenceManifest(context, ref, docs, docs, ""));
}

}  // namespace

absl::StatusOr<std::vector<ReferencePart>> ListReferenceParts(
    const DedupOptions& options) {
  std::vector<ReferencePart> parts;
  for (const std::string& source : options.references) {
    std::error_code error;
    const std::filesystem::file_status status =
        std::filesystem::status(source, error);
    if (std::filesystem::is_regular_file(status)) {
      if (options.algorithm == Algorithm::kPerceptual ||
          (options.algorithm == Algorithm::kSimHash &&
           options.simhash_variant != SimHashVariant::kTxtfp)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--reference ", source,
            ": a dump holds a collection's MinHash and txtfp SimHash; this "
            "method (perceptual, or newsbot's SimHash) cannot use them: give "
            "a staged run of the collection's texts as the reference"));
      }
      parts.push_back({source, true, 0});
      continue;
    }
    if (!std::filesystem::is_directory(status)) {
      return absl::NotFoundError(absl::StrCat(
          "--reference ", source,
          " is neither a staged run's work directory nor a dump file"));
    }
    const std::string path = absl::StrCat(source, "/signatures/task-0.json");
    absl::StatusOr<nlohmann::json> manifest = ReadJson(path);
    if (!manifest.ok()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "--reference ", source,
          " is not the work directory of a staged run whose signatures "
          "stage is done (",
          manifest.status().message(), ")"));
    }
    const nlohmann::json tasks = manifest->value("tasks", nlohmann::json());
    if (!tasks.is_number_integer() || tasks.get<int64_t>() < 1 ||
        tasks.get<int64_t>() > 1 << 20) {
      return absl::DataLossError(path + " names no tasks");
    }
    for (int part = 0; part < tasks.get<int>(); ++part) {
      parts.push_back({source, false, part});
    }
  }
  return parts;
}

absl::Status RunReferenceTask(const StageContext& context, int part) {
  ASSIGN_OR_RETURN(const std::vector<ReferencePart> parts,
                   ListReferenceParts(context.options()));
  if (static_cast<int>(parts.size()) != context.reference_parts()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the references make ", parts.size(),
        " signatures parts now; the run was planned with ",
        context.reference_parts(),
        ": a reference run was planned again since (use a new --work-dir)"));
  }
  const ReferencePart& ref = parts[part];
  RETURN_IF_ERROR(MakeDirectories(context.Dir(Stage::kSignatures)));
  absl::Status status;
  try {
    status = ref.dump ? TakeDump(context, part, ref)
                      : TakeRunPart(context, part, ref);
  } catch (const nlohmann::json::exception& e) {
    status = absl::DataLossError(absl::StrCat(
        "a manifest of --reference ", ref.source, " is damaged: ", e.what()));
  }
  if (!status.ok() && !absl::StartsWith(status.message(), "--reference ")) {
    return absl::Status(status.code(), absl::StrCat("--reference ", ref.source,
                                                    ": ", status.message()));
  }
  return status;
}

}  // namespace neardup::dedup::staged
