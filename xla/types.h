// The C++ element types of the primitive types that have no builtin spelling.
#ifndef XLA_TYPES_H_
#define XLA_TYPES_H_

#include <complex>
#include <cstdint>

#include "Eigen/Core"

namespace xla {

using half = Eigen::half;
using bfloat16 = Eigen::bfloat16;
using complex64 = std::complex<float>;
using complex128 = std::complex<double>;

}  // namespace xla

#endif  // XLA_TYPES_H_
