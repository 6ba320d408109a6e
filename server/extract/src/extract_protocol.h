#ifndef NEARDUP_EXTRACT_SRC_EXTRACT_PROTOCOL_H_
#define NEARDUP_EXTRACT_SRC_EXTRACT_PROTOCOL_H_

// What an extraction child and its parent say over their socket: a request
// (header, then the input's bytes) and an answer (header, then the text or
// an error message). Both ends are the same program, so the layout is the
// machine's own.

#include <cstdint>

namespace neardup::extract::internal {

inline constexpr uint32_t kRequestMagic = 0x4e445851;  // "NDXQ"
inline constexpr uint32_t kAnswerMagic = 0x4e445841;   // "NDXA"

struct RequestHeader {
  uint32_t magic = kRequestMagic;
  uint8_t content_type = 0;  // ContentType
  uint8_t keep_code_blocks = 0;
  uint16_t reserved = 0;
  uint64_t length = 0;
};

enum class AnswerCode : uint8_t {
  kText = 0,          // the extracted text follows
  kInvalidInput = 1,  // the input is not what it says: the message follows
  kOverMemory = 2,    // the parse needed more than the child's memory
  kTextTooLong = 3,   // the text is over the child's limit
};

struct AnswerHeader {
  uint32_t magic = kAnswerMagic;
  AnswerCode code = AnswerCode::kText;
  uint8_t reserved[3] = {0, 0, 0};
  uint64_t length = 0;
};

static_assert(sizeof(RequestHeader) == 16 && sizeof(AnswerHeader) == 16);

}  // namespace neardup::extract::internal

#endif  // NEARDUP_EXTRACT_SRC_EXTRACT_PROTOCOL_H_
