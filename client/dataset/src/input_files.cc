#include "neardup/dataset/input_files.h"

#include <algorithm>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "neardup/base/status_macros.h"
#include "neardup/dataset/input_format.h"

namespace neardup::dataset {
namespace {

namespace fs = std::filesystem;

absl::Status AddFolder(const std::string& root, std::vector<InputFile>* out) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file()) files.push_back(it->path());
  }
  if (ec) {
    return absl::NotFoundError(
        absl::StrCat("cannot list ", root, ": ", ec.message()));
  }
  std::sort(files.begin(), files.end());  // a stable numbering of documents
  for (const fs::path& file : files) {
    out->push_back(
        {file.string(), fs::relative(file, root).string(), Format::kTxt});
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<InputFile>> ListInputFiles(
    const DatasetOptions& options) {
  std::vector<InputFile> files;
  if (options.inputs.empty()) {
    return absl::InvalidArgumentError("no input files");
  }
  for (const std::string& input : options.inputs) {
    if (options.doc_per_file) {
      if (fs::is_directory(input)) {
        RETURN_IF_ERROR(AddFolder(input, &files));
      } else {
        files.push_back(
            {input, fs::path(input).filename().string(), Format::kTxt});
      }
      continue;
    }
    if (input == "-") {
      files.push_back(
          {"-", "",
           options.format == Format::kAuto ? Format::kJsonl : options.format});
      continue;
    }
    if (fs::is_directory(input)) {
      return absl::InvalidArgumentError(absl::StrCat(
          input,
          " is a directory; use --doc-per-file to read one document "
          "per file"));
    }
    ASSIGN_OR_RETURN(Format format, ResolveFormat(input, options.format));
    files.push_back({input, "", format});
  }
  return files;
}

}  // namespace neardup::dataset
