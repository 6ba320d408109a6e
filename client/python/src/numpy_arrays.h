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

// Whether NumPy imported: decided once, when the module loads (a lazy
// first import from two threads would deadlock on the GIL).
bool HaveNumpy();
void DetectNumpy();

// A copy: numpy.ndarray of uint64, or array.array('Q').
py::object SlotsArray(const std::vector<uint64_t>& slots);

// A view that keeps `owner` alive (NumPy), else a copy.
py::object SlotsView(std::vector<uint64_t>& slots, py::handle owner);

// From a NumPy array or any iterable of ints in [0, 2^64). ValueError for
// anything else (a float, a negative number, a 2-D array).
std::vector<uint64_t> SlotsFrom(py::handle values);

}  // namespace neardup::python

#endif  // NEARDUP_PYTHON_NUMPY_ARRAYS_H_
