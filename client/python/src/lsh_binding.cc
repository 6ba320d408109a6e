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

#include <cstring>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bindings.h"
#include "neardup/core/enum_tables.h"
#include "neardup/core/index/lsh_params.h"
#include "neardup/core/index/minhash_lsh_index.h"
#include "neardup/core/minhash.h"

namespace neardup::python {
namespace {

class Lsh {
 public:
  Lsh(double threshold, int num_perm, std::pair<double, double> weights,
      std::optional<std::pair<int, int>> params,
      const py::object& storage_config, const py::object& prepickle,
      const py::object& hashfunc)
      : threshold_(threshold), num_perm_(num_perm), weights_(weights) {
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
    if (params.has_value()) {
      params_ = {params->first, params->second};
      RaiseIfError(ValidateLshParams(params_, num_perm));
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

  void Insert(const py::object& key, const MinHash& minhash,
              bool check_duplication) {
    InsertMany({{key, &minhash}}, check_duplication);
  }

  // All or nothing: a refused item, or a failure half-way, leaves the index
  // and its keys as they were. A key given twice (check_duplication=False)
  // takes its last MinHash.
  void InsertMany(
      const std::vector<std::pair<py::object, const MinHash*>>& items,
      bool check_duplication) {
    if (items.empty()) return;
    std::unique_lock<std::shared_mutex> lock = LockExclusive();
    const std::pair<uint64_t, HashFamily> hashing = hashing_.value_or(
        std::make_pair(items[0].second->seed, items[0].second->family));
    // Checks, before anything changes.
    py::dict batch;  // key -> position of its last item
    for (size_t i = 0; i < items.size(); ++i) {
      const auto& [key, minhash] = items[i];
      CheckMinHash(*minhash, hashing);
      if (check_duplication && (ids_.contains(key) || batch.contains(key))) {
        throw py::value_error(absl::StrCat("The given key already exists: ",
                                           std::string(py::repr(key))));
      }
      batch[key] = i;
    }
    // The plan: replaced ids with their old slots, new ids and their keys.
    std::vector<std::pair<uint32_t, MinHashSignature>> replaced;  // new
    std::vector<MinHashSignature> replaced_old;
    std::vector<py::object> new_keys;
    std::vector<uint32_t> new_ids;
    std::vector<MinHashSignature> new_signatures;
    std::vector<uint32_t> free_ids = free_ids_;
    const size_t old_size = keys_.size();
    size_t next_id = old_size;
    for (const auto& [key, position] : batch) {
      const MinHash& minhash = *items[position.cast<size_t>()].second;
      if (ids_.contains(key)) {  // check_duplication=False: a replace
        const uint32_t id = ids_[key].cast<uint32_t>();
        replaced.emplace_back(id, MinHashSignature{minhash.slots});
        replaced_old.push_back(MinHashSignature{*index_->Get(id)});
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
      new_keys.push_back(py::reinterpret_borrow<py::object>(key));
      new_ids.push_back(id);
      new_signatures.push_back(MinHashSignature{minhash.slots});
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
        if (status.ok()) {
          status = index_->BulkInsert(new_ids, new_signatures, 1);
        }
      }
      RaiseIfError(status);
      if (next_id > keys_.size()) {
        keys_.resize(next_id);
        occupied_.resize(next_id, false);
      }
      for (; registered < new_ids.size(); ++registered) {
        ids_[new_keys[registered]] = new_ids[registered];
        keys_[new_ids[registered]] = new_keys[registered];
        occupied_[new_ids[registered]] = true;
      }
    } catch (...) {
      for (size_t i = 0; i < registered; ++i) {
        ids_.attr("pop")(new_keys[i], py::none());
        keys_[new_ids[i]] = py::none();
        occupied_[new_ids[i]] = false;
      }
      keys_.resize(old_size);
      occupied_.resize(old_size);
      {
        py::gil_scoped_release release;
        // BulkInsert may have placed some before failing: remove them all.
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

  py::list Query(const MinHash& minhash, bool with_scores,
                 std::optional<double> min_score) const {
    std::shared_lock<std::shared_mutex> lock = LockShared();
    CheckProbe(minhash);
    const MinHashSignature signature{minhash.slots};
    const bool scored = with_scores || min_score.has_value();
    Found found;
    {
      py::gil_scoped_release release;
      found = Probe(signature, scored, min_score.value_or(0.0));
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
    std::vector<MinHashSignature> signatures;
    std::vector<std::pair<uint64_t, HashFamily>> hashings;
    for (py::handle item : minhashes) {
      if (!py::isinstance<MinHash>(item)) {
        throw py::type_error("query_many takes MinHashes, got " +
                             std::string(py::repr(item)));
      }
      const MinHash& minhash = item.cast<const MinHash&>();
      CheckWidth(minhash);
      signatures.push_back(MinHashSignature{minhash.slots});
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
    const bool scored = with_scores || min_score.has_value();
    std::vector<Found> found(signatures.size());
    {
      py::gil_scoped_release release;
      for (size_t i = 0; i < signatures.size(); ++i) {
        found[i] = Probe(signatures[i], scored, min_score.value_or(0.0));
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
    ForgetId(id);
  }

  bool Contains(const py::object& key) const { return ids_.contains(key); }
  size_t size() const { return ids_.size(); }
  double threshold() const { return threshold_; }
  int num_perm() const { return num_perm_; }
  const LshParams& params() const { return params_; }
  std::pair<double, double> weights() const { return weights_; }

  // Pickling: the settings and every (key, slots), in id order.
  py::tuple State() const {
    std::shared_lock<std::shared_mutex> lock = LockShared();
    py::list entries;
    for (size_t id = 0; id < keys_.size(); ++id) {
      if (!occupied_[id]) continue;
      const std::optional<std::vector<uint64_t>> slots =
          index_->Get(static_cast<uint32_t>(id));
      if (!slots) continue;
      entries.append(py::make_tuple(
          keys_[id], py::bytes(reinterpret_cast<const char*>(slots->data()),
                               slots->size() * sizeof(uint64_t))));
    }
    py::object hashing = py::none();
    if (hashing_) {
      hashing = py::make_tuple(
          hashing_->first, std::string(kHashFamilies.Name(hashing_->second)));
    }
    return py::make_tuple(1, threshold_, num_perm_, params_.bands, params_.rows,
                          weights_, hashing, entries);
  }

  static std::unique_ptr<Lsh> FromState(const py::tuple& state) {
    try {
      return FromStateUnchecked(state);
    } catch (const py::cast_error&) {
    } catch (const py::value_error&) {
    }
    throw py::value_error("not a neardup MinHashLSH state (version 1)");
  }

  static std::unique_ptr<Lsh> FromStateUnchecked(const py::tuple& state) {
    if (state.size() != 8 || state[0].cast<int>() != 1) {
      throw py::value_error("not a neardup MinHashLSH state (version 1)");
    }
    auto lsh = std::make_unique<Lsh>(
        state[1].cast<double>(), state[2].cast<int>(),
        state[5].cast<std::pair<double, double>>(),
        std::make_pair(state[3].cast<int>(), state[4].cast<int>()), py::none(),
        py::none(), py::none());
    if (state[6].is_none()) {
      if (!state[7].cast<py::list>().empty()) throw py::value_error("");
      return lsh;
    }
    const py::tuple hashing = state[6].cast<py::tuple>();
    const uint64_t seed = hashing[0].cast<uint64_t>();
    const HashFamily family =
        ValueOrRaise(kHashFamilies.Parse(hashing[1].cast<std::string>()));
    std::vector<MinHash> minhashes;
    std::vector<py::object> keys;
    for (py::handle entry : state[7].cast<py::list>()) {
      const py::tuple pair = entry.cast<py::tuple>();
      const std::string bytes = pair[1].cast<std::string>();
      if (bytes.size() != lsh->num_perm_ * sizeof(uint64_t)) {
        throw py::value_error("MinHashLSH state: an entry of the wrong width");
      }
      MinHash minhash(lsh->num_perm_, seed, family);
      std::memcpy(minhash.slots.data(), bytes.data(), bytes.size());
      minhashes.push_back(std::move(minhash));
      keys.push_back(py::reinterpret_borrow<py::object>(pair[0]));
    }
    std::vector<std::pair<py::object, const MinHash*>> items;
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

  void CheckProbe(const MinHash& minhash) const {
    if (hashing_) CheckMinHash(minhash, *hashing_);
    CheckWidth(minhash);
  }

  Found Probe(const MinHashSignature& signature, bool scored,
              double min_score) const {
    Found found;
    if (scored) {
      absl::StatusOr<std::vector<ScoredId>> matches =
          index_->Query(signature, min_score);
      if (matches.ok()) {
        found.matches = *std::move(matches);
      } else {
        found.status = matches.status();
      }
      return found;
    }
    absl::StatusOr<std::vector<uint32_t>> ids = index_->Candidates(signature);
    if (!ids.ok()) {
      found.status = ids.status();
      return found;
    }
    found.matches.reserve(ids->size());
    for (uint32_t id : *ids) found.matches.push_back({id, 0.0});
    return found;
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
  LshParams params_;
  std::unique_ptr<MinHashLshIndex> index_;
  mutable std::shared_mutex mu_;    // see the top of the file
  py::dict ids_;                    // key -> id
  std::vector<py::object> keys_;    // id -> key
  std::vector<bool> occupied_;      // id -> whether keys_[id] is a key
  std::vector<uint32_t> free_ids_;  // removed ids, reused first
  // The seed and hash family of the MinHashes held (the first insert's).
  std::optional<std::pair<uint64_t, HashFamily>> hashing_;
};

}  // namespace

void BindLsh(py::module_& m) {
  py::class_<Lsh>(m, "MinHashLSH", R"(An LSH index of MinHashes, by key.

datasketch's MinHashLSH API: insert, query, remove, `key in lsh`,
insertion_session, is_empty, threshold, h, b, r. query returns the keys that
share a band with the MinHash (datasketch's candidates); with_scores=True
pairs each with its estimated Jaccard, best first, and min_score drops the
ones below. Keys are any hashable objects. Deletes cost one pass over the
bands. pickle saves and loads it. Bands x rows are datasketch's choice for
threshold and weights unless params=(b, r) is given.)")
      .def(py::init<double, int, std::pair<double, double>,
                    std::optional<std::pair<int, int>>, py::object, py::object,
                    py::object>(),
           py::arg("threshold") = 0.9, py::arg("num_perm") = 128,
           py::arg("weights") = std::make_pair(0.5, 0.5),
           py::arg("params") = py::none(),
           py::arg("storage_config") = py::none(),
           py::arg("prepickle") = py::none(), py::arg("hashfunc") = py::none())
      .def("insert", &Lsh::Insert, py::arg("key"), py::arg("minhash"),
           py::arg("check_duplication") = true,
           "Adds a key. ValueError if it is there already (with "
           "check_duplication=False, its MinHash is replaced).")
      .def(
          "insert_many",
          [](Lsh& self, py::iterable items, bool check_duplication) {
            std::vector<py::object> keep;  // the pairs, alive for the call
            std::vector<std::pair<py::object, const MinHash*>> pairs;
            for (py::handle item : items) {
              keep.push_back(py::reinterpret_borrow<py::object>(item));
              try {
                const py::tuple pair = py::cast<py::tuple>(item);
                if (pair.size() != 2) throw py::cast_error();
                keep.push_back(pair);
                pairs.emplace_back(pair[0], &pair[1].cast<const MinHash&>());
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
      .def(py::pickle([](const Lsh& self) { return self.State(); },
                      [](py::tuple state) { return Lsh::FromState(state); }));
}

}  // namespace neardup::python
