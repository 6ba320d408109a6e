#ifndef NEARDUP_SERVER_INTERNAL_CLIENT_SLOTS_H_
#define NEARDUP_SERVER_INTERNAL_CLIENT_SLOTS_H_

// Counts the calls each client connection has in the server, so that one
// client flooding the server is refused before it fills the shared queue.

#include <string>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "neardup/base/absl_compat.h"
#include "neardup/base/sync.h"

namespace neardup::server {

class ClientSlots {
 public:
  // False when `peer` already holds `limit` slots.
  bool TryAcquire(std::string_view peer, int limit) {
    MutexLock lock(&mu_);
    int& used = used_[AbslView(peer)];
    if (used >= limit) return false;
    ++used;
    return true;
  }
  void Release(std::string_view peer) {
    MutexLock lock(&mu_);
    auto it = used_.find(AbslView(peer));
    if (it != used_.end() && --it->second == 0) used_.erase(it);
  }

 private:
  Mutex mu_;
  absl::flat_hash_map<std::string, int> used_ ABSL_GUARDED_BY(mu_);
};

}  // namespace neardup::server

#endif  // NEARDUP_SERVER_INTERNAL_CLIENT_SLOTS_H_
