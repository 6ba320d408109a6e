#ifndef NEARDUP_ENGINE_DATABASE_H_
#define NEARDUP_ENGINE_DATABASE_H_

// The store plus one live Collection (fingerprinters + indexes) per stored
// collection. Opening rebuilds every index from RocksDB.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "neardup/base/sync.h"
#include "neardup/core/collection_config.h"
#include "neardup/engine/collection.h"
#include "neardup/storage/store.h"

namespace neardup::engine {

struct DatabaseOptions {
  storage::StoreOptions store;
  int index_shards = MinHashIndexOptions{}.shards;
  // Queries leave out MinHash band keys of more rows than this (0: never;
  // MinHashIndexOptions::hot_band_rows, --hot-band-rows).
  size_t hot_band_rows = 0;
  int rebuild_threads = 0;  // 0: one per hardware thread
};

struct RebuildReport {
  std::string collection;
  uint64_t documents = 0;
  double seconds = 0;
  double docs_per_second() const {
    return seconds > 0 ? documents / seconds : 0;
  }
};

// A stored collection that is not served: its record does not load or
// fails validation, or its index rebuild failed. Every other collection
// serves; this one answers FAILED_PRECONDITION until it is dropped.
struct QuarantinedCollection {
  std::string name;
  absl::Status reason;
};

// Called once per collection as its index finishes loading.
using RebuildListener = std::function<void(const RebuildReport&)>;

// Thread-safe.
class Database {
 public:
  // Opens (or creates) the store in `dir`, then rebuilds every collection's
  // indexes, collections in parallel. A collection that cannot be rebuilt
  // is quarantined (see QuarantinedCollections) and does not fail Open.
  static absl::StatusOr<std::unique_ptr<Database>> Open(
      const std::string& dir, const DatabaseOptions& options = {},
      RebuildListener on_rebuilt = nullptr);

  absl::StatusOr<std::shared_ptr<Collection>> CreateCollection(
      std::string_view name, const CollectionConfig& config);
  // NOT_FOUND when there is no such collection; FAILED_PRECONDITION, with
  // the reason, when it is quarantined.
  absl::StatusOr<std::shared_ptr<Collection>> GetCollection(
      std::string_view name) const;
  std::vector<std::shared_ptr<Collection>> ListCollections() const;
  // Drops a live or a quarantined collection.
  absl::Status DropCollection(std::string_view name);
  std::vector<QuarantinedCollection> QuarantinedCollections() const;

  // Reports of the collections that loaded (quarantined ones have none).
  const std::vector<RebuildReport>& rebuild_reports() const {
    return rebuild_reports_;
  }
  storage::Store& store() { return *store_; }
  const storage::Store& store() const { return *store_; }

 private:
  explicit Database(std::unique_ptr<storage::Store> store,
                    DatabaseOptions options)
      : store_(std::move(store)), options_(options) {}

  absl::Status LoadAll(const RebuildListener& on_rebuilt);

  const std::unique_ptr<storage::Store> store_;
  const DatabaseOptions options_;
  std::vector<RebuildReport> rebuild_reports_;  // written only while opening
  // Serializes Create and Drop; their synced store writes happen under it
  // alone, so lookups (mu_) never wait on an fsync. Lock order: ddl_mu_
  // before mu_.
  Mutex ddl_mu_;
  mutable SharedMutex mu_;
  std::map<std::string, std::shared_ptr<Collection>, std::less<>> collections_
      ABSL_GUARDED_BY(mu_);
  std::map<std::string, absl::Status, std::less<>> quarantined_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace neardup::engine

#endif  // NEARDUP_ENGINE_DATABASE_H_
