// fft on the CPU backend (Eigen's FFT in the runtime) against the reference
// evaluator (direct long-double DFTs) on random inputs: every fft_type, 1 to
// 3 transformed dimensions, lengths of every kind kissfft treats apart
// (1, 2, multiples of 4, other even, odd, primes), batches, f32 and f64,
// operands and results in other layouts, fused producers and consumers,
// and the batch split over threads.
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "backends/cpu/tests/cpu_test_util.h"
#include "xla/hlo/hlo_parser.h"

namespace xla {
namespace cpu {
namespace {

using cpu_test::CompareWithEvaluator;
using cpu_test::RandomArguments;
using cpu_test::WithThreads;

struct FftCase {
  std::string operand;  // e.g. "c64[3,8]"
  std::string result;
  std::string type;
  std::string lengths;  // e.g. "{8}"
};

// Inputs in [-4, 4]: sums of n terms stay below 4n, so f32 (c64) results
// are compared to 1e-4 relative plus an absolute term for near-zero bins.
ErrorSpec Tolerance(const std::string& operand, const std::string& result) {
  const bool f64 = operand.find("f64") != std::string::npos || operand.find("c128") != std::string::npos ||
                   result.find("c128") != std::string::npos;
  return f64 ? ErrorSpec{1e-9, 1e-9} : ErrorSpec{2e-3, 1e-4};
}

std::string FftModule(const FftCase& c) {
  return absl::StrCat("HloModule m\nENTRY e {\n  p = ", c.operand, " parameter(0)\n  ROOT r = ", c.result,
                      " fft(p), fft_type=", c.type, ", fft_length=", c.lengths, "\n}\n");
}

TEST(CpuFftTest, MatchesEvaluatorOnRandomInputs) {
  const std::vector<FftCase> cases = {
      {"c64[8]", "c64[8]", "FFT", "{8}"},
      {"c64[3,1]", "c64[3,1]", "FFT", "{1}"},
      {"c64[4,2]", "c64[4,2]", "FFT", "{2}"},
      {"c64[3,17]", "c64[3,17]", "FFT", "{17}"},
      {"c64[2,5,6]", "c64[2,5,6]", "FFT", "{5,6}"},
      {"c128[2,3,4,5]", "c128[2,3,4,5]", "FFT", "{3,4,5}"},
      {"c128[64]", "c128[64]", "FFT", "{64}"},
      {"c64[4,17]", "c64[4,17]", "IFFT", "{17}"},
      {"c128[7]", "c128[7]", "IFFT", "{7}"},
      {"c64[2,9,10]", "c64[2,9,10]", "IFFT", "{9,10}"},
      {"c128[3,4,6,2]", "c128[3,4,6,2]", "IFFT", "{4,6,2}"},
      {"f32[5,16]", "c64[5,9]", "RFFT", "{16}"},
      {"f32[3,12]", "c64[3,7]", "RFFT", "{12}"},
      {"f32[3,6]", "c64[3,4]", "RFFT", "{6}"},
      {"f32[4,1]", "c64[4,1]", "RFFT", "{1}"},
      {"f32[2,2]", "c64[2,2]", "RFFT", "{2}"},
      {"f32[2,6,9]", "c64[2,6,5]", "RFFT", "{6,9}"},
      {"f64[3,2,3,7]", "c128[3,2,3,4]", "RFFT", "{2,3,7}"},
      {"f64[2,31]", "c128[2,16]", "RFFT", "{31}"},
      {"c64[5,9]", "f32[5,16]", "IRFFT", "{16}"},
      {"c64[3,7]", "f32[3,12]", "IRFFT", "{12}"},
      {"c64[3,4]", "f32[3,6]", "IRFFT", "{6}"},
      {"c64[3,4]", "f32[3,7]", "IRFFT", "{7}"},
      {"c64[2,1]", "f32[2,1]", "IRFFT", "{1}"},
      {"c64[3,2]", "f32[3,2]", "IRFFT", "{2}"},
      {"c64[2,6,5]", "f32[2,6,9]", "IRFFT", "{6,9}"},
      {"c128[3,2,3,4]", "f64[3,2,3,6]", "IRFFT", "{2,3,6}"},
      {"c64[2,3,4,9]", "f32[2,3,4,16]", "IRFFT", "{3,4,16}"},
      {"c64[2,0,5]", "c64[2,0,5]", "FFT", "{5}"},
  };
  uint64_t seed = 0;
  for (const FftCase& c : cases) {
    const std::string text = FftModule(c);
    SCOPED_TRACE(text);
    CompareWithEvaluator(text, RandomArguments(text, ++seed), Tolerance(c.operand, c.result));
  }
}

TEST(CpuFftTest, ManyBatchesOnThreads) {
  const std::vector<FftCase> cases = {
      {"c64[64,32]", "c64[64,32]", "FFT", "{32}"},
      {"f32[40,6,10]", "c64[40,6,6]", "RFFT", "{6,10}"},
      {"c128[33,5,5]", "f64[33,5,8]", "IRFFT", "{5,8}"},
  };
  uint64_t seed = 100;
  for (const FftCase& c : cases) {
    const std::string text = FftModule(c);
    SCOPED_TRACE(text);
    CompareWithEvaluator(text, RandomArguments(text, ++seed), Tolerance(c.operand, c.result), WithThreads(4));
  }
}

TEST(CpuFftTest, LayoutsAndFusedNeighbours) {
  // A column-major operand and result, an elementwise producer that would
  // otherwise be fused, and a consumer reading the fft's buffer.
  const std::vector<std::string> modules = {
      "HloModule m\nENTRY e {\n  p = c64[6,8] parameter(0)\n  c = c64[6,8]{0,1} copy(p)\n"
      "  ROOT r = c64[6,8]{0,1} fft(c), fft_type=FFT, fft_length={8}\n}\n",
      "HloModule m\nENTRY e {\n  p = f32[4,10] parameter(0)\n  q = f32[4,10] parameter(1)\n"
      "  s = f32[4,10] add(p, q)\n  f = c64[4,6] fft(s), fft_type=RFFT, fft_length={10}\n"
      "  ROOT r = c64[4,6] multiply(f, f)\n}\n",
      "HloModule m\nENTRY e {\n  p = c128[3,5] parameter(0)\n  n = c128[3,5] negate(p)\n"
      "  i = f64[3,8] fft(n), fft_type=IRFFT, fft_length={8}\n  b = f64[3,8]{0,1} copy(i)\n"
      "  ROOT r = f64[3,8]{0,1} exponential(b)\n}\n",
  };
  uint64_t seed = 200;
  for (const std::string& text : modules) {
    SCOPED_TRACE(text);
    const bool f64 = text.find("c128") != std::string::npos;
    CompareWithEvaluator(text, RandomArguments(text, ++seed, 1.0), f64 ? ErrorSpec{1e-9, 1e-9} : ErrorSpec{1e-3, 1e-4});
  }
}

TEST(CpuFftTest, KnownValues) {
  // FFT of an impulse is flat; IRFFT(RFFT(x)) is x.
  const std::string impulse = "HloModule m\nENTRY e {\n  p = c64[4] parameter(0)\n"
                              "  ROOT r = c64[4] fft(p), fft_type=FFT, fft_length={4}\n}\n";
  Literal x = Literal::CreateR1<complex64>({1, 0, 0, 0});
  auto r = cpu_test::RunOnCpu(impulse, {x});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, Literal::CreateR1<complex64>({1, 1, 1, 1}));
  const std::string round_trip = "HloModule m\nENTRY e {\n  p = f32[2,9] parameter(0)\n"
                                 "  s = c64[2,5] fft(p), fft_type=RFFT, fft_length={9}\n"
                                 "  ROOT r = f32[2,9] fft(s), fft_type=IRFFT, fft_length={9}\n}\n";
  std::vector<Literal> args = RandomArguments(round_trip, 7);
  auto back = cpu_test::RunOnCpu(round_trip, args);
  ASSERT_TRUE(back.ok()) << back.status();
  absl::Status near = literal_comparison::Near(args[0], *back, ErrorSpec{1e-5, 1e-5});
  EXPECT_TRUE(near.ok()) << near;
}

}  // namespace
}  // namespace cpu
}  // namespace xla
