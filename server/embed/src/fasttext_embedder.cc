#include "neardup/embed/fasttext_embedder.h"

// Header-only, as core uses it: no libxxhash.so at run time.
#define XXH_INLINE_ALL
#include <fasttext/fasttext.h>
#include <fasttext/vector.h>
#include <sys/stat.h>
#include <xxhash.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "neardup/core/config_hash.h"
#include "neardup/core/index/hnsw_index.h"

namespace neardup::embed {
namespace {

absl::StatusOr<uint64_t> HashStream(std::istream& in, const std::string& path) {
  std::unique_ptr<XXH3_state_t, decltype(&XXH3_freeState)> state(
      XXH3_createState(), &XXH3_freeState);
  if (state == nullptr || XXH3_64bits_reset(state.get()) != XXH_OK) {
    return absl::ResourceExhaustedError("cannot allocate a hash state");
  }
  std::vector<char> buffer(1 << 20);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    XXH3_64bits_update(state.get(), buffer.data(),
                       static_cast<size_t>(in.gcount()));
  }
  if (in.bad()) {
    return absl::UnavailableError(absl::StrCat("cannot read ", path));
  }
  return XXH3_64bits_digest(state.get());
}

}  // namespace

std::optional<FileStamp> StampOf(const std::string& path) {
  struct stat info;
  if (::stat(path.c_str(), &info) != 0) return std::nullopt;
  return FileStamp{static_cast<uint64_t>(info.st_dev),
                   static_cast<uint64_t>(info.st_ino),
                   static_cast<int64_t>(info.st_size),
                   static_cast<int64_t>(info.st_mtim.tv_sec) * 1000000000 +
                       info.st_mtim.tv_nsec};
}

FastTextEmbedder::FastTextEmbedder(std::unique_ptr<fasttext::FastText> model,
                                   std::string model_id, int dim)
    : model_(std::move(model)), model_id_(std::move(model_id)), dim_(dim) {}

FastTextEmbedder::~FastTextEmbedder() = default;

absl::StatusOr<std::shared_ptr<const FastTextEmbedder>> FastTextEmbedder::Load(
    const std::string& path) {
  const std::optional<FileStamp> before = StampOf(path);
  std::ifstream in(path, std::ios::binary);
  if (!before || !in) {
    return absl::NotFoundError(
        absl::StrCat("cannot open fastText model ", path));
  }
  absl::StatusOr<uint64_t> hash = HashStream(in, path);
  if (!hash.ok()) return hash.status();
  auto model = std::make_unique<fasttext::FastText>();
  try {
    // By name: fastText checks the header (magic, format version) there
    // and only there.
    model->loadModel(path);
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, " is not a fastText model: ", e.what()));
  }
  // The hash must describe the bytes loaded: refuse a file replaced or
  // rewritten meanwhile.
  if (StampOf(path) != before) {
    return absl::UnavailableError(
        absl::StrCat(path, " changed while it was loaded; try again"));
  }
  const int dim = model->getDimension();
  if (dim < 1 || dim > 4096) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": fastText model of dimension ", dim, ", outside [1, 4096]"));
  }
  return std::shared_ptr<const FastTextEmbedder>(new FastTextEmbedder(
      std::move(model), absl::StrCat("fasttext-", FormatHex64(*hash)), dim));
}

absl::StatusOr<std::vector<float>> FastTextEmbedder::Embed(
    std::string_view text, const ChunkingOptions& chunking) const {
  if (absl::Status valid = ValidateChunking(chunking); !valid.ok()) {
    return valid;
  }
  std::vector<double> sum(static_cast<size_t>(dim_), 0.0);
  fasttext::Vector chunk_vector(dim_);
  int pooled = 0;
  for (const ByteRange& range : ChunkText(text, chunking)) {
    // fastText reads one line: the chunk's line breaks become spaces.
    std::string chunk(text.substr(range.begin, range.end - range.begin));
    std::replace_if(
        chunk.begin(), chunk.end(),
        [](char c) { return c == '\n' || c == '\r' || c == '\v' || c == '\f'; },
        ' ');
    std::istringstream in(chunk);
    chunk_vector.zero();
    {
      MutexLock lock(&mu_);
      try {
        model_->getSentenceVector(in, chunk_vector);
      } catch (const std::exception& e) {
        return absl::InternalError(absl::StrCat("fastText: ", e.what()));
      }
    }
    if (!(chunk_vector.norm() > 0)) continue;  // no word it knows
    for (int i = 0; i < dim_; ++i) sum[i] += chunk_vector[i];
    ++pooled;
  }
  if (pooled == 0) {
    return absl::InvalidArgumentError(
        "the text has no word the fastText model can place (empty, or only "
        "unknown words in a model without subwords)");
  }
  std::vector<float> mean(sum.size());
  for (size_t i = 0; i < sum.size(); ++i) {
    mean[i] = static_cast<float>(sum[i] / pooled);
  }
  return UnitEmbedding(mean, dim_);
}

}  // namespace neardup::embed
