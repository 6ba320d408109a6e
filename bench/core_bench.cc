// Micro-benchmarks for the core hot paths. Run:
//   build/bench/core_bench --benchmark_min_time=0.5
// Compare figures from one run only (the machine is noisy).

#include <benchmark/benchmark.h>

#include <random>

#include "bench/sample_text.h"
#include "internal/minhash_kernel.h"
#include "internal/word_segmenter.h"
#include "neardup/core/canonicalizer.h"
#include "neardup/core/minhash.h"
#include "neardup/core/simhash.h"

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

}  // namespace
}  // namespace neardup
