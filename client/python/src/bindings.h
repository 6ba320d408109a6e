#ifndef NEARDUP_PYTHON_BINDINGS_H_
#define NEARDUP_PYTHON_BINDINGS_H_

// The pieces of neardup._engine, one Bind* per file, and what they share:
// Status to exception, tokens as bytes, the MinHash the index takes.

#include <pybind11/pybind11.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "neardup/core/fingerprint_settings.h"
#include "neardup/core/hash.h"

namespace neardup::python {

namespace py = pybind11;

// INVALID_ARGUMENT and FAILED_PRECONDITION raise ValueError, NOT_FOUND
// KeyError, RESOURCE_EXHAUSTED MemoryError, the rest RuntimeError; the
// message is the status's.
[[noreturn]] void Raise(const absl::Status& status);

inline void RaiseIfError(const absl::Status& status) {
  if (!status.ok()) Raise(status);
}

template <typename T>
T ValueOrRaise(absl::StatusOr<T> value) {
  if (!value.ok()) Raise(value.status());
  return *std::move(value);
}

// A token's bytes: bytes and bytearray as they are, str as UTF-8. Valid
// while `token` lives and, for a bytearray, is not resized: use it with the
// GIL held. TypeError otherwise.
std::string_view TokenBytes(py::handle token);

// An iterable's tokens, read under the GIL for use without it: views into
// bytes and str objects (immutable; `keep`, a tuple of them, holds them
// even if the caller's list changes meanwhile) and copies of bytearrays,
// which another thread could resize. Destroy it with the GIL held.
struct TokenBatch {
  py::tuple keep;
  std::vector<std::string> copies;  // reserved once: views stay valid
  std::vector<std::string_view> views;
};
// TypeError for a bytes or str (one token, not an iterable of them) and for
// a token of another type.
TokenBatch ReadTokens(py::handle iterable);

// datasketch's MinHash over neardup's token hashing: each token is hashed
// to 128 bits (xxh3 or murmur3 with the seed) and slot i keeps the least
// lo + i*hi, as neardup's own signatures do (core/minhash.h).
struct MinHash {
  MinHash(int num_perm, uint64_t seed, HashFamily family);

  int num_perm() const { return static_cast<int>(slots.size()); }
  // Hashes the tokens (views valid for the call) and folds them in.
  void Fold(const std::vector<std::string_view>& tokens);
  // The two halves of Fold: hashing and folding the slots touch nothing a
  // reader of this MinHash could see move (run them without the GIL);
  // Keep grows the set, which readers (query, pickle, jaccard) walk: with
  // the GIL held.
  std::vector<Hash128> Hash(const std::vector<std::string_view>& tokens) const;
  void FoldSlots(const std::vector<Hash128>& hashes);
  void Keep(const std::vector<Hash128>& hashes);
  // keep_set: the token set's distinct hashes, sorted (in place, the first
  // time after tokens were added). Null without keep_set.
  const std::vector<uint64_t>* SortedSet();

  uint64_t seed;
  HashFamily family;
  std::vector<uint64_t> slots;
  // keep_set: the low 64 bits of every token hash folded in, the set an
  // exact Jaccard compares (as a collection keeps its shingle sets).
  std::optional<std::vector<uint64_t>> set;
  bool set_sorted = true;
};

// Folds an iterable's tokens into `minhash`. A list or tuple of up to
// kFoldWithGilTokens tokens is hashed with the GIL held, reading the
// tokens in place (microseconds: copying them would cost more); anything
// else is read into a TokenBatch and hashed without the GIL.
inline constexpr size_t kFoldWithGilTokens = 4096;
void FoldIterable(MinHash& minhash, py::handle tokens);

// ValueError unless a and b can be compared (width, seed, hash family).
void CheckComparable(const MinHash& a, const MinHash& b);

// The fingerprint settings a dict of the CLI's names holds (profile,
// tokenizer, ngram, num_perm, seed, hash_family, weighting), as
// _stateless.py and _dedup.py pass them; ValueError for unknown names.
FingerprintSettings FingerprintSettingsOf(const py::dict& words);

void BindMinHash(py::module_& m);
void BindLsh(py::module_& m);
void BindText(py::module_& m);
void BindStateless(py::module_& m);
void BindDedup(py::module_& m);

}  // namespace neardup::python

#endif  // NEARDUP_PYTHON_BINDINGS_H_
