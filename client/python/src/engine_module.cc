// neardup._engine: neardup's C++ core in-process (client/python/README.md).
// The package `neardup` re-exports what users call; this module is its
// implementation.

#include <pybind11/pybind11.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "bindings.h"
#include "neardup/base/absl_compat.h"

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
    char* data = nullptr;
    Py_ssize_t size = 0;
    PyBytes_AsStringAndSize(token.ptr(), &data, &size);
    return {data, static_cast<size_t>(size)};
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

}  // namespace neardup::python

PYBIND11_MODULE(_engine, m) {
  m.doc() = "neardup's C++ core in-process; use the package neardup.";
  neardup::python::BindMinHash(m);
  neardup::python::BindLsh(m);
  neardup::python::BindText(m);
}
