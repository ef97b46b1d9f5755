#include "backends/cpu/runtime/runtime_fft.h"

#include <complex>
#include <vector>

#include "backends/cpu/runtime/runtime_parallel.h"
#include "backends/cpu/runtime/runtime_stop.h"
#include "unsupported/Eigen/FFT"

namespace xla {
namespace cpu {
namespace {

enum FftKind { kFft = 0, kIfft = 1, kRfft = 2, kIrfft = 3 };

// One thread's transforms. Eigen's FFT object caches plans and scratch
// buffers, so each chunk of batches has its own.
template <typename T>
class Transformer {
 public:
  using Complex = std::complex<T>;

  // Every loop over lines reads `stop` (may be null) once per line and
  // returns once it is set (runtime_stop.h).
  explicit Transformer(const volatile uint8_t* stop) : stop_(stop) { half_.SetFlag(Eigen::FFT<T>::HalfSpectrum); }

  // Every line along dimension `dim` of the row-major `data` of `dims`, in
  // place (inverse: scaled by 1/n).
  void ComplexDimension(Complex* data, const std::vector<int64_t>& dims, size_t dim, bool inverse) {
    const int64_t n = dims[dim];
    if (n <= 1) return;  // the identity (kissfft has no plan for length 1)
    int64_t inner = 1, outer = 1;
    for (size_t d = dim + 1; d < dims.size(); ++d) inner *= dims[d];
    for (size_t d = 0; d < dim; ++d) outer *= dims[d];
    line_.resize(n);
    result_.resize(n);
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        if (StopRequested(stop_)) return;
        Complex* base = data + o * n * inner + i;
        Complex* src = base;
        Complex* dst = base;
        if (inner != 1) {
          for (int64_t j = 0; j < n; ++j) line_[j] = base[j * inner];
          src = line_.data();
          dst = result_.data();
        } else {
          std::copy(base, base + n, line_.begin());
          src = line_.data();
        }
        if (inverse) {
          full_.inv(dst, src, n);
        } else {
          full_.fwd(dst, src, n);
        }
        if (inner != 1) {
          for (int64_t j = 0; j < n; ++j) base[j * inner] = result_[j];
        }
      }
    }
  }

  // Real `in` [lines, n] to half spectra `out` [lines, n/2+1].
  void RealForward(Complex* out, const T* in, int64_t lines, int64_t n) {
    const int64_t h = n / 2 + 1;
    for (int64_t l = 0; l < lines; ++l) {
      if (StopRequested(stop_)) return;
      if (n == 1) {
        out[l] = Complex(in[l], 0);
      } else {
        half_.fwd(out + l * h, in + l * n, n);
      }
    }
  }

  // Half spectra `in` [lines, n/2+1] to real `out` [lines, n], scaled by 1/n.
  void RealInverse(T* out, const Complex* in, int64_t lines, int64_t n) {
    const int64_t h = n / 2 + 1;
    for (int64_t l = 0; l < lines; ++l) {
      if (StopRequested(stop_)) return;
      if (n == 1) {
        out[l] = in[l].real();
      } else {
        half_.inv(out + l * n, in + l * h, n);
      }
    }
  }

 private:
  const volatile uint8_t* const stop_;
  Eigen::FFT<T> full_, half_;
  std::vector<Complex> line_, result_;
};

struct FftCall {
  void* out;
  const void* in;
  FftKind kind;
  std::vector<int64_t> lengths;
  const volatile uint8_t* stop;
};

template <typename T>
void RunBatches(const FftCall& call, int64_t begin, int64_t end) {
  using Complex = std::complex<T>;
  Transformer<T> transformer(call.stop);
  const std::vector<int64_t>& lengths = call.lengths;
  const int64_t n = lengths.back();
  int64_t outer_elements = 1;  // the transformed dimensions but the innermost
  for (size_t d = 0; d + 1 < lengths.size(); ++d) outer_elements *= lengths[d];
  const int64_t full = outer_elements * n, half = outer_elements * (n / 2 + 1);
  // The complex array the outer dimensions are transformed in: the whole
  // signal (FFT, IFFT) or its half spectra (RFFT, IRFFT).
  std::vector<int64_t> dims = lengths;
  if (call.kind == kRfft || call.kind == kIrfft) dims.back() = n / 2 + 1;
  const size_t outer_dims = call.kind == kFft || call.kind == kIfft ? dims.size() : dims.size() - 1;
  std::vector<Complex> work;
  for (int64_t b = begin; b < end; ++b) {
    if (StopRequested(call.stop)) return;
    switch (call.kind) {
      case kFft:
      case kIfft: {
        const Complex* in = static_cast<const Complex*>(call.in) + b * full;
        Complex* out = static_cast<Complex*>(call.out) + b * full;
        std::copy(in, in + full, out);
        for (size_t d = 0; d < outer_dims; ++d) transformer.ComplexDimension(out, dims, d, call.kind == kIfft);
        break;
      }
      case kRfft: {
        Complex* out = static_cast<Complex*>(call.out) + b * half;
        transformer.RealForward(out, static_cast<const T*>(call.in) + b * full, outer_elements, n);
        for (size_t d = 0; d < outer_dims; ++d) transformer.ComplexDimension(out, dims, d, false);
        break;
      }
      case kIrfft: {
        const Complex* in = static_cast<const Complex*>(call.in) + b * half;
        work.assign(in, in + half);
        for (size_t d = 0; d < outer_dims; ++d) transformer.ComplexDimension(work.data(), dims, d, true);
        transformer.RealInverse(static_cast<T*>(call.out) + b * full, work.data(), outer_elements, n);
        break;
      }
    }
  }
}

template <typename T>
void Body(void* context, int64_t begin, int64_t end) {
  RunBatches<T>(*static_cast<const FftCall*>(context), begin, end);
}

}  // namespace
}  // namespace cpu
}  // namespace xla

extern "C" void __xla_cpu_runtime_Fft(const void* device, void* out, const void* in, int32_t fft_type,
                                      int32_t double_precision, int32_t fft_rank, int64_t batch, int64_t length0,
                                      int64_t length1, int64_t length2, const volatile uint8_t* stop) {
  using namespace xla::cpu;  // NOLINT
  const int64_t all[3] = {length0, length1, length2};
  FftCall call{out, in, static_cast<FftKind>(fft_type), std::vector<int64_t>(all, all + fft_rank), stop};
  double elements = 1;
  for (int64_t l : call.lengths) elements *= static_cast<double>(l);
  const double bytes = elements * (double_precision ? 16 : 8);
  // About 5 n log2(n) flops per transformed element and dimension.
  const double cycles = 5 * elements * (fft_rank + 1) * 8;
  if (double_precision) {
    __xla_cpu_runtime_ParallelFor(device, &Body<double>, &call, batch, bytes, bytes, cycles);
  } else {
    __xla_cpu_runtime_ParallelFor(device, &Body<float>, &call, batch, bytes, bytes, cycles);
  }
}
