#include "neardup/http/routes.h"

#include <set>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace neardup::http {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;

TEST(RoutesTest, MatchesLiteralsAndFields) {
  absl::StatusOr<RouteMatch> match =
      MatchRoute("POST", "/v1/collections/news/documents:query");
  ASSERT_TRUE(match.ok()) << match.status();
  EXPECT_EQ(match->route->rpc, "neardup.v1.NearDup.Query");
  EXPECT_THAT(match->path_fields, ElementsAre(Pair("collection", "news")));
  EXPECT_EQ(WireMethod(*match->route), "/neardup.v1.NearDup/Query");
}

TEST(RoutesTest, FieldsArePercentDecodedAfterSplitting) {
  absl::StatusOr<RouteMatch> match =
      MatchRoute("GET", "/v1/collections/c/documents/a%2Fb%3Ac%20d");
  ASSERT_TRUE(match.ok()) << match.status();
  EXPECT_EQ(match->route->rpc, "neardup.v1.NearDup.Get");
  EXPECT_THAT(match->path_fields,
              ElementsAre(Pair("collection", "c"), Pair("id", "a/b:c d")));
}

TEST(RoutesTest, SameFieldSegmentsDifferByVerb) {
  EXPECT_EQ(MatchRoute("PUT", "/v1/collections/c/documents/x")->route->rpc,
            "neardup.v1.NearDup.Upsert");
  EXPECT_EQ(MatchRoute("DELETE", "/v1/collections/c/documents/x")->route->rpc,
            "neardup.v1.NearDup.Delete");
  EXPECT_EQ(MatchRoute("DELETE", "/v1/collections/c")->route->rpc,
            "neardup.v1.NearDup.DropCollection");
}

TEST(RoutesTest, UnknownPathIsNotFoundAndOtherVerbIsUnimplemented) {
  EXPECT_TRUE(absl::IsNotFound(MatchRoute("GET", "/v2/collections").status()));
  EXPECT_TRUE(absl::IsNotFound(MatchRoute("GET", "/v1/collections/").status()));
  EXPECT_TRUE(absl::IsNotFound(
      MatchRoute("POST", "/v1/collections/c/documents:nope").status()));
  const absl::Status wrong = MatchRoute("PATCH", "/v1/collections").status();
  EXPECT_TRUE(absl::IsUnimplemented(wrong));
  EXPECT_THAT(std::string(wrong.message()),
              ::testing::AllOf(::testing::HasSubstr("GET"),
                               ::testing::HasSubstr("POST")));
}

TEST(RoutesTest, BadPercentEncodingIsRefused) {
  EXPECT_TRUE(absl::IsInvalidArgument(
      MatchRoute("GET", "/v1/collections/a%2").status()));
  EXPECT_TRUE(absl::IsInvalidArgument(
      MatchRoute("GET", "/v1/collections/a%zz").status()));
  EXPECT_EQ(*PercentDecode("a+b%41"), "a+bA");
}

TEST(RoutesTest, EveryVerbAndPathPairIsUnique) {
  std::set<std::pair<std::string_view, std::string_view>> seen;
  for (const Route& route : Routes()) {
    EXPECT_TRUE(seen.emplace(route.verb, route.path).second) << route.path;
    // Each route matches itself, with its own fields.
    std::string concrete;
    for (char c : route.path)
      concrete.push_back(c == '{' || c == '}' ? 'x' : c);
    absl::StatusOr<RouteMatch> match = MatchRoute(route.verb, concrete);
    ASSERT_TRUE(match.ok()) << route.path;
    EXPECT_EQ(match->route, &route) << route.path;
  }
}

}  // namespace
}  // namespace neardup::http
