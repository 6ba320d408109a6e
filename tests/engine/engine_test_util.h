#ifndef NEARDUP_TESTS_ENGINE_ENGINE_TEST_UTIL_H_
#define NEARDUP_TESTS_ENGINE_ENGINE_TEST_UTIL_H_

// A store fixture that also opens the engine's Database over it.

#include "neardup/engine/database.h"
#include "storage/store_test_util.h"

namespace neardup::engine::testing {

class EngineTest : public storage::testing::StoreTest {
 protected:
  // A Database over StoreDir() with the small budget, rebuilding indexes on
  // `rebuild_threads` threads into `index_shards` shards.
  absl::StatusOr<std::unique_ptr<Database>> OpenDatabase(
      int rebuild_threads = 1,
      int index_shards = DatabaseOptions{}.index_shards) const {
    DatabaseOptions options;
    options.store = SmallOptions();
    options.rebuild_threads = rebuild_threads;
    options.index_shards = index_shards;
    return Database::Open(StoreDir(), options);
  }
};

}  // namespace neardup::engine::testing

#endif  // NEARDUP_TESTS_ENGINE_ENGINE_TEST_UTIL_H_
