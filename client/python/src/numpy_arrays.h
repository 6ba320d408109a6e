#ifndef NEARDUP_PYTHON_NUMPY_ARRAYS_H_
#define NEARDUP_PYTHON_NUMPY_ARRAYS_H_

// Signatures as NumPy arrays where NumPy is installed (views without a copy
// where the caller asks for one), as array('Q') copies where it is not.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <vector>

namespace neardup::python {

namespace py = pybind11;

inline bool HaveNumpy() {
  static const bool have = [] {
    try {
      py::module_::import("numpy");
      return true;
    } catch (const py::error_already_set&) {
      return false;
    }
  }();
  return have;
}

// A copy: numpy.ndarray of uint64, or array.array('Q').
inline py::object SlotsArray(const std::vector<uint64_t>& slots) {
  if (HaveNumpy()) {
    return py::array_t<uint64_t>(static_cast<py::ssize_t>(slots.size()),
                                 slots.data());
  }
  py::object array = py::module_::import("array").attr("array")("Q");
  array.attr("frombytes")(py::bytes(reinterpret_cast<const char*>(slots.data()),
                                    slots.size() * sizeof(uint64_t)));
  return array;
}

// A view that keeps `owner` alive (NumPy), else a copy.
inline py::object SlotsView(std::vector<uint64_t>& slots, py::handle owner) {
  if (!HaveNumpy()) return SlotsArray(slots);
  return py::array_t<uint64_t>(static_cast<py::ssize_t>(slots.size()),
                               slots.data(), owner);
}

// From a NumPy array, a buffer of uint64 or any iterable of ints.
inline std::vector<uint64_t> SlotsFrom(py::handle values) {
  std::vector<uint64_t> out;
  if (HaveNumpy() && py::isinstance<py::array>(values)) {
    auto array =
        py::array_t<uint64_t,
                    py::array::c_style | py::array::forcecast>::ensure(values);
    if (!array || array.ndim() != 1) {
      throw py::value_error("hashvalues must be one-dimensional");
    }
    out.assign(array.data(), array.data() + array.size());
    return out;
  }
  for (py::handle v : values) out.push_back(v.cast<uint64_t>());
  return out;
}

}  // namespace neardup::python

#endif  // NEARDUP_PYTHON_NUMPY_ARRAYS_H_
