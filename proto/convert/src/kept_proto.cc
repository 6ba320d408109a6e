#include "neardup/proto/kept_proto.h"

#include <algorithm>
#include <string>

#include "neardup/core/tlsh.h"

// The deprecated TLSH spellings are read and written here on purpose, for
// older clients, dumps and builds.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace neardup::proto {

KeptValue KeptValueFromProto(const v1::KeptValue& proto) {
  return {proto.family(), proto.value(), proto.config_hash()};
}

void KeptValueToProto(const KeptValue& value, v1::KeptValue* proto) {
  proto->set_family(value.family);
  proto->set_value(value.value);
  proto->set_config_hash(value.config_hash);
}

void KeptDistanceToProto(const KeptDistance& distance,
                         v1::KeptDistance* proto) {
  proto->set_family(distance.family);
  proto->set_distance(distance.distance);
}

void KeptUnavailableToProto(const KeptUnavailable& unavailable,
                            v1::KeptUnavailable* proto) {
  proto->set_family(unavailable.family);
  proto->set_reason(unavailable.reason);
}

std::vector<KeptValue> KeptFromProto(const v1::Signatures& proto) {
  std::vector<KeptValue> kept;
  for (const v1::KeptValue& value : proto.kept()) {
    kept.push_back(KeptValueFromProto(value));
  }
  const bool listed = std::any_of(
      kept.begin(), kept.end(),
      [](const KeptValue& value) { return value.family == kTlshFamily.name; });
  if (!proto.tlsh().empty() && !listed) {
    kept.push_back({std::string(kTlshFamily.name), proto.tlsh(),
                    proto.tlsh_config_hash()});
  }
  return kept;
}

void KeptToProto(const std::vector<KeptValue>& kept, v1::Signatures* proto) {
  for (const KeptValue& value : kept) {
    KeptValueToProto(value, proto->add_kept());
    if (value.family == kTlshFamily.name) {
      proto->set_tlsh(value.value);
      proto->set_tlsh_config_hash(value.config_hash);
    }
  }
}

void KeptConfigHashesToProto(const std::vector<KeptConfigHash>& hashes,
                             v1::Collection* proto) {
  for (const KeptConfigHash& hash : hashes) {
    v1::KeptConfigHash* entry = proto->add_kept_config_hashes();
    entry->set_family(hash.family);
    entry->set_config_hash(hash.config_hash);
    if (hash.family == kTlshFamily.name) {
      proto->set_tlsh_config_hash(hash.config_hash);
    }
  }
}

std::vector<KeptConfigHash> KeptConfigHashesFromProto(
    const v1::Collection& proto) {
  std::vector<KeptConfigHash> hashes;
  for (const v1::KeptConfigHash& hash : proto.kept_config_hashes()) {
    hashes.push_back({hash.family(), hash.config_hash()});
  }
  if (hashes.empty() && proto.config().tlsh()) {  // an older server
    hashes.push_back({std::string(kTlshFamily.name), proto.tlsh_config_hash()});
  }
  return hashes;
}

void KeptDistancesToProto(const std::vector<KeptDistance>& distances,
                          v1::Match* proto) {
  for (const KeptDistance& distance : distances) {
    KeptDistanceToProto(distance, proto->add_kept_distances());
    if (distance.family == kTlshFamily.name) {
      proto->set_tlsh_distance(distance.distance);
    }
  }
}

std::vector<KeptDistance> KeptDistancesFromProto(const v1::Match& proto) {
  std::vector<KeptDistance> distances;
  for (const v1::KeptDistance& distance : proto.kept_distances()) {
    distances.push_back({distance.family(), distance.distance()});
  }
  if (distances.empty() && proto.has_tlsh_distance()) {
    distances.push_back({std::string(kTlshFamily.name), proto.tlsh_distance()});
  }
  return distances;
}

}  // namespace neardup::proto
