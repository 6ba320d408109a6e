#include "neardup/core/streaming.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "neardup/core/minhash.h"
#include "neardup/core/simhash.h"
#include "support/status_matchers.h"

namespace neardup {
namespace {

// Multi-byte sequences of every length, plus text that canonicalization
// changes (fullwidth, ligature, ß, a dropped ZWSP).
const std::string kText =
    "Caf\u00E9 \u0391\u03B8\u03AE\u03BD\u03B1 \u5317\u4EAC "
    "\U0001F44D\U0001F3FD na\u00EFve \uFF21\uFF22 \uFB01le "
    "Stra\u00DFe x\u200By \u00E9t\u00E9 end";

MinHasher MakeMinHasher() {
  MinHashConfig config;
  config.tokenizer = "shingle-k=2/word-uax29";
  absl::StatusOr<MinHasher> h = MinHasher::Create(config);
  EXPECT_OK(h);
  return *std::move(h);
}

SimHasher MakeSimHasher() {
  absl::StatusOr<SimHasher> h = SimHasher::Create();
  EXPECT_OK(h);
  return *std::move(h);
}

bool IsBadInput(const absl::Status& s) {
  return s.code() == absl::StatusCode::kInvalidArgument;
}

TEST(Streaming, EveryTwoWaySplitMatchesOneShot) {
  const MinHasher mh = MakeMinHasher();
  const SimHasher sh = MakeSimHasher();
  const absl::StatusOr<MinHashSignature> mh_ref = mh.Fingerprint(kText);
  const absl::StatusOr<uint64_t> sh_ref = sh.Fingerprint(kText);
  ASSERT_OK(mh_ref);
  ASSERT_OK(sh_ref);
  for (size_t cut = 0; cut <= kText.size(); ++cut) {
    const std::string_view a = std::string_view(kText).substr(0, cut);
    const std::string_view b = std::string_view(kText).substr(cut);
    MinHashStream ms(mh);
    ASSERT_OK(ms.Update(a));
    ASSERT_OK(ms.Update(b));
    absl::StatusOr<MinHashSignature> m = ms.Finalize();
    ASSERT_OK(m);
    EXPECT_TRUE(*m == *mh_ref) << "cut " << cut;

    SimHashStream ss(sh);
    ASSERT_OK(ss.Update(a));
    ASSERT_OK(ss.Update(b));
    absl::StatusOr<uint64_t> s = ss.Finalize();
    ASSERT_OK(s);
    EXPECT_EQ(*s, *sh_ref) << "cut " << cut;
  }
}

TEST(Streaming, EveryThreeWaySplitMatchesOneShot) {
  const SimHasher sh = MakeSimHasher();
  // A short stretch dense in multi-byte sequences keeps this quadratic loop
  // small.
  const std::string text = "\u00E9\u20AC\U0001F600\u4E2D a\u0301";
  const absl::StatusOr<uint64_t> ref = sh.Fingerprint(text);
  ASSERT_OK(ref);
  for (size_t i = 0; i <= text.size(); ++i) {
    for (size_t j = i; j <= text.size(); ++j) {
      SimHashStream ss(sh);
      ASSERT_OK(ss.Update(text.substr(0, i)));
      ASSERT_OK(ss.Update(text.substr(i, j - i)));
      ASSERT_OK(ss.Update(text.substr(j)));
      EXPECT_EQ(ss.buffered_bytes(), text.size());
      absl::StatusOr<uint64_t> got = ss.Finalize();
      ASSERT_OK(got);
      EXPECT_EQ(*got, *ref) << i << "," << j;
    }
  }
}

TEST(Streaming, ByteAtATime) {
  const MinHasher mh = MakeMinHasher();
  MinHashStream ms(mh);
  for (char c : kText) ASSERT_OK(ms.Update(std::string_view(&c, 1)));
  absl::StatusOr<MinHashSignature> got = ms.Finalize();
  ASSERT_OK(got);
  EXPECT_TRUE(*got == *mh.Fingerprint(kText));
}

TEST(Streaming, FinalizeDoesNotConsume) {
  const SimHasher sh = MakeSimHasher();
  SimHashStream ss(sh);
  ASSERT_OK(ss.Update("hello "));
  const absl::StatusOr<uint64_t> first = ss.Finalize();
  ASSERT_OK(first);
  EXPECT_EQ(*first, *ss.Finalize());
  EXPECT_EQ(*first, *sh.Fingerprint("hello "));
  ASSERT_OK(ss.Update("world"));
  EXPECT_EQ(*ss.Finalize(), *sh.Fingerprint("hello world"));
}

TEST(Streaming, EmptyStreamIsAnEmptyDocument) {
  const SimHasher sh = MakeSimHasher();
  SimHashStream ss(sh);
  EXPECT_TRUE(IsBadInput(ss.Finalize().status()));
  ASSERT_OK(ss.Update(""));
  ASSERT_OK(ss.Update(" ,; "));
  EXPECT_TRUE(IsBadInput(ss.Finalize().status()));
}

TEST(Streaming, CapErrorsInsteadOfTruncating) {
  const SimHasher sh = MakeSimHasher();
  SimHashStream ss(sh, /*max_bytes=*/10);
  ASSERT_OK(ss.Update("hello"));
  ASSERT_OK(ss.Update("world"));  // exactly at the cap
  ASSERT_OK(ss.Finalize());
  const absl::Status over = ss.Update("!");
  EXPECT_TRUE(IsBadInput(over)) << over;
  EXPECT_EQ(ss.buffered_bytes(), 10u);
  // Sticky: neither more input nor Finalize succeed.
  EXPECT_TRUE(IsBadInput(ss.Update("")));
  EXPECT_TRUE(IsBadInput(ss.Finalize().status()));
  ss.Reset();
  EXPECT_EQ(ss.buffered_bytes(), 0u);
  ASSERT_OK(ss.Update("fresh"));
  EXPECT_EQ(*ss.Finalize(), *sh.Fingerprint("fresh"));
}

TEST(Streaming, SingleChunkOverTheCap) {
  const SimHasher sh = MakeSimHasher();
  SimHashStream ss(sh, /*max_bytes=*/4);
  EXPECT_TRUE(IsBadInput(ss.Update("hello")));
  EXPECT_EQ(ss.buffered_bytes(), 0u);
  EXPECT_TRUE(IsBadInput(ss.Finalize().status()));
}

TEST(Streaming, DefaultCap) {
  const SimHasher sh = MakeSimHasher();
  SimHashStream ss(sh);
  const std::string big(kDefaultStreamMaxBytes, 'a');
  ASSERT_OK(ss.Update(big));
  EXPECT_TRUE(IsBadInput(ss.Update("a")));
}

TEST(Streaming, InvalidUtf8FailsAtOnceAndSticks) {
  const SimHasher sh = MakeSimHasher();
  SimHashStream ss(sh);
  ASSERT_OK(ss.Update("abc"));
  const absl::Status bad = ss.Update("d\xFF");
  EXPECT_TRUE(IsBadInput(bad)) << bad;
  EXPECT_NE(bad.message().find("byte 4"), std::string_view::npos) << bad;
  EXPECT_TRUE(IsBadInput(ss.Update("valid")));
  EXPECT_TRUE(IsBadInput(ss.Finalize().status()));
  ss.Reset();
  ASSERT_OK(ss.Update("valid"));
  EXPECT_EQ(*ss.Finalize(), *sh.Fingerprint("valid"));
}

TEST(Streaming, InvalidSequenceSplitAcrossChunks) {
  const SimHasher sh = MakeSimHasher();
  struct Case {
    std::string first, second;
  };
  const Case cases[] = {
      {"ab\xE2\x82", "A"},         // lead + continuation, then ASCII
      {"ab\xE0", "\x80\x80"},      // overlong 3-byte
      {"ab\xED", "\xA0\x80"},      // surrogate
      {"ab\xF4", "\x90\x80\x80"},  // above U+10FFFF
      {"ab\xF0\x9F", "\x98z"},     // 4-byte cut short
      {"ab\xC3", "\xC3\xA9"},      // a new lead where a continuation belongs
  };
  for (const Case& c : cases) {
    SimHashStream ss(sh);
    ASSERT_OK(ss.Update(c.first));
    const absl::Status s = ss.Update(c.second);
    EXPECT_TRUE(IsBadInput(s)) << s;
    EXPECT_NE(s.message().find("byte 2"), std::string_view::npos) << s;
    EXPECT_TRUE(IsBadInput(ss.Finalize().status()));
  }
}

TEST(Streaming, PrefixThatCanNeverBeValidFailsAtOnce) {
  // The header promises invalid bytes "fail at once". Each chunk below ends
  // in two bytes that no continuation can make valid UTF-8 (RFC 3629 / the
  // Unicode Standard, Table 3-7: after E0 the next byte must be A0..BF, after
  // ED 80..9F, after F0 90..BF, after F4 80..8F), so the chunk is already
  // known to be invalid when Update() sees it.
  const SimHasher sh = MakeSimHasher();
  for (std::string_view chunk : {"ab\xE0\x80", "ab\xED\xA0", "ab\xF0\x80",
                                 "ab\xF4\x90", "ab\xF0\x8F\xBF"}) {
    SimHashStream ss(sh);
    const absl::Status s = ss.Update(chunk);
    EXPECT_TRUE(IsBadInput(s))
        << "chunk of " << chunk.size() << " bytes accepted: " << s;
  }
}

TEST(Streaming, IncompleteTailAtFinalize) {
  const SimHasher sh = MakeSimHasher();
  for (std::string_view tail : {"\xC3", "\xE2\x82", "\xF0\x9F\x98"}) {
    SimHashStream ss(sh);
    ASSERT_OK(ss.Update("hello "));
    ASSERT_OK(ss.Update(tail));  // may still be completed
    const absl::Status s = ss.Finalize().status();
    EXPECT_TRUE(IsBadInput(s)) << s;
  }
  // Completing the sequence makes the stream whole again.
  SimHashStream ss(sh);
  ASSERT_OK(ss.Update("caf\xC3"));
  EXPECT_FALSE(ss.Finalize().ok());
  ASSERT_OK(ss.Update("\xA9"));
  EXPECT_EQ(*ss.Finalize(), *sh.Fingerprint("caf\u00E9"));
}

TEST(Streaming, ResetClearsAPendingPartialSequence) {
  const SimHasher sh = MakeSimHasher();
  SimHashStream ss(sh);
  ASSERT_OK(ss.Update("x\xE2\x82"));
  ss.Reset();
  EXPECT_EQ(ss.buffered_bytes(), 0u);
  // The dangling E2 82 must be gone: a bare continuation byte now is invalid,
  // and plain text fingerprints as itself.
  EXPECT_TRUE(IsBadInput(ss.Update("\xAC")));
  ss.Reset();
  ASSERT_OK(ss.Update("plain text"));
  EXPECT_EQ(*ss.Finalize(), *sh.Fingerprint("plain text"));
}

TEST(Utf8StreamBuffer, CompleteReturnsTheWholeInput) {
  Utf8StreamBuffer buf(/*max_bytes=*/64);
  EXPECT_EQ(buf.max_bytes(), 64u);
  ASSERT_OK(buf.Append("\xE2"));
  ASSERT_OK(buf.Append("\x82"));
  EXPECT_FALSE(buf.Complete().ok());
  ASSERT_OK(buf.Append("\xAC = euro"));
  absl::StatusOr<std::string_view> all = buf.Complete();
  ASSERT_OK(all);
  EXPECT_EQ(*all, "\u20AC = euro");
  EXPECT_EQ(buf.size(), all->size());
}

}  // namespace
}  // namespace neardup
