#ifndef NEARDUP_PROTO_KEPT_PROTO_H_
#define NEARDUP_PROTO_KEPT_PROTO_H_

// Kept families (core/kept_family.h) on the wire, for the server and the
// CLI. Generic over the families; the only place that also reads and writes
// the API's deprecated TLSH fields (tlsh, tlsh_config_hash, tlsh_distance),
// which older clients still use.

#include <vector>

#include "neardup/core/kept_family.h"
#include "neardup/v1/neardup.pb.h"

namespace neardup::proto {

KeptValue KeptValueFromProto(const v1::KeptValue& proto);
void KeptValueToProto(const KeptValue& value, v1::KeptValue* proto);
void KeptDistanceToProto(const KeptDistance& distance, v1::KeptDistance* proto);
void KeptUnavailableToProto(const KeptUnavailable& unavailable,
                            v1::KeptUnavailable* proto);

// Signatures.kept, and the deprecated tlsh field as one more entry unless
// kept has "tlsh" already; as sent (not normalized or checked).
std::vector<KeptValue> KeptFromProto(const v1::Signatures& proto);
// Sets Signatures.kept and, for "tlsh", the deprecated fields.
void KeptToProto(const std::vector<KeptValue>& kept, v1::Signatures* proto);

// Collection.kept_config_hashes and, for "tlsh", tlsh_config_hash; from the
// wire also config.tlsh of a server that predates kept families.
void KeptConfigHashesToProto(const std::vector<KeptConfigHash>& hashes,
                             v1::Collection* proto);
std::vector<KeptConfigHash> KeptConfigHashesFromProto(
    const v1::Collection& proto);

// Match.kept_distances and, for "tlsh", tlsh_distance.
void KeptDistancesToProto(const std::vector<KeptDistance>& distances,
                          v1::Match* proto);
// Match.kept_distances, or tlsh_distance from a server that predates them.
std::vector<KeptDistance> KeptDistancesFromProto(const v1::Match& proto);

}  // namespace neardup::proto

#endif  // NEARDUP_PROTO_KEPT_PROTO_H_
