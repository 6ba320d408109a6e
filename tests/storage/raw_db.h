#ifndef NEARDUP_TESTS_STORAGE_RAW_DB_H_
#define NEARDUP_TESTS_STORAGE_RAW_DB_H_

// Reaching under the Store for tests: a neardup store opened with plain
// RocksDB, to plant entries the Store itself would refuse to write.

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "neardup/storage/collection_record.h"
#include "neardup/storage/column_families.h"
#include "neardup/storage/internal/record_codec.h"
#include "rocksdb/db.h"
#include "rocksdb/table_properties.h"
#include "support/status_matchers.h"

namespace neardup::storage::testing {

// A RocksDB database opened without the Store, with every family it has
// plus `create`.
class RawDb {
 public:
  explicit RawDb(const std::string& dir, std::vector<std::string> create = {}) {
    rocksdb::DBOptions options;
    options.create_if_missing = true;
    options.create_missing_column_families = true;
    std::vector<std::string> names;
    if (!rocksdb::DB::ListColumnFamilies(options, dir, &names).ok()) {
      names = {"default"};
    }
    for (const std::string& name : create) {
      if (std::find(names.begin(), names.end(), name) == names.end()) {
        names.push_back(name);
      }
    }
    std::vector<rocksdb::ColumnFamilyDescriptor> descriptors;
    for (const std::string& name : names) {
      descriptors.emplace_back(name, rocksdb::ColumnFamilyOptions());
    }
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    const rocksdb::Status status =
        rocksdb::DB::Open(options, dir, descriptors, &handles, &db_);
    EXPECT_TRUE(status.ok()) << status.ToString();
    for (rocksdb::ColumnFamilyHandle* handle : handles) {
      families_[handle->GetName()] = handle;
    }
  }
  ~RawDb() {
    for (auto& [name, handle] : families_) {
      db_->DestroyColumnFamilyHandle(handle);
    }
    delete db_;
  }

  void Put(ColumnFamily family, std::string_view key, std::string_view value) {
    const rocksdb::Status status =
        db_->Put(rocksdb::WriteOptions(), Handle(family), key, value);
    EXPECT_TRUE(status.ok()) << status.ToString();
  }
  void Delete(ColumnFamily family, std::string_view key) {
    EXPECT_TRUE(db_->Delete(rocksdb::WriteOptions(), Handle(family),
                            rocksdb::Slice(key.data(), key.size()))
                    .ok());
  }
  std::string Get(ColumnFamily family, std::string_view key) {
    std::string value;
    const rocksdb::Status status =
        db_->Get(rocksdb::ReadOptions(), Handle(family), key, &value);
    EXPECT_TRUE(status.ok()) << status.ToString();
    return value;
  }
  bool Has(ColumnFamily family, std::string_view key) {
    std::string value;
    return db_->Get(rocksdb::ReadOptions(), Handle(family), key, &value).ok();
  }
  size_t CountWithPrefix(ColumnFamily family, std::string_view prefix) {
    return CountWithPrefix(ColumnFamilyInfoOf(family).name, prefix);
  }
  // A family by its name (a kept family's: "tlsh").
  size_t CountWithPrefix(std::string_view family, std::string_view prefix) {
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(
        rocksdb::ReadOptions(), families_.at(std::string(family))));
    size_t count = 0;
    for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix);
         it->Next()) {
      ++count;
    }
    return count;
  }
  // The properties of every SST file of a family, by its name.
  std::vector<std::shared_ptr<const rocksdb::TableProperties>> Tables(
      std::string_view family) {
    rocksdb::TablePropertiesCollection tables;
    const rocksdb::Status status = db_->GetPropertiesOfAllTables(
        families_.at(std::string(family)), &tables);
    EXPECT_TRUE(status.ok()) << status.ToString();
    std::vector<std::shared_ptr<const rocksdb::TableProperties>> out;
    for (auto& [file, properties] : tables) out.push_back(properties);
    return out;
  }
  std::vector<std::string> FamilyNames() const {
    std::vector<std::string> names;
    for (const auto& [name, handle] : families_) names.push_back(name);
    return names;
  }

 private:
  rocksdb::ColumnFamilyHandle* Handle(ColumnFamily family) {
    return families_.at(std::string(ColumnFamilyInfoOf(family).name));
  }

  rocksdb::DB* db_ = nullptr;
  std::map<std::string, rocksdb::ColumnFamilyHandle*> families_;
};

// Decodes the stored record of collection `name`, lets `edit` change it and
// writes it back, bypassing every check of the Store (which must be closed).
inline void EditCollectionRecord(
    const std::string& dir, std::string_view name,
    const std::function<void(CollectionRecord&)>& edit) {
  RawDb raw(dir);
  auto record =
      DecodeCollectionRecord(raw.Get(ColumnFamily::kCollections, name));
  ASSERT_OK(record);
  edit(*record);
  raw.Put(ColumnFamily::kCollections, name, EncodeCollectionRecord(*record));
}

}  // namespace neardup::storage::testing

#endif  // NEARDUP_TESTS_STORAGE_RAW_DB_H_
