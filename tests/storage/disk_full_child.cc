// Child process of store_disk_full_test: on a nearly full filesystem with
// no reserve, writes 64 KiB documents until RocksDB runs out of space, logs
// each acknowledged one (id, tab, text) to LOG, then removes BALLAST and
// retries until a write goes through again without a reopen.
// Usage: storage_disk_full_child STORE_DIR BALLAST LOG
// Exit: 0 recovered; 10 no RESOURCE_EXHAUSTED; 11 Stats not full; 12 no
// resume within 30 s; 13 still full after it; 2 setup failed. Debian's
// RocksDB may instead abort on an assertion (see the test).

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>

#include "neardup/core/minhash.h"
#include "neardup/storage/store.h"

namespace {

using neardup::storage::DocumentWrite;

std::string RandomText(std::mt19937_64& rng, size_t bytes) {
  std::string text;
  while (text.size() < bytes) text += std::to_string(rng()) + " ";
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  neardup::storage::StoreOptions options;
  options.block_cache_bytes = size_t{8} << 20;
  options.write_buffer_bytes = size_t{4} << 20;
  options.min_free_disk_bytes = 0;
  auto store = neardup::storage::Store::Open(argv[1], options);
  if (!store.ok()) return 2;
  neardup::CollectionConfig config;
  config.store_text = true;
  auto collection = (*store)->CreateCollection("c", config);
  if (!collection.ok()) return 2;
  auto minhasher =
      neardup::MinHasher::Create(neardup::MinHashConfigOf(collection->config));
  if (!minhasher.ok()) return 2;
  std::mt19937_64 rng(42);
  std::ofstream log(argv[3]);
  auto put = [&](int n) {
    DocumentWrite doc;
    doc.external_id = "doc" + std::to_string(n);
    doc.text = RandomText(rng, 64 << 10);
    doc.minhash = minhasher->Fingerprint(*doc.text).value();
    doc.minhash_config_hash = minhasher->config_hash();
    absl::Status status = (*store)->PutDocument(*collection, doc).status();
    if (status.ok()) log << doc.external_id << '\t' << *doc.text << std::endl;
    return status;
  };
  int n = 0;
  absl::Status status;
  while (status.ok() && n < 1000) status = put(n++);
  if (status.code() != absl::StatusCode::kResourceExhausted) return 10;
  if (!(*store)->Stats().disk_full) return 11;
  std::filesystem::remove(argv[2]);
  for (int attempt = 0; attempt < 300; ++attempt) {
    status = put(n);
    if (status.ok()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (!status.ok()) return 12;
  if ((*store)->Stats().disk_full) return 13;
  return 0;
}
