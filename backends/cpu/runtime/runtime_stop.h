// The run's stop flag as the long runtime calls (matmul, sort, FFT,
// triangular solve, Cholesky) see it: JIT code passes the address of
// ExecutionControl's stop byte (or null); a call reads it between pieces of
// its work of bounded size and returns early once it is set, leaving its
// output unspecified (the run ends with the stop's status at JIT code's next
// check, so nobody reads it).
#ifndef BACKENDS_CPU_RUNTIME_RUNTIME_STOP_H_
#define BACKENDS_CPU_RUNTIME_RUNTIME_STOP_H_

#include <cstdint>

namespace xla {
namespace cpu {

inline bool StopRequested(const volatile uint8_t* stop) { return stop != nullptr && *stop != 0; }

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_RUNTIME_RUNTIME_STOP_H_
