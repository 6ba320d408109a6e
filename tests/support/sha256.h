#ifndef NEARDUP_TESTS_SUPPORT_SHA256_H_
#define NEARDUP_TESTS_SUPPORT_SHA256_H_

// SHA-256 of golden outputs, from OpenSSL (already a dependency: the server
// hashes bearer tokens with it).

#include <openssl/sha.h>

#include <string>
#include <string_view>

namespace neardup::testing {

inline std::string Sha256Hex(std::string_view data) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(),
         digest);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char byte : digest) {
    hex.push_back(kHex[byte >> 4]);
    hex.push_back(kHex[byte & 15]);
  }
  return hex;
}

}  // namespace neardup::testing

#endif  // NEARDUP_TESTS_SUPPORT_SHA256_H_
