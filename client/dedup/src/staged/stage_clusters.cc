// Stage "clusters", one task: the keep-first decisions, in input order, as
// the one-process run makes them. A document is removed when a pair at the
// threshold joins it to an earlier document that was kept (the most similar
// one, ties to the earliest, is its representative); otherwise it is kept.
// Then where each part's kept records go in the output, which this task
// creates at its full size (under a temporary name) for the filter tasks.

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "cluster_log.h"
#include "fingerprinter.h"
#include "neardup/base/status_macros.h"
#include "staged/stage_context.h"
#include "staged/stage_tasks.h"
#include "staged/staged_files.h"

namespace neardup::dedup::staged {
namespace {

// The edges of every verify task, in order of their later document.
class EdgeStream {
 public:
  explicit EdgeStream(const StageContext& context) : context_(context) {}

  // The next edge whose later document is `doc`, if any.
  absl::StatusOr<std::optional<Edge>> NextOf(uint64_t doc) {
    while (true) {
      if (!head_) {
        if (!reader_) {
          if (task_ >= context_.run().tasks) return std::nullopt;
          ASSIGN_OR_RETURN(
              reader_,
              FileReader::Open(absl::StrCat(context_.Dir(Stage::kVerify),
                                            "/task-", task_++, ".edges"),
                               FileKind::kEdges));
        }
        Edge edge;
        ASSIGN_OR_RETURN(const bool got, reader_->Get(&edge));
        if (!got) {
          reader_.reset();
          continue;
        }
        head_ = edge;
      }
      if (head_->later < doc) {
        return absl::DataLossError(
            absl::StrCat("verify's edges name document ", head_->later,
                         ", which signatures did not find comparable"));
      }
      if (head_->later > doc) return std::nullopt;
      std::optional<Edge> out = head_;
      head_.reset();
      return out;
    }
  }

 private:
  const StageContext& context_;
  int task_ = 0;
  std::optional<FileReader> reader_;
  std::optional<Edge> head_;
};

// A file of sorted records, read one at a time with a look at the next.
template <typename T>
class RecordStream {
 public:
  absl::Status Open(const std::string& path, FileKind kind) {
    ASSIGN_OR_RETURN(reader_, FileReader::Open(path, kind));
    return Advance();
  }
  const std::optional<T>& head() const { return head_; }
  absl::Status Advance() {
    T next;
    ASSIGN_OR_RETURN(const bool got, reader_->Get(&next));
    head_ = got ? std::optional<T>(next) : std::nullopt;
    return absl::OkStatus();
  }

 private:
  std::optional<FileReader> reader_;
  std::optional<T> head_;
};

// The keep-first decision of each comparable document, in input order, as
// the one-process finder makes it: removed when an edge joins it to an
// earlier kept document (the most similar, ties to the earliest, is its
// representative), else kept. A twin (listed by the buckets stage, paired
// with no one) compares as its leader: removed as a duplicate of the leader
// when the leader was kept, else of the best kept match its leader had so
// far (the leader's own, or a document kept after it with an edge to it).
class KeepFirst {
 public:
  KeepFirst(const StageContext& context, std::vector<bool>& kept,
            std::optional<ClusterLog>& clusters)
      : context_(context), kept_(kept), clusters_(clusters), edges_(context) {}

  absl::Status Open() {
    const std::string prefix = absl::StrCat(context_.Dir(Stage::kBuckets),
                                            "/task-", context_.TwinsTask());
    RETURN_IF_ERROR(twins_.Open(prefix + ".twins", FileKind::kTwins));
    return leaders_.Open(prefix + ".leaders", FileKind::kTwinLeaders);
  }

  // Whether `doc` is kept.
  absl::StatusOr<bool> Decide(uint64_t doc) {
    // The lists name comparable documents only, in order: one behind was
    // made from other signatures.
    if ((twins_.head() && twins_.head()->member < doc) ||
        (leaders_.head() && leaders_.head()->leader < doc)) {
      return absl::DataLossError(
          absl::StrCat("the buckets stage's twins name a document before ", doc,
                       " that the signatures do not find comparable"));
    }
    std::optional<Edge> best;
    if (twins_.head() && twins_.head()->member == doc) {
      const uint64_t leader = twins_.head()->leader;
      RETURN_IF_ERROR(twins_.Advance());
      if (kept_[leader]) {
        best = Edge{doc, leader, context_.TwinSimilarity()};
      } else {
        const auto it = pending_.find(leader);
        if (it == pending_.end()) {
          return absl::DataLossError(absl::StrCat(
              "document ", doc, " is a twin of ", leader,
              ", which the buckets stage did not list as a leader"));
        }
        best = it->second.best;
        if (it->second.last == doc) pending_.erase(it);
      }
      Remove(doc, *best);
      return false;
    }
    std::optional<uint64_t> last_twin;
    if (leaders_.head() && leaders_.head()->leader == doc) {
      last_twin = leaders_.head()->last;
      RETURN_IF_ERROR(leaders_.Advance());
    }
    mine_.clear();
    while (true) {
      ASSIGN_OR_RETURN(const std::optional<Edge> edge, edges_.NextOf(doc));
      if (!edge) break;
      mine_.push_back(*edge);
      if (!kept_[edge->earlier]) continue;
      if (!best || edge->similarity > best->similarity ||
          (edge->similarity == best->similarity &&
           edge->earlier < best->earlier)) {
        best = edge;
      }
    }
    if (best) {
      Remove(doc, *best);
      if (last_twin) pending_[doc] = {*best, *last_twin};
      return false;
    }
    kept_[doc] = true;
    // A better match for the twins still to come of leaders removed before.
    for (const Edge& edge : mine_) {
      const auto it = pending_.find(edge.earlier);
      if (it == pending_.end()) continue;
      // (An equal one keeps the earlier document.)
      if (edge.similarity > it->second.best.similarity) {
        it->second.best = Edge{0, doc, edge.similarity};
      }
    }
    return true;
  }

  // A reference document: kept whatever its edges (its twins and pairs
  // are passed over; those of later documents still name it).
  absl::Status Keep(uint64_t doc) {
    if (twins_.head() && twins_.head()->member == doc) {
      RETURN_IF_ERROR(twins_.Advance());
    }
    if (leaders_.head() && leaders_.head()->leader == doc) {
      RETURN_IF_ERROR(leaders_.Advance());
    }
    while (true) {
      ASSIGN_OR_RETURN(const std::optional<Edge> edge, edges_.NextOf(doc));
      if (!edge) break;
    }
    kept_[doc] = true;
    return absl::OkStatus();
  }

  uint64_t duplicates() const { return duplicates_; }

 private:
  // A removed leader's best kept match so far, until its last twin.
  struct Pending {
    Edge best;  // .earlier: the match
    uint64_t last;
  };

  // `doc` removed as a duplicate of `best.earlier`.
  void Remove(uint64_t doc, const Edge& best) {
    ++duplicates_;
    if (clusters_) {
      clusters_->Add(static_cast<uint32_t>(best.earlier),
                     static_cast<uint32_t>(doc), best.similarity);
    }
  }

  const StageContext& context_;
  std::vector<bool>& kept_;
  std::optional<ClusterLog>& clusters_;
  EdgeStream edges_;
  RecordStream<Twin> twins_;
  RecordStream<TwinLeader> leaders_;
  absl::flat_hash_map<uint64_t, Pending> pending_;
  std::vector<Edge> mine_;  // the edges of the document being decided
  uint64_t duplicates_ = 0;
};

std::string_view WithoutTerminator(std::string_view s) {
  if (!s.empty() && s.back() == '\n') s.remove_suffix(1);
  if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
  return s;
}

absl::Status ErrnoError(const char* what, const std::string& path) {
  return absl::DataLossError(
      absl::StrCat("cannot ", what, " ", path, ": ", std::strerror(errno)));
}

// The output at its full size, under the name the filter tasks write to
// (made under a name of its own and renamed: filter tasks of an earlier run
// of this stage never write into it).
absl::Status CreateOutput(const std::string& target, const std::string& header,
                          uint64_t size) {
  const std::string path = absl::StrCat(target, ".new-", ::getpid());
  const int fd =
      ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoError("create", path);
  absl::Status status;
  if (::ftruncate(fd, static_cast<off_t>(size)) != 0) {
    status = ErrnoError("size", path);
  } else if (!header.empty() && ::pwrite(fd, header.data(), header.size(), 0) !=
                                    static_cast<ssize_t>(header.size())) {
    status = ErrnoError("write", path);
  } else if (::fsync(fd) != 0) {
    status = ErrnoError("sync", path);
  }
  ::close(fd);
  if (status.ok() && ::rename(path.c_str(), target.c_str()) != 0) {
    status = ErrnoError("rename into place", target);
  }
  if (!status.ok()) ::unlink(path.c_str());
  return status;
}

}  // namespace

std::string StagedOutputTemp(const StageContext& context) {
  return absl::StrCat(context.options().output, ".staged-",
                      context.run().plan_id);
}

absl::Status RunClustersTask(const StageContext& context) {
  const DedupOptions& options = context.options();
  ASSIGN_OR_RETURN(const std::vector<nlohmann::json> parts,
                   context.ReadManifests(Stage::kSignatures));
  RETURN_IF_ERROR(context.ReadManifests(Stage::kVerify).status());
  ASSIGN_OR_RETURN(const std::vector<uint64_t> starts, context.PartStarts());
  const int references = context.reference_parts();
  const uint64_t reference_docs = starts[references];
  if (!options.clusters_path.empty() && starts.back() > 0xFFFFFFFFull) {
    return absl::ResourceExhaustedError(
        "--clusters numbers documents in 32 bits: more than 4294967295 "
        "records and reference documents; split the input, or leave out "
        "--clusters");
  }
  // The parts of one reference run must come from one of its decisions.
  std::map<std::string, std::string> decided;
  for (int part = 0; part < references; ++part) {
    const std::string source = parts[part].value("reference", "");
    const std::string generation =
        parts[part].value("reference_generation", "");
    if (generation.empty()) continue;  // a dump
    const auto [it, first] = decided.try_emplace(source, generation);
    if (!first && it->second != generation) {
      return absl::FailedPreconditionError(absl::StrCat(
          "--reference ", source,
          " was decided again while this run took its parts over: run "
          "signatures tasks 0 to ",
          references - 1, " again"));
    }
  }
  // One output has one header: the first file's. Parts must agree on it
  // as one process's reader makes files agree (terminators aside).
  std::string header;
  std::string header_of;
  for (size_t part = 0; part < parts.size(); ++part) {
    if (parts[part]["files"].empty()) continue;
    const std::string first = parts[part]["files"][0].get<std::string>();
    ASSIGN_OR_RETURN(
        FileReader reader,
        FileReader::Open(context.PartPath(static_cast<int>(part), ".header"),
                         FileKind::kHeader));
    std::string bytes(reader.size(), '\0');
    RETURN_IF_ERROR(reader.ReadAt(bytes.data(), bytes.size(), 0));
    if (header_of.empty()) {
      header = std::move(bytes);
      header_of = first;
    } else if (WithoutTerminator(bytes) != WithoutTerminator(header)) {
      return absl::InvalidArgumentError(
          absl::StrCat(first, ": header differs from ", header_of,
                       "'s; the output can have only one"));
    }
  }

  const std::string dir = context.Dir(Stage::kClusters);
  RETURN_IF_ERROR(MakeDirectories(dir));
  // In the index: the keep-first set.
  std::vector<bool> kept(starts.back(), false);
  std::optional<ClusterLog> clusters;
  if (!options.clusters_path.empty()) clusters.emplace();
  KeepFirst decider(context, kept, clusters);
  RETURN_IF_ERROR(decider.Open());
  uint64_t unique = 0, empty = 0, invalid = 0, counted = 0;
  uint64_t input_bytes = 0;
  nlohmann::ordered_json offsets = nlohmann::ordered_json::array();
  uint64_t offset = header.size();
  for (size_t part = 0; part < parts.size(); ++part) {
    const int p = static_cast<int>(part);
    const bool reference = p < references;
    input_bytes += parts[part].value("input_bytes", uint64_t{0});
    if (!reference) offsets.push_back(offset);
    ASSIGN_OR_RETURN(
        FileReader docs,
        FileReader::Open(context.PartPath(p, ".docs"), FileKind::kDocs));
    ASSIGN_OR_RETURN(
        FileWriter keep,
        FileWriter::Create(absl::StrCat(dir, "/keep-", p), FileKind::kKeep));
    uint8_t bits = 0;
    uint64_t local = 0;
    DocEntry entry;
    for (;; ++local) {
      ASSIGN_OR_RETURN(const bool got, docs.Get(&entry));
      if (!got) break;
      const uint64_t doc = starts[part] + local;
      bool write = false;
      if (reference) {
        // Kept, never written; its bit says "in the corpus" to a run that
        // takes this one as a reference in turn.
        if (entry.kind == static_cast<uint32_t>(DocFingerprint::Kind::kOk)) {
          RETURN_IF_ERROR(decider.Keep(doc));
          ++counted;
          bits |= uint8_t{1} << (local % 8);
        }
      } else {
        switch (static_cast<DocFingerprint::Kind>(entry.kind)) {
          case DocFingerprint::Kind::kInvalid:
            ++invalid;
            break;
          case DocFingerprint::Kind::kEmpty:
            ++empty;
            write = !options.drop_empty;
            break;
          case DocFingerprint::Kind::kOk: {
            ASSIGN_OR_RETURN(write, decider.Decide(doc));
            break;
          }
        }
      }
      if (write) {
        ++unique;
        offset += entry.out_bytes;
        bits |= uint8_t{1} << (local % 8);
      }
      if (local % 8 == 7) {
        RETURN_IF_ERROR(keep.Put(bits));
        bits = 0;
      }
    }
    if (local % 8 != 0) RETURN_IF_ERROR(keep.Put(bits));
    if (local != parts[part].value("docs", uint64_t{0})) {
      return absl::DataLossError(absl::StrCat(
          context.PartPath(p, ".docs"), " holds ", local,
          " records; its manifest says ", parts[part].value("docs", 0)));
    }
    RETURN_IF_ERROR(keep.Commit());
  }
  RETURN_IF_ERROR(CreateOutput(StagedOutputTemp(context), header, offset));
  if (clusters) {
    RETURN_IF_ERROR(
        WriteTextFile(absl::StrCat(dir, "/clusters.jsonl"),
                      clusters->ToJsonLines(nullptr, reference_docs)));
  }
  return context.WriteManifest(Stage::kClusters, 0,
                               {{"total", starts.back() - reference_docs},
                                {"reference_docs", counted},
                                {"unique", unique},
                                {"duplicates", decider.duplicates()},
                                {"empty", empty},
                                {"invalid", invalid},
                                {"input_bytes", input_bytes},
                                {"offsets", std::move(offsets)},
                                {"output_bytes", offset}});
}

}  // namespace neardup::dedup::staged
