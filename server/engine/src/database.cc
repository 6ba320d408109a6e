#include "neardup/engine/database.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "absl/strings/str_cat.h"
#include "neardup/base/absl_compat.h"
#include "neardup/base/status_macros.h"
#include "neardup/base/worker_pool.h"
#include "neardup/storage/validation.h"

namespace neardup::engine {

absl::StatusOr<std::unique_ptr<Database>> Database::Open(
    const std::string& dir, const DatabaseOptions& options,
    RebuildListener on_rebuilt) {
  ASSIGN_OR_RETURN(std::unique_ptr<storage::Store> store,
                   storage::Store::Open(dir, options.store));
  std::unique_ptr<Database> db(new Database(std::move(store), options));
  RETURN_IF_ERROR(db->LoadAll(on_rebuilt));
  return db;
}

absl::Status Database::LoadAll(const RebuildListener& on_rebuilt) {
  const int hardware = std::max(1u, std::thread::hardware_concurrency());
  const int threads =
      options_.rebuild_threads > 0 ? options_.rebuild_threads : hardware;
  std::vector<storage::CollectionRecord> records = store_->ListCollections();
  std::vector<std::shared_ptr<Collection>> loaded(records.size());
  std::vector<absl::Status> statuses(records.size());
  rebuild_reports_.assign(records.size(), {});
  Mutex listener_mu;

  // Collections in parallel; each bulk insert splits its shards over the
  // threads left per collection.
  const int workers =
      std::min<int>(threads, std::max<size_t>(1, records.size()));
  const int threads_per_collection = std::max(1, threads / workers);
  ParallelFor(records.size(), workers, [&](size_t i) {
    const auto start = std::chrono::steady_clock::now();
    auto collection =
        Collection::Create(store_.get(), records[i], options_.index_shards,
                           options_.hot_band_rows);
    if (!collection.ok()) {
      statuses[i] = Prefixed("stored record", collection.status());
      return;
    }
    auto documents = (*collection)->LoadIndexes(threads_per_collection);
    if (!documents.ok()) {
      statuses[i] = Prefixed("index rebuild", documents.status());
      return;
    }
    loaded[i] = std::move(*collection);
    RebuildReport& report = rebuild_reports_[i];
    report.collection = records[i].name;
    report.documents = *documents;
    report.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    if (on_rebuilt) {
      MutexLock lock(&listener_mu);
      on_rebuilt(report);
    }
  });
  // What is wrong with a collection's own data quarantines it; a failing
  // store (I/O, memory) fails Open, since it says nothing about the data.
  for (const absl::Status& status : statuses) {
    if (!status.ok() && status.code() != absl::StatusCode::kDataLoss &&
        status.code() != absl::StatusCode::kInvalidArgument &&
        status.code() != absl::StatusCode::kFailedPrecondition) {
      return status;
    }
  }
  WriterLock lock(&mu_);
  for (size_t i = 0; i < records.size(); ++i) {
    if (!statuses[i].ok()) {
      quarantined_.emplace(records[i].name, statuses[i]);
      continue;
    }
    collections_.emplace(records[i].name, std::move(loaded[i]));
  }
  for (storage::UnreadableCollection& bad : store_->UnreadableCollections()) {
    quarantined_.emplace(std::move(bad.name), std::move(bad.reason));
  }
  std::erase_if(rebuild_reports_, [](const RebuildReport& report) {
    return report.collection.empty();
  });
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<Collection>> Database::CreateCollection(
    std::string_view name, const CollectionConfig& config) {
  MutexLock ddl(&ddl_mu_);
  ASSIGN_OR_RETURN(storage::CollectionRecord record,
                   store_->CreateCollection(name, config));
  ASSIGN_OR_RETURN(
      std::shared_ptr<Collection> collection,
      Collection::Create(store_.get(), std::move(record), options_.index_shards,
                         options_.hot_band_rows));
  WriterLock lock(&mu_);
  collections_[collection->name()] = collection;
  return collection;
}

absl::StatusOr<std::shared_ptr<Collection>> Database::GetCollection(
    std::string_view name) const {
  ReaderLock lock(&mu_);
  auto it = collections_.find(name);
  if (it != collections_.end()) return it->second;
  if (auto bad = quarantined_.find(name); bad != quarantined_.end()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "collection '", AbslView(name),
        "' is quarantined: ", bad->second.message(),
        "; drop it (DropCollection) or restore the store from a backup"));
  }
  return storage::CollectionNotFound(name);
}

std::vector<std::shared_ptr<Collection>> Database::ListCollections() const {
  ReaderLock lock(&mu_);
  std::vector<std::shared_ptr<Collection>> out;
  out.reserve(collections_.size());
  for (const auto& [name, collection] : collections_) out.push_back(collection);
  return out;
}

std::vector<QuarantinedCollection> Database::QuarantinedCollections() const {
  ReaderLock lock(&mu_);
  std::vector<QuarantinedCollection> out;
  out.reserve(quarantined_.size());
  for (const auto& [name, reason] : quarantined_) out.push_back({name, reason});
  return out;
}

absl::Status Database::DropCollection(std::string_view name) {
  MutexLock ddl(&ddl_mu_);
  RETURN_IF_ERROR(store_->DropCollection(name));
  WriterLock lock(&mu_);
  if (auto it = collections_.find(name); it != collections_.end()) {
    collections_.erase(it);
  }
  if (auto it = quarantined_.find(name); it != quarantined_.end()) {
    quarantined_.erase(it);
  }
  return absl::OkStatus();
}

}  // namespace neardup::engine
