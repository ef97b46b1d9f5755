// Runtime FFT called from JIT code for the fft instruction, through Eigen's
// FFT module (unsupported/Eigen/FFT, its kissfft backend: mixed radix 2, 3,
// 4, 5 and a generic butterfly for other prime factors, so every length).
//
// `in` and `out` are row-major; the transformed dimensions are the innermost
// `fft_rank` (1 to 3) of lengths `length0..` (unused ones: 1); the
// dimensions before them are `batch` independent transforms.
//   fft_type 0 FFT:   c64/c128 -> same, unscaled forward transform.
//   fft_type 1 IFFT:  c64/c128 -> same, inverse scaled by 1/N.
//   fft_type 2 RFFT:  f32/f64 -> c64/c128, innermost dimension n/2+1.
//   fft_type 3 IRFFT: c64/c128 half spectrum -> f32/f64: inverse complex
//                     transforms of the outer dimensions, then the innermost
//                     one from its half spectrum (the imaginary parts of the
//                     DC and Nyquist entries do not contribute).
// `double_precision`: 0 for f32/c64, 1 for f64/c128. `device` is the run's
// Eigen::ThreadPoolDevice (batches run in parallel) or null. `in` and `out`
// may not overlap. `stop` (may be null): the run's stop flag
// (runtime_stop.h), read before every line a 1-D transform runs on.
#ifndef BACKENDS_CPU_RUNTIME_RUNTIME_FFT_H_
#define BACKENDS_CPU_RUNTIME_RUNTIME_FFT_H_

#include <cstdint>

extern "C" {
void __xla_cpu_runtime_Fft(const void* device, void* out, const void* in, int32_t fft_type, int32_t double_precision,
                           int32_t fft_rank, int64_t batch, int64_t length0, int64_t length1, int64_t length2,
                           const volatile uint8_t* stop);
}

#endif  // BACKENDS_CPU_RUNTIME_RUNTIME_FFT_H_
