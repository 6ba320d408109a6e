#include "neardup/http/json_messages.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "neardup/v1/neardup.pb.h"

namespace neardup::http {
namespace {

using ::testing::HasSubstr;

TEST(JsonMessagesTest, BodyUsesProtobufsJsonMapping) {
  v1::QueryRequest request;
  ASSERT_TRUE(MergeJson(R"({"text": "aGVsbG8=", "topK": 3,
                            "algorithm": "ALGORITHM_SIMHASH",
                            "log_sequence": "7"})",
                        &request)
                  .ok());
  EXPECT_EQ(request.text(), "hello");
  EXPECT_EQ(request.top_k(), 3u);
  EXPECT_EQ(request.algorithm(), v1::ALGORITHM_SIMHASH);
  EXPECT_EQ(request.log_sequence(), 7u);
}

TEST(JsonMessagesTest, UnknownFieldsAndBadJsonAreRefused) {
  v1::QueryRequest request;
  const absl::Status unknown = MergeJson(R"({"txet": "x"})", &request);
  EXPECT_TRUE(absl::IsInvalidArgument(unknown));
  EXPECT_THAT(unknown.message(), HasSubstr("QueryRequest"));
  EXPECT_TRUE(absl::IsInvalidArgument(MergeJson("{", &request)));
  EXPECT_TRUE(absl::IsInvalidArgument(MergeJson("[1]", &request)));
  EXPECT_TRUE(MergeJson("  \n", &request).ok());
}

TEST(JsonMessagesTest, PathFieldsSetTheFieldOrEachItem) {
  v1::QueryRequest query;
  ASSERT_TRUE(ApplyPathFields({{"collection", "news"}}, &query).ok());
  EXPECT_EQ(query.collection(), "news");

  v1::BulkUpsertRequest bulk;
  bulk.add_items()->set_id("a");
  bulk.add_items()->set_collection("news");
  ASSERT_TRUE(ApplyPathFields({{"collection", "news"}}, &bulk).ok());
  EXPECT_EQ(bulk.items(0).collection(), "news");
  EXPECT_EQ(bulk.items(1).collection(), "news");

  bulk.mutable_items(1)->set_collection("other");
  const absl::Status conflict =
      ApplyPathFields({{"collection", "news"}}, &bulk);
  EXPECT_TRUE(absl::IsInvalidArgument(conflict));
  EXPECT_THAT(conflict.message(), HasSubstr("items[1]"));
}

TEST(JsonMessagesTest, PathAndBodyMustAgree) {
  v1::GetRequest get;
  get.set_id("x");
  EXPECT_TRUE(ApplyPathFields({{"id", "x"}}, &get).ok());
  EXPECT_TRUE(absl::IsInvalidArgument(ApplyPathFields({{"id", "y"}}, &get)));
}

TEST(JsonMessagesTest, QueryStringSetsScalarFields) {
  v1::ExportRequest request;
  ASSERT_TRUE(
      ApplyQueryString("with_signatures=true&replicaOnly", &request).ok());
  EXPECT_TRUE(request.with_signatures());
  EXPECT_TRUE(request.replica_only());

  v1::StatsRequest stats;
  ASSERT_TRUE(ApplyQueryString("collection=a%20b+c", &stats).ok());
  EXPECT_EQ(stats.collection(), "a b c");

  v1::GetRequest get;
  ASSERT_TRUE(ApplyQueryString("log_sequence=12", &get).ok());
  EXPECT_EQ(get.log_sequence(), 12u);
}

TEST(JsonMessagesTest, QueryStringErrorsNameTheParameter) {
  v1::ExportRequest request;
  const absl::Status unknown = ApplyQueryString("nope=1", &request);
  EXPECT_TRUE(absl::IsInvalidArgument(unknown));
  EXPECT_THAT(unknown.message(), HasSubstr("nope"));
  EXPECT_THAT(ApplyQueryString("with_signatures=maybe", &request).message(),
              HasSubstr("boolean"));
  EXPECT_THAT(ApplyQueryString("collection=a&collection=b", &request).message(),
              HasSubstr("twice"));
  v1::QueryRequest query;
  EXPECT_THAT(ApplyQueryString("signatures=x", &query).message(),
              HasSubstr("JSON body"));
  query.set_top_k(3);
  EXPECT_THAT(ApplyQueryString("top_k=4", &query).message(),
              HasSubstr("also in the body"));
  v1::GetRequest get;
  EXPECT_TRUE(
      absl::IsInvalidArgument(ApplyQueryString("log_sequence=x", &get)));
}

TEST(JsonMessagesTest, AnswersPrintDefaultsInCamelCase) {
  v1::UpsertResponse response;
  response.set_id("a");
  const std::string json = ToJson(response);
  EXPECT_THAT(json, HasSubstr(R"("written":false)"));
  EXPECT_THAT(json, HasSubstr(R"("blockingCount":0)"));
  EXPECT_THAT(json, HasSubstr(R"("logSequence":"0")"));
}

}  // namespace
}  // namespace neardup::http
