#ifndef NEARDUP_TESTS_STORAGE_STORE_TEST_UTIL_H_
#define NEARDUP_TESTS_STORAGE_STORE_TEST_UTIL_H_

// Shared by the Store tests: a fixture with a fresh directory per test, and
// documents with real signatures from core's fingerprinters.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "neardup/core/collection_config.h"
#include "neardup/core/collection_fingerprinter.h"
#include "neardup/core/minhash.h"
#include "neardup/core/simhash.h"
#include "neardup/storage/store.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace neardup::storage::testing {

// Fingerprints text the way a collection's documents must be.
class DocumentMaker {
 public:
  explicit DocumentMaker(const CollectionRecord& collection)
      : minhasher_(
            MinHasher::Create(MinHashConfigOf(collection.config)).value()) {
    if (collection.config.simhash_enabled) {
      simhasher_ = std::make_unique<SimHasher>(
          SimHasher::Create(SimHashConfigOf(collection.config)).value());
    }
    if (!collection.config.kept_families.empty()) {
      kept_ = std::make_unique<CollectionFingerprinter>(
          CollectionFingerprinter::Create(collection.config).value());
    }
  }

  DocumentWrite Make(std::string external_id, std::string_view text) const {
    DocumentWrite doc;
    doc.external_id = std::move(external_id);
    doc.minhash = minhasher_.Fingerprint(text).value();
    doc.minhash_config_hash = minhasher_.config_hash();
    if (simhasher_ != nullptr) {
      doc.simhash = simhasher_->Fingerprint(text).value();
      doc.simhash_config_hash = simhasher_->config_hash();
    }
    if (kept_ != nullptr) doc.kept = kept_->Kept(text);
    doc.text = std::string(text);
    return doc;
  }

 private:
  MinHasher minhasher_;
  std::unique_ptr<SimHasher> simhasher_;
  std::unique_ptr<CollectionFingerprinter> kept_;  // with kept families
};

class StoreTest : public ::testing::Test {
 protected:
  std::string StoreDir() const { return temp_.path() + "/store"; }

  absl::StatusOr<std::unique_ptr<Store>> OpenStore(
      const StoreOptions& options = SmallOptions()) const {
    return Store::Open(StoreDir(), options);
  }

  // Small memory budget: tests should not need 256 MiB each.
  static StoreOptions SmallOptions() {
    StoreOptions options;
    options.block_cache_bytes = size_t{8} << 20;
    options.write_buffer_bytes = size_t{4} << 20;
    return options;
  }

  static CollectionConfig SimHashConfig() {
    CollectionConfig config;
    config.simhash_enabled = true;
    return config;
  }

  neardup::testing::TempDir temp_;
};

}  // namespace neardup::storage::testing

#endif  // NEARDUP_TESTS_STORAGE_STORE_TEST_UTIL_H_
