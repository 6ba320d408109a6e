// ClusterNode's writes: entries appended to the shard of their document,
// dedup-on-write across shards, and each write's outcome back to its
// writer.

#include <algorithm>
#include <numeric>
#include <string_view>
#include <unordered_set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "hosted.h"
#include "neardup/base/absl_compat.h"
#include "neardup/base/status_macros.h"
#include "neardup/cluster/cluster_node.h"
#include "neardup/cluster/log_entry.h"
#include "neardup/cluster/node_messages.pb.h"
#include "outcome_codec.h"

namespace neardup::cluster {
namespace {

// How long a writer waits for the outcome another shard sends before it
// asks that shard for it.
constexpr absl::Duration kOutcomeWait = absl::Seconds(2);

}  // namespace

absl::StatusOr<uint64_t> ClusterNode::AppendUntil(
    std::string_view collection, const std::string& subject,
    const std::string& bytes, const std::string& append_id, absl::Time deadline,
    std::optional<uint64_t> expected_last_sequence) {
  while (true) {
    // No attempt outlasts the deadline: the caller answers UNAVAILABLE in
    // time, not its client's deadline first.
    const absl::Time start = absl::Now();
    const absl::Duration left = deadline - start;
    absl::StatusOr<Appended> appended =
        log_->Append(subject, bytes,
                     {.expected_last_sequence = expected_last_sequence,
                      .append_id = append_id,
                      .timeout = std::max(left, absl::Milliseconds(1))});
    if (options_.on_append) {
      options_.on_append(absl::Now() - start, appended.ok());
    }
    // A conditional append the log refused is no failure of the log.
    const bool refused = absl::IsFailedPrecondition(appended.status());
    if (options_.on_warning && !appended.ok() && !refused &&
        !append_failing_.exchange(true)) {
      options_.on_warning(absl::StrCat("appending to the log of \"",
                                       AbslView(collection),
                                       "\" fails (retried until the write's "
                                       "deadline): ",
                                       appended.status().ToString()));
    } else if (appended.ok() && append_failing_.exchange(false) &&
               options_.on_warning) {
      options_.on_warning("appending to the log works again");
    }
    if (appended.ok()) return appended->sequence;
    if (!absl::IsUnavailable(appended.status()) ||
        deadline - absl::Now() < absl::Milliseconds(150)) {
      return appended.status();
    }
    absl::SleepFor(absl::Milliseconds(100));  // a leader is being elected
  }
}

size_t ClusterNode::PlainRunEnd(const std::vector<LogEntry>& entries,
                                const std::vector<bool>& encoded,
                                size_t begin) {
  constexpr size_t kMaxRun = 1024;
  std::unordered_set<std::string_view> ids;
  size_t end = begin;
  for (; end < entries.size() && end - begin < kMaxRun; ++end) {
    if (!encoded[end]) continue;
    if (entries[end].insert_only_below) break;
    if (!ids.insert(IdOf(entries[end])).second) break;
  }
  return end;
}

void ClusterNode::AppendRun(Hosted& hosted,
                            const std::vector<LogEntry>& entries,
                            const std::vector<std::string>& bytes,
                            const std::vector<bool>& encoded, size_t begin,
                            size_t end, absl::Time deadline,
                            std::vector<Appending>& appends) {
  std::vector<size_t> at;
  std::vector<std::string> subjects;
  for (size_t k = begin; k < end; ++k) {
    if (!encoded[k]) continue;
    at.push_back(k);
    subjects.push_back(
        SubjectOf(hosted.name, ShardOf(IdOf(entries[k]), hosted.shards)));
  }
  // Room to answer before the write's deadline, as AppendUntil leaves.
  const absl::Time give_up = deadline - absl::Milliseconds(150);
  // Sent together, each round waiting no longer than one append would; the
  // ones without an acknowledgement (a leader being elected, an answer lost
  // with its server) are sent again together under the same append ids
  // (stored once either way) until acknowledged or out of time.
  std::vector<size_t> pending(at.size());
  std::iota(pending.begin(), pending.end(), 0);
  bool first_round = true;
  while (!pending.empty()) {
    if (!first_round) {
      if (absl::Now() + absl::Milliseconds(100) >= give_up) break;
      absl::SleepFor(absl::Milliseconds(100));
    }
    first_round = false;
    std::vector<AppendItem> items;
    for (size_t j : pending) {
      items.push_back({.subject = subjects[j],
                       .data = bytes[at[j]],
                       .append_id = entries[at[j]].append_id});
    }
    const absl::Time start = absl::Now();
    const std::vector<absl::StatusOr<Appended>> acked = log_->AppendMany(
        items, std::max(std::min(give_up, start + options_.log.request_timeout),
                        start + absl::Milliseconds(1)));
    const absl::Duration took = absl::Now() - start;
    std::vector<size_t> still;
    absl::Status failed;  // the round's first failure of the log
    bool any_stored = false;
    for (size_t p = 0; p < pending.size(); ++p) {
      const size_t j = pending[p];
      // One observation per item: its wait was the round's.
      if (options_.on_append) options_.on_append(took, acked[p].ok());
      if (acked[p].ok()) {
        appends[at[j]].sequence = acked[p]->sequence;
        any_stored = true;
        continue;
      }
      appends[at[j]].sequence = acked[p].status();
      if (absl::IsUnavailable(acked[p].status())) still.push_back(j);
      // An entry refused for itself (too large) is no failure of the log.
      if (failed.ok() && !absl::IsInvalidArgument(acked[p].status())) {
        failed = acked[p].status();
      }
    }
    if (options_.on_warning) {
      if (!failed.ok() && !append_failing_.exchange(true)) {
        options_.on_warning(
            absl::StrCat("appending to the log of \"", hosted.name,
                         "\" fails (retried until the write's deadline): ",
                         failed.ToString()));
      } else if (failed.ok() && any_stored && append_failing_.exchange(false)) {
        options_.on_warning("appending to the log works again");
      }
    }
    pending = std::move(still);
  }
}

ClusterNode::Appending ClusterNode::AppendChecked(Hosted& hosted,
                                                  const LogEntry& entry,
                                                  const std::string& bytes,
                                                  absl::Time deadline) {
  const std::string subject =
      SubjectOf(hosted.name, ShardOf(IdOf(entry), hosted.shards));
  Appending out;
  if (hosted.shards == 1 || !entry.insert_only_below) {
    // One shard: every replica decides dedup-on-write in log order.
    out.sequence =
        AppendUntil(hosted.name, subject, bytes, entry.append_id, deadline);
    return out;
  }
  // Several shards: every shard is asked at the log's last sequence N, and
  // the entry is appended only while the log is still at N, so the check
  // and the write follow the log's order as one. When other writes came
  // first, they are compared with the document here; only one that might
  // block it sends the check to the shards again.
  const std::string stream = StreamOf(hosted.name);
  // Room to answer before the write's deadline: not written, said in time.
  const absl::Time give_up = deadline - absl::Milliseconds(150);
  bool ask_shards = true;
  uint64_t at = 0;
  while (true) {
    if (absl::Now() >= give_up) {
      out.sequence = absl::AbortedError(absl::StrCat(
          "not written: other writes to collection \"", hosted.name,
          "\" kept coming before this dedup-on-write could be decided; "
          "retry"));
      return out;
    }
    absl::StatusOr<uint64_t> last = log_->LastSequence(stream);
    if (!last.ok()) {
      if (absl::IsUnavailable(last.status()) && absl::Now() < give_up) {
        absl::SleepFor(absl::Milliseconds(100));
        continue;
      }
      out.sequence = last.status();
      return out;
    }
    if (!ask_shards && *last > at) {
      // Written since the check: compared here.
      absl::StatusOr<bool> clear =
          NoneMayBlock(hosted, entry, at, *last, give_up);
      ask_shards = !clear.ok() || !*clear;
    }
    at = *last;
    if (ask_shards) {
      absl::StatusOr<NamedBlocking> blocking =
          CheckShards(hosted, bytes, *entry.insert_only_below, at, deadline);
      if (!blocking.ok()) {
        out.sequence = blocking.status();
        return out;
      }
      if (blocking->count > 0) {
        LoggedWrite blocked;
        blocked.sequence = at;  // what the decision saw
        blocked.outcome.blocking = std::move(blocking->matches);
        blocked.blocking_ids = std::move(blocking->ids);
        blocked.blocking_count = blocking->count;
        out.blocked = std::move(blocked);
        return out;
      }
      ask_shards = false;
    }
    absl::StatusOr<uint64_t> appended =
        AppendUntil(hosted.name, subject, bytes, entry.append_id, deadline, at);
    if (!absl::IsFailedPrecondition(appended.status())) {
      out.sequence = std::move(appended);
      return out;
    }
    // Another write came first: what it wrote is looked at next round.
  }
}

absl::StatusOr<NamedBlocking> ClusterNode::CheckShards(Hosted& hosted,
                                                       const std::string& bytes,
                                                       double threshold,
                                                       uint64_t sequence,
                                                       absl::Time deadline) {
  messages::BlockingCheck check;
  check.set_entry(bytes);
  check.set_threshold(threshold);
  std::vector<int> every(static_cast<size_t>(hosted.shards));
  std::iota(every.begin(), every.end(), 0);
  std::vector<absl::StatusOr<std::string>> answers =
      Ask(hosted, every, ShardCallKind::kBlocking, check.SerializeAsString(),
          sequence, deadline);
  std::vector<NamedBlocking> parts;
  for (size_t k = 0; k < answers.size(); ++k) {
    absl::StatusOr<NamedBlocking> part =
        answers[k].ok() ? DecodeBlocking(*answers[k])
                        : absl::StatusOr<NamedBlocking>(answers[k].status());
    if (!part.ok()) {
      // Not checked everywhere: not written. A shard out of reach (or out
      // of time) is UNAVAILABLE, safe to retry; a refusal passes as it is.
      const absl::Status& why = part.status();
      const absl::StatusCode code = absl::IsDeadlineExceeded(why)
                                        ? absl::StatusCode::kUnavailable
                                        : why.code();
      return absl::Status(code,
                          absl::StrCat("not written: dedup-on-write could not "
                                       "be checked: ",
                                       why.message()));
    }
    parts.push_back(*std::move(part));
  }
  return MergeBlocking(std::move(parts));
}

absl::StatusOr<bool> ClusterNode::NoneMayBlock(Hosted& hosted,
                                               const LogEntry& entry,
                                               uint64_t after, uint64_t through,
                                               absl::Time deadline) {
  // This node reads every entry of the collection (its applier passes over
  // other shards'): the upserts since `after` are in its recent ones once
  // it applied `through`.
  RETURN_IF_ERROR(WaitAppliedOn(hosted, through, deadline));
  const std::shared_ptr<engine::Collection> local = hosted.local();
  MutexLock lock(&hosted.mu);
  if (hosted.recent_after > after) {
    return absl::OutOfRangeError("not among the recent upserts any more");
  }
  for (auto it = hosted.recent.rbegin(); it != hosted.recent.rend(); ++it) {
    if (it->first <= after) break;
    if (it->first > through) continue;
    if (local->MayBlock(*entry.upsert, it->second, *entry.insert_only_below)) {
      return false;
    }
  }
  return true;
}

absl::StatusOr<LoggedWrite> ClusterNode::Write(Hosted& hosted, LogEntry entry,
                                               absl::Time deadline) {
  std::vector<LogEntry> one;
  one.push_back(std::move(entry));
  return std::move(
      WriteMany(hosted, std::move(one), deadline, nullptr).front());
}

std::vector<absl::StatusOr<LoggedWrite>> ClusterNode::WriteMany(
    Hosted& hosted, std::vector<LogEntry> entries, absl::Time deadline,
    bool* stopped) {
  const size_t n = entries.size();
  std::vector<absl::StatusOr<LoggedWrite>> results(
      n, absl::UnknownError("not written"));
  std::vector<std::string> bytes(n);
  std::vector<bool> encoded(n, false);
  for (size_t i = 0; i < n; ++i) {
    LogEntry& entry = entries[i];
    entry.collection = hosted.name;
    {
      MutexLock lock(&mu_);
      entry.append_id = absl::StrCat(options_.node_id, "-", incarnation_, "-",
                                     next_append_++);
    }
    // A writer holding another shard hears the outcome from that shard.
    if (ShardOf(IdOf(entry), hosted.shards) != hosted.shard) {
      entry.outcome_subject = outcome_subject_;
    }
    absl::StatusOr<std::string> encoding = EncodeLogEntry(entry);
    if (!encoding.ok()) {
      results[i] = encoding.status();
      continue;
    }
    bytes[i] = *std::move(encoding);
    encoded[i] = true;
  }
  {
    MutexLock lock(&waiting_mu_);
    for (size_t i = 0; i < n; ++i) {
      if (encoded[i]) waiting_.emplace(entries[i].append_id, std::nullopt);
    }
  }
  // Appended in order, then waited for together. Once an append fails the
  // rest are not tried: a later one must not land before an earlier one is
  // retried (a retried near-duplicate would then block the wrong one), and
  // with the log unavailable each would wait out the deadline. Only an
  // entry refused for itself (too large) is passed. A run of writes whose
  // order among themselves changes nothing (no dedup-on-write, each of
  // another document) is sent at once (AppendRun).
  std::vector<Appending> appends(n);
  absl::Status stop;
  for (size_t i = 0; i < n;) {
    if (!encoded[i]) {
      ++i;
      continue;
    }
    if (!stop.ok()) {
      appends[i].sequence = stop;
      ++i;
      continue;
    }
    // At least this entry, also when it alone may be appended (a
    // dedup-on-write), so that its failure stops the rest too.
    const size_t end = std::max(PlainRunEnd(entries, encoded, i), i + 1);
    if (end - i > 1) {
      AppendRun(hosted, entries, bytes, encoded, i, end, deadline, appends);
    } else {
      appends[i] = AppendChecked(hosted, entries[i], bytes[i], deadline);
    }
    for (size_t k = i; k < end; ++k) {
      if (!encoded[k]) continue;
      const absl::Status& failed = appends[k].sequence.status();
      if (!appends[k].blocked && !failed.ok() &&
          !absl::IsInvalidArgument(failed) && stop.ok()) {
        stop = absl::UnavailableError(
            absl::StrCat("not written: an earlier write of the batch was not "
                         "appended (",
                         failed.message(), ")"));
        if (stopped != nullptr) *stopped = true;
      }
    }
    i = end;
  }
  // The outcomes, as they come. One another shard sends is a NATS message,
  // sent at most once: missed (a NATS server failing over), it is asked
  // of the shard again after kOutcomeWait.
  const auto until = SteadyUntil(deadline);
  const auto ask_again =
      SteadyUntil(std::min(deadline, absl::Now() + kOutcomeWait));
  std::vector<std::optional<LoggedWrite>> outcomes(n);
  std::vector<size_t> missed;
  {
    MutexLock lock(&waiting_mu_);
    for (size_t i = 0; i < n; ++i) {
      if (!encoded[i] || !appends[i].sequence.ok()) continue;
      auto it = waiting_.find(entries[i].append_id);
      const bool remote = !entries[i].outcome_subject.empty();
      while (!it->second.has_value() &&
             waiting_cv_.WaitUntil(&waiting_mu_, remote ? ask_again : until)) {
      }
      if (remote && !it->second.has_value()) missed.push_back(i);
    }
  }
  // Asked until answered or out of time: a replica that restarted since
  // knows nothing of it (NOT_FOUND), the shard's other one may.
  while (!missed.empty() && absl::Now() + kOutcomeWait < deadline) {
    std::vector<size_t> still;
    for (size_t i : missed) {
      {
        MutexLock lock(&waiting_mu_);
        if (waiting_.find(entries[i].append_id)->second.has_value()) continue;
      }
      absl::StatusOr<std::string> told =
          AskShardOf(hosted.name, IdOf(entries[i]), ShardCallKind::kOutcome,
                     entries[i].append_id, *appends[i].sequence,
                     std::min(deadline, absl::Now() + kOutcomeWait));
      absl::StatusOr<std::pair<std::string, LoggedWrite>> outcome =
          told.ok() ? DecodeOutcome(*told)
                    : absl::StatusOr<std::pair<std::string, LoggedWrite>>(
                          told.status());
      if (outcome.ok()) {
        Deliver(outcome->first, std::move(outcome->second));
      } else {
        still.push_back(i);
      }
    }
    missed = std::move(still);
    if (missed.empty()) break;
    MutexLock lock(&waiting_mu_);
    waiting_cv_.WaitUntil(&waiting_mu_,
                          SteadyUntil(absl::Now() + kOutcomeWait / 4));
  }
  {
    MutexLock lock(&waiting_mu_);
    for (size_t i = 0; i < n; ++i) {
      if (!encoded[i]) continue;
      auto it = waiting_.find(entries[i].append_id);
      if (appends[i].sequence.ok()) {
        while (!it->second.has_value() &&
               waiting_cv_.WaitUntil(&waiting_mu_, until)) {
        }
      }
      outcomes[i] = std::move(it->second);
      waiting_.erase(it);
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (!encoded[i]) continue;
    if (appends[i].blocked) {
      results[i] = *std::move(appends[i].blocked);
    } else if (!appends[i].sequence.ok()) {
      results[i] = appends[i].sequence.status();
    } else if (!outcomes[i].has_value()) {
      const bool here = entries[i].outcome_subject.empty();
      std::string applied_here;
      if (here) {
        MutexLock lock(&hosted.mu);
        applied_here = absl::StrCat(
            " (applied ", hosted.applied, ")",
            hosted.failure.ok() ? std::string()
                                : absl::StrCat(": ", hosted.failure.message()));
      }
      results[i] = absl::DeadlineExceededError(absl::StrCat(
          "the write is in the log of collection \"", hosted.name,
          "\" at sequence ", *appends[i].sequence,
          here ? " but this node has not applied it yet"
               : absl::StrCat(" but no replica of shard ",
                              ShardOf(IdOf(entries[i]), hosted.shards),
                              " told what it did yet"),
          applied_here));
    } else if (!outcomes[i]->failure.ok()) {
      results[i] = outcomes[i]->failure;
    } else {
      results[i] = *std::move(outcomes[i]);
    }
  }
  return results;
}

void ClusterNode::Deliver(const std::string& append_id, LoggedWrite written) {
  MutexLock lock(&waiting_mu_);
  auto it = waiting_.find(append_id);
  // Its writer gave up meanwhile, or another replica told first.
  if (it == waiting_.end() || it->second.has_value()) return;
  it->second = std::move(written);
  waiting_cv_.SignalAll();
}

void ClusterNode::OnOutcome(std::string_view data) {
  absl::StatusOr<std::pair<std::string, LoggedWrite>> outcome =
      DecodeOutcome(data);
  if (!outcome.ok()) return;  // not ours to read: the writer times out
  Deliver(outcome->first, std::move(outcome->second));
}

std::vector<absl::StatusOr<LoggedWrite>> ClusterNode::UpsertMany(
    std::string_view collection, std::span<const UpsertItem> items,
    absl::Time deadline, bool* stopped) {
  absl::StatusOr<Hosted*> hosted = Find(collection);
  if (!hosted.ok()) {
    return std::vector<absl::StatusOr<LoggedWrite>>(items.size(),
                                                    hosted.status());
  }
  std::vector<absl::StatusOr<LoggedWrite>> results(
      items.size(), absl::UnknownError("not written"));
  std::vector<LogEntry> entries;
  std::vector<size_t> at;
  const int64_t now = absl::ToUnixMicros(absl::Now());
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].insert_only_below) {
      // Checked here: an entry every replica refuses would stop them all.
      absl::Status valid = (*hosted)->local()->CheckThreshold(
          *items[i].insert_only_below, "insert_only_below");
      if (!valid.ok()) {
        results[i] = valid;
        continue;
      }
    }
    LogEntry& entry = entries.emplace_back();
    entry.upsert = *items[i].doc;
    entry.insert_only_below = items[i].insert_only_below;
    entry.unix_micros = now;
    at.push_back(i);
  }
  std::vector<absl::StatusOr<LoggedWrite>> written =
      WriteMany(**hosted, std::move(entries), deadline, stopped);
  for (size_t k = 0; k < at.size(); ++k) results[at[k]] = std::move(written[k]);
  return results;
}

absl::StatusOr<LoggedWrite> ClusterNode::Upsert(
    std::string_view collection, const engine::PreparedDocument& doc,
    std::optional<double> insert_only_below, absl::Time deadline) {
  const UpsertItem item{.doc = &doc, .insert_only_below = insert_only_below};
  return std::move(UpsertMany(collection, {&item, 1}, deadline).front());
}

absl::StatusOr<LoggedWrite> ClusterNode::Upsert(
    std::string_view collection, const engine::DocumentInput& input,
    absl::Time deadline) {
  ASSIGN_OR_RETURN(Hosted * hosted, Find(collection));
  ASSIGN_OR_RETURN(const engine::PreparedDocument doc,
                   hosted->local()->Prepare(input));
  return Upsert(collection, doc, std::nullopt, deadline);
}

absl::StatusOr<LoggedWrite> ClusterNode::Delete(std::string_view collection,
                                                std::string_view external_id,
                                                absl::Time deadline) {
  ASSIGN_OR_RETURN(Hosted * hosted, Find(collection));
  LogEntry entry;
  entry.delete_id = std::string(external_id);
  return Write(*hosted, std::move(entry), deadline);
}

}  // namespace neardup::cluster
