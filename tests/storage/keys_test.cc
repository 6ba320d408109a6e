#include "neardup/storage/internal/keys.h"

#include <gtest/gtest.h>

#include <string>

namespace neardup::storage::keys {
namespace {

using namespace std::string_literals;

TEST(KeysTest, CollectionPrefixIsFourBytesBigEndian) {
  EXPECT_EQ(CollectionPrefix(0x01020304), "\x01\x02\x03\x04"s);
  EXPECT_EQ(CollectionPrefix(1), "\x00\x00\x00\x01"s);
}

TEST(KeysTest, RangeEndIsNextPrefix) {
  EXPECT_EQ(CollectionRangeEnd(1), CollectionPrefix(2));
  EXPECT_EQ(CollectionRangeEnd(0x000000FF), "\x00\x00\x01\x00"s);
  EXPECT_LT(DocKey(7, kInternalIdLimit), CollectionRangeEnd(7));
  EXPECT_LT(IdKey(7, std::string(1024, '\xff')), CollectionRangeEnd(7));
}

TEST(KeysTest, IdKeyIsPrefixPlusExternalId) {
  EXPECT_EQ(IdKey(2, "doc-1"), "\x00\x00\x00\x02"s + "doc-1");
  EXPECT_EQ(IdKey(2, "a\0b"s), "\x00\x00\x00\x02"s + "a\0b"s);
}

TEST(KeysTest, DocKeyIsPrefixPlusBigEndianId) {
  EXPECT_EQ(DocKey(3, 0x0A0B0C0D), "\x00\x00\x00\x03\x0A\x0B\x0C\x0D"s);
}

TEST(KeysTest, DocKeysSortInIdOrder) {
  // Byte order must equal numeric order for iteration in internal-id order.
  for (uint32_t id : {0u, 1u, 255u, 256u, 65535u, 65536u, 0xFFFFFFFEu}) {
    EXPECT_LT(DocKey(5, id), DocKey(5, id + 1)) << id;
  }
  EXPECT_LT(DocKey(5, 0xFFFFFFFFu), DocKey(6, 0));
}

TEST(KeysTest, ParseDocKeyRoundTripsAndRejectsOthers) {
  EXPECT_EQ(ParseDocKey(DocKey(9, 123456), 9), 123456u);
  EXPECT_EQ(ParseDocKey(DocKey(9, 0), 9), 0u);
  EXPECT_EQ(ParseDocKey(DocKey(9, 1), 8), std::nullopt);
  EXPECT_EQ(ParseDocKey(CollectionPrefix(9), 9), std::nullopt);
  EXPECT_EQ(ParseDocKey(DocKey(9, 1) + "x", 9), std::nullopt);
}

TEST(KeysTest, NextDocIdKeyEmbedsPrefix) {
  EXPECT_EQ(NextDocIdKey(4), "next_doc_id/\x00\x00\x00\x04"s);
  EXPECT_EQ(LogSequenceKey(4), "log_sequence/\x00\x00\x00\x04"s);
  EXPECT_EQ(SnapshotLoadingKey(4), "snapshot_loading/\x00\x00\x00\x04"s);
}

TEST(KeysTest, LittleEndianCounters) {
  EXPECT_EQ(EncodeU32LittleEndian(0x01020304), "\x04\x03\x02\x01"s);
  EXPECT_EQ(DecodeU32LittleEndian("\x04\x03\x02\x01"s), 0x01020304u);
  EXPECT_EQ(DecodeU32LittleEndian(EncodeU32LittleEndian(0xFFFFFFFFu)),
            0xFFFFFFFFu);
  EXPECT_EQ(DecodeU32LittleEndian("abc"), std::nullopt);
  EXPECT_EQ(DecodeU32LittleEndian("abcde"), std::nullopt);
}

TEST(KeysTest, BigEndianReadRequiresFourBytes) {
  EXPECT_EQ(ReadU32BigEndian("\x00\x00\x01\x00"s), 256u);
  EXPECT_EQ(ReadU32BigEndian("\x01"s), std::nullopt);
}

}  // namespace
}  // namespace neardup::storage::keys
