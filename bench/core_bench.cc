// Micro-benchmarks for the core hot paths. Run:
//   build/bench/core_bench --benchmark_min_time=0.5
// Compare figures from one run only (the machine is noisy).

#include <benchmark/benchmark.h>

#include <random>

#include "neardup/core/canonicalizer.h"
#include "neardup/core/index/minhash_lsh_index.h"
#include "neardup/core/index/simhash_index.h"
#include "neardup/core/index/union_find.h"
#include "neardup/core/internal/dot_kernel.h"
#include "neardup/core/internal/minhash_kernel.h"
#include "neardup/core/internal/word_segmenter.h"
#include "neardup/core/minhash.h"
#include "neardup/core/newsbot_simhash.h"
#include "neardup/core/perceptual.h"
#include "neardup/core/shingle_set.h"
#include "neardup/core/simhash.h"
#include "neardup/core/tlsh.h"
#include "sample_text.h"

namespace neardup {
namespace {

const std::string& Doc3K() {
  static const std::string doc = bench::EnglishDocument(3000);
  return doc;
}

void SetBytes(benchmark::State& state, size_t bytes) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}

void BM_CanonicalizeAscii3K(benchmark::State& state) {
  const Canonicalizer c = *Canonicalizer::Create();
  std::string out;
  for (auto _ : state) {
    benchmark::DoNotOptimize(c.CanonicalizeInto(Doc3K(), &out));
  }
  SetBytes(state, Doc3K().size());
}
BENCHMARK(BM_CanonicalizeAscii3K);

void BM_CanonicalizeUnicode3K(benchmark::State& state) {
  std::string doc = Doc3K();
  for (size_t i = 0; i < doc.size(); i += 100) doc.insert(i, "Ä");
  const Canonicalizer c = *Canonicalizer::Create();
  std::string out;
  for (auto _ : state) benchmark::DoNotOptimize(c.CanonicalizeInto(doc, &out));
  SetBytes(state, doc.size());
}
BENCHMARK(BM_CanonicalizeUnicode3K);

// The robust profile next to the default: arg 0 the text (0 ASCII; 1 with a
// Cyrillic look-alike or a capital Greek one in every 10th word; 2 Cyrillic
// words), arg 1 the
// canonicalizer (0 default, 1 robust as before -look, 2 robust).
void BM_CanonicalizeProfiles3K(benchmark::State& state) {
  std::string doc = Doc3K();
  if (state.range(0) == 2) {  // Cyrillic words: every letter asks its script
    std::string cyrillic;
    for (const char c : doc) {
      const bool lower = c >= 'a' && c <= 'z';
      if (lower || (c >= 'A' && c <= 'Z')) {  // U+0430.., U+0410..
        const unsigned cp = lower ? 0x0430u + static_cast<unsigned>(c - 'a')
                                  : 0x0410u + static_cast<unsigned>(c - 'A');
        cyrillic += static_cast<char>(0xC0 | (cp >> 6));
        cyrillic += static_cast<char>(0x80 | (cp & 0x3F));
      } else {
        cyrillic += c;
      }
    }
    doc = cyrillic;
  }
  if (state.range(0) == 1) {
    int word = 0;
    for (size_t i = 1; i < doc.size(); ++i) {
      if (doc[i - 1] != ' ' || ++word % 10 != 0) continue;
      doc.replace(i, 1, word % 20 == 0 ? "\u0430" : "\u0392");
    }
  }
  const CanonicalizerOptions options =
      state.range(1) == 0 ? CanonicalizerOptions{}
      : state.range(1) == 1
          ? *ParseCanonicalizerConfig("nfkc-cf-simple-bidi-fmt-ign-conf-sc")
          : *CanonicalizerProfile("robust");
  const Canonicalizer c = *Canonicalizer::Create(options);
  std::string out;
  for (auto _ : state) benchmark::DoNotOptimize(c.CanonicalizeInto(doc, &out));
  SetBytes(state, doc.size());
}
BENCHMARK(BM_CanonicalizeProfiles3K)
    ->ArgsProduct({{0, 1, 2}, {0, 1, 2}})
    ->ArgNames({"unicode", "profile"});

void BM_WordsAscii3K(benchmark::State& state) {
  for (auto _ : state) {
    size_t n = 0;
    internal::ForEachWordAscii(Doc3K(), [&](std::string_view) { ++n; });
    benchmark::DoNotOptimize(n);
  }
  SetBytes(state, Doc3K().size());
}
BENCHMARK(BM_WordsAscii3K);

void BM_WordsGeneralRules3K(benchmark::State& state) {
  for (auto _ : state) {
    size_t n = 0;
    internal::ForEachWordGeneral(Doc3K(), [&](std::string_view) { ++n; });
    benchmark::DoNotOptimize(n);
  }
  SetBytes(state, Doc3K().size());
}
BENCHMARK(BM_WordsGeneralRules3K);

// The 3K document with one non-ASCII sign per ~500 bytes (as the robust
// profile's skeleton makes of '%'): the rule engine runs only around them.
void BM_WordsMixed3K(benchmark::State& state) {
  static const std::string doc = [] {
    std::string d = Doc3K();
    for (size_t at = 250; at + 8 < d.size(); at += 500) {
      const size_t space = d.find(' ', at);
      if (space != std::string::npos) d.insert(space, "\u00BA/\u2080");
    }
    return d;
  }();
  for (auto _ : state) {
    size_t n = 0;
    internal::ForEachWord(doc, [&](std::string_view) { ++n; });
    benchmark::DoNotOptimize(n);
  }
  SetBytes(state, doc.size());
}
BENCHMARK(BM_WordsMixed3K);

// The headline figure: MinHash H=128, 5-word shingles, 3 KB English.
void BM_MinHash3K(benchmark::State& state) {
  MinHashConfig config;
  config.num_perm = static_cast<int>(state.range(0));
  const MinHasher h = *MinHasher::Create(config);
  for (auto _ : state) benchmark::DoNotOptimize(h.Fingerprint(Doc3K()));
  SetBytes(state, Doc3K().size());
}
BENCHMARK(BM_MinHash3K)->Arg(64)->Arg(128)->Arg(256);
BENCHMARK(BM_MinHash3K)->Arg(128)->Threads(2)->UseRealTime();

// The headline figure with the slot kernel capped at AVX2 (what an AVX2-only
// CPU runs), or at the portable kernel.
template <internal::MinHashKernelCap kCap>
void BM_MinHash3KCapped(benchmark::State& state) {
  if (kCap == internal::MinHashKernelCap::kAvx2 && !internal::CpuHasAvx2()) {
    state.SkipWithError("CPU has no AVX2");
    return;
  }
  const MinHasher h = *MinHasher::Create(MinHashConfig{});
  internal::CapMinHashKernel(kCap);
  for (auto _ : state) benchmark::DoNotOptimize(h.Fingerprint(Doc3K()));
  internal::CapMinHashKernel(internal::MinHashKernelCap::kNone);
  SetBytes(state, Doc3K().size());
}
BENCHMARK(BM_MinHash3KCapped<internal::MinHashKernelCap::kAvx2>)
    ->Name("BM_MinHash3K/128/avx2");
BENCHMARK(BM_MinHash3KCapped<internal::MinHashKernelCap::kScalar>)
    ->Name("BM_MinHash3K/128/scalar");

void BM_MinHash3KMurmur3(benchmark::State& state) {
  MinHashConfig config;
  config.family = HashFamily::kMurmur3;
  const MinHasher h = *MinHasher::Create(config);
  for (auto _ : state) benchmark::DoNotOptimize(h.Fingerprint(Doc3K()));
  SetBytes(state, Doc3K().size());
}
BENCHMARK(BM_MinHash3KMurmur3);

void BM_SimHash3K(benchmark::State& state) {
  const SimHasher h = *SimHasher::Create();
  for (auto _ : state) benchmark::DoNotOptimize(h.Fingerprint(Doc3K()));
  SetBytes(state, Doc3K().size());
}
BENCHMARK(BM_SimHash3K);

// TLSH over canonicalized text (as Fingerprint does) and over raw bytes.
void BM_Tlsh3K(benchmark::State& state) {
  const TlshFingerprinter h = *TlshFingerprinter::Create();
  for (auto _ : state) benchmark::DoNotOptimize(h.Fingerprint(Doc3K()));
  SetBytes(state, Doc3K().size());
}
BENCHMARK(BM_Tlsh3K);

void BM_TlshRaw3K(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(TlshOfBytes(Doc3K()));
  SetBytes(state, Doc3K().size());
}
BENCHMARK(BM_TlshRaw3K);

void BM_NewsbotSimHash3K(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(NewsbotSimHash(Doc3K(), state.range(0)));
  }
  SetBytes(state, Doc3K().size());
}
BENCHMARK(BM_NewsbotSimHash3K)->Arg(64)->Arg(128);

// UCFP perceptual at winnowing window w (the argument), k = 5 like the
// default MinHash next to it, and at its own default k = 9.
void BM_Perceptual3K(benchmark::State& state) {
  PerceptualConfig config;
  config.w = static_cast<int>(state.range(0));
  config.k = static_cast<int>(state.range(1));
  const PerceptualHasher h = *PerceptualHasher::Create(config);
  for (auto _ : state) benchmark::DoNotOptimize(h.Fingerprint(Doc3K()));
  SetBytes(state, Doc3K().size());
}
BENCHMARK(BM_Perceptual3K)
    ->Args({1, 5})
    ->Args({2, 5})
    ->Args({4, 5})
    ->Args({8, 5})
    ->Args({4, 9});

std::vector<Hash128> RandomHashes(size_t n) {
  std::mt19937_64 rng(7);
  std::vector<Hash128> v(n);
  for (Hash128& h : v) h = {rng(), rng()};
  return v;
}

// Slot-update kernels side by side: 500 tokens x 128 slots.
void BM_KernelScalar(benchmark::State& state) {
  const auto hashes = RandomHashes(500);
  uint64_t slots[128];
  for (auto _ : state) {
    internal::MinHashSlotsScalar(hashes.data(), hashes.size(), 128, slots);
    benchmark::DoNotOptimize(slots);
  }
}
BENCHMARK(BM_KernelScalar);

void BM_KernelAvx2(benchmark::State& state) {
  if (!internal::CpuHasAvx2()) {
    state.SkipWithError("CPU has no AVX2");
    return;
  }
  const auto hashes = RandomHashes(500);
  uint64_t slots[128];
  for (auto _ : state) {
    internal::MinHashSlotsAvx2(hashes.data(), hashes.size(), 128, slots);
    benchmark::DoNotOptimize(slots);
  }
}
BENCHMARK(BM_KernelAvx2);

void BM_KernelAvx512(benchmark::State& state) {
  if (!internal::CpuHasAvx512Dq()) {
    state.SkipWithError("CPU has no AVX-512 F+DQ");
    return;
  }
  const auto hashes = RandomHashes(500);
  uint64_t slots[128];
  for (auto _ : state) {
    internal::MinHashSlotsAvx512(hashes.data(), hashes.size(), 128, slots);
    benchmark::DoNotOptimize(slots);
  }
}
BENCHMARK(BM_KernelAvx512);

void BM_EstimateJaccard128(benchmark::State& state) {
  const auto a = RandomHashes(64);
  const auto b = RandomHashes(64);
  for (auto _ : state) {
    benchmark::DoNotOptimize(EstimateJaccardUnchecked(
        reinterpret_cast<const uint64_t*>(a.data()),
        reinterpret_cast<const uint64_t*>(b.data()), 128));
  }
}
BENCHMARK(BM_EstimateJaccard128);

// --- Exact evidence of one 250-word document (~246 shingle hashes).

std::vector<uint64_t> RandomShingles(size_t n) {
  std::mt19937_64 rng(11);
  std::vector<uint64_t> values(n);
  for (uint64_t& v : values) v = rng();
  return values;
}

void BM_SortUniqueHashes246(benchmark::State& state) {
  const std::vector<uint64_t> shingles = RandomShingles(246);
  std::vector<uint64_t> work;
  for (auto _ : state) {
    work = shingles;
    benchmark::DoNotOptimize(SortUniqueHashes(std::span<uint64_t>(work)));
  }
  state.SetItemsProcessed(state.iterations() * 246);
}
BENCHMARK(BM_SortUniqueHashes246);

void BM_EncodeShingleSet246(benchmark::State& state) {
  std::vector<uint64_t> shingles = RandomShingles(246);
  SortUniqueHashes(&shingles);
  for (auto _ : state) benchmark::DoNotOptimize(EncodeShingleSet(shingles));
  state.SetItemsProcessed(state.iterations() * 246);
}
BENCHMARK(BM_EncodeShingleSet246);

void BM_DecodeShingleSet246(benchmark::State& state) {
  std::vector<uint64_t> shingles = RandomShingles(246);
  SortUniqueHashes(&shingles);
  const std::string encoded = EncodeShingleSet(shingles);
  std::vector<uint64_t> out;
  for (auto _ : state) {
    benchmark::DoNotOptimize(DecodeShingleSet(encoded, &out));
  }
  state.SetItemsProcessed(state.iterations() * 246);
}
BENCHMARK(BM_DecodeShingleSet246);

// --- Indexes: 100K stored documents, one operation per iteration.

constexpr uint32_t kIndexDocs = 100000;

MinHashSignature RandomSignature(std::mt19937_64& rng) {
  MinHashSignature sig;
  sig.slots.resize(128);
  for (uint64_t& slot : sig.slots) slot = rng();
  return sig;
}

MinHashLshIndex& FilledLshIndex() {
  static MinHashLshIndex* index = [] {
    auto created = *MinHashLshIndex::Create({});
    std::mt19937_64 rng(1);
    for (uint32_t id = 0; id < kIndexDocs; ++id) {
      if (!created->Insert(id, RandomSignature(rng)).ok()) std::abort();
    }
    return created.release();
  }();
  return *index;
}

void BM_LshQueryMiss100K(benchmark::State& state) {
  MinHashLshIndex& index = FilledLshIndex();
  std::mt19937_64 rng(2);
  const MinHashSignature probe = RandomSignature(rng);
  for (auto _ : state) benchmark::DoNotOptimize(index.Query(probe, 0.8));
}
BENCHMARK(BM_LshQueryMiss100K);

void BM_LshQueryHit100K(benchmark::State& state) {
  MinHashLshIndex& index = FilledLshIndex();
  std::mt19937_64 rng(1);  // same stream: the first stored signature
  MinHashSignature probe = RandomSignature(rng);
  for (int i = 0; i < 12; ++i) probe.slots[i * 10] = rng();
  for (auto _ : state) benchmark::DoNotOptimize(index.Query(probe, 0.8));
}
BENCHMARK(BM_LshQueryHit100K);

void BM_LshReinsert100K(benchmark::State& state) {
  MinHashLshIndex& index = FilledLshIndex();
  std::mt19937_64 rng(3);
  std::vector<MinHashSignature> sigs;
  for (int i = 0; i < (1 << 14); ++i) sigs.push_back(RandomSignature(rng));
  uint32_t id = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(index.Insert(id, sigs[id % sigs.size()]));
    id = (id + 7919) % kIndexDocs;
  }
}
BENCHMARK(BM_LshReinsert100K);

// Filling an empty index of 1M documents: inserts plus every growth of its
// band tables (beyond the caches, as in a server).
void BM_LshFill1M(benchmark::State& state) {
  std::mt19937_64 rng(6);
  std::vector<MinHashSignature> sigs;
  for (int i = 0; i < (1 << 12); ++i) sigs.push_back(RandomSignature(rng));
  constexpr uint32_t kDocs = 1000000;
  for (auto _ : state) {
    auto index = *MinHashLshIndex::Create({});
    for (uint32_t id = 0; id < kDocs; ++id) {
      // Distinct signatures: vary one slot per band by the id.
      MinHashSignature sig = sigs[id % sigs.size()];
      for (size_t slot = 0; slot < sig.slots.size(); slot += 4) {
        sig.slots[slot] ^= id;
      }
      if (!index->Insert(id, sig).ok()) std::abort();
    }
    benchmark::DoNotOptimize(index.get());
  }
  state.SetItemsProcessed(state.iterations() * kDocs);
}
BENCHMARK(BM_LshFill1M)->Unit(benchmark::kMillisecond);

void BM_SimHashQuery100K(benchmark::State& state) {
  static SimHashIndex* index = [] {
    auto created = *SimHashIndex::Create({});
    std::mt19937_64 rng(4);
    for (uint32_t id = 0; id < kIndexDocs; ++id) {
      if (!created->Insert(id, rng()).ok()) std::abort();
    }
    return created.release();
  }();
  std::mt19937_64 rng(5);
  const uint64_t probe = rng();
  for (auto _ : state) benchmark::DoNotOptimize(index->Query(probe));
}
BENCHMARK(BM_SimHashQuery100K);

void BM_UnionFindRandomUnions(benchmark::State& state) {
  std::mt19937 rng(6);
  for (auto _ : state) {
    UnionFind sets(kIndexDocs);
    for (uint32_t i = 0; i < kIndexDocs; ++i) {
      sets.Union(rng() % kIndexDocs, rng() % kIndexDocs);
    }
    benchmark::DoNotOptimize(sets.Find(0));
  }
  state.SetItemsProcessed(state.iterations() * kIndexDocs);
}
BENCHMARK(BM_UnionFindRandomUnions);

// Exact vector search kernels side by side: 1024 rows of 384 floats (a
// query of the flat semantic index scores every row this way).
template <auto Kernel>
void BM_DotMany384(benchmark::State& state) {
  if ((Kernel == internal::DotManyAvx2 && !internal::CpuHasAvx2Fma()) ||
      (Kernel == internal::DotManyAvx512 && !internal::CpuHasAvx512())) {
    state.SkipWithError("this CPU lacks the kernel's instructions");
    return;
  }
  constexpr size_t kRows = 1024, kStride = 384;
  std::mt19937 rng(7);
  std::normal_distribution<float> normal;
  std::vector<float> query(kStride), rows(kRows * kStride), out(kRows);
  for (float& x : query) x = normal(rng);
  for (float& x : rows) x = normal(rng);
  for (auto _ : state) {
    Kernel(query.data(), rows.data(), kRows, kStride, out.data());
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * kRows);
  state.SetBytesProcessed(state.iterations() * kRows * kStride * 4);
}
BENCHMARK(BM_DotMany384<internal::DotManyPortable>)
    ->Name("BM_DotMany384/portable");
BENCHMARK(BM_DotMany384<internal::DotManyAvx2>)->Name("BM_DotMany384/avx2");
BENCHMARK(BM_DotMany384<internal::DotManyAvx512>)->Name("BM_DotMany384/avx512");

// The int8 pre-pass of exact search: 1024 rows of 384 codes per call.
template <auto Kernel>
void BM_Int8DotMany384(benchmark::State& state) {
  if ((Kernel == internal::Int8DotManyAvx2 && !internal::CpuHasAvx2()) ||
      (Kernel == internal::Int8DotManyAvx512 && !internal::CpuHasAvx512Bw())) {
    state.SkipWithError("this CPU lacks the kernel's instructions");
    return;
  }
  constexpr size_t kRows = 1024, kStride = 384;
  std::mt19937 rng(8);
  std::vector<int8_t> query(kStride), rows(kRows * kStride);
  for (int8_t& x : query) x = static_cast<int8_t>(rng() % 255 - 127);
  for (int8_t& x : rows) x = static_cast<int8_t>(rng() % 255 - 127);
  std::vector<int32_t> out(kRows);
  for (auto _ : state) {
    Kernel(query.data(), rows.data(), kRows, kStride, out.data());
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * kRows);
  state.SetBytesProcessed(state.iterations() * kRows * kStride);
}
BENCHMARK(BM_Int8DotMany384<internal::Int8DotManyPortable>)
    ->Name("BM_Int8DotMany384/portable");
BENCHMARK(BM_Int8DotMany384<internal::Int8DotManyAvx2>)
    ->Name("BM_Int8DotMany384/avx2");
BENCHMARK(BM_Int8DotMany384<internal::Int8DotManyAvx512>)
    ->Name("BM_Int8DotMany384/avx512");

}  // namespace
}  // namespace neardup
