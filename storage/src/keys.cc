#include "neardup/storage/internal/keys.h"

namespace neardup::storage::keys {

void AppendU32BigEndian(uint32_t value, std::string* out) {
  for (int shift = 24; shift >= 0; shift -= 8) {
    out->push_back(static_cast<char>((value >> shift) & 0xFF));
  }
}

std::optional<uint32_t> ReadU32BigEndian(std::string_view bytes) {
  if (bytes.size() != 4) return std::nullopt;
  uint32_t value = 0;
  for (char c : bytes) value = (value << 8) | static_cast<unsigned char>(c);
  return value;
}

std::string EncodeU32LittleEndian(uint32_t value) {
  std::string out(4, '\0');
  for (int i = 0; i < 4; ++i) {
    out[i] = static_cast<char>((value >> (8 * i)) & 0xFF);
  }
  return out;
}

std::optional<uint32_t> DecodeU32LittleEndian(std::string_view bytes) {
  if (bytes.size() != 4) return std::nullopt;
  uint32_t value = 0;
  for (int i = 3; i >= 0; --i) {
    value = (value << 8) | static_cast<unsigned char>(bytes[i]);
  }
  return value;
}

std::string CollectionPrefix(uint32_t collection_id) {
  std::string prefix;
  AppendU32BigEndian(collection_id, &prefix);
  return prefix;
}

std::string CollectionRangeEnd(uint32_t collection_id) {
  return CollectionPrefix(collection_id + 1);
}

std::string NextDocIdKey(uint32_t collection_id) {
  std::string key(kNextDocIdPrefix);
  AppendU32BigEndian(collection_id, &key);
  return key;
}

std::string LogSequenceKey(uint32_t collection_id) {
  std::string key(kLogSequencePrefix);
  AppendU32BigEndian(collection_id, &key);
  return key;
}

std::string SnapshotLoadingKey(uint32_t collection_id) {
  std::string key(kSnapshotLoadingPrefix);
  AppendU32BigEndian(collection_id, &key);
  return key;
}

std::string EncodeU64LittleEndian(uint64_t value) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) {
    out[i] = static_cast<char>((value >> (8 * i)) & 0xFF);
  }
  return out;
}

std::optional<uint64_t> DecodeU64LittleEndian(std::string_view bytes) {
  if (bytes.size() != 8) return std::nullopt;
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i) {
    value = (value << 8) | static_cast<unsigned char>(bytes[i]);
  }
  return value;
}

std::string IdKey(uint32_t collection_id, std::string_view external_id) {
  std::string key = CollectionPrefix(collection_id);
  key.append(external_id);
  return key;
}

std::string DocKey(uint32_t collection_id, uint32_t internal_id) {
  std::string key = CollectionPrefix(collection_id);
  AppendU32BigEndian(internal_id, &key);
  return key;
}

std::optional<uint32_t> ParseDocKey(std::string_view key,
                                    uint32_t collection_id) {
  if (key.size() != 8 || ReadU32BigEndian(key.substr(0, 4)) != collection_id) {
    return std::nullopt;
  }
  return ReadU32BigEndian(key.substr(4));
}

}  // namespace neardup::storage::keys
