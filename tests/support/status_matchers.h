#ifndef NEARDUP_TESTS_SUPPORT_STATUS_MATCHERS_H_
#define NEARDUP_TESTS_SUPPORT_STATUS_MATCHERS_H_

// Status checks that print the status when they fail (a bare
// ASSERT_TRUE(x.ok()) prints only "false"). Each takes an absl::Status or an
// absl::StatusOr<T>:
//   ASSERT_OK(store->DropCollection("a"));
//   EXPECT_OK(client.Health());
//   ASSERT_OK_AND_ASSIGN(auto db, Database::Open(dir));
// and a matcher of an absl::Status's code and message:
//   EXPECT_THAT(result.status(), testing::StatusIs(
//                   absl::StatusCode::kInvalidArgument, HasSubstr("b: ")));

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace neardup::testing {

inline const absl::Status& StatusOf(const absl::Status& status) {
  return status;
}
template <typename T>
const absl::Status& StatusOf(const absl::StatusOr<T>& status_or) {
  return status_or.status();
}

MATCHER_P2(StatusIs, code, message_matcher, "") {
  *result_listener << "which is " << arg;
  return arg.code() == code &&
         ::testing::Matches(message_matcher)(std::string(arg.message()));
}

}  // namespace neardup::testing

#define NEARDUP_TEST_CONCAT_INNER_(a, b) a##b
#define NEARDUP_TEST_CONCAT_(a, b) NEARDUP_TEST_CONCAT_INNER_(a, b)

#define ASSERT_OK(expr)                                             \
  do {                                                              \
    const auto& neardup_test_result_ = (expr);                      \
    const ::absl::Status& neardup_test_status_ =                    \
        ::neardup::testing::StatusOf(neardup_test_result_);         \
    ASSERT_TRUE(neardup_test_status_.ok()) << neardup_test_status_; \
  } while (false)

#define EXPECT_OK(expr)                                             \
  do {                                                              \
    const auto& neardup_test_result_ = (expr);                      \
    const ::absl::Status& neardup_test_status_ =                    \
        ::neardup::testing::StatusOf(neardup_test_result_);         \
    EXPECT_TRUE(neardup_test_status_.ok()) << neardup_test_status_; \
  } while (false)

// `ASSERT_OK_AND_ASSIGN(auto x, MakeX());`
#define ASSERT_OK_AND_ASSIGN(lhs, expr) \
  NEARDUP_TEST_ASSIGN_IMPL_(            \
      NEARDUP_TEST_CONCAT_(neardup_test_statusor_, __LINE__), lhs, expr)
#define NEARDUP_TEST_ASSIGN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                              \
  ASSERT_TRUE(tmp.ok()) << tmp.status();          \
  lhs = std::move(tmp).value()

#endif  // NEARDUP_TESTS_SUPPORT_STATUS_MATCHERS_H_
