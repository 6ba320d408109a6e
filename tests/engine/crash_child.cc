// Child process of crash_test: writes documents into a Database forever and
// reports each acknowledged operation on stdout, one line per operation,
// written with write(2) only after the operation returned:
//   put <external id>
//   del <external id>
// Usage: storage_crash_child DIR FIRST_NUMBER

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "neardup/engine/database.h"

namespace {

void Report(const std::string& line) {
  const std::string out = line + "\n";
  if (write(STDOUT_FILENO, out.data(), out.size()) !=
      static_cast<ssize_t>(out.size())) {
    std::_Exit(3);
  }
}

std::string Text(uint64_t n) {
  std::string text;
  uint64_t state = n * 0x9E3779B97F4A7C15ULL + 1;
  for (int i = 0; i < 40; ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    absl::StrAppend(&text, "w", (state >> 33) % 5000, " ");
  }
  return text;
}

int Fail(const absl::Status& status) {
  std::fprintf(stderr, "crash_child: %s\n", status.ToString().c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return 64;
  const uint64_t first = std::strtoull(argv[2], nullptr, 10);
  neardup::engine::DatabaseOptions options;
  options.store.block_cache_bytes = size_t{8} << 20;
  options.store.write_buffer_bytes = size_t{1} << 20;  // flush often
  auto db = neardup::engine::Database::Open(argv[1], options);
  if (!db.ok()) return Fail(db.status());
  auto collection = (*db)->GetCollection("crash");
  if (!collection.ok()) {
    neardup::CollectionConfig config;
    config.simhash_enabled = true;
    collection = (*db)->CreateCollection("crash", config);
    if (!collection.ok()) return Fail(collection.status());
  }
  for (uint64_t n = first;; ++n) {
    const std::string id = absl::StrCat("doc-", n);
    auto write =
        (*collection)->PrepareText(id, Text(n), {{"n", absl::StrCat(n)}});
    if (!write.ok()) return Fail(write.status());
    auto outcome = (*collection)->Apply(*write);
    if (!outcome.ok()) return Fail(outcome.status());
    Report("put " + id);
    if (n % 7 == 3 && n - 2 >= first) {
      const std::string victim = absl::StrCat("doc-", n - 2);
      if (auto status = (*collection)->Delete(victim); !status.ok()) {
        return Fail(status);
      }
      Report("del " + victim);
    }
  }
}
