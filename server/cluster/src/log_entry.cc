#include "neardup/cluster/log_entry.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "neardup/base/absl_compat.h"
#include "neardup/base/status_macros.h"
#include "neardup/cluster/log_entry.pb.h"
#include "neardup/core/shingle_set.h"

namespace neardup::cluster {
namespace {

namespace pb = ::neardup::cluster::log;

absl::Status Corrupt(std::string_view why) {
  return absl::DataLossError(absl::StrCat("log entry: ", AbslView(why)));
}

void DocumentToProto(const engine::PreparedDocument& doc,
                     pb::PreparedDocument* out) {
  out->set_external_id(doc.external_id);
  for (const auto& [key, value] : doc.metadata) {
    pb::MetadataEntry* entry = out->add_metadata();
    entry->set_key(key);
    entry->set_value(value);
  }
  if (doc.text) out->set_text(*doc.text);
  out->set_minhash(doc.minhash.Serialize());
  out->set_minhash_config_hash(doc.minhash_config_hash);
  if (doc.simhash) out->set_simhash(*doc.simhash);
  out->set_simhash_config_hash(doc.simhash_config_hash);
  if (doc.shingles) {
    // 64-bit sets keep the bytes of builds before widths (and their
    // readers); a narrower one says its width, which such a build refuses
    // as a field it does not know.
    const int bits = doc.evidence_bits == 0 ? 64 : doc.evidence_bits;
    out->set_shingle_set(EncodeShingleSet(*doc.shingles, bits));
    if (bits != 64) out->set_evidence_bits(static_cast<uint32_t>(bits));
  }
  for (const KeptValue& kept : doc.kept) {
    pb::KeptValue* entry = out->add_kept();
    entry->set_family(kept.family);
    entry->set_value(kept.value);
    entry->set_config_hash(kept.config_hash);
  }
  if (doc.embedding) {
    out->set_has_embedding(true);
    out->mutable_embedding()->Add(doc.embedding->begin(), doc.embedding->end());
  }
  out->set_embedding_model_id(doc.embedding_model_id);
}

absl::StatusOr<engine::PreparedDocument> DocumentFromProto(
    const pb::PreparedDocument& in) {
  engine::PreparedDocument doc;
  doc.external_id = in.external_id();
  for (const pb::MetadataEntry& entry : in.metadata()) {
    doc.metadata.emplace_back(entry.key(), entry.value());
  }
  if (in.has_text()) doc.text = in.text();
  absl::StatusOr<MinHashSignature> minhash =
      MinHashSignature::Parse(in.minhash());
  if (!minhash.ok()) return Corrupt(StdView(minhash.status().message()));
  doc.minhash = *std::move(minhash);
  doc.minhash_config_hash = in.minhash_config_hash();
  if (in.has_simhash()) doc.simhash = in.simhash();
  doc.simhash_config_hash = in.simhash_config_hash();
  if (in.has_shingle_set()) {
    const uint32_t bits = in.evidence_bits() == 0 ? 64 : in.evidence_bits();
    if (bits != 32 && bits != 64) {
      return Corrupt(absl::StrCat("evidence_bits ", bits));
    }
    doc.evidence_bits = static_cast<int>(bits);
    if (absl::Status decoded = DecodeShingleSet(
            in.shingle_set(), &doc.shingles.emplace(), doc.evidence_bits);
        !decoded.ok()) {
      return Corrupt(StdView(decoded.message()));
    }
  }
  for (const pb::KeptValue& kept : in.kept()) {
    doc.kept.push_back({kept.family(), kept.value(), kept.config_hash()});
  }
  if (in.has_embedding()) {
    doc.embedding.emplace(in.embedding().begin(), in.embedding().end());
  }
  doc.embedding_model_id = in.embedding_model_id();
  return doc;
}

}  // namespace

absl::StatusOr<std::string> EncodeLogEntry(const LogEntry& entry) {
  if (entry.upsert.has_value() == entry.delete_id.has_value()) {
    return absl::InvalidArgumentError(
        "a log entry is exactly one upsert or one delete");
  }
  if (entry.delete_id.has_value() && entry.insert_only_below.has_value()) {
    return absl::InvalidArgumentError(
        "insert_only_below is of upserts, not deletes");
  }
  pb::LogEntry message;
  message.set_collection(entry.collection);
  message.set_append_id(entry.append_id);
  if (entry.insert_only_below) {
    message.set_insert_only_below(*entry.insert_only_below);
  }
  message.set_unix_micros(entry.unix_micros);
  message.set_outcome_subject(entry.outcome_subject);
  if (entry.upsert) {
    DocumentToProto(*entry.upsert, message.mutable_upsert());
  } else {
    message.set_delete_id(*entry.delete_id);
  }
  // Deterministic: the same entry is the same bytes on every node.
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    message.SerializeToCodedStream(&coded);
  }
  return bytes;
}

absl::StatusOr<LogEntry> DecodeLogEntry(std::string_view bytes) {
  pb::LogEntry message;
  if (!message.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return Corrupt("not a valid protobuf message");
  }
  // A field this build does not know would be dropped, and the replica
  // would apply less than its peers of a newer build.
  if (!message.GetReflection()->GetUnknownFields(message).empty() ||
      (message.has_upsert() && !message.upsert()
                                    .GetReflection()
                                    ->GetUnknownFields(message.upsert())
                                    .empty())) {
    return Corrupt("it has fields this build does not know (a newer writer)");
  }
  LogEntry entry;
  entry.collection = message.collection();
  entry.append_id = message.append_id();
  if (message.has_insert_only_below()) {
    entry.insert_only_below = message.insert_only_below();
  }
  entry.unix_micros = message.unix_micros();
  entry.outcome_subject = message.outcome_subject();
  switch (message.op_case()) {
    case pb::LogEntry::kUpsert: {
      ASSIGN_OR_RETURN(entry.upsert, DocumentFromProto(message.upsert()));
      break;
    }
    case pb::LogEntry::kDeleteId:
      entry.delete_id = message.delete_id();
      break;
    case pb::LogEntry::OP_NOT_SET:
      return Corrupt("no operation (or one of a newer writer)");
  }
  return entry;
}

}  // namespace neardup::cluster
