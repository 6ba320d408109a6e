#include "numpy_arrays.h"

#include <string>

namespace neardup::python {
namespace {

bool have_numpy = false;  // written once, under the GIL, at module load

}  // namespace

void DetectNumpy() {
  try {
    py::module_::import("numpy");
    have_numpy = true;
  } catch (const py::error_already_set&) {
    have_numpy = false;
  }
}

bool HaveNumpy() { return have_numpy; }

py::object SlotsArray(const std::vector<uint64_t>& slots) {
  if (have_numpy) {
    return py::array_t<uint64_t>(static_cast<py::ssize_t>(slots.size()),
                                 slots.data());
  }
  py::object array = py::module_::import("array").attr("array")("Q");
  array.attr("frombytes")(py::bytes(reinterpret_cast<const char*>(slots.data()),
                                    slots.size() * sizeof(uint64_t)));
  return array;
}

py::object SlotsView(std::vector<uint64_t>& slots, py::handle owner) {
  if (!have_numpy) return SlotsArray(slots);
  return py::array_t<uint64_t>(static_cast<py::ssize_t>(slots.size()),
                               slots.data(), owner);
}

std::vector<uint64_t> SlotsFrom(py::handle values) {
  std::vector<uint64_t> out;
  if (have_numpy && py::isinstance<py::array>(values)) {
    const py::array array = py::reinterpret_borrow<py::array>(values);
    if (array.ndim() != 1) {
      throw py::value_error("hashvalues must be one-dimensional");
    }
    if (array.dtype().is(py::dtype::of<uint64_t>())) {  // as digest() gives
      const auto typed =
          py::array_t<uint64_t, py::array::c_style |
                                    py::array::forcecast>::ensure(values);
      out.assign(typed.data(), typed.data() + typed.size());
      return out;
    }
  }
  // Anything else element by element: Python ints only, no wrapping.
  for (py::handle v : values) {
    py::object number = py::reinterpret_borrow<py::object>(v);
    if (!PyLong_Check(v.ptr())) {
      if (!PyIndex_Check(v.ptr())) {  // NumPy integer scalars have __index__
        throw py::value_error(
            "hashvalues must be integers in [0, 2**64), got " +
            std::string(py::repr(v)));
      }
      number = py::reinterpret_steal<py::object>(PyNumber_Index(v.ptr()));
      if (!number) throw py::error_already_set();
    }
    const unsigned long long value = PyLong_AsUnsignedLongLong(number.ptr());
    if (value == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
      PyErr_Clear();
      throw py::value_error("hashvalues must be integers in [0, 2**64), got " +
                            std::string(py::repr(v)));
    }
    out.push_back(value);
  }
  return out;
}

}  // namespace neardup::python
