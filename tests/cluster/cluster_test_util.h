#ifndef NEARDUP_TESTS_CLUSTER_CLUSTER_TEST_UTIL_H_
#define NEARDUP_TESTS_CLUSTER_CLUSTER_TEST_UTIL_H_

// What the cluster tests share: how long a NATS cluster may take to come
// up, a log connected once JetStream answers, and the replicas' collection.

#include <chrono>
#include <memory>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "cluster/nats_cluster.h"
#include "neardup/cluster/jetstream_log.h"
#include "neardup/core/collection_config.h"
#include "support/wait.h"

namespace neardup::testing {

inline constexpr auto kClusterStartup = std::chrono::seconds(30);

// Connected, and JetStream answering (it elects its leaders first).
inline absl::StatusOr<std::unique_ptr<cluster::JetStreamLog>> ConnectWhenReady(
    const NatsCluster& nats) {
  absl::StatusOr<std::unique_ptr<cluster::JetStreamLog>> log =
      cluster::JetStreamLog::Connect(
          {.servers = nats.Urls(), .request_timeout = absl::Seconds(2)});
  if (!log.ok()) return log;
  if (!WaitUntil([&] { return (*log)->Ready().ok(); }, kClusterStartup)) {
    return absl::UnavailableError(
        absl::StrCat("JetStream not ready: ", (*log)->Ready().message()));
  }
  return log;
}

// A collection with every kind of value a replica applies.
inline CollectionConfig ReplicatedConfig() {
  CollectionConfig config;
  config.simhash_enabled = true;
  config.kept_families = {"tlsh"};
  config.store_text = true;
  return config;
}

}  // namespace neardup::testing

#endif  // NEARDUP_TESTS_CLUSTER_CLUSTER_TEST_UTIL_H_
