// Fft: the discrete Fourier transform over the innermost 1 to 3 dimensions
// (operation-semantics "Fft", StableHLO `fft`).
//
//   FFT:   X[k] = sum_n x[n] exp(-2 pi i k n / N) along each transformed dimension.
//   IFFT:  x[n] = 1/N sum_k X[k] exp(+2 pi i k n / N), likewise.
//   RFFT:  FFT of the real operand; the innermost dimension keeps its first
//          fft_length/2+1 entries (the rest are their conjugates).
//   IRFFT: IFFT along the outer transformed dimensions, then the innermost
//          half spectrum is extended by X[N-k] = conj(X[k]) and inverted;
//          the result is the real part (so the imaginary parts of the DC and
//          Nyquist entries do not contribute, as in XLA's and NumPy's irfftn).
//
// Each dimension is a direct O(N^2) sum in long double with twiddles from
// exactly reduced angles (j*k mod N), all dimensions kept in long double and
// rounded once to the result type: a reference, not a fast FFT.
#include <cmath>
#include <complex>
#include <vector>

#include "xla/evaluator/evaluator_internal.h"
#include "xla/shape_inference.h"
#include "xla/status_macros.h"

namespace xla {
namespace evaluator_internal {

namespace {

using Wide = std::complex<long double>;

// Transforms every line along dimension `dim` of the row-major array `data`
// of dimensions `dims` in place: sign -1 forward, +1 inverse (unscaled).
void TransformDimension(std::vector<Wide>& data, absl::Span<const int64_t> dims, int64_t dim, int sign) {
  const int64_t n = dims[dim];
  if (n <= 1) return;
  int64_t inner = 1, outer = 1;
  for (size_t d = dim + 1; d < dims.size(); ++d) inner *= dims[d];
  for (int64_t d = 0; d < dim; ++d) outer *= dims[d];
  const long double two_pi = 2.0L * 3.141592653589793238462643383279502884L;
  std::vector<Wide> twiddle(n);
  for (int64_t j = 0; j < n; ++j) {
    if ((4 * j) % n == 0) {
      // Quarter turns exactly (sinl(pi) is not 0): 1, i, -1, -i.
      static const long double kQuarter[4][2] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
      const int64_t q = 4 * j / n;
      twiddle[j] = Wide(kQuarter[q][0], sign * kQuarter[q][1]);
      continue;
    }
    const long double angle = two_pi * static_cast<long double>(j) / static_cast<long double>(n);
    twiddle[j] = Wide(std::cos(angle), sign * std::sin(angle));
  }
  std::vector<Wide> line(n);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      Wide* base = data.data() + o * n * inner + i;
      for (int64_t j = 0; j < n; ++j) line[j] = base[j * inner];
      for (int64_t k = 0; k < n; ++k) {
        if (StopRequested()) return;  // the evaluation fails; the rest is never read
        Wide sum = 0;
        for (int64_t j = 0; j < n; ++j) sum += line[j] * twiddle[(j * k) % n];
        base[k * inner] = sum;
      }
    }
  }
}

template <typename T>
void ReadInto(const Literal& lit, std::vector<Wide>& out) {
  absl::Span<const T> in = lit.data<T>();
  for (size_t i = 0; i < in.size(); ++i) out[i] = Wide(in[i]);
}

template <typename C>
void ReadComplexInto(const Literal& lit, std::vector<Wide>& out) {
  absl::Span<const C> in = lit.data<C>();
  for (size_t i = 0; i < in.size(); ++i) out[i] = Wide(in[i].real(), in[i].imag());
}

}  // namespace

absl::StatusOr<Literal> EvaluateFft(const HloInstruction& instruction, const Literal& operand) {
  const HloInstructionProto& attrs = instruction.attributes();
  const FftType type = attrs.fft_type();
  const std::vector<int64_t> lengths(attrs.fft_length().begin(), attrs.fft_length().end());
  RETURN_IF_ERROR(ExpectArray(instruction, operand.shape(), "operand"));
  ASSIGN_OR_RETURN(Shape expected, ShapeInference::InferFftShape(operand.shape(), type, lengths));
  if (!expected.Compatible(instruction.shape())) {
    return InvalidArgument("HloEvaluator: %s: an fft of %s gives %s, but the instruction's shape is %s",
                           InstrLabel(instruction), operand.shape().ToString(), expected.ToString(),
                           instruction.shape().ToString());
  }
  Literal result(RowMajorShape(instruction.shape()));
  if (result.element_count() == 0 || operand.element_count() == 0) return result;

  const Shape& in_shape = operand.shape();
  const int64_t rank = in_shape.rank();
  const int64_t fft_rank = static_cast<int64_t>(lengths.size());
  std::vector<Wide> data(operand.element_count());
  switch (operand.element_type()) {
    case F32: ReadInto<float>(operand, data); break;
    case F64: ReadInto<double>(operand, data); break;
    case C64: ReadComplexInto<complex64>(operand, data); break;
    case C128: ReadComplexInto<complex128>(operand, data); break;
    default:
      return InvalidArgument("HloEvaluator: %s: unexpected operand type %s", InstrLabel(instruction),
                             in_shape.ToString());
  }
  std::vector<int64_t> dims = in_shape.dimensions();
  const bool inverse = type == IFFT || type == IRFFT;
  // The dimensions transformed as complex to complex here: all for FFT, IFFT
  // and RFFT; all but the innermost for IRFFT (done below).
  const int64_t complex_dims = type == IRFFT ? fft_rank - 1 : fft_rank;
  long double scale = 1;
  for (int64_t i = 0; i < complex_dims; ++i) {
    const int64_t d = rank - fft_rank + i;
    TransformDimension(data, dims, d, inverse ? 1 : -1);
    scale *= dims[d];
  }
  if (inverse && scale > 1) {
    for (Wide& v : data) v /= scale;
  }

  if (type == IRFFT) {
    // The innermost half spectrum [.., half] extended to [.., n] and inverted.
    const int64_t half = dims[rank - 1];
    const int64_t n = lengths.back();
    const int64_t lines = static_cast<int64_t>(data.size()) / half;
    std::vector<int64_t> full_dims = dims;
    full_dims[rank - 1] = n;
    std::vector<Wide> full(lines * n);
    for (int64_t l = 0; l < lines; ++l) {
      const Wide* in = data.data() + l * half;
      Wide* out = full.data() + l * n;
      for (int64_t k = 0; k < half && k < n; ++k) out[k] = in[k];
      for (int64_t k = 1; k < half && n - k >= half; ++k) out[n - k] = std::conj(in[k]);
    }
    TransformDimension(full, full_dims, rank - 1, 1);
    const bool f32 = result.element_type() == F32;
    for (int64_t i = 0; i < lines * n; ++i) {
      const long double v = full[i].real() / static_cast<long double>(n);
      if (f32) {
        result.data<float>()[i] = static_cast<float>(v);
      } else {
        result.data<double>()[i] = static_cast<double>(v);
      }
    }
    return result;
  }

  // FFT, IFFT, RFFT: complex results; RFFT keeps the first half+1 entries.
  const int64_t n_in = dims[rank - 1];
  const int64_t n_out = result.shape().dimensions(rank - 1);
  const int64_t lines = static_cast<int64_t>(data.size()) / n_in;
  const bool c64 = result.element_type() == C64;
  for (int64_t l = 0; l < lines; ++l) {
    for (int64_t k = 0; k < n_out; ++k) {
      const Wide v = data[l * n_in + k];
      if (c64) {
        result.data<complex64>()[l * n_out + k] = complex64(static_cast<float>(v.real()), static_cast<float>(v.imag()));
      } else {
        result.data<complex128>()[l * n_out + k] =
            complex128(static_cast<double>(v.real()), static_cast<double>(v.imag()));
      }
    }
  }
  return result;
}

}  // namespace evaluator_internal
}  // namespace xla
