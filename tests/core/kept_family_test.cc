#include "neardup/core/kept_family.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "absl/strings/ascii.h"
#include "neardup/core/collection_config.h"
#include "support/status_matchers.h"

namespace neardup {
namespace {

using ::neardup::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr std::string_view kText =
    "The committee met on Tuesday to review the budget for the coming year "
    "and agreed to fund the new library wing before the winter session.";

TEST(KeptFamily, RegistryIsSortedDistinctLowercaseAndFindable) {
  ASSERT_FALSE(KeptFamilies().empty());
  std::set<std::string_view> seen;
  std::string_view previous;
  for (size_t i = 0; i < KeptFamilies().size(); ++i) {
    const KeptFamily& family = *KeptFamilies()[i];
    EXPECT_LT(previous, family.name) << "sorted and distinct";
    previous = family.name;
    EXPECT_EQ(absl::AsciiStrToLower(std::string(family.name)), family.name);
    EXPECT_FALSE(family.summary.empty()) << family.name;
    EXPECT_EQ(FindKeptFamily(family.name), &family);
    EXPECT_EQ(KeptFamilyIndex(family.name), static_cast<int>(i));
    ASSERT_OK_AND_ASSIGN(const KeptFamily* named, KeptFamilyNamed(family.name));
    EXPECT_EQ(named, &family);
  }
  EXPECT_EQ(FindKeptFamily("nope"), nullptr);
  EXPECT_EQ(KeptFamilyIndex("nope"), -1);
  EXPECT_THAT(KeptFamilyNamed("nope").status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("known: " + KeptFamilyNames())));
}

// What the store, the engine and the API rely on, for every family: a
// fingerprint is normalized, normalizing is idempotent, a value is at
// distance 0 from itself, and the config hash follows the canonicalizer.
TEST(KeptFamily, EveryFamilyKeepsTheContract) {
  for (const KeptFamily* family : KeptFamilies()) {
    SCOPED_TRACE(family->name);
    ASSERT_OK_AND_ASSIGN(auto fingerprinter, family->create({}));
    ASSERT_OK_AND_ASSIGN(const std::string value,
                         fingerprinter->Fingerprint(kText));
    ASSERT_OK_AND_ASSIGN(const std::string normalized,
                         family->normalize(value));
    EXPECT_EQ(normalized, value);
    ASSERT_OK_AND_ASSIGN(const int distance, family->distance(value, value));
    EXPECT_EQ(distance, 0);
    EXPECT_EQ(family->normalize("not a value").status().code(),
              absl::StatusCode::kInvalidArgument);
    EXPECT_NE(fingerprinter->config_hash(), 0u);
    ASSERT_OK_AND_ASSIGN(auto folded,
                         family->create({.case_fold = CaseFold::kNone}));
    EXPECT_NE(folded->config_hash(), fingerprinter->config_hash());
    // Same text, same bytes.
    ASSERT_OK_AND_ASSIGN(const std::string again,
                         fingerprinter->Fingerprint(kText));
    EXPECT_EQ(again, value);
  }
}

TEST(KeptFamily, CollectionConfigSortsDedupesAndRefusesUnknownNames) {
  CollectionConfig config;
  config.kept_families = {"tlsh", "tlsh"};
  ASSERT_OK_AND_ASSIGN(const CollectionConfig normalized,
                       NormalizeCollectionConfig(config));
  EXPECT_THAT(normalized.kept_families, ElementsAre("tlsh"));
  EXPECT_TRUE(normalized.Keeps("tlsh"));
  EXPECT_FALSE(CollectionConfig{}.Keeps("tlsh"));
  config.kept_families = {"tlsh", "md5"};
  EXPECT_THAT(NormalizeCollectionConfig(config).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("unknown kept family \"md5\"")));
}

}  // namespace
}  // namespace neardup
