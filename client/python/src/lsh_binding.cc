// neardup.MinHashLSH: datasketch's MinHashLSH API (insert, query, remove,
// `in`, insertion_session, threshold, weights, params) over core's
// MinHashLshIndex, plus what datasketch lacks: scores, insert_many (all or
// nothing), deletes that stay cheap, and pickling.
//
// Threads: the index is queried and written without the GIL. mu_ orders
// what the GIL alone would not: a write (insert, remove) excludes every
// other call that reads the key table, queries share it. It is always
// taken with the GIL released (LockShared, LockExclusive), then the GIL is
// taken again, so the two never wait on each other in opposite orders.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bindings.h"
#include "neardup/core/enum_tables.h"
#include "neardup/core/index/lsh_params.h"
#include "neardup/core/index/minhash_lsh_index.h"
#include "neardup/core/minhash.h"
#include "neardup/core/shingle_set.h"

namespace neardup::python {
namespace {

// What query returns: "none", datasketch's candidates (keys sharing a
// band); "estimate", those whose estimated Jaccard reaches min_score (the
// threshold by default); "exact", those whose true Jaccard of the token
// sets does (MinHashes made with keep_set=True).
enum class Verification { kNone, kEstimate, kExact };

Verification ParseVerification(const std::string& name) {
  if (name == "none") return Verification::kNone;
  if (name == "estimate") return Verification::kEstimate;
  if (name == "exact") return Verification::kExact;
  throw py::value_error(absl::StrCat(
      "verification must be \"none\", \"estimate\" or \"exact\", got \"", name,
      "\""));
}

const char* VerificationName(Verification verification) {
  switch (verification) {
    case Verification::kNone:
      return "none";
    case Verification::kEstimate:
      return "estimate";
    case Verification::kExact:
      return "exact";
  }
  return "none";
}

class Lsh {
 public:
  Lsh(double threshold, int num_perm, std::pair<double, double> weights,
      std::optional<std::pair<int, int>> params,
      const py::object& storage_config, const py::object& prepickle,
      const py::object& hashfunc, const std::string& verification)
      : threshold_(threshold),
        num_perm_(num_perm),
        weights_(weights),
        verification_(ParseVerification(verification)) {
    if (!storage_config.is_none()) {
      const py::dict config = storage_config.cast<py::dict>();
      if (!config.contains("type") ||
          config["type"].cast<std::string>() != "dict") {
        throw py::value_error(
            "neardup's MinHashLSH lives in memory (storage_config "
            "{'type': 'dict'} or None); save it with pickle");
      }
    }
    if (!prepickle.is_none() && prepickle.cast<bool>()) {
      throw py::value_error("prepickle applies to Redis storage only");
    }
    if (!hashfunc.is_none()) {
      throw py::value_error("hashfunc applies to Redis storage only");
    }
    if (verification_ != Verification::kNone &&
        !(threshold > 0 && threshold <= 1)) {
      throw py::value_error(absl::StrCat(
          "threshold must be in (0, 1] to verify by it, got ", threshold));
    }
    if (params.has_value()) {
      params_ = {params->first, params->second};
      RaiseIfError(ValidateLshParams(params_, num_perm));
    } else if (verification_ != Verification::kNone) {
      // Verified: bands that make (nearly) every pair at the threshold a
      // candidate (probability >= 0.995), as a collection and dedup choose
      // them, so verification sees them all.
      params_ = ValueOrRaise(LshParamsRecallFirst(threshold, num_perm));
    } else {
      params_ = ValueOrRaise(LshParamsWeighted(threshold, num_perm,
                                               weights.first, weights.second));
    }
    MinHashIndexOptions options;
    options.num_perm = num_perm;
    options.lsh = params_;
    options.slot_bits = 64;  // scores equal MinHash.jaccard
    index_ = ValueOrRaise(MinHashLshIndex::Create(options));
  }

  void Insert(const py::object& key, MinHash& minhash, bool check_duplication) {
    InsertMany({{key, &minhash}}, check_duplication);
  }

  // All or nothing: a refused item, or a failure half-way, leaves the index
  // and its keys as they were. A key given twice (check_duplication=False)
  // takes its last MinHash.
  void InsertMany(const std::vector<std::pair<py::object, MinHash*>>& items,
                  bool check_duplication) {
    if (items.empty()) return;
    std::unique_lock<std::shared_mutex> lock = LockExclusive();
    const std::pair<uint64_t, HashFamily> hashing = hashing_.value_or(
        std::make_pair(items[0].second->seed, items[0].second->family));
    // Checks, before anything changes; `order`: each key (the object first
    // given, as repeated inserts keep it) and the position of its last item.
    std::vector<std::pair<py::object, size_t>> order;
    order.reserve(items.size());
    if (check_duplication) {
      py::set seen;
      for (size_t i = 0; i < items.size(); ++i) {
        const auto& [key, minhash] = items[i];
        CheckMinHash(*minhash, hashing);
        CheckSet(*minhash);
        if (ids_.contains(key) || seen.contains(key)) {
          throw py::value_error(absl::StrCat("The given key already exists: ",
                                             std::string(py::repr(key))));
        }
        seen.add(key);
        order.emplace_back(key, i);
      }
    } else {
      py::dict batch;  // key -> position of its last item
      for (size_t i = 0; i < items.size(); ++i) {
        const auto& [key, minhash] = items[i];
        CheckMinHash(*minhash, hashing);
        CheckSet(*minhash);
        batch[key] = i;
      }
      for (const auto& [key, position] : batch) {
        order.emplace_back(py::reinterpret_borrow<py::object>(key),
                           position.cast<size_t>());
      }
    }
    // The plan: replaced ids with their old slots, new ids and their keys.
    std::vector<std::pair<uint32_t, MinHashSignature>> replaced;  // new
    std::vector<MinHashSignature> replaced_old;
    std::vector<py::object> new_keys;
    std::vector<uint32_t> new_ids;
    std::vector<const MinHash*> new_minhashes;
    // verification "exact": the sets of the replaced and of the new ids.
    std::vector<std::vector<uint64_t>> replaced_sets, new_sets;
    std::vector<uint32_t> free_ids = free_ids_;
    const size_t old_size = keys_.size();
    size_t next_id = old_size;
    const bool exact = verification_ == Verification::kExact;
    for (const auto& [key, position] : order) {
      MinHash& minhash = *items[position].second;
      if (!check_duplication && ids_.contains(key)) {  // a replace
        const uint32_t id = ids_[key].cast<uint32_t>();
        replaced.emplace_back(id, MinHashSignature{minhash.slots});
        replaced_old.push_back(MinHashSignature{*index_->Get(id)});
        if (exact) replaced_sets.push_back(*minhash.SortedSet());
        continue;
      }
      uint32_t id;
      if (!free_ids.empty()) {
        id = free_ids.back();
        free_ids.pop_back();
      } else if (next_id <= MinHashLshIndex::kMaxId) {
        id = static_cast<uint32_t>(next_id++);
      } else {
        throw py::value_error("MinHashLSH holds at most 2^32 - 1 keys");
      }
      new_keys.push_back(key);
      new_ids.push_back(id);
      new_minhashes.push_back(&minhash);
      if (exact) new_sets.push_back(*minhash.SortedSet());
    }
    // The index, then the key table; undone in full on any failure.
    size_t replaced_done = 0;
    size_t registered = 0;
    try {
      absl::Status status;
      {
        py::gil_scoped_release release;
        for (; replaced_done < replaced.size() && status.ok();
             ++replaced_done) {
          status = index_->Insert(replaced[replaced_done].first,
                                  replaced[replaced_done].second);
        }
      }
      RaiseIfError(status);
      // The new MinHashes are copied a chunk at a time (the index reads them
      // without the GIL) into signatures that are reused. A MinHash another
      // thread changes meanwhile goes in as it is when its chunk is copied.
      constexpr size_t kChunk = 256;
      if (new_ids.size() > kChunk) {
        // Sized once for them all: growing chunk by chunk cost a fifth of
        // insert_many's time (rehashing the band tables).
        const uint32_t bound =
            *std::max_element(new_ids.begin(), new_ids.end()) + 1;
        py::gil_scoped_release release;
        index_->Reserve(bound);
      }
      std::vector<MinHashSignature> chunk(
          std::min(kChunk, new_ids.size()),
          MinHashSignature{std::vector<uint64_t>(num_perm_)});
      for (size_t first = 0; first < new_ids.size(); first += kChunk) {
        const size_t count = std::min(kChunk, new_ids.size() - first);
        for (size_t i = 0; i < count; ++i) {
          const MinHash& minhash = *new_minhashes[first + i];
          CheckWidth(minhash);  // again: the GIL was let go since
          std::copy(minhash.slots.begin(), minhash.slots.end(),
                    chunk[i].slots.begin());
        }
        py::gil_scoped_release release;
        status = index_->BulkInsert(
            std::span<const uint32_t>(new_ids).subspan(first, count),
            std::span<const MinHashSignature>(chunk).first(count), 1);
        if (!status.ok()) break;
      }
      RaiseIfError(status);
      if (next_id > keys_.size()) {
        keys_.resize(next_id);
        occupied_.resize(next_id, false);
        if (verification_ == Verification::kExact) sets_.resize(next_id);
      }
      for (; registered < new_ids.size(); ++registered) {
        ids_[new_keys[registered]] = new_ids[registered];
        keys_[new_ids[registered]] = new_keys[registered];
        occupied_[new_ids[registered]] = true;
      }
      // Moves, which cannot fail: the sets change only once all else did.
      for (size_t i = 0; i < replaced_sets.size(); ++i) {
        sets_[replaced[i].first] = std::move(replaced_sets[i]);
      }
      for (size_t i = 0; i < new_sets.size(); ++i) {
        sets_[new_ids[i]] = std::move(new_sets[i]);
      }
    } catch (...) {
      for (size_t i = 0; i < registered; ++i) {
        keys_[new_ids[i]] = py::none();
        occupied_[new_ids[i]] = false;
      }
      keys_.resize(old_size);
      occupied_.resize(old_size);
      if (sets_.size() > old_size) sets_.resize(old_size);
      // Keys that hashed when registered; one whose hash fails now stays
      // behind (the error in flight is the one raised).
      for (size_t i = 0; i < registered; ++i) {
        try {
          ids_.attr("pop")(new_keys[i], py::none());
        } catch (const py::error_already_set&) {
        }
      }
      {
        py::gil_scoped_release release;
        // Chunks may have placed some before failing: remove them all.
        for (uint32_t id : new_ids) index_->Remove(id);
        for (size_t i = 0; i < replaced_done; ++i) {
          index_->Insert(replaced[i].first, replaced_old[i]).IgnoreError();
        }
      }
      throw;
    }
    free_ids_ = std::move(free_ids);
    hashing_ = hashing;
  }

  py::list Query(MinHash& minhash, bool with_scores,
                 std::optional<double> min_score) const {
    std::shared_lock<std::shared_mutex> lock = LockShared();
    CheckProbe(minhash);
    const Probing probing = ProbingOf(minhash);
    Found found;
    {
      py::gil_scoped_release release;
      found = Probe(probing, with_scores, min_score);
    }
    return Render(found, with_scores);
  }

  // Query of each MinHash, the GIL released once for all. (Two threads
  // measured no faster: the index's shard lock and the answers' Python
  // lists cost more than the probes.)
  py::list QueryMany(py::iterable minhashes, bool with_scores,
                     std::optional<double> min_score) const {
    // The caller's iterable first, without the lock: it may run Python
    // code that inserts into this index.
    // Unscored (datasketch's query): copied a chunk at a time into one
    // buffer, which the index reads without a MinHashSignature each.
    const bool unscored = verification_ == Verification::kNone &&
                          !with_scores && !min_score.has_value();
    std::vector<Probing> probings;
    std::vector<py::object> items;  // unscored: alive until copied
    std::vector<MinHash*> unscored_minhashes;
    std::vector<std::pair<uint64_t, HashFamily>> hashings;
    for (py::handle item : minhashes) {
      if (!py::isinstance<MinHash>(item)) {
        throw py::type_error("query_many takes MinHashes, got " +
                             std::string(py::repr(item)));
      }
      MinHash& minhash = item.cast<MinHash&>();
      CheckWidth(minhash);
      CheckSet(minhash);
      if (unscored) {
        items.push_back(py::reinterpret_borrow<py::object>(item));
        unscored_minhashes.push_back(&minhash);
      } else {
        probings.push_back(ProbingOf(minhash));
      }
      hashings.emplace_back(minhash.seed, minhash.family);
    }
    std::shared_lock<std::shared_mutex> lock = LockShared();
    if (hashing_) {
      for (const auto& hashing : hashings) {
        if (hashing != *hashing_) {
          throw py::value_error(
              "this MinHashLSH holds MinHashes of another seed or hash "
              "family");
        }
      }
    }
    std::vector<Found> found(hashings.size());
    if (unscored) {
      const size_t width = static_cast<size_t>(num_perm_);
      constexpr size_t kChunk = 256;
      std::vector<uint64_t> chunk(std::min(kChunk, found.size()) * width);
      for (size_t first = 0; first < found.size(); first += kChunk) {
        const size_t count = std::min(kChunk, found.size() - first);
        for (size_t i = 0; i < count; ++i) {
          const MinHash& minhash = *unscored_minhashes[first + i];
          CheckWidth(minhash);  // again: the GIL was let go since
          std::memcpy(chunk.data() + i * width, minhash.slots.data(),
                      width * sizeof(uint64_t));
        }
        py::gil_scoped_release release;
        for (size_t i = 0; i < count; ++i) {
          found[first + i] = Unscored(index_->Candidates(
              std::span<const uint64_t>(chunk).subspan(i * width, width)));
        }
      }
    } else {
      py::gil_scoped_release release;
      for (size_t i = 0; i < probings.size(); ++i) {
        found[i] = Probe(probings[i], with_scores, min_score);
      }
    }
    py::list out;
    for (const Found& one : found) out.append(Render(one, with_scores));
    return out;
  }

  void Remove(const py::object& key) {
    std::unique_lock<std::shared_mutex> lock = LockExclusive();
    if (!ids_.contains(key)) {
      throw py::value_error(absl::StrCat("The given key does not exist: ",
                                         std::string(py::repr(key))));
    }
    const uint32_t id = ids_[key].cast<uint32_t>();
    index_->Remove(id);
    if (id < sets_.size()) std::vector<uint64_t>().swap(sets_[id]);
    ForgetId(id);
  }

  // Python's cyclic GC (a key that refers to its index): what it holds,
  // and dropping it. Both run with the GIL held, which every change to the
  // keys holds too.
  int Traverse(visitproc visit, void* arg) const {
    Py_VISIT(ids_.ptr());
    for (const py::object& key : keys_) Py_VISIT(key.ptr());
    return 0;
  }
  void ClearReferences() {
    // Empty, and consistent: the index forgets the ids the keys named.
    for (size_t id = 0; id < occupied_.size(); ++id) {
      if (occupied_[id]) index_->Remove(static_cast<uint32_t>(id));
    }
    ids_ = py::dict();
    keys_.clear();
    occupied_.clear();
    free_ids_.clear();
    sets_.clear();
    hashing_.reset();
  }

  bool Contains(const py::object& key) const { return ids_.contains(key); }
  size_t size() const { return ids_.size(); }
  double threshold() const { return threshold_; }
  int num_perm() const { return num_perm_; }
  const LshParams& params() const { return params_; }
  std::pair<double, double> weights() const { return weights_; }
  const char* verification() const { return VerificationName(verification_); }

  // Pickling: the settings and every (key, slots), in id order.
  py::tuple State() const {
    std::shared_lock<std::shared_mutex> lock = LockShared();
    py::list entries;
    for (size_t id = 0; id < keys_.size(); ++id) {
      if (!occupied_[id]) continue;
      const std::optional<std::vector<uint64_t>> slots =
          index_->Get(static_cast<uint32_t>(id));
      if (!slots) continue;
      py::object set = py::none();
      if (verification_ == Verification::kExact) set = Bytes(sets_[id]);
      entries.append(py::make_tuple(keys_[id], Bytes(*slots), set));
    }
    py::object hashing = py::none();
    if (hashing_) {
      hashing = py::make_tuple(
          hashing_->first, std::string(kHashFamilies.Name(hashing_->second)));
    }
    return py::make_tuple(2, threshold_, num_perm_, params_.bands, params_.rows,
                          weights_, hashing, entries,
                          VerificationName(verification_));
  }

  static std::unique_ptr<Lsh> FromState(const py::tuple& state) {
    try {
      return FromStateUnchecked(state);
    } catch (const py::cast_error&) {
    } catch (const py::value_error&) {
    } catch (const py::error_already_set&) {  // IndexError, TypeError, ...
    } catch (const py::index_error&) {
    } catch (const py::type_error&) {
    }
    throw py::value_error("not a neardup MinHashLSH state (version 1 or 2)");
  }

  // Version 1: 8 fields, entries (key, slots). Version 2 adds the
  // verification, and entries (key, slots, set or None).
  static std::unique_ptr<Lsh> FromStateUnchecked(const py::tuple& state) {
    const int version = state.size() > 0 ? state[0].cast<int>() : 0;
    if (!((version == 1 && state.size() == 8) ||
          (version == 2 && state.size() == 9))) {
      throw py::value_error("");
    }
    auto lsh = std::make_unique<Lsh>(
        state[1].cast<double>(), state[2].cast<int>(),
        state[5].cast<std::pair<double, double>>(),
        std::make_pair(state[3].cast<int>(), state[4].cast<int>()), py::none(),
        py::none(), py::none(),
        version == 2 ? state[8].cast<std::string>() : "none");
    if (state[6].is_none()) {
      if (!state[7].cast<py::list>().empty()) throw py::value_error("");
      return lsh;
    }
    const py::tuple hashing = state[6].cast<py::tuple>();
    if (hashing.size() != 2) throw py::value_error("");
    const uint64_t seed = hashing[0].cast<uint64_t>();
    const HashFamily family =
        ValueOrRaise(kHashFamilies.Parse(hashing[1].cast<std::string>()));
    std::vector<MinHash> minhashes;
    std::vector<py::object> keys;
    for (py::handle entry : state[7].cast<py::list>()) {
      const py::tuple pair = entry.cast<py::tuple>();
      if (pair.size() != (version == 1 ? 2u : 3u)) throw py::value_error("");
      const std::string bytes = pair[1].cast<std::string>();
      if (bytes.size() != lsh->num_perm_ * sizeof(uint64_t)) {
        throw py::value_error("MinHashLSH state: an entry of the wrong width");
      }
      MinHash minhash(lsh->num_perm_, seed, family);
      std::memcpy(minhash.slots.data(), bytes.data(), bytes.size());
      if (version == 2 && !pair[2].is_none()) {
        const std::string set = pair[2].cast<std::string>();
        if (set.size() % sizeof(uint64_t) != 0) throw py::value_error("");
        minhash.set.emplace(set.size() / sizeof(uint64_t));
        std::memcpy(minhash.set->data(), set.data(), set.size());
        minhash.set_sorted = false;  // sorted again, not trusted
      }
      minhashes.push_back(std::move(minhash));
      keys.push_back(py::reinterpret_borrow<py::object>(pair[0]));
    }
    std::vector<std::pair<py::object, MinHash*>> items;
    for (size_t i = 0; i < keys.size(); ++i) {
      items.emplace_back(keys[i], &minhashes[i]);
    }
    lsh->InsertMany(items, /*check_duplication=*/true);
    return lsh;
  }

 private:
  // One probe's answer, found without the GIL.
  struct Found {
    absl::Status status;
    std::vector<ScoredId> matches;  // scores 0 unless scored
  };

  // A probe as the index reads it without the GIL: copies, so that another
  // thread may change the MinHash meanwhile.
  struct Probing {
    MinHashSignature signature;
    std::vector<uint64_t> set;  // verification "exact"
  };

  Probing ProbingOf(MinHash& minhash) const {
    Probing probing{MinHashSignature{minhash.slots}, {}};
    if (verification_ == Verification::kExact) {
      probing.set = *minhash.SortedSet();
    }
    return probing;
  }

  void CheckProbe(const MinHash& minhash) const {
    if (hashing_) CheckMinHash(minhash, *hashing_);
    CheckWidth(minhash);
    CheckSet(minhash);
  }

  void CheckSet(const MinHash& minhash) const {
    if (verification_ == Verification::kExact && !minhash.set) {
      throw py::value_error(
          "verification=\"exact\" compares token sets: make the MinHashes "
          "with keep_set=True (MinHash, MinHash.bulk, minhash_text, "
          "minhash_texts)");
    }
  }

  // Without verification, the candidates (scored when asked); with it, the
  // keys whose estimated or exact Jaccard reaches min_score (the threshold
  // by default), best first.
  Found Probe(const Probing& probing, bool with_scores,
              std::optional<double> min_score) const {
    Found found;
    if (verification_ == Verification::kExact) {
      absl::StatusOr<std::vector<uint32_t>> ids =
          index_->Candidates(probing.signature);
      if (!ids.ok()) {
        found.status = ids.status();
        return found;
      }
      const double floor = min_score.value_or(threshold_);
      for (uint32_t id : *ids) {
        const double score = ExactJaccard64(probing.set, sets_[id]);
        if (score >= floor) found.matches.push_back({id, score});
      }
      std::sort(found.matches.begin(), found.matches.end(),
                [](const ScoredId& a, const ScoredId& b) {
                  return a.score != b.score ? a.score > b.score : a.id < b.id;
                });
      return found;
    }
    const bool scored = verification_ == Verification::kEstimate ||
                        with_scores || min_score.has_value();
    if (scored) {
      const double floor = min_score.value_or(
          verification_ == Verification::kEstimate ? threshold_ : 0.0);
      absl::StatusOr<std::vector<ScoredId>> matches =
          index_->Query(probing.signature, floor);
      if (matches.ok()) {
        found.matches = *std::move(matches);
      } else {
        found.status = matches.status();
      }
      return found;
    }
    return Unscored(index_->Candidates(probing.signature));
  }

  // Candidates as an answer without scores.
  static Found Unscored(absl::StatusOr<std::vector<uint32_t>> ids) {
    Found found;
    if (!ids.ok()) {
      found.status = ids.status();
      return found;
    }
    found.matches.reserve(ids->size());
    for (uint32_t id : *ids) found.matches.push_back({id, 0.0});
    return found;
  }

  static py::bytes Bytes(const std::vector<uint64_t>& values) {
    return py::bytes(reinterpret_cast<const char*>(values.data()),
                     values.size() * sizeof(uint64_t));
  }

  // With the GIL and mu_ held (the ids are still the keys').
  py::list Render(const Found& found, bool with_scores) const {
    RaiseIfError(found.status);
    py::list out;
    for (const ScoredId& match : found.matches) {
      if (with_scores) {
        out.append(py::make_tuple(keys_[match.id], match.score));
      } else {
        out.append(keys_[match.id]);
      }
    }
    return out;
  }

  void CheckWidth(const MinHash& minhash) const {
    if (minhash.num_perm() != num_perm_) {
      throw py::value_error(absl::StrCat("expecting a MinHash with num_perm ",
                                         num_perm_, ", got ",
                                         minhash.num_perm()));
    }
  }

  void CheckMinHash(const MinHash& minhash,
                    const std::pair<uint64_t, HashFamily>& hashing) const {
    CheckWidth(minhash);
    if (hashing.first != minhash.seed || hashing.second != minhash.family) {
      throw py::value_error(
          "this MinHashLSH holds MinHashes of another seed or hash family");
    }
  }

  std::unique_lock<std::shared_mutex> LockExclusive() const {
    py::gil_scoped_release release;
    return std::unique_lock<std::shared_mutex>(mu_);
  }

  std::shared_lock<std::shared_mutex> LockShared() const {
    py::gil_scoped_release release;
    return std::shared_lock<std::shared_mutex>(mu_);
  }

  void ForgetId(uint32_t id) {
    ids_.attr("pop")(keys_[id]);
    keys_[id] = py::none();
    occupied_[id] = false;
    free_ids_.push_back(id);
  }

  double threshold_;
  int num_perm_;
  std::pair<double, double> weights_;
  Verification verification_;
  LshParams params_;
  std::unique_ptr<MinHashLshIndex> index_;
  mutable std::shared_mutex mu_;    // see the top of the file
  py::dict ids_;                    // key -> id
  std::vector<py::object> keys_;    // id -> key
  std::vector<bool> occupied_;      // id -> whether keys_[id] is a key
  std::vector<uint32_t> free_ids_;  // removed ids, reused first
  // verification "exact": id -> the sorted, distinct token set.
  std::vector<std::vector<uint64_t>> sets_;
  // The seed and hash family of the MinHashes held (the first insert's).
  std::optional<std::pair<uint64_t, HashFamily>> hashing_;
};

}  // namespace

void BindLsh(py::module_& m) {
  // Taking part in the cyclic GC: keys are Python objects that may refer
  // back to the index.
  auto gc = py::custom_type_setup([](PyHeapTypeObject* heap_type) {
    PyTypeObject* type = &heap_type->ht_type;
    type->tp_flags |= Py_TPFLAGS_HAVE_GC;
    type->tp_traverse = [](PyObject* self, visitproc visit, void* arg) {
#if PY_VERSION_HEX >= 0x03090000
      Py_VISIT(Py_TYPE(self));  // a heap type's instances hold their type
#endif
      try {
        return py::cast<const Lsh&>(py::handle(self)).Traverse(visit, arg);
      } catch (const std::exception&) {
        return 0;  // not initialized (__new__ without __init__): nothing
      }
    };
    type->tp_clear = [](PyObject* self) {
      try {
        py::cast<Lsh&>(py::handle(self)).ClearReferences();
      } catch (const std::exception&) {
      }
      return 0;
    };
  });
  py::class_<Lsh>(m, "MinHashLSH", gc, R"(An LSH index of MinHashes, by key.

datasketch's MinHashLSH API: insert, query, remove, `key in lsh`,
insertion_session, is_empty, threshold, h, b, r. query returns the keys that
share a band with the MinHash (datasketch's candidates); with_scores=True
pairs each with its estimated Jaccard, best first, and min_score drops the
ones below. Keys are any hashable objects. Deletes cost one pass over the
bands. pickle saves and loads it. Bands x rows are datasketch's choice for
threshold and weights unless params=(b, r) is given.

verification="estimate" makes query return only the keys whose estimated
Jaccard reaches min_score (default: the threshold), best first;
verification="exact" those whose true Jaccard of the token sets does: the
MinHashes must keep their token sets (keep_set=True), which the index then
holds too (8 bytes per distinct token). With either, bands x rows (unless
params is given) make a pair at the threshold a candidate with probability
>= 0.995, so (nearly) every key at the threshold is found; weights apply to
datasketch's choice only.)")
      .def(py::init<double, int, std::pair<double, double>,
                    std::optional<std::pair<int, int>>, py::object, py::object,
                    py::object, const std::string&>(),
           py::arg("threshold") = 0.9, py::arg("num_perm") = 128,
           py::arg("weights") = std::make_pair(0.5, 0.5),
           py::arg("params") = py::none(),
           py::arg("storage_config") = py::none(),
           py::arg("prepickle") = py::none(), py::arg("hashfunc") = py::none(),
           py::kw_only(), py::arg("verification") = "none")
      .def("insert", &Lsh::Insert, py::arg("key"), py::arg("minhash"),
           py::arg("check_duplication") = true,
           "Adds a key. ValueError if it is there already (with "
           "check_duplication=False, its MinHash is replaced).")
      .def(
          "insert_many",
          [](Lsh& self, py::iterable items, bool check_duplication) {
            std::vector<py::object> keep;  // the pairs, alive for the call
            std::vector<std::pair<py::object, MinHash*>> pairs;
            for (py::handle item : items) {
              keep.push_back(py::reinterpret_borrow<py::object>(item));
              try {
                const py::tuple pair = py::cast<py::tuple>(item);
                if (pair.size() != 2) throw py::cast_error();
                keep.push_back(pair);
                pairs.emplace_back(pair[0], &pair[1].cast<MinHash&>());
              } catch (const std::exception&) {  // cast_error, None
                throw py::type_error(
                    "insert_many takes (key, MinHash) pairs, got " +
                    std::string(py::repr(item)));
              }
            }
            self.InsertMany(pairs, check_duplication);
          },
          py::arg("items"), py::arg("check_duplication") = true,
          "Adds (key, MinHash) pairs from any iterable, all or none: a "
          "refused pair leaves the index as it was. The GIL is released "
          "while the index grows.")
      .def("query", &Lsh::Query, py::arg("minhash"), py::kw_only(),
           py::arg("with_scores") = false, py::arg("min_score") = py::none(),
           "The keys sharing a band with minhash; see the class.")
      .def("query_many", &Lsh::QueryMany, py::arg("minhashes"), py::kw_only(),
           py::arg("with_scores") = false, py::arg("min_score") = py::none(),
           "query of each MinHash, in order, in one call without the GIL.")
      .def("remove", &Lsh::Remove, py::arg("key"),
           "Removes a key. ValueError if it is not there.")
      .def("__contains__", &Lsh::Contains)
      .def("__len__", &Lsh::size)
      .def("is_empty", [](const Lsh& self) { return self.size() == 0; })
      .def(
          "insertion_session",
          [](py::object self, size_t buffer_size) {
            return py::module_::import("neardup._sessions")
                .attr("MinHashLSHInsertionSession")(self, buffer_size);
          },
          py::arg("buffer_size") = 50000,
          "A context manager whose insert buffers and inserts in batches.")
      .def_property_readonly("threshold", &Lsh::threshold)
      .def_property_readonly("h", &Lsh::num_perm)
      .def_property_readonly("num_perm", &Lsh::num_perm)
      .def_property_readonly(
          "b", [](const Lsh& self) { return self.params().bands; })
      .def_property_readonly("r",
                             [](const Lsh& self) { return self.params().rows; })
      .def_property_readonly("weights", &Lsh::weights)
      .def_property_readonly("verification", &Lsh::verification)
      .def(py::pickle([](const Lsh& self) { return self.State(); },
                      [](py::tuple state) { return Lsh::FromState(state); }));
}

}  // namespace neardup::python
