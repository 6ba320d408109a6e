// neardup._engine: neardup's C++ core in-process (client/python/README.md).
// The package `neardup` re-exports what users call; this module is its
// implementation.

#include <pybind11/pybind11.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "bindings.h"
#include "neardup/base/absl_compat.h"
#include "numpy_arrays.h"

namespace neardup::python {

void Raise(const absl::Status& status) {
  const std::string message(status.message());
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kOutOfRange:
      throw py::value_error(message);
    case absl::StatusCode::kNotFound:
      throw py::key_error(message);
    case absl::StatusCode::kResourceExhausted:
      PyErr_SetString(PyExc_MemoryError, message.c_str());
      throw py::error_already_set();
    default:
      throw std::runtime_error(message);
  }
}

std::string_view TokenBytes(py::handle token) {
  if (PyBytes_Check(token.ptr())) {
    return {PyBytes_AS_STRING(token.ptr()),
            static_cast<size_t>(PyBytes_GET_SIZE(token.ptr()))};
  }
  if (PyByteArray_Check(token.ptr())) {
    return {PyByteArray_AsString(token.ptr()),
            static_cast<size_t>(PyByteArray_Size(token.ptr()))};
  }
  if (PyUnicode_Check(token.ptr())) {
    Py_ssize_t size = 0;
    const char* data = PyUnicode_AsUTF8AndSize(token.ptr(), &size);
    if (data == nullptr) throw py::error_already_set();  // lone surrogates
    return {data, static_cast<size_t>(size)};
  }
  throw py::type_error(absl::StrCat(
      "a token must be bytes, bytearray or str, not ",
      AbslView(
          py::str(token.get_type().attr("__name__")).cast<std::string>())));
}

TokenBatch ReadTokens(py::handle iterable) {
  if (PyBytes_Check(iterable.ptr()) || PyUnicode_Check(iterable.ptr())) {
    throw py::type_error(
        "expected an iterable of tokens, not one bytes or str");
  }
  TokenBatch batch;
  // A tuple is kept as it is; anything else is read once into one.
  batch.keep =
      py::reinterpret_steal<py::tuple>(PySequence_Tuple(iterable.ptr()));
  if (!batch.keep) throw py::error_already_set();
  const Py_ssize_t n = PyTuple_GET_SIZE(batch.keep.ptr());
  batch.views.reserve(static_cast<size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    const py::handle token = PyTuple_GET_ITEM(batch.keep.ptr(), i);
    if (PyByteArray_Check(token.ptr())) {
      if (batch.copies.capacity() == 0) batch.copies.reserve(n);
      batch.views.push_back(batch.copies.emplace_back(TokenBytes(token)));
    } else {
      batch.views.push_back(TokenBytes(token));
    }
  }
  return batch;
}

void FoldIterable(MinHash& minhash, py::handle tokens) {
  PyObject* const seq = tokens.ptr();
  const bool list = PyList_Check(seq), tuple = PyTuple_Check(seq);
  if ((list || tuple) &&
      static_cast<size_t>(Py_SIZE(seq)) <= kFoldWithGilTokens) {
    std::vector<std::string_view> views;
    views.reserve(static_cast<size_t>(Py_SIZE(seq)));
    // TokenBytes runs no Python code, so the list cannot change meanwhile.
    for (Py_ssize_t i = 0; i < Py_SIZE(seq); ++i) {
      views.push_back(TokenBytes(list ? PyList_GET_ITEM(seq, i)
                                      : PyTuple_GET_ITEM(seq, i)));
    }
    minhash.Fold(views);
    return;
  }
  const TokenBatch batch = ReadTokens(tokens);
  std::vector<Hash128> hashes;
  {
    py::gil_scoped_release release;
    hashes = minhash.Hash(batch.views);
    minhash.FoldSlots(hashes);
  }
  minhash.Keep(hashes);
}

}  // namespace neardup::python

PYBIND11_MODULE(_engine, m) {
  m.doc() = "neardup's C++ core in-process; use the package neardup.";
  neardup::python::DetectNumpy();
  neardup::python::BindMinHash(m);
  neardup::python::BindLsh(m);
  neardup::python::BindText(m);
  neardup::python::BindStateless(m);
  neardup::python::BindDedup(m);
}
