#include "neardup/engine/embedders.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "support/fasttext_model.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace neardup::engine {
namespace {

using ::testing::HasSubstr;

// Model files are reached only inside --models-dir, whatever the path
// says; a file replaced on disk is loaded again.
TEST(EmbedderCache, OnlyFilesInsideTheModelsDir) {
  neardup::testing::TempDir temp;
  const std::string models = temp.path() + "/models";
  std::filesystem::create_directories(models);
  std::string log;
  const std::string model =
      neardup::testing::TrainTinyFastTextModel(models, &log);
  ASSERT_FALSE(model.empty()) << log;
  const std::string outside = temp.path() + "/outside.bin";
  std::filesystem::copy_file(model, outside);
  std::filesystem::create_symlink(outside, models + "/link.bin");

  EmbedderCache off("");
  EXPECT_EQ(off.Get("tiny.bin").status().code(),
            absl::StatusCode::kFailedPrecondition);
  EmbedderCache cache(models);
  ASSERT_OK_AND_ASSIGN(const auto loaded, cache.Get("tiny.bin"));
  ASSERT_OK_AND_ASSIGN(const auto again, cache.Get("./tiny.bin"));
  EXPECT_EQ(again.get(), loaded.get());  // loaded once
  for (const std::string& escape :
       {std::string("../outside.bin"), outside, std::string("link.bin"),
        std::string("sub/../../outside.bin")}) {
    EXPECT_EQ(cache.Get(escape).status().code(),
              absl::StatusCode::kInvalidArgument)
        << escape;
  }
  EXPECT_EQ(cache.Get("missing.bin").status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_THAT(cache.Get("corpus.txt").status().message(),
              HasSubstr("not a fastText model"));

  // Another model in its place: loaded again, with another id.
  const std::string other_dir = temp.path() + "/other";
  std::filesystem::create_directories(other_dir);
  const std::string other =
      neardup::testing::TrainTinyFastTextModel(other_dir, &log, 43);
  ASSERT_FALSE(other.empty()) << log;
  std::filesystem::remove(model);
  std::filesystem::copy_file(other, model);
  ASSERT_OK_AND_ASSIGN(const auto reloaded, cache.Get("tiny.bin"));
  EXPECT_NE(reloaded->model_id(), loaded->model_id());
  storage::CollectionRecord record;
  record.name = "c";
  record.config.embedding.fasttext_model = "tiny.bin";
  record.config.embedding.model_id = loaded->model_id();
  EXPECT_EQ(cache.ForCollection(record).status().code(),
            absl::StatusCode::kFailedPrecondition);
  record.config.embedding.model_id = reloaded->model_id();
  EXPECT_OK(cache.ForCollection(record).status());
}

}  // namespace
}  // namespace neardup::engine
