#include "outcome_codec.h"

#include <algorithm>
#include <numeric>
#include <utility>

#include "neardup/cluster/node_messages.pb.h"

namespace neardup::cluster {
namespace {

namespace pb = ::neardup::cluster::messages;

void BlockingToProto(const engine::MinHashMatch& match, const std::string& id,
                     pb::Blocking* out) {
  out->set_id(id);
  out->set_estimate(match.estimate);
  if (match.exact) out->set_exact(*match.exact);
}

std::pair<engine::MinHashMatch, std::string> BlockingFromProto(
    const pb::Blocking& in) {
  engine::MinHashMatch match;
  match.estimate = in.estimate();
  if (in.has_exact()) match.exact = in.exact();
  return {match, in.id()};
}

}  // namespace

std::string EncodeOutcome(const std::string& append_id,
                          const LoggedWrite& written) {
  pb::WriteOutcome out;
  out.set_append_id(append_id);
  out.set_sequence(written.sequence);
  out.set_written(written.outcome.written);
  out.set_replaced(written.outcome.written && written.outcome.put.replaced);
  for (size_t i = 0;
       i < written.blocking_ids.size() && i < written.outcome.blocking.size();
       ++i) {
    BlockingToProto(written.outcome.blocking[i], written.blocking_ids[i],
                    out.add_blocking());
  }
  out.set_blocking_count(written.blocking_count);
  out.set_failure_code(static_cast<int>(written.failure.code()));
  out.set_failure_message(std::string(written.failure.message()));
  return out.SerializeAsString();
}

absl::StatusOr<std::pair<std::string, LoggedWrite>> DecodeOutcome(
    std::string_view bytes) {
  pb::WriteOutcome in;
  if (!in.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::DataLossError("not a write outcome");
  }
  LoggedWrite written;
  written.sequence = in.sequence();
  written.outcome.written = in.written();
  written.outcome.put.replaced = in.replaced();
  for (const pb::Blocking& one : in.blocking()) {
    auto [match, id] = BlockingFromProto(one);
    written.outcome.blocking.push_back(match);
    written.blocking_ids.push_back(std::move(id));
  }
  written.blocking_count = in.blocking_count();
  if (in.failure_code() != 0) {
    written.failure = absl::Status(
        static_cast<absl::StatusCode>(in.failure_code()), in.failure_message());
  }
  return std::make_pair(in.append_id(), std::move(written));
}

std::string EncodeBlocking(const NamedBlocking& blocking) {
  pb::BlockingFound out;
  for (size_t i = 0; i < blocking.ids.size() && i < blocking.matches.size();
       ++i) {
    BlockingToProto(blocking.matches[i], blocking.ids[i], out.add_blocking());
  }
  out.set_count(blocking.count);
  return out.SerializeAsString();
}

absl::StatusOr<NamedBlocking> DecodeBlocking(std::string_view bytes) {
  pb::BlockingFound in;
  if (!in.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::DataLossError("not a blocking answer");
  }
  NamedBlocking out;
  for (const pb::Blocking& one : in.blocking()) {
    auto [match, id] = BlockingFromProto(one);
    out.matches.push_back(match);
    out.ids.push_back(std::move(id));
  }
  out.count = in.count();
  return out;
}

NamedBlocking MergeBlocking(std::vector<NamedBlocking> parts) {
  std::vector<std::pair<engine::MinHashMatch, std::string>> all;
  NamedBlocking merged;
  for (NamedBlocking& part : parts) {
    merged.count += part.count;
    for (size_t i = 0; i < part.ids.size() && i < part.matches.size(); ++i) {
      all.emplace_back(part.matches[i], std::move(part.ids[i]));
    }
  }
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) {
    return a.first.score() != b.first.score()
               ? a.first.score() > b.first.score()
               : a.second < b.second;
  });
  if (all.size() > kBlockingNamed) all.resize(kBlockingNamed);
  for (auto& [match, id] : all) {
    merged.matches.push_back(match);
    merged.ids.push_back(std::move(id));
  }
  return merged;
}

}  // namespace neardup::cluster
