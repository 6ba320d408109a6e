#include "neardup/http/openapi.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "neardup/http/routes.h"
#include "nlohmann/json.hpp"

namespace neardup::http {
namespace {

nlohmann::json Document() {
  absl::StatusOr<std::string> json = OpenApiJson();
  EXPECT_TRUE(json.ok()) << json.status();
  return nlohmann::json::parse(json.value_or("{}"));
}

TEST(OpenApiTest, EveryRouteIsAnOperationOfItsRpc) {
  const nlohmann::json document = Document();
  EXPECT_EQ(document["openapi"], "3.0.3");
  size_t operations = 0;
  for (const auto& [path, verbs] : document["paths"].items()) {
    operations += verbs.size();
  }
  EXPECT_EQ(operations, Routes().size());
  const nlohmann::json& query =
      document["paths"]["/v1/collections/{collection}/documents:query"]["post"];
  EXPECT_EQ(query["operationId"], "Query");
  EXPECT_EQ(
      query["requestBody"]["content"]["application/json"]["schema"]["$ref"],
      "#/components/schemas/neardup.v1.QueryRequest");
  EXPECT_EQ(query["parameters"][0]["name"], "collection");
}

TEST(OpenApiTest, SchemasFollowProto3Json) {
  const nlohmann::json schemas = Document()["components"]["schemas"];
  const nlohmann::json& query = schemas["neardup.v1.QueryRequest"];
  EXPECT_EQ(query["properties"]["text"]["format"], "byte");
  EXPECT_EQ(query["properties"]["topK"]["type"], "integer");
  EXPECT_EQ(query["properties"]["logSequence"]["type"], "string");
  EXPECT_THAT(query["properties"]["algorithm"]["enum"],
              ::testing::Contains("ALGORITHM_SIMHASH"));
  EXPECT_EQ(schemas["neardup.v1.Document"]["properties"]["metadata"]
                   ["additionalProperties"]["type"],
            "string");
  EXPECT_EQ(schemas["neardup.v1.QueryResponse"]["properties"]["matches"]
                   ["items"]["$ref"],
            "#/components/schemas/neardup.v1.Match");
  EXPECT_TRUE(schemas.contains("Error"));
}

TEST(OpenApiTest, GetRoutesTakeScalarFieldsAsQueryParameters) {
  const nlohmann::json document = Document();
  const nlohmann::json& export_route =
      document["paths"]["/v1/collections/{collection}/documents:export"]["get"];
  std::vector<std::string> names;
  for (const auto& parameter : export_route["parameters"]) {
    names.push_back(parameter["name"]);
  }
  EXPECT_THAT(names, ::testing::ElementsAre("collection", "with_signatures",
                                            "replica_only"));
  EXPECT_TRUE(export_route["responses"]["200"]["content"].contains(
      "application/x-ndjson"));
}

TEST(OpenApiTest, DocumentIsDeterministic) {
  EXPECT_EQ(OpenApiJson().value(), OpenApiJson().value());
}

}  // namespace
}  // namespace neardup::http
