// neardup.dedup's engine: InMemoryDedup (client/dedup) over batches of
// Python records. _dedup.py checks the options and drives it.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bindings.h"
#include "neardup/base/sync.h"
#include "neardup/core/canonicalizer.h"
#include "neardup/core/enum_tables.h"
#include "neardup/core/fingerprint_settings.h"
#include "neardup/dedup/in_memory_dedup.h"
#include "neardup/extract/content_type.h"
#ifdef NEARDUP_PYTHON_EXTRACT
#include "neardup/extract/extract.h"
#endif

namespace neardup::python {
namespace {

using dedup::DedupOptions;
using dedup::InMemoryDedup;

// The options _dedup.py checked and passed as a dict (the CLI's names).
DedupOptions OptionsOf(const py::dict& words) {
  auto text = [&](const char* name) { return words[name].cast<std::string>(); };
  auto number = [&](const char* name) { return words[name].cast<int>(); };
  DedupOptions o;
  o.algorithm = ValueOrRaise(dedup::ParseAlgorithm(text("method")));
  o.verify = ValueOrRaise(dedup::ParseVerify(text("verification")));
  o.threshold = words["threshold"].cast<double>();
  o.evidence_bits = number("evidence_bits");
  o.bands = number("bands");
  o.max_distance = number("max_distance");
  o.simhash_variant =
      ValueOrRaise(ParseSimHashVariant(text("simhash_variant")));
  o.simhash_bits = number("bits");
  o.winnow_window = number("winnow_window");
  o.expected_docs = words["expected_docs"].cast<uint64_t>();
  o.bloom_false_positive = words["bloom_fp"].cast<double>();
  o.threads = number("threads");
  o.skip_invalid = words["skip_invalid"].cast<bool>();
  o.drop_empty = words["drop_empty"].cast<bool>();
  o.progress = false;
  o.fingerprint = FingerprintSettingsOf(words);
  // The single switches as the CLI applies them: the profile's add to them.
  CanonicalizerOptions& c = o.fingerprint.canonicalizer;
  c.normalization = ValueOrRaise(ParseNormalization(text("normalization")));
  c.case_fold = ValueOrRaise(ParseCaseFold(text("case_fold")));
  c.strip_bidi = !words["keep_bidi"].cast<bool>();
  c.strip_format = !words["keep_format"].cast<bool>();
  c.confusable_skeleton |= words["confusable"].cast<bool>();
  c.strip_ignorable |= words["strip_ignorables"].cast<bool>();
  c.fold_small_capitals |= words["fold_small_capitals"].cast<bool>();
  c.fold_look_alikes |= words["fold_look_alikes"].cast<bool>();
  o.content_type = text("content_type");
  return o;
}

// HTML and Markdown as the CLI's dedup extracts them, where this build has
// the parsers (not pip's). PDF has none here: the CLI parses a PDF in a
// child process of its own program, which a Python process is not.
InMemoryDedup::TextExtraction ExtractionFor(const DedupOptions& options) {
#ifdef NEARDUP_PYTHON_EXTRACT
  const absl::StatusOr<extract::ContentType> type =
      extract::ParseContentType(options.content_type);
  if (type.ok() && *type != extract::ContentType::kPdf) {
    return [](std::string_view content, extract::ContentType type) {
      return extract::ExtractText(content, type);
    };
  }
#else
  (void)options;
#endif
  return nullptr;
}

std::unique_ptr<InMemoryDedup> MakeDedup(const py::dict& words,
                                         uint64_t expected_docs) {
  const DedupOptions options = OptionsOf(words);
  const absl::StatusOr<extract::ContentType> type =
      extract::ParseContentType(options.content_type);
  if (type.ok() && *type == extract::ContentType::kPdf) {
    Raise(absl::InvalidArgumentError(
        "neardup.dedup does not parse application/pdf: the CLI parses each "
        "PDF in a child process of its own program, which a Python process "
        "is not (give the PDFs' text, or run neardup dedup --content-type "
        "application/pdf over the files)"));
  }
  return ValueOrRaise(
      InMemoryDedup::Create(options, expected_docs, ExtractionFor(options)));
}

// A batch's texts, read under the GIL for use without it: each view lies in
// an object `keep` holds (str's cached UTF-8, bytes) or in `copies`
// (bytearray, which another thread could resize).
struct Texts {
  std::vector<py::object> keep;
  std::vector<std::string> copies;
  std::vector<std::string> errors;
  std::vector<InMemoryDedup::Document> documents;
};

// Why `value` has no text, or "" after pointing `out` at its text.
std::string TextOf(py::handle value, Texts& texts,
                   InMemoryDedup::Document& out) {
  if (PyUnicode_Check(value.ptr())) {
    Py_ssize_t size = 0;
    const char* data = PyUnicode_AsUTF8AndSize(value.ptr(), &size);
    if (data == nullptr) {  // a lone surrogate
      PyErr_Clear();
      return "the text is not valid Unicode (it has a lone surrogate)";
    }
    texts.keep.push_back(py::reinterpret_borrow<py::object>(value));
    out.text = {data, static_cast<size_t>(size)};
    return "";
  }
  if (PyBytes_Check(value.ptr())) {
    texts.keep.push_back(py::reinterpret_borrow<py::object>(value));
    out.text = {PyBytes_AS_STRING(value.ptr()),
                static_cast<size_t>(PyBytes_GET_SIZE(value.ptr()))};
    return "";
  }
  if (PyByteArray_Check(value.ptr())) {
    texts.copies.emplace_back(
        PyByteArray_AS_STRING(value.ptr()),
        static_cast<size_t>(PyByteArray_GET_SIZE(value.ptr())));
    out.text = texts.copies.back();
    return "";
  }
  return "not a string";
}

class Dedup {
 public:
  Dedup(const py::dict& words, uint64_t expected_docs)
      : dedup_(MakeDedup(words, expected_docs)) {}

  // Decides `records` (a list) and returns the positions of the kept ones,
  // and the error that stopped it: None, or (exception type name, message).
  // Records before a stopping one are decided; it and those after are not.
  py::tuple Decide(const py::list& records, const std::string& field) {
    const size_t n = records.size();
    Texts texts;
    texts.copies.reserve(n);  // views into copies stay valid
    texts.errors.reserve(n);
    texts.documents.resize(n);
    py::object stop = py::none();
    std::string wrong_type;  // of records[decided], which stops the batch
    std::optional<py::error_already_set> raised;  // by records[decided]
    size_t decided = n;
    const py::str key(field);
    const py::object mapping =
        py::module_::import("collections.abc").attr("Mapping");
    for (size_t i = 0; i < n; ++i) {
      py::handle record = records[i];
      InMemoryDedup::Document& document = texts.documents[i];
      std::string why;
      if (PyUnicode_Check(record.ptr()) || PyBytes_Check(record.ptr()) ||
          PyByteArray_Check(record.ptr())) {
        why = TextOf(record, texts, document);
      } else if (PyDict_Check(record.ptr()) ||
                 py::isinstance(record, mapping)) {
        // A dict (subclasses too, such as defaultdict, whose __missing__
        // would add the field) is read without running its code; another
        // mapping by its __getitem__.
        PyObject* value = nullptr;
        if (PyDict_Check(record.ptr())) {
          value = PyDict_GetItemWithError(record.ptr(), key.ptr());
          Py_XINCREF(value);  // borrowed
        } else {
          value = PyObject_GetItem(record.ptr(), key.ptr());
          if (value == nullptr && PyErr_ExceptionMatches(PyExc_KeyError)) {
            PyErr_Clear();
          }
        }
        if (PyErr_Occurred()) {
          // The mapping's own exception: raised after the records before
          // this one are decided (and the kept ones yielded).
          raised.emplace();
          decided = i;
          break;
        }
        if (value == nullptr) {
          why = absl::StrCat("no field \"", field, "\"");
        } else {
          const py::object held = py::reinterpret_steal<py::object>(value);
          why = TextOf(held, texts, document);
          if (!why.empty()) {
            why = absl::StrCat("field \"", field, "\" is ", why);
          }
        }
      } else {
        wrong_type = py::str(py::type::handle_of(record).attr("__name__"));
        decided = i;
        break;
      }
      if (!why.empty()) {
        texts.errors.push_back(std::move(why));
        document.error = texts.errors.back();
      }
    }
    std::vector<dedup::Decision> decisions;
    absl::Status status;
    uint64_t first = 0;  // the number of records[0]
    {
      py::gil_scoped_release release;
      MutexLock lock(&mu_);
      first = next_record_;
      status = dedup_->Decide(std::span<const InMemoryDedup::Document>(
                                  texts.documents.data(), decided),
                              &decisions);
      next_record_ += decisions.size();
      if (!status.ok() && status.code() == absl::StatusCode::kInvalidArgument) {
        ++next_record_;  // the malformed one was numbered
      }
    }
    if (!status.ok()) {
      if (status.code() != absl::StatusCode::kInvalidArgument) Raise(status);
      stop = py::make_tuple("ValueError", std::string(status.message()));
    } else if (raised) {
      stop = py::make_tuple("raise", raised->value());
    } else if (decided < n) {
      stop = py::make_tuple(
          "TypeError",
          absl::StrCat("record ", first + decided, " is a ", wrong_type,
                       ": neardup.dedup takes str, bytes or mappings (a dict "
                       "with the text in field \"",
                       field, "\")"));
    }
    py::list kept;
    for (size_t i = 0; i < decisions.size(); ++i) {
      if (decisions[i].outcome == dedup::Outcome::kKept) kept.append(i);
    }
    // The texts' owners go with the GIL held.
    return py::make_tuple(kept, stop);
  }

  py::str StatsJson() {
    std::string json;
    {
      py::gil_scoped_release release;
      MutexLock lock(&mu_);
      json = dedup_->stats().ToJson();
    }
    return py::str(json);
  }

  py::str ClustersJsonLines() {
    absl::StatusOr<std::string> lines;
    {
      py::gil_scoped_release release;
      MutexLock lock(&mu_);
      lines = dedup_->ClustersJsonLines();
    }
    return py::str(ValueOrRaise(std::move(lines)));
  }

 private:
  // Taken with the GIL released, and released before the GIL is taken
  // again, so the two never wait on each other.
  Mutex mu_;
  const std::unique_ptr<InMemoryDedup> dedup_ ABSL_PT_GUARDED_BY(mu_);
  uint64_t next_record_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace

void BindDedup(py::module_& m) {
  py::class_<Dedup>(m, "_Dedup")
      .def(py::init<const py::dict&, uint64_t>())
      .def("decide", &Dedup::Decide)
      .def("stats_json", &Dedup::StatsJson)
      .def("clusters_json_lines", &Dedup::ClustersJsonLines);
}

}  // namespace neardup::python
