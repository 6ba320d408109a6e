// neardup.MinHash: datasketch's MinHash API (update, update_batch, jaccard,
// digest, count, merge, bulk, ...) over neardup's token hashing and kernel.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bindings.h"
#include "neardup/core/enum_tables.h"
#include "neardup/core/minhash.h"
#include "neardup/core/shingle_set.h"
#include "numpy_arrays.h"

namespace neardup::python {
namespace {

constexpr uint64_t kEmptySlot = std::numeric_limits<uint64_t>::max();

// datasketch's default seed; neardup's own text signatures use txtfp's.
constexpr uint64_t kDatasketchSeed = 1;

HashFamily ParseFamily(const std::string& name) {
  return ValueOrRaise(kHashFamilies.Parse(name));
}

void CheckNumPerm(int num_perm) {
  if (num_perm < 1 || num_perm > 4096) {
    throw py::value_error(
        absl::StrCat("num_perm must be in [1, 4096], got ", num_perm));
  }
}

MinHash Make(int num_perm, uint64_t seed, const py::object& hashfunc,
             const py::object& hashobj, const py::object& hashvalues,
             const py::object& permutations, const std::string& hash_family,
             bool keep_set) {
  if (!hashfunc.is_none() || !hashobj.is_none()) {
    throw py::type_error(
        "neardup hashes tokens itself (hash_family='xxh3-64' or "
        "'mmh3-x64-128'); hashfunc and hashobj are not supported");
  }
  if (!permutations.is_none()) {
    throw py::type_error(
        "neardup derives its permutations from each token's 128-bit hash; "
        "permutations is not supported");
  }
  const HashFamily family = ParseFamily(hash_family);
  if (hashvalues.is_none()) {
    CheckNumPerm(num_perm);
    MinHash out(num_perm, seed, family);
    if (keep_set) out.set.emplace();
    return out;
  }
  if (keep_set) {
    throw py::value_error(
        "keep_set needs the tokens: a MinHash made from hashvalues has none");
  }
  std::vector<uint64_t> values = SlotsFrom(hashvalues);
  CheckNumPerm(static_cast<int>(values.size()));
  MinHash out(static_cast<int>(values.size()), seed, family);
  out.slots = std::move(values);
  return out;
}

double Jaccard(MinHash& a, MinHash& b, bool exact) {
  CheckComparable(a, b);
  if (exact) {
    const std::vector<uint64_t>* set_a = a.SortedSet();
    const std::vector<uint64_t>* set_b = b.SortedSet();
    if (set_a == nullptr || set_b == nullptr) {
      throw py::value_error(
          "exact=True compares token sets: make both MinHashes with "
          "keep_set=True");
    }
    return ExactJaccard64(*set_a, *set_b);
  }
  return EstimateJaccardUnchecked(a.slots.data(), b.slots.data(), a.num_perm());
}

py::bytes HashBytes(const std::vector<uint64_t>& values) {
  return py::bytes(reinterpret_cast<const char*>(values.data()),
                   values.size() * sizeof(uint64_t));
}

}  // namespace

MinHash::MinHash(int num_perm, uint64_t seed, HashFamily family)
    : seed(seed), family(family), slots(num_perm, kEmptySlot) {}

std::vector<Hash128> MinHash::Hash(
    const std::vector<std::string_view>& tokens) const {
  std::vector<Hash128> hashes;
  hashes.reserve(tokens.size());
  for (std::string_view token : tokens) {
    hashes.push_back(HashToken(family, token, seed));
  }
  return hashes;
}

void MinHash::FoldSlots(const std::vector<Hash128>& hashes) {
  FoldTokenHashes(hashes, slots);
}

void MinHash::Keep(const std::vector<Hash128>& hashes) {
  if (!set || hashes.empty()) return;
  // push_back grows geometrically: one token per update stays linear.
  for (const Hash128& hash : hashes) set->push_back(hash.lo);
  set_sorted = false;
}

void MinHash::Fold(const std::vector<std::string_view>& tokens) {
  const std::vector<Hash128> hashes = Hash(tokens);
  FoldSlots(hashes);
  Keep(hashes);
}

const std::vector<uint64_t>* MinHash::SortedSet() {
  if (!set) return nullptr;
  if (!set_sorted) {
    SortUniqueHashes(&*set);
    set_sorted = true;
  }
  return &*set;
}

void CheckComparable(const MinHash& a, const MinHash& b) {
  if (a.num_perm() != b.num_perm()) {
    throw py::value_error(
        absl::StrCat("cannot compare MinHash with different numbers of "
                     "permutations: ",
                     a.num_perm(), " and ", b.num_perm()));
  }
  if (a.seed != b.seed || a.family != b.family) {
    throw py::value_error(
        "cannot compare MinHash with different seeds or hash families");
  }
}

void BindMinHash(py::module_& m) {
  py::class_<MinHash>(m, "MinHash", R"(A MinHash of a set of tokens.

datasketch's MinHash API: update, update_batch, jaccard, digest, count,
merge, copy, clear, is_empty, bulk, len() and ==. Tokens are bytes (or str,
hashed as UTF-8). Each token is hashed to 128 bits by xxh3 (or murmur3) with
the seed, and slot i keeps the least lo + i*hi: the values are neardup's,
not datasketch's, so signatures of the two do not mix. keep_set=True also
keeps the token set (8 bytes per distinct token) for jaccard(exact=True)
and a MinHashLSH with verification="exact".)")
      .def(py::init(&Make), py::arg("num_perm") = 128,
           py::arg("seed") = kDatasketchSeed, py::arg("hashfunc") = py::none(),
           py::arg("hashobj") = py::none(), py::arg("hashvalues") = py::none(),
           py::arg("permutations") = py::none(), py::kw_only(),
           py::arg("hash_family") = "xxh3-64", py::arg("keep_set") = false,
           "num_perm slots (1..4096); seed of the token hash; hashvalues: a "
           "digest to start from (its length sets num_perm); keep_set: keep "
           "the token set too, for exact Jaccard.")
      .def(
          "update",
          [](MinHash& self, py::handle token) {
            self.Fold({TokenBytes(token)});
          },
          py::arg("b"), "Adds one token (bytes, or str as UTF-8).")
      .def(
          "update_batch",
          [](MinHash& self, py::handle tokens) {
            if (PyBytes_Check(tokens.ptr()) || PyUnicode_Check(tokens.ptr())) {
              ReadTokens(tokens);  // raises the TypeError
            }
            FoldIterable(self, tokens);
          },
          py::arg("b"), "Adds every token of an iterable.")
      .def("jaccard", &Jaccard, py::arg("other"), py::kw_only(),
           py::arg("exact") = false,
           "The estimated Jaccard similarity: the share of equal slots; "
           "with exact=True the true Jaccard of the token sets (both made "
           "with keep_set=True).")
      .def(
          "digest", [](const MinHash& self) { return SlotsArray(self.slots); },
          "A copy of the slots (a NumPy uint64 array when NumPy is there).")
      .def(
          "count",
          [](const MinHash& self) {
            // As datasketch: k / sum(v / max) - 1, over 64-bit values.
            double sum = 0;
            for (uint64_t v : self.slots) {
              sum += static_cast<double>(v) / 18446744073709551615.0;
            }
            return static_cast<double>(self.num_perm()) / sum - 1.0;
          },
          "The estimated number of distinct tokens.")
      .def(
          "merge",
          [](MinHash& self, const MinHash& other) {
            CheckComparable(self, other);
            if (&self == &other) return;  // the union with itself
            if (self.set && !other.set) {
              throw py::value_error(
                  "this MinHash keeps its token set and the other has none: "
                  "the union's set would be wrong");
            }
            for (size_t i = 0; i < self.slots.size(); ++i) {
              self.slots[i] = std::min(self.slots[i], other.slots[i]);
            }
            if (self.set && !other.set->empty()) {
              self.set->insert(self.set->end(), other.set->begin(),
                               other.set->end());
              self.set_sorted = false;
            }
          },
          py::arg("other"), "Makes this the MinHash of the union.")
      .def(
          "is_empty",
          [](const MinHash& self) {
            return std::all_of(self.slots.begin(), self.slots.end(),
                               [](uint64_t v) { return v == kEmptySlot; });
          },
          "Whether no token was added.")
      .def(
          "clear",
          [](MinHash& self) {
            std::fill(self.slots.begin(), self.slots.end(), kEmptySlot);
            if (self.set) self.set->clear();
            self.set_sorted = true;
          },
          "Forgets every token.")
      .def(
          "copy", [](const MinHash& self) { return MinHash(self); },
          "An independent copy.")
      .def("__copy__", [](const MinHash& self) { return MinHash(self); })
      .def("__deepcopy__",
           [](const MinHash& self, py::dict) { return MinHash(self); })
      .def("__len__", &MinHash::num_perm)
      .def("__eq__",
           [](const MinHash& self, py::object other) {
             if (!py::isinstance<MinHash>(other)) return false;
             const MinHash& o = other.cast<const MinHash&>();
             return self.seed == o.seed && self.family == o.family &&
                    self.slots == o.slots;
           })
      .def("__hash__",
           [](const MinHash&) -> py::object {
             throw py::type_error("MinHash is mutable and not hashable");
           })
      .def_property_readonly("num_perm", &MinHash::num_perm)
      .def_readonly("seed", &MinHash::seed)
      .def_property_readonly(
          "keep_set", [](const MinHash& self) { return self.set.has_value(); },
          "Whether the token set is kept (for exact Jaccard).")
      .def_property_readonly(
          "hash_family",
          [](const MinHash& self) {
            return std::string(kHashFamilies.Name(self.family));
          })
      .def_property_readonly(
          "hashvalues",
          [](py::object self) {
            MinHash& m = self.cast<MinHash&>();
            return SlotsView(m.slots, self);
          },
          "The slots without a copy (a NumPy view when NumPy is there).")
      .def_static(
          "bulk",
          [](py::iterable documents, int num_perm, uint64_t seed,
             const std::string& hash_family, bool keep_set) {
            CheckNumPerm(num_perm);
            MinHash empty(num_perm, seed, ParseFamily(hash_family));
            if (keep_set) empty.set.emplace();
            // One thread: reading Python's token objects, which needs the
            // GIL, costs more than hashing them (a second thread hashing
            // the chunk before measured slower, bench/README.md).
            std::vector<MinHash> out;
            for (py::handle document : documents) {
              if (PyBytes_Check(document.ptr()) ||
                  PyUnicode_Check(document.ptr())) {
                ReadTokens(document);  // raises the TypeError
              }
              out.push_back(empty);
              FoldIterable(out.back(), document);
            }
            return out;
          },
          py::arg("b"), py::kw_only(), py::arg("num_perm") = 128,
          py::arg("seed") = kDatasketchSeed, py::arg("hash_family") = "xxh3-64",
          py::arg("keep_set") = false, "One MinHash per iterable of tokens.")
      .def(py::pickle(
          [](MinHash& self) {
            const std::string family(kHashFamilies.Name(self.family));
            if (!self.set) {
              return py::make_tuple(self.seed, family, HashBytes(self.slots));
            }
            return py::make_tuple(self.seed, family, HashBytes(self.slots),
                                  HashBytes(*self.SortedSet()));
          },
          [](py::tuple state) {
            try {
              if (state.size() != 3 && state.size() != 4) {
                throw py::value_error("");
              }
              const std::string bytes = state[2].cast<std::string>();
              const size_t width = bytes.size() / sizeof(uint64_t);
              if (width < 1 || width > 4096 ||
                  bytes.size() % sizeof(uint64_t) != 0) {
                throw py::value_error("");
              }
              MinHash out(static_cast<int>(width), state[0].cast<uint64_t>(),
                          ParseFamily(state[1].cast<std::string>()));
              std::memcpy(out.slots.data(), bytes.data(), bytes.size());
              if (state.size() == 4) {
                const std::string set = state[3].cast<std::string>();
                if (set.size() % sizeof(uint64_t) != 0) {
                  throw py::value_error("");
                }
                out.set.emplace(set.size() / sizeof(uint64_t));
                std::memcpy(out.set->data(), set.data(), set.size());
                out.set_sorted = false;  // sorted again, not trusted
              }
              return out;
            } catch (const py::cast_error&) {
            } catch (const py::value_error&) {
            }
            throw py::value_error("not a neardup MinHash state");
          }));
}

}  // namespace neardup::python
