// One vocabulary of fingerprint settings: every fingerprint flag, given to
// the offline commands (fingerprint, dedup) and to `collections create`,
// yields the same config hash offline and on the server (through the
// FingerprintConfig the CLI sends and the server's ConfigFromProto).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "neardup/cli/commands.h"
#include "neardup/cli/server_commands.h"
#include "neardup/core/collection_config.h"
#include "neardup/core/collection_fingerprinter.h"
#include "neardup/core/minhash.h"
#include "neardup/core/newsbot_simhash.h"
#include "neardup/core/simhash.h"
#include "neardup/dedup/dedup_options.h"
#include "neardup/server/internal/proto_convert.h"
#include "support/status_matchers.h"

namespace neardup::cli {
namespace {

using Args = std::vector<std::string>;

void Parse(CLI::App& app, Args args) {
  std::reverse(args.begin(), args.end());  // CLI11 takes them reversed
  app.parse(args);
}

uint64_t OfflineMinHash(const Args& flags) {
  CLI::App app;
  FingerprintCommand cmd;
  AddFingerprintCommand(&app, &cmd);
  Args args = {"fingerprint"};
  args.insert(args.end(), flags.begin(), flags.end());
  Parse(app, args);
  return MinHasher::Create(*MinHashConfigOf(cmd.fingerprint))->config_hash();
}

uint64_t OfflineSimHash(const Args& flags) {
  CLI::App app;
  FingerprintCommand cmd;
  AddFingerprintCommand(&app, &cmd);
  Args args = {"fingerprint", "--kind", "simhash"};
  args.insert(args.end(), flags.begin(), flags.end());
  Parse(app, args);
  return SimHasher::Create(*SimHashConfigOf(cmd.fingerprint))->config_hash();
}

uint64_t DedupMinHash(const Args& flags) {
  CLI::App app;
  DedupCommand cmd;
  AddDedupCommand(&app, &cmd);
  Args args = {"dedup", "in.jsonl", "-o", "out.jsonl"};
  args.insert(args.end(), flags.begin(), flags.end());
  Parse(app, args);
  return MinHasher::Create(*MinHashConfigOf(cmd.options.fingerprint))
      ->config_hash();
}

// What the server makes of `collections create` with these flags.
CollectionConfig Online(const Args& flags) {
  CLI::App app;
  ServerCommands cmd;
  AddServerCommands(&app, &cmd);
  Args args = {"collections", "create", "c"};
  if (std::find(flags.begin(), flags.end(), "--simhash") == flags.end()) {
    args.push_back("--simhash");
  }
  args.insert(args.end(), flags.begin(), flags.end());
  Parse(app, args);
  const absl::StatusOr<CollectionConfig> config =
      server::ConfigFromProto(CollectionConfigRequest(cmd.config));
  EXPECT_OK(config);
  return *config;
}

// Every fingerprint flag, each with values other than its default.
const std::vector<Args>& FlagCases() {
  static const auto* cases = new std::vector<Args>{
      {},
      {"--tokenizer", "grapheme"},
      {"--tokenizer", "cjk"},
      {"--tokenizer", "word-uax29"},
      {"--ngram", "0"},
      {"--ngram", "1"},
      {"--ngram", "3"},
      {"--ngram", "5"},
      {"--num-perm", "64"},
      {"--num-perm", "256"},
      {"--seed", "42"},
      {"--seed", "0x2a"},
      {"--hash", "mmh3"},
      {"--hash", "xxh3"},
      {"--weighting", "uniform"},
      {"--normalization", "nfc"},
      {"--normalization", "none"},
      {"--case-fold", "none"},
      {"--keep-bidi"},
      {"--keep-format"},
      {"--confusable"},
      {"--strip-ignorables"},
      {"--fold-small-capitals"},
      {"--fold-look-alikes"},
      {"--confusable", "--fold-look-alikes"},
      {"--profile", "robust"},
      {"--profile", "robust", "--keep-format"},
      {"--tokenizer", "grapheme", "--ngram", "2", "--seed", "7", "--hash",
       "mmh3", "--normalization", "nfc", "--keep-format"},
  };
  return *cases;
}

bool HasNgram(const Args& flags) {
  return std::find(flags.begin(), flags.end(), "--ngram") != flags.end();
}

TEST(FlagVocabulary, SameFlagsSameMinHashConfigHashEverywhere) {
  for (const Args& flags : FlagCases()) {
    SCOPED_TRACE(::testing::PrintToString(flags));
    const CollectionConfig online = Online(flags);
    const uint64_t server =
        MinHasher::Create(MinHashConfigOf(online))->config_hash();
    EXPECT_EQ(OfflineMinHash(flags), server);
    EXPECT_EQ(DedupMinHash(flags), server);
  }
}

// A collection's SimHash runs over the plain tokens: without --ngram the
// offline SimHash of the same flags is the collection's.
TEST(FlagVocabulary, SameFlagsSameSimHashConfigHashEverywhere) {
  for (const Args& flags : FlagCases()) {
    if (HasNgram(flags)) continue;
    SCOPED_TRACE(::testing::PrintToString(flags));
    const CollectionConfig online = Online(flags);
    EXPECT_EQ(OfflineSimHash(flags),
              SimHasher::Create(SimHashConfigOf(online))->config_hash());
  }
}

// The flags do change the hash (the test above would pass vacuously if
// they were ignored).
TEST(FlagVocabulary, EveryFlagChangesTheConfigHash) {
  const uint64_t defaults = OfflineMinHash({});
  for (const Args& flags : FlagCases()) {
    if (flags.empty() || flags == Args{"--ngram", "0"} ||
        flags == Args{"--ngram", "5"} || flags == Args{"--hash", "xxh3"} ||
        flags == Args{"--tokenizer", "word-uax29"} ||
        flags == Args{"--weighting", "uniform"}) {
      continue;  // the defaults spelled out, or SimHash-only
    }
    EXPECT_NE(OfflineMinHash(flags), defaults)
        << ::testing::PrintToString(flags);
  }
  EXPECT_NE(OfflineSimHash({"--weighting", "uniform"}), OfflineSimHash({}));
}

// --ngram means the same everywhere: 0 is the algorithm's default (MinHash
// 5-token shingles), 1 the plain tokens.
TEST(FlagVocabulary, NgramZeroIsTheDefaultAndOneIsPlainTokens) {
  EXPECT_EQ(OfflineMinHash({"--ngram", "0"}), OfflineMinHash({"--ngram", "5"}));
  EXPECT_NE(OfflineMinHash({"--ngram", "1"}), OfflineMinHash({"--ngram", "0"}));
  EXPECT_EQ(Online({"--ngram", "1"}).minhash_tokenizer, "word-uax29");
  EXPECT_EQ(Online({}).minhash_tokenizer, "shingle-k=5/word-uax29");
}

// The perceptual family: `fingerprint --kind perceptual`, `dedup --method
// perceptual` and `collections create --minhash-algorithm perceptual` agree,
// for the default k (0 meaning 9) and for others.
TEST(FlagVocabulary, PerceptualFlagsGiveOneConfigHashEverywhere) {
  for (const Args& flags :
       std::vector<Args>{{},
                         {"--winnow-window", "2"},
                         {"--ngram", "7"},
                         {"--ngram", "3", "--winnow-window", "8", "--seed", "5",
                          "--confusable"}}) {
    SCOPED_TRACE(::testing::PrintToString(flags));
    Args online_flags = {"--minhash-algorithm", "perceptual"};
    online_flags.insert(online_flags.end(), flags.begin(), flags.end());
    const uint64_t server =
        CollectionFingerprinter::Create(Online(online_flags))
            ->minhash_config_hash();

    CLI::App app;
    FingerprintCommand fingerprint;
    AddFingerprintCommand(&app, &fingerprint);
    Args args = {"fingerprint", "--kind", "perceptual"};
    args.insert(args.end(), flags.begin(), flags.end());
    Parse(app, args);
    EXPECT_EQ(
        PerceptualHasher::Create(PerceptualConfigOf(fingerprint.fingerprint,
                                                    fingerprint.winnow_window),
                                 fingerprint.fingerprint.canonicalizer)
            ->config_hash(),
        server);

    CLI::App dedup_app;
    DedupCommand dedup;
    AddDedupCommand(&dedup_app, &dedup);
    Args dedup_args = {"dedup",     "in.jsonl", "-o",
                       "out.jsonl", "--method", "perceptual"};
    dedup_args.insert(dedup_args.end(), flags.begin(), flags.end());
    Parse(dedup_app, dedup_args);
    EXPECT_EQ(PerceptualHasher::Create(dedup::PerceptualConfigOf(dedup.options),
                                       dedup.options.fingerprint.canonicalizer)
                  ->config_hash(),
              server);
  }
}

TEST(FlagVocabulary, NewsbotAndTlshCollectionsTakeTheirFamiliesHashes) {
  const CollectionConfig newsbot =
      Online({"--simhash", "--simhash-variant", "newsbot"});
  EXPECT_EQ(newsbot.simhash_variant, SimHashVariant::kNewsbot);
  EXPECT_EQ(CollectionFingerprinter::Create(newsbot)->simhash_config_hash(),
            NewsbotConfigHash(64));
  const CollectionConfig tlsh = Online({"--keep", "tlsh", "--confusable"});
  EXPECT_THAT(tlsh.kept_families, ::testing::ElementsAre("tlsh"));
  EXPECT_THAT(
      CollectionFingerprinter::Create(tlsh)->kept_config_hashes(),
      ::testing::ElementsAre(KeptConfigHash{
          "tlsh",
          TlshFingerprinter::Create(tlsh.canonicalizer)->config_hash()}));
}

// The old spellings still work for one release, set what the new ones set,
// say they are deprecated, and are not in --help.
TEST(FlagVocabulary, OldSpellingsAreDeprecatedAliasesOfTheNewOnes) {
  ::testing::internal::CaptureStderr();
  {
    CLI::App app;
    FingerprintCommand cmd;
    AddFingerprintCommand(&app, &cmd);
    Parse(app, {"fingerprint", "--algo", "tlsh", "--format", "json"});
    EXPECT_EQ(cmd.algorithm, "tlsh");
    EXPECT_EQ(cmd.format, "json");
    EXPECT_THAT(app.get_subcommand("fingerprint")->help(),
                ::testing::Not(::testing::HasSubstr("--algo ")));
  }
  {
    CLI::App app;
    CompareCommand cmd;
    AddCompareCommand(&app, &cmd);
    Parse(app, {"compare", "a", "b", "--algo", "newsbot"});
    EXPECT_EQ(cmd.algorithm, "newsbot");
  }
  {
    CLI::App app;
    DedupCommand cmd;
    AddDedupCommand(&app, &cmd);
    Parse(app, {"dedup", "in.jsonl", "-o", "out.jsonl", "--algorithm",
                "simhash", "--verify", "none"});
    EXPECT_EQ(cmd.options.algorithm, dedup::Algorithm::kSimHash);
    EXPECT_EQ(cmd.options.verify, dedup::Verify::kNone);
  }
  {
    CLI::App app;
    DedupCommand cmd;
    AddDedupCommand(&app, &cmd);
    // lshbloom's default verification still follows the method.
    Parse(app,
          {"dedup", "in.jsonl", "-o", "out.jsonl", "--algorithm", "lshbloom"});
    EXPECT_EQ(cmd.options.verify, dedup::Verify::kEstimate);
  }
  const std::string warnings = ::testing::internal::GetCapturedStderr();
  for (const char* expected :
       {"--algo is deprecated", "use --kind", "--format is deprecated",
        "use --output-format", "--algorithm is deprecated", "use --method",
        "--verify is deprecated", "use --verification"}) {
    EXPECT_THAT(warnings, ::testing::HasSubstr(expected));
  }
  EXPECT_EQ(Online({"--algorithm", "perceptual"}).minhash_algorithm,
            MinHashAlgorithm::kPerceptual);
  EXPECT_EQ(Online({"--minhash-algorithm", "perceptual"}).minhash_algorithm,
            MinHashAlgorithm::kPerceptual);
  EXPECT_EQ(Online({"--verify-bits", "32"}).slot_bits, 32);
  EXPECT_EQ(Online({"--slot-bits", "64"}).slot_bits, 64);
  EXPECT_EQ(Online({"--evidence-bits", "64"}).evidence_bits, 64);
  EXPECT_EQ(EvidenceBitsOf(Online({})), 32);
  EXPECT_EQ(Online({"--tlsh"}).kept_families,
            Online({"--keep", "tlsh"}).kept_families);
}

// --keep takes every kept family by name, repeated or comma-separated, and
// refuses a name none has before anything is sent.
TEST(FlagVocabulary, KeepNamesKeptFamilies) {
  EXPECT_THAT(Online({"--keep", "tlsh,tlsh"}).kept_families,
              ::testing::ElementsAre("tlsh"));
  CLI::App app;
  ServerCommands cmd;
  AddServerCommands(&app, &cmd);
  EXPECT_THROW(Parse(app, {"collections", "create", "c", "--keep", "md5"}),
               CLI::ValidationError);
}

}  // namespace
}  // namespace neardup::cli
