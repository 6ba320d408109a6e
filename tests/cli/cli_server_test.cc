// The `neardup` CLI against a real neardupd on loopback: collections,
// ingest (JSONL with ids, CSV, dedup-on-write), query, get, delete, stats,
// health, and their exit codes.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>

#include "absl/strings/str_cat.h"
#include "server/server_process.h"
#include "support/corpus.h"
#include "support/pdf_builder.h"
#include "support/run_command.h"
#include "support/temp_dir.h"

namespace neardup {
namespace {

using testing::GeneratedText;
using ::testing::HasSubstr;
using testing::NearCopy;
using ::testing::Not;

using Result = testing::CommandResult;

class CliServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<testing::ServerProcess>(
        temp_.path() + "/data", temp_.path() + "/neardupd.log");
    server_->Start();
    ASSERT_TRUE(server_->WaitServing());
  }

  Result Run(const std::string& args) {
    return testing::RunCommand(
        absl::StrCat(NEARDUP_BIN, " ", args, " --server ", server_->Address()));
  }

  testing::TempDir temp_;
  std::unique_ptr<testing::ServerProcess> server_;
};

TEST_F(CliServerTest, CollectionsLifecycle) {
  Result r = Run("collections create news --threshold 0.5 --store-text");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("min_threshold=0.4 bands x rows=31x2"));
  r = Run("collections create news");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, HasSubstr("already exists"));
  r = Run("collections list --json");
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.out, HasSubstr("\"name\":\"news\""));
  EXPECT_EQ(Run("collections get news").exit_code, 0);
  EXPECT_EQ(Run("collections drop news").exit_code, 0);
  r = Run("collections get news");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, HasSubstr("no collection named 'news'"));
  EXPECT_EQ(Run("health").exit_code, 0);
}

TEST_F(CliServerTest, IngestQueryGetDelete) {
  ASSERT_EQ(
      Run("collections create docs --threshold 0.5 --store-text").exit_code, 0);
  std::string jsonl;
  for (int i = 0; i < 50; ++i) {
    absl::StrAppend(&jsonl, "{\"id\":\"doc", i, "\",\"text\":\"",
                    GeneratedText(i), "\"}\n");
  }
  const std::string file = temp_.Write("docs.jsonl", jsonl);
  Result r = Run("ingest " + file + " -c docs --id-field id");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("50 written"));

  // A file that is not there: its error, and no "ingested 0 of 0" summary.
  r = Run("ingest " + temp_.path() + "/missing.jsonl -c docs --id-field id");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.out, HasSubstr("missing.jsonl"));
  EXPECT_THAT(r.out, Not(HasSubstr("ingested")));

  // A CSV with a quoted newline, refused as near-copies by dedup-on-write.
  const std::string csv = temp_.Write(
      "copies.csv",
      absl::StrCat("id,body\ncopy1,\"", NearCopy(GeneratedText(1)),
                   "\"\nfresh,\"", GeneratedText(999), "\nsecond line\"\n"));
  r = Run("ingest " + csv +
          " -c docs --field body --id-field id "
          "--insert-only-below 0.5");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("1 written, 1 refused"));

  const std::string probe =
      temp_.Write("probe.txt", NearCopy(GeneratedText(7)));
  r = Run("query " + probe + " -c docs");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("doc7  exact="));
  r = Run("query -c docs --text \"" + GeneratedText(7) + "\" --json");
  EXPECT_THAT(r.out, HasSubstr("\"id\":\"doc7\""));

  r = Run("get -c docs doc3");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr(GeneratedText(3)));
  EXPECT_EQ(Run("delete -c docs doc3").exit_code, 0);
  EXPECT_EQ(Run("get -c docs doc3").exit_code, 1);
  r = Run("stats -c docs");
  EXPECT_THAT(r.out, HasSubstr("docs: 50 documents"));
}

// A folder of HTML, Markdown, PDF and text files, one document each, typed
// by their extension; a JSONL field of HTML with --content-type.
TEST_F(CliServerTest, IngestFoldersOfMarkupAndPdf) {
  ASSERT_EQ(
      Run("collections create pages --threshold 0.5 --store-text").exit_code,
      0);
  temp_.Write("site/a.html", "<html><body><script>junk()</script><p>" +
                                 GeneratedText(1) + "</p></body></html>");
  temp_.Write("site/b.md", "# Title\n\n*" + GeneratedText(2) + "*\n");
  temp_.Write("site/c.pdf", testing::SimplePdf({GeneratedText(3, 12)}));
  temp_.Write("site/d.txt", GeneratedText(4));
  Result r = Run("ingest --doc-per-file " + temp_.path() + "/site -c pages");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("4 written"));
  r = Run("get -c pages a.html:1");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr(GeneratedText(1)));
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("junk")));
  r = Run("query -c pages --text \"" + GeneratedText(3, 12) + "\"");
  EXPECT_THAT(r.out, HasSubstr("c.pdf:1  exact=1.0000"));
  r = Run("query -c pages --content-type text/html --text \"<b>" +
          GeneratedText(2) + "</b>\"");
  EXPECT_THAT(r.out, HasSubstr("b.md:1  exact=0.98"));  // not its title

  const std::string jsonl = temp_.Write(
      "html.jsonl", "{\"id\":\"h\",\"html\":\"<p>" + GeneratedText(5) +
                        "<script>x</script></p>\"}\n");
  r = Run("ingest " + jsonl +
          " -c pages --field html --id-field id --content-type text/html");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  r = Run("get -c pages h");
  EXPECT_THAT(r.out, HasSubstr(GeneratedText(5)));
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("<p>")));
}

// A collection with an embedding space through the CLI: vectors ingested
// from a JSONL field, a semantic query by a vector, a hybrid query by text
// and vector, export and import keeping the vectors.
TEST_F(CliServerTest, EmbeddingSpaceIngestQueryExportImport) {
  Result r =
      Run("collections create vec --threshold 0.5 --store-text "
          "--embedding-model m@1 --embedding-dim 4");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("embedding: model_id=m@1 dim=4"));
  const std::string vectors[] = {"[1,0,0,0]", "[0,1,0,0]", "[0,0,1,0]"};
  std::string jsonl;
  for (int i = 0; i < 3; ++i) {
    absl::StrAppend(&jsonl, "{\"id\":\"d", i, "\",\"text\":\"",
                    GeneratedText(i), "\",\"vec\":", vectors[i], "}\n");
  }
  const std::string file = temp_.Write("vec.jsonl", jsonl);
  r = Run("ingest " + file + " -c vec --id-field id --embedding-field vec");
  EXPECT_EQ(r.exit_code, 1);  // the model must be named
  EXPECT_THAT(r.out, HasSubstr("--embedding-model"));
  r = Run("ingest " + file +
          " -c vec --id-field id --embedding-field vec --embedding-model m@1");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  r = Run("ingest " + file +
          " -c vec --id-field id --embedding-field missing "
          "--embedding-model m@1");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, HasSubstr("no field 'missing'"));

  r =
      Run("query -c vec --algorithm semantic --embedding 0.1,0.9,0,0 "
          "--embedding-model m@1 --min-cosine 0.5");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("d1"));
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("d0")));
  // A bare list separated by spaces, as numpy.savetxt writes.
  const std::string saved = temp_.Write("vec.txt", "0.1 0.9\n0 0\n");
  r = Run("query -c vec --algorithm semantic --embedding @" + saved +
          " --embedding-model m@1 --min-cosine 0.5");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("d1"));
  // Vectors come from JSONL only: a CSV stops the ingest, even with
  // --skip-invalid.
  const std::string csv = temp_.Write("vec.csv", "id,text\nx,some text\n");
  r = Run("ingest " + csv +
          " -c vec --embedding-field vec --embedding-model m@1 --skip-invalid");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, HasSubstr("JSONL records only"));
  r =
      Run("query -c vec --algorithm semantic --embedding 0.1,0.9,0,0 "
          "--embedding-model other");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, HasSubstr("not comparable"));
  const std::string probe = temp_.Write("probe.txt", GeneratedText(2));
  r = Run("query " + probe +
          " -c vec --algorithm hybrid-all --embedding '[0,0,1,0]' "
          "--embedding-model m@1");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("d2"));
  EXPECT_THAT(r.out, HasSubstr("cosine=1.0000"));

  // Export with signatures carries the vectors; an import restores them.
  const std::string dump = temp_.path() + "/vec.dump.jsonl";
  ASSERT_EQ(Run("export -c vec --with-signatures -o " + dump).exit_code, 0);
  ASSERT_EQ(Run("collections create vec2 --threshold 0.5 --store-text "
                "--embedding-model m@1 --embedding-dim 4")
                .exit_code,
            0);
  r = Run("ingest " + dump + " -c vec2");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  r =
      Run("query -c vec2 --algorithm semantic --embedding '[0,0,1,0]' "
          "--embedding-model m@1");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("d2"));
}

TEST_F(CliServerTest, IngestErrorsNameFileAndLine) {
  ASSERT_EQ(Run("collections create c").exit_code, 0);
  const std::string bad = temp_.Write(
      "bad.jsonl", "{\"text\":\"" + GeneratedText(1) + "\"}\n{broken\n");
  Result r = Run("ingest " + bad + " -c c");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, HasSubstr("bad.jsonl:2"));
  r = Run("ingest " + bad + " -c c --skip-invalid");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("1 invalid records skipped"));
  r = Run("ingest " + bad + " -c missing");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, HasSubstr("missing"));
}

}  // namespace
}  // namespace neardup
