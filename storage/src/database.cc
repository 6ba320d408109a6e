#include "neardup/storage/database.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "absl/strings/str_cat.h"
#include "neardup/core/absl_compat.h"
#include "neardup/core/status_macros.h"

namespace neardup::storage {

absl::StatusOr<std::unique_ptr<Database>> Database::Open(
    const std::string& dir, const DatabaseOptions& options,
    RebuildListener on_rebuilt) {
  ASSIGN_OR_RETURN(std::unique_ptr<Store> store,
                   Store::Open(dir, options.store));
  std::unique_ptr<Database> db(new Database(std::move(store), options));
  RETURN_IF_ERROR(db->LoadAll(on_rebuilt));
  return db;
}

absl::Status Database::LoadAll(const RebuildListener& on_rebuilt) {
  const int hardware = std::max(1u, std::thread::hardware_concurrency());
  const int threads =
      options_.rebuild_threads > 0 ? options_.rebuild_threads : hardware;
  std::vector<CollectionRecord> records = store_->ListCollections();
  std::vector<std::shared_ptr<Collection>> loaded(records.size());
  std::vector<absl::Status> statuses(records.size());
  rebuild_reports_.assign(records.size(), {});
  Mutex listener_mu;

  // Collections in parallel; each bulk insert splits its shards over the
  // threads left per collection.
  const int workers =
      std::min<int>(threads, std::max<size_t>(1, records.size()));
  const int threads_per_collection = std::max(1, threads / workers);
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < records.size(); i = next++) {
      const auto start = std::chrono::steady_clock::now();
      auto collection =
          Collection::Create(store_.get(), records[i], options_.index_shards);
      if (!collection.ok()) {
        statuses[i] = collection.status();
        continue;
      }
      auto documents = (*collection)->LoadIndexes(threads_per_collection);
      if (!documents.ok()) {
        statuses[i] = absl::Status(
            documents.status().code(),
            absl::StrCat("rebuilding collection '", records[i].name,
                         "': ", documents.status().message()));
        continue;
      }
      loaded[i] = std::move(*collection);
      RebuildReport& report = rebuild_reports_[i];
      report.collection = records[i].name;
      report.documents = *documents;
      report.seconds = std::chrono::duration<double>(
                           std::chrono::steady_clock::now() - start)
                           .count();
      if (on_rebuilt) {
        MutexLock lock(&listener_mu);
        on_rebuilt(report);
      }
    }
  };
  std::vector<std::thread> pool;
  for (int w = 1; w < workers; ++w) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  for (const absl::Status& status : statuses) RETURN_IF_ERROR(status);

  WriterLock lock(&mu_);
  for (auto& collection : loaded) {
    const std::string name = collection->name();
    collections_.emplace(name, std::move(collection));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<Collection>> Database::CreateCollection(
    std::string_view name, const CollectionConfig& config) {
  WriterLock lock(&mu_);
  ASSIGN_OR_RETURN(CollectionRecord record,
                   store_->CreateCollection(name, config));
  ASSIGN_OR_RETURN(std::shared_ptr<Collection> collection,
                   Collection::Create(store_.get(), std::move(record),
                                      options_.index_shards));
  collections_[collection->name()] = collection;
  return collection;
}

absl::StatusOr<std::shared_ptr<Collection>> Database::GetCollection(
    std::string_view name) const {
  ReaderLock lock(&mu_);
  auto it = collections_.find(name);
  if (it == collections_.end()) {
    return absl::NotFoundError(
        absl::StrCat("no collection named '", AbslView(name), "'"));
  }
  return it->second;
}

std::vector<std::shared_ptr<Collection>> Database::ListCollections() const {
  ReaderLock lock(&mu_);
  std::vector<std::shared_ptr<Collection>> out;
  out.reserve(collections_.size());
  for (const auto& [name, collection] : collections_) out.push_back(collection);
  return out;
}

absl::Status Database::DropCollection(std::string_view name) {
  WriterLock lock(&mu_);
  RETURN_IF_ERROR(store_->DropCollection(name));
  if (auto it = collections_.find(name); it != collections_.end()) {
    collections_.erase(it);
  }
  return absl::OkStatus();
}

}  // namespace neardup::storage
