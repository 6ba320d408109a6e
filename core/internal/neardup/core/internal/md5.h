#ifndef NEARDUP_CORE_INTERNAL_MD5_H_
#define NEARDUP_CORE_INTERNAL_MD5_H_

// MD5 (RFC 1321), for newsbot-compatible SimHash only: not a security
// hash here or anywhere.

#include <array>
#include <cstdint>
#include <string_view>

namespace neardup::internal {

// The 16-byte digest, in the RFC's byte order.
std::array<uint8_t, 16> Md5(std::string_view bytes);

}  // namespace neardup::internal

#endif  // NEARDUP_CORE_INTERNAL_MD5_H_
