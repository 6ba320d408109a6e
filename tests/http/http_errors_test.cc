#include "neardup/http/http_errors.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace neardup::http {
namespace {

TEST(HttpErrorsTest, EveryGrpcCodeHasAnHttpStatus) {
  EXPECT_EQ(HttpStatusOf(grpc::StatusCode::OK), 200);
  EXPECT_EQ(HttpStatusOf(grpc::StatusCode::INVALID_ARGUMENT), 400);
  EXPECT_EQ(HttpStatusOf(grpc::StatusCode::FAILED_PRECONDITION), 400);
  EXPECT_EQ(HttpStatusOf(grpc::StatusCode::UNAUTHENTICATED), 401);
  EXPECT_EQ(HttpStatusOf(grpc::StatusCode::PERMISSION_DENIED), 403);
  EXPECT_EQ(HttpStatusOf(grpc::StatusCode::NOT_FOUND), 404);
  EXPECT_EQ(HttpStatusOf(grpc::StatusCode::ALREADY_EXISTS), 409);
  EXPECT_EQ(HttpStatusOf(grpc::StatusCode::RESOURCE_EXHAUSTED), 429);
  EXPECT_EQ(HttpStatusOf(grpc::StatusCode::CANCELLED), 499);
  EXPECT_EQ(HttpStatusOf(grpc::StatusCode::UNIMPLEMENTED), 501);
  EXPECT_EQ(HttpStatusOf(grpc::StatusCode::UNAVAILABLE), 503);
  EXPECT_EQ(HttpStatusOf(grpc::StatusCode::DEADLINE_EXCEEDED), 504);
  for (int code = 1; code <= 16; ++code) {
    const int status = HttpStatusOf(static_cast<grpc::StatusCode>(code));
    EXPECT_GE(status, 400) << code;
    EXPECT_NE(CodeName(static_cast<grpc::StatusCode>(code)), "OK");
  }
  EXPECT_EQ(CodeName(grpc::StatusCode::UNAUTHENTICATED), "UNAUTHENTICATED");
  EXPECT_EQ(CodeName(grpc::StatusCode::FAILED_PRECONDITION),
            "FAILED_PRECONDITION");
}

TEST(HttpErrorsTest, BodyCarriesCodeNameMessageAndDetails) {
  const nlohmann::json body = nlohmann::json::parse(ErrorJson(
      grpc::Status(grpc::StatusCode::NOT_FOUND, "no collection \"x\"")));
  EXPECT_EQ(body["code"], 5);
  EXPECT_EQ(body["status"], "NOT_FOUND");
  EXPECT_EQ(body["message"], "no collection \"x\"");
  EXPECT_TRUE(body["details"].is_array());
  EXPECT_TRUE(body["details"].empty());

  const nlohmann::json detailed = nlohmann::json::parse(ErrorJson(grpc::Status(
      grpc::StatusCode::INTERNAL, "m", std::string("\x08\x0d\x12", 3))));
  ASSERT_EQ(detailed["details"].size(), 1u);
  EXPECT_EQ(detailed["details"][0]["value"], "CA0S");
}

TEST(HttpErrorsTest, MessagesThatAreNotUtf8StillMakeJson) {
  const std::string json = ErrorJson(grpc::Status(
      grpc::StatusCode::INVALID_ARGUMENT, std::string("bad \xff byte")));
  EXPECT_TRUE(nlohmann::json::accept(json)) << json;
}

}  // namespace
}  // namespace neardup::http
