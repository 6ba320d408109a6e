#include "neardup/embed/fasttext_embedder.h"

// Header-only, as core uses it: no libxxhash.so at run time.
#define XXH_INLINE_ALL
#include <fasttext/fasttext.h>
#include <fasttext/vector.h>
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

// fastText's file header (fasttext.cc: FASTTEXT_FILEFORMAT_MAGIC_INT32 and
// FASTTEXT_VERSION of 0.9.2).
constexpr int32_t kFastTextMagic = 793712314;
constexpr int32_t kFastTextVersion = 12;

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

FastTextEmbedder::FastTextEmbedder(std::unique_ptr<fasttext::FastText> model,
                                   std::string model_id, int dim)
    : model_(std::move(model)), model_id_(std::move(model_id)), dim_(dim) {}

FastTextEmbedder::~FastTextEmbedder() = default;

absl::StatusOr<std::shared_ptr<const FastTextEmbedder>> FastTextEmbedder::Load(
    const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat("cannot open fastText model ", path));
  }
  absl::StatusOr<uint64_t> hash = HashStream(in, path);
  if (!hash.ok()) return hash.status();
  in.clear();
  in.seekg(0);
  // The header loadModel(filename) checks before the body; loadModel(in)
  // reads from after it.
  int32_t magic = 0, version = 0;
  in.read(reinterpret_cast<char*>(&magic), sizeof(magic));
  in.read(reinterpret_cast<char*>(&version), sizeof(version));
  if (!in || magic != kFastTextMagic || version > kFastTextVersion) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, " is not a fastText model (of format version <= ",
                     kFastTextVersion, ")"));
  }
  auto model = std::make_unique<fasttext::FastText>();
  try {
    model->loadModel(in);
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, " is not a fastText model: ", e.what()));
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
