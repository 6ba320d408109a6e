#ifndef NEARDUP_ENGINE_GROUP_COMMITTER_H_
#define NEARDUP_ENGINE_GROUP_COMMITTER_H_

// Group commit: concurrent writers queue their items and one of them, the
// leader, commits a round (up to max_round items from the front of the
// queue, so in queue order) while the others wait. One RocksDB batch and one
// WAL write then serve many writers.
//
// The leader hands the lead on as soon as its round is ordered (the commit
// function calls hand_over_lead), so the next round can be written while
// this one finishes its slower part: a pipeline of two. Every item a round
// takes is committed exactly once, and Submit returns only when all of its
// items are finished. When a round throws, its leader gets the exception and
// that writer's items still queued are taken out, never committed; other
// writers are not affected.

#include <algorithm>
#include <cstddef>
#include <functional>
#include <span>
#include <utility>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/functional/function_ref.h"
#include "neardup/base/sync.h"

namespace neardup::engine {

template <typename Item>
class GroupCommitter {
 public:
  // Commits one round, in order. Calls hand_over_lead() (at most once) when
  // the next round may start; if it returns or throws without doing so, the
  // lead passes on then. An exception it throws reaches the writer that led
  // the round; the round's other items count as committed, so `commit`
  // must record their outcome in the items before anything can throw.
  using CommitFn = std::function<void(
      std::span<Item* const> round, absl::FunctionRef<void()> hand_over_lead)>;

  GroupCommitter(size_t max_round, CommitFn commit)
      : max_round_(std::max<size_t>(max_round, 1)),
        commit_(std::move(commit)) {}
  GroupCommitter(const GroupCommitter&) = delete;
  GroupCommitter& operator=(const GroupCommitter&) = delete;

  // Queues `items` together, in order, and returns once every one of them
  // was committed (by this writer or by others leading). Items of one call
  // keep their order and no other writer's item comes between two of them
  // unless a round boundary falls there.
  void Submit(std::span<Item> items) ABSL_LOCKS_EXCLUDED(mu_);

  // Waits until at least `n` items wait in the queue, not yet taken by a
  // leader: a sync point for tests.
  void WaitUntilQueued(size_t n) const ABSL_LOCKS_EXCLUDED(mu_) {
    MutexLock lock(&mu_);
    while (queue_.size() < n) cv_.Wait(&mu_);
  }

 private:
  struct Slot {
    Item* item = nullptr;
    bool done = false;  // guarded by mu_ (a field of a plain struct)
  };

  // Commits `round` as the leader; the lead is held on entry.
  void LeadRound(const std::vector<Slot*>& round,
                 const std::vector<Item*>& items) ABSL_LOCKS_EXCLUDED(mu_);

  const size_t max_round_;
  const CommitFn commit_;
  mutable Mutex mu_;
  mutable CondVar cv_;
  std::vector<Slot*> queue_ ABSL_GUARDED_BY(mu_);
  bool leader_active_ ABSL_GUARDED_BY(mu_) = false;
};

template <typename Item>
void GroupCommitter<Item>::Submit(std::span<Item> items) {
  std::vector<Slot> mine(items.size());
  for (size_t i = 0; i < items.size(); ++i) mine[i].item = &items[i];
  auto all_done = [&] {
    return std::all_of(mine.begin(), mine.end(),
                       [](const Slot& slot) { return slot.done; });
  };
  MutexLock lock(&mu_);
  queue_.reserve(queue_.size() + mine.size());
  for (Slot& slot : mine) queue_.push_back(&slot);
  cv_.SignalAll();  // WaitUntilQueued
  try {
    while (!all_done()) {
      if (leader_active_ || queue_.empty()) {
        // Another writer leads the round holding these items.
        cv_.Wait(&mu_);
        continue;
      }
      const size_t take = std::min(queue_.size(), max_round_);
      // Allocated before the queue changes: running out of memory here
      // leaves every item queued.
      std::vector<Slot*> round(queue_.begin(), queue_.begin() + take);
      std::vector<Item*> round_items;
      round_items.reserve(take);
      for (Slot* slot : round) round_items.push_back(slot->item);
      queue_.erase(queue_.begin(), queue_.begin() + take);
      leader_active_ = true;  // only once nothing here can throw
      mu_.Unlock();
      // LeadRound finishes the round whatever happens; an exception still
      // needs the lock back for `lock` to free.
      try {
        LeadRound(round, round_items);
      } catch (...) {
        mu_.Lock();
        throw;
      }
      mu_.Lock();
    }
  } catch (...) {
    // Out of memory, most likely. `mine` must not be freed while the queue
    // or a round still points into it: queued items are taken out (never
    // committed), and rounds other writers lead are waited for.
    const std::less<const Slot*> before;
    std::erase_if(queue_, [&](Slot* slot) {
      const bool ours =
          !before(slot, mine.data()) && before(slot, mine.data() + mine.size());
      if (ours) slot->done = true;
      return ours;
    });
    while (!all_done()) cv_.Wait(&mu_);
    throw;
  }
}

template <typename Item>
void GroupCommitter<Item>::LeadRound(const std::vector<Slot*>& round,
                                     const std::vector<Item*>& items) {
  bool leading = true;
  auto hand_over_lead = [&] {
    if (!leading) return;
    leading = false;
    MutexLock lock(&mu_);
    leader_active_ = false;
    cv_.SignalAll();
  };
  // However this ends, the lead passes on and the round's writers wake:
  // none may wait for ever.
  const absl::Cleanup finish = [&] {
    hand_over_lead();
    MutexLock lock(&mu_);
    for (Slot* slot : round) slot->done = true;
    cv_.SignalAll();
  };
  commit_(items, hand_over_lead);
}

}  // namespace neardup::engine

#endif  // NEARDUP_ENGINE_GROUP_COMMITTER_H_
