#ifndef NEARDUP_STORAGE_STORE_OPTIONS_H_
#define NEARDUP_STORAGE_STORE_OPTIONS_H_

// Options of a Store. All are fixed when the store is opened.

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace neardup::storage {

struct StoreOptions {
  // One LRU block cache shared by every column family. Memtables are charged
  // to it as well, so this roughly bounds the store's memory. Default 256 MiB.
  size_t block_cache_bytes = size_t{256} << 20;
  // Memtable budget for all column families together, enforced by a RocksDB
  // WriteBufferManager; reaching it triggers a flush. Must not exceed
  // block_cache_bytes. Default 64 MiB.
  size_t write_buffer_bytes = size_t{64} << 20;
  // RocksDB flush and compaction threads. Default 2.
  int background_jobs = 2;
  // Free space the data directory's filesystem must keep: below it, puts
  // and creates are refused (RESOURCE_EXHAUSTED) so that RocksDB's flushes,
  // compactions and manifest writes still fit: keep it above twice
  // write_buffer_bytes. 0 disables the check (RocksDB then finds out by
  // failing a write, and stops writing until space is back). Default 256 MiB.
  uint64_t min_free_disk_bytes = uint64_t{256} << 20;
  // Create the directory and a fresh store when there is none; otherwise
  // Open fails with NOT_FOUND. Default true.
  bool create_if_missing = true;
  // Blob garbage collection of stored evidence runs while at least this
  // fraction of the blob bytes is garbage, and stops below the second
  // (0 < blob_gc_stop_ratio <= blob_gc_start_ratio <= 1). Defaults 0.25 and
  // 0.125.
  double blob_gc_start_ratio = 0.25;
  double blob_gc_stop_ratio = 0.125;
  // After this long without writes or reads, the store lets RocksDB rewrite
  // bulk-loaded bottom files once (see IdleSettler), so that work does not
  // land on the next start's first queries. 0 turns it off. Default 5 s.
  std::chrono::milliseconds idle_settle_after{5000};
};

// Per-write durability. Every write goes through the write-ahead log and
// survives a crash of the process; `sync` makes it survive a crash of the
// machine too, at the cost of an fsync per write.
struct WriteOptions {
  bool sync = false;
  // A cluster replica's write: the log sequence of the entry it applies,
  // recorded in the same batch (Store::LogSequence), so a replica that
  // crashed resumes right after the last entry it wrote. It must be after
  // the recorded one. 0: none.
  uint64_t log_sequence = 0;
  // The write's time (updated, and created for a new document), when it is
  // not this machine's clock now: a replica applies the time the entry was
  // prepared with, so every replica stores the same. 0: now.
  int64_t unix_micros = 0;
};

}  // namespace neardup::storage

#endif  // NEARDUP_STORAGE_STORE_OPTIONS_H_
