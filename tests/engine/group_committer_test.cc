#include "neardup/engine/group_committer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"
#include "neardup/base/sync.h"

// Every ordering here is forced by sync points (notifications and
// WaitUntilQueued), never by sleeps: the same rounds on every run.

namespace neardup::engine {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

struct Item {
  std::string name;
  int round = -1;  // the round that committed it
};

// Records the rounds it commits; a round can be held until released, and
// can hand the lead over before it finishes.
class Recorder {
 public:
  void Commit(std::span<Item* const> round,
              absl::FunctionRef<void()> hand_over) {
    int number;
    absl::Notification* hold = nullptr;
    bool early_hand_over = false;
    {
      MutexLock lock(&mu_);
      number = static_cast<int>(rounds_.size());
      std::vector<std::string> names;
      for (Item* item : round) {
        item->round = number;
        names.push_back(item->name);
      }
      rounds_.push_back(names);
      if (auto it = holds_.find(number); it != holds_.end()) {
        hold = it->second;
      }
      early_hand_over = early_hand_over_.contains(number);
      if (auto it = entered_.find(number); it != entered_.end()) {
        it->second->Notify();
      }
    }
    if (early_hand_over) hand_over();
    if (hold != nullptr) hold->WaitForNotification();
    if (throw_in_ == number) throw std::runtime_error("commit failed");
  }

  // Round `number` waits for `release` before it returns.
  void Hold(int number, absl::Notification* release) {
    MutexLock lock(&mu_);
    holds_[number] = release;
  }
  // `entered` is notified when round `number` starts.
  void OnEnter(int number, absl::Notification* entered) {
    MutexLock lock(&mu_);
    entered_[number] = entered;
  }
  void HandOverEarly(int number) {
    MutexLock lock(&mu_);
    early_hand_over_.insert(number);
  }
  void ThrowIn(int number) { throw_in_ = number; }

  std::vector<std::vector<std::string>> rounds() const {
    MutexLock lock(&mu_);
    return rounds_;
  }

 private:
  mutable Mutex mu_;
  std::vector<std::vector<std::string>> rounds_ ABSL_GUARDED_BY(mu_);
  std::map<int, absl::Notification*> holds_ ABSL_GUARDED_BY(mu_);
  std::map<int, absl::Notification*> entered_ ABSL_GUARDED_BY(mu_);
  std::set<int> early_hand_over_ ABSL_GUARDED_BY(mu_);
  std::atomic<int> throw_in_{-1};
};

GroupCommitter<Item> CommitterOf(Recorder* recorder, size_t max_round) {
  return GroupCommitter<Item>(max_round,
                              [recorder](std::span<Item* const> round,
                                         absl::FunctionRef<void()> hand_over) {
                                recorder->Commit(round, hand_over);
                              });
}

TEST(GroupCommitter, ALoneWriterCommitsItsItemsInRoundsOfAtMostMaxRound) {
  Recorder recorder;
  GroupCommitter<Item> committer = CommitterOf(&recorder, 2);
  std::vector<Item> items = {{"a"}, {"b"}, {"c"}, {"d"}, {"e"}};
  committer.Submit(std::span<Item>(items));
  EXPECT_THAT(recorder.rounds(),
              ElementsAre(ElementsAre("a", "b"), ElementsAre("c", "d"),
                          ElementsAre("e")));
  for (const Item& item : items) EXPECT_GE(item.round, 0);
}

TEST(GroupCommitter, WritersQueuedBehindALeaderShareItsNextRoundInQueueOrder) {
  Recorder recorder;
  GroupCommitter<Item> committer = CommitterOf(&recorder, 3);
  absl::Notification first_entered, release_first;
  recorder.OnEnter(0, &first_entered);
  recorder.Hold(0, &release_first);
  std::vector<Item> a = {{"a"}};
  std::thread leader([&] { committer.Submit(std::span<Item>(a)); });
  first_entered.WaitForNotification();
  // Round 0 is being committed; b, c, d, e queue up one after another.
  std::vector<std::vector<Item>> waiting = {{{"b"}}, {{"c"}}, {{"d"}}, {{"e"}}};
  std::vector<std::thread> writers;
  for (size_t i = 0; i < waiting.size(); ++i) {
    writers.emplace_back(
        [&, i] { committer.Submit(std::span<Item>(waiting[i])); });
    committer.WaitUntilQueued(i + 1);
  }
  EXPECT_THAT(recorder.rounds(), ElementsAre(ElementsAre("a")));
  release_first.Notify();
  leader.join();
  for (std::thread& writer : writers) writer.join();
  // Three writers' items in one round (the limit), the fourth's next.
  EXPECT_THAT(recorder.rounds(),
              ElementsAre(ElementsAre("a"), ElementsAre("b", "c", "d"),
                          ElementsAre("e")));
}

TEST(GroupCommitter, OneWritersItemsStayTogetherAndInOrder) {
  Recorder recorder;
  GroupCommitter<Item> committer = CommitterOf(&recorder, 8);
  absl::Notification first_entered, release_first;
  recorder.OnEnter(0, &first_entered);
  recorder.Hold(0, &release_first);
  std::vector<Item> a = {{"a"}};
  std::thread leader([&] { committer.Submit(std::span<Item>(a)); });
  first_entered.WaitForNotification();
  std::vector<Item> many = {{"m1"}, {"m2"}, {"m3"}};
  std::vector<Item> one = {{"x"}};
  std::thread writer_many([&] { committer.Submit(std::span<Item>(many)); });
  committer.WaitUntilQueued(3);
  std::thread writer_one([&] { committer.Submit(std::span<Item>(one)); });
  committer.WaitUntilQueued(4);
  release_first.Notify();
  leader.join();
  writer_many.join();
  writer_one.join();
  EXPECT_THAT(
      recorder.rounds(),
      ElementsAre(ElementsAre("a"), ElementsAre("m1", "m2", "m3", "x")));
}

TEST(GroupCommitter, TheNextRoundRunsWhileAnEarlyHandedOverRoundFinishes) {
  Recorder recorder;
  GroupCommitter<Item> committer = CommitterOf(&recorder, 4);
  absl::Notification first_entered, release_first, second_entered;
  recorder.OnEnter(0, &first_entered);
  recorder.HandOverEarly(0);
  recorder.Hold(0, &release_first);
  recorder.OnEnter(1, &second_entered);
  std::vector<Item> a = {{"a"}}, b = {{"b"}};
  std::thread leader([&] { committer.Submit(std::span<Item>(a)); });
  first_entered.WaitForNotification();
  std::thread next([&] { committer.Submit(std::span<Item>(b)); });
  // Round 0 handed the lead over and still holds: round 1 starts anyway.
  second_entered.WaitForNotification();
  next.join();
  EXPECT_THAT(recorder.rounds(),
              ElementsAre(ElementsAre("a"), ElementsAre("b")));
  release_first.Notify();
  leader.join();
}

TEST(GroupCommitter, WithoutHandOverTheNextRoundWaitsForTheWholeRound) {
  Recorder recorder;
  GroupCommitter<Item> committer = CommitterOf(&recorder, 4);
  absl::Notification first_entered, release_first;
  recorder.OnEnter(0, &first_entered);
  recorder.Hold(0, &release_first);
  std::vector<Item> a = {{"a"}}, b = {{"b"}};
  std::thread leader([&] { committer.Submit(std::span<Item>(a)); });
  first_entered.WaitForNotification();
  std::thread next([&] { committer.Submit(std::span<Item>(b)); });
  committer.WaitUntilQueued(1);
  // b stays queued: nobody may lead while round 0 holds the lead.
  EXPECT_THAT(recorder.rounds(), ElementsAre(ElementsAre("a")));
  release_first.Notify();
  leader.join();
  next.join();
  EXPECT_THAT(recorder.rounds(),
              ElementsAre(ElementsAre("a"), ElementsAre("b")));
}

TEST(GroupCommitter, AThrowingRoundReachesItsLeaderWhoseQueuedItemsAreDropped) {
  Recorder recorder;
  GroupCommitter<Item> committer = CommitterOf(&recorder, 1);
  recorder.ThrowIn(0);
  std::vector<Item> a = {{"a"}, {"b"}};
  // Round 0 (a) throws: the writer gets the exception, and its b, still
  // queued, is taken out rather than committed.
  EXPECT_THROW(committer.Submit(std::span<Item>(a)), std::runtime_error);
  EXPECT_THAT(recorder.rounds(), ElementsAre(ElementsAre("a")));
  EXPECT_EQ(a[1].round, -1);
  // The committer still works.
  std::vector<Item> c = {{"c"}};
  committer.Submit(std::span<Item>(c));
  EXPECT_THAT(recorder.rounds(),
              ElementsAre(ElementsAre("a"), ElementsAre("c")));
}

TEST(GroupCommitter, AnEmptySubmitReturnsAtOnce) {
  Recorder recorder;
  GroupCommitter<Item> committer = CommitterOf(&recorder, 4);
  std::vector<Item> none;
  committer.Submit(std::span<Item>(none));
  EXPECT_THAT(recorder.rounds(), IsEmpty());
}

}  // namespace
}  // namespace neardup::engine
