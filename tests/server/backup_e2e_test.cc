// Backup, restore, export and import against the real neardupd: a backup
// taken while a writer upserts holds every document acknowledged before it
// was asked for, with identical signatures, and serves after a restart on
// it; an export imported into a fresh server answers queries identically.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <set>
#include <thread>

#include "absl/strings/str_cat.h"
#include "server/server_process.h"
#include "support/corpus.h"
#include "support/run_command.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace neardup {
namespace {

using testing::GeneratedText;
using ::testing::HasSubstr;
using testing::NearCopy;
using testing::ServerProcess;

class BackupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    backup_root_ = temp_.path() + "/backups";
    server_ = Start("live", {"--backup-dir=" + backup_root_});
    client_ = MakeClient(*server_);
  }

  std::unique_ptr<ServerProcess> Start(const std::string& data,
                                       std::vector<std::string> flags = {}) {
    auto server = std::make_unique<ServerProcess>(
        data.starts_with("/") ? data : temp_.path() + "/" + data,
        temp_.path() + "/" + std::to_string(logs_++) + ".log",
        std::move(flags));
    server->Start();
    EXPECT_TRUE(server->WaitServing());
    return server;
  }
  static std::unique_ptr<client::Client> MakeClient(
      const ServerProcess& server) {
    client::ClientOptions options;
    options.target = server.Address();
    return std::make_unique<client::Client>(options);
  }
  static void Create(client::Client& client, const std::string& name,
                     bool store_text) {
    v1::CreateCollectionRequest request;
    request.set_name(name);
    request.mutable_config()->set_threshold(0.7);
    request.mutable_config()->set_simhash(true);
    request.mutable_config()->set_store_text(store_text);
    ASSERT_OK(client.CreateCollection(request));
  }
  static v1::UpsertRequest Doc(const std::string& collection, int n) {
    v1::UpsertRequest request;
    request.set_collection(collection);
    request.set_id(absl::StrCat("d", n));
    // Every tenth document is a near copy of the one before it.
    request.set_text(n % 10 == 9 ? NearCopy(GeneratedText(n - 1, 120))
                                 : GeneratedText(n, 120));
    (*request.mutable_metadata())["n"] = absl::StrCat(n);
    return request;
  }
  // Every answer to probes near documents 0..n-1, as comparable text.
  static std::string Answers(client::Client& client,
                             const std::string& collection, int n) {
    std::string all;
    for (int i = 0; i < n; i += 3) {
      v1::QueryRequest query;
      query.set_collection(collection);
      query.set_text(NearCopy(GeneratedText(i, 120), 25));
      query.set_threshold(0.6);
      auto answer = client.Query(query);
      EXPECT_OK(answer);
      if (!answer.ok()) continue;
      absl::StrAppend(&all, i, ":");
      for (const v1::Match& match : answer->matches()) {
        absl::StrAppend(&all, " ", match.id(), "@", match.similarity(), "/",
                        match.has_exact_jaccard() ? "exact" : "estimate");
      }
      absl::StrAppend(&all, "\n");
    }
    return all;
  }
  testing::CommandResult Cli(const ServerProcess& server,
                             const std::string& args) {
    return testing::RunCommand(
        absl::StrCat(NEARDUP_BIN, " ", args, " --server ", server.Address()));
  }

  neardup::testing::TempDir temp_;
  int logs_ = 0;
  std::string backup_root_;
  std::unique_ptr<ServerProcess> server_;
  std::unique_ptr<client::Client> client_;
};

TEST_F(BackupTest, BackupWhileWritingRestoresEveryAcknowledgedDocument) {
  Create(*client_, "live", /*store_text=*/true);
  std::atomic<int> acknowledged{0};
  std::atomic<bool> stop{false};
  absl::Status writer_status;
  std::thread writer([&] {
    client::ClientOptions options;
    options.target = server_->Address();
    client::Client client(options);
    for (int n = 0; !stop.load(); ++n) {
      writer_status = client.Upsert(Doc("live", n)).status();
      if (!writer_status.ok()) return;
      acknowledged.store(n + 1);
    }
  });
  while (acknowledged.load() < 300) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  // Acknowledged before the backup was asked for: must all be in it.
  const int before = acknowledged.load();
  ASSERT_OK_AND_ASSIGN(v1::CreateBackupResponse backup,
                       client_->CreateBackup("nightly/1"));
  const int after = acknowledged.load();
  while (acknowledged.load() < after + 100) {  // the writer went on
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  stop = true;
  writer.join();
  ASSERT_OK(writer_status);
  ASSERT_EQ(backup.collections_size(), 1);
  EXPECT_EQ(backup.collections(0).name(), "live");
  EXPECT_GE(backup.collections(0).documents(), static_cast<uint64_t>(before));
  EXPECT_LE(backup.collections(0).documents(),
            static_cast<uint64_t>(after + 1));
  EXPECT_GT(backup.sequence_number(), 0u);
  EXPECT_GT(backup.bytes(), 0u);
  EXPECT_EQ(backup.path(),
            (std::filesystem::canonical(backup_root_) / "nightly/1").string());

  // Restore: a server on the backup directory serves what it captured.
  auto restored_server = Start(backup.path());
  auto restored = MakeClient(*restored_server);
  ASSERT_OK_AND_ASSIGN(v1::Collection collection,
                       restored->GetCollection("live"));
  EXPECT_EQ(collection.document_count(), backup.collections(0).documents());
  for (int n = 0; n < before; ++n) {
    const std::string id = absl::StrCat("d", n);
    ASSERT_OK_AND_ASSIGN(v1::Document live, client_->Get("live", id));
    ASSERT_OK_AND_ASSIGN(v1::Document copy, restored->Get("live", id));
    ASSERT_EQ(copy.signatures().SerializeAsString(),
              live.signatures().SerializeAsString())
        << id;
    ASSERT_EQ(copy.text(), live.text());
    ASSERT_EQ(copy.metadata().at("n"), absl::StrCat(n));
  }
  EXPECT_EQ(Answers(*restored, "live", before),
            Answers(*client_, "live", before));
}

TEST_F(BackupTest, RefusesBadDestinations) {
  Create(*client_, "c", true);
  ASSERT_OK(client_->CreateBackup("first"));
  EXPECT_EQ(client_->CreateBackup("first").status().code(),
            absl::StatusCode::kAlreadyExists);
  for (const std::string& outside :
       {std::string("../escape"), std::string("a/../../escape"),
        temp_.path() + "/escape", std::string("/tmp")}) {
    const absl::Status refused = client_->CreateBackup(outside).status();
    EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument) << outside;
    EXPECT_THAT(refused.message(), HasSubstr("outside --backup-dir"));
  }
  EXPECT_FALSE(std::filesystem::exists(temp_.path() + "/escape"));

  // A server without --backup-dir makes no backups.
  auto plain_server = Start("plain");
  const absl::Status off =
      MakeClient(*plain_server)->CreateBackup("x").status();
  EXPECT_EQ(off.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(off.message(), HasSubstr("--backup-dir"));

  // The CLI says where the backup is and what it holds.
  testing::CommandResult cli = Cli(*server_, "backup second");
  ASSERT_EQ(cli.exit_code, 0) << cli.out;
  EXPECT_THAT(cli.out, HasSubstr("c: 0 documents"));
}

// Export with the CLI, import into a fresh server with the CLI: the same
// answers, exact Jaccard included. A text collection goes back by text;
// one without text by its signatures and shingle sets, which a collection
// of another config refuses clearly.
TEST_F(BackupTest, ExportThenIngestGivesIdenticalAnswers) {
  Create(*client_, "texts", /*store_text=*/true);
  Create(*client_, "sigs", /*store_text=*/false);
  constexpr int kDocs = 200;
  for (int n = 0; n < kDocs; ++n) {
    ASSERT_OK(client_->Upsert(Doc("texts", n)));
    ASSERT_OK(client_->Upsert(Doc("sigs", n)));
  }
  const std::string texts_dump = temp_.path() + "/texts.jsonl";
  const std::string sigs_dump = temp_.path() + "/sigs.jsonl";
  testing::CommandResult r = Cli(*server_, "export -c texts -o " + texts_dump);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr(absl::StrCat("exported ", kDocs)));
  r = Cli(*server_, "export -c sigs --with-signatures -o " + sigs_dump);
  ASSERT_EQ(r.exit_code, 0) << r.out;

  auto fresh_server = Start("fresh");
  auto fresh = MakeClient(*fresh_server);
  Create(*fresh, "texts", true);
  Create(*fresh, "sigs", false);
  r = Cli(*fresh_server, "ingest --no-progress -c texts " + texts_dump);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr(absl::StrCat(kDocs, " written")));
  r = Cli(*fresh_server, "ingest --no-progress -c sigs " + sigs_dump);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(Answers(*fresh, "texts", kDocs), Answers(*client_, "texts", kDocs));
  EXPECT_EQ(Answers(*fresh, "sigs", kDocs), Answers(*client_, "sigs", kDocs));
  ASSERT_OK_AND_ASSIGN(v1::Document copy, fresh->Get("texts", "d7"));
  EXPECT_EQ(copy.metadata().at("n"), "7");

  // Another config and no text: refused, naming both config hashes.
  v1::CreateCollectionRequest other;
  other.set_name("other");
  other.mutable_config()->set_shingle_k(4);
  ASSERT_OK(fresh->CreateCollection(other));
  r = Cli(*fresh_server, "ingest --no-progress -c other " + sigs_dump);
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_THAT(r.out, HasSubstr("no text to fingerprint again"));
}

}  // namespace
}  // namespace neardup
