// Every matmul kernel the host can run (baseline, AVX2+FMA, AVX-512) against
// a plain triple loop in long double, on odd sizes, both transposes, one and
// several threads; and the C entry points with the backend's pool type.
#include <array>
#include <atomic>
#include <random>
#include <vector>

#include "backends/cpu/runtime/runtime_matmul.h"
#include "backends/cpu/runtime/runtime_matmul_kernels.h"
#include "gtest/gtest.h"

#define EIGEN_USE_THREADS
#include "unsupported/Eigen/CXX11/Tensor"

namespace xla {
namespace cpu {
namespace {

class PoolScheduler final : public TaskScheduler {
 public:
  explicit PoolScheduler(int threads) : pool_(threads) {}
  void Schedule(std::function<void()> fn) override { pool_.Schedule(std::move(fn)); }
  int NumThreads() const override { return pool_.NumThreads(); }
  int CurrentThreadId() const override { return pool_.CurrentThreadId(); }

 private:
  Eigen::ThreadPool pool_;
};

template <typename T>
std::vector<T> Random(int64_t n, std::mt19937_64& rng) {
  std::vector<T> v(n);
  for (T& x : v) x = static_cast<T>(std::uniform_real_distribution<double>(-1, 1)(rng));
  return v;
}

// Row-major reference; lhs is [k, m] when transpose_lhs, rhs [n, k] when transpose_rhs.
template <typename T>
std::vector<long double> Reference(const std::vector<T>& lhs, const std::vector<T>& rhs, int64_t m, int64_t n,
                                   int64_t k, bool transpose_lhs, bool transpose_rhs) {
  std::vector<long double> out(m * n, 0);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      long double acc = 0;
      for (int64_t p = 0; p < k; ++p) {
        const T a = transpose_lhs ? lhs[p * m + i] : lhs[i * k + p];
        const T b = transpose_rhs ? rhs[j * k + p] : rhs[p * n + j];
        acc += static_cast<long double>(a) * b;
      }
      out[i * n + j] = acc;
    }
  }
  return out;
}

template <typename T>
void CheckKernel(MatMulKernel<T> kernel, TaskScheduler* scheduler, double tolerance) {
  std::mt19937_64 rng(5);
  for (auto [m, n, k] : {std::array<int64_t, 3>{1, 1, 1}, {7, 13, 5}, {33, 17, 65}, {128, 96, 200}, {3, 300, 1}}) {
    for (bool tl : {false, true}) {
      for (bool tr : {false, true}) {
        // All rows in one contraction (0), and in groups of 3 rows (the
        // groups a stop check separates; the last one shorter).
        for (int64_t rows_per_call : {0, 3}) {
          std::vector<T> lhs = Random<T>(m * k, rng), rhs = Random<T>(k * n, rng), out(m * n, T(-7));
          kernel(scheduler, out.data(), lhs.data(), rhs.data(), m, n, k, tl, tr, nullptr, nullptr, rows_per_call,
                 nullptr);
          std::vector<long double> want = Reference(lhs, rhs, m, n, k, tl, tr);
          for (int64_t i = 0; i < m * n; ++i) {
            ASSERT_NEAR(static_cast<double>(out[i]), static_cast<double>(want[i]), tolerance * (1 + k))
                << m << "x" << n << "x" << k << " tl=" << tl << " tr=" << tr << " rows/call=" << rows_per_call
                << " at " << i;
          }
        }
      }
    }
  }
}

void CheckKernels(const MatMulKernels& kernels) {
  SCOPED_TRACE(kernels.isa);
  PoolScheduler pool(3);
  for (TaskScheduler* scheduler : {static_cast<TaskScheduler*>(nullptr), static_cast<TaskScheduler*>(&pool)}) {
    CheckKernel<float>(kernels.f32, scheduler, 1e-6);
    CheckKernel<double>(kernels.f64, scheduler, 1e-14);
  }
}

TEST(RuntimeMatMulTest, BaselineKernels) { CheckKernels(BaselineMatMulKernels()); }

TEST(RuntimeMatMulTest, Avx2Kernels) {
  if (!HostSupportsAvx2MatMul()) GTEST_SKIP() << "this CPU has no AVX2+FMA";
  CheckKernels(Avx2MatMulKernels());
}

TEST(RuntimeMatMulTest, Avx512Kernels) {
  if (!HostSupportsAvx512MatMul()) GTEST_SKIP() << "this CPU has no AVX-512 (F/DQ/VL/BW)";
  CheckKernels(Avx512MatMulKernels());
}

TEST(RuntimeMatMulTest, TheWidestSupportedKernelsAreSelected) {
  const std::string isa = SelectedMatMulKernels().isa;
  if (HostSupportsAvx512MatMul()) {
    EXPECT_EQ(isa, "avx512");
  } else if (HostSupportsAvx2MatMul()) {
    EXPECT_EQ(isa, "avx2");
  } else {
    EXPECT_EQ(isa, "baseline");
  }
}

TEST(RuntimeMatMulTest, EntryPointsUseTheBackendsPoolDevice) {
  Eigen::ThreadPool pool(2);
  Eigen::ThreadPoolDevice device(&pool, 2);
  std::mt19937_64 rng(9);
  const int64_t m = 64, n = 48, k = 80;
  std::vector<float> lhs = Random<float>(m * k, rng), rhs = Random<float>(k * n, rng), out(m * n);
  __xla_cpu_runtime_MatMulF32(&device, out.data(), lhs.data(), rhs.data(), m, n, k, 0, 0, nullptr, nullptr, nullptr);
  std::vector<long double> want = Reference(lhs, rhs, m, n, k, false, false);
  for (int64_t i = 0; i < m * n; ++i) ASSERT_NEAR(out[i], static_cast<double>(want[i]), 1e-4);
  std::vector<double> dl = Random<double>(m * k, rng), dr = Random<double>(k * n, rng), dout(m * n);
  __xla_cpu_runtime_MatMulF64(nullptr, dout.data(), dl.data(), dr.data(), m, n, k, 0, 0, nullptr, nullptr, nullptr);
  std::vector<long double> dwant = Reference(dl, dr, m, n, k, false, false);
  for (int64_t i = 0; i < m * n; ++i) ASSERT_NEAR(dout[i], static_cast<double>(dwant[i]), 1e-12);
}

// What an epilogue sees: out = 2 * out + 1 on its block, and a count of
// the times each element was handed to it.
struct EpilogueRecord {
  int64_t n;
  std::vector<std::atomic<int>>* visits;
};

void DoubleAndAddOne(const void* context, void* out, int64_t row_begin, int64_t row_end, int64_t col_begin,
                     int64_t col_end) {
  const auto* record = static_cast<const EpilogueRecord*>(context);
  auto* values = static_cast<float*>(out);
  for (int64_t r = row_begin; r < row_end; ++r) {
    for (int64_t c = col_begin; c < col_end; ++c) {
      values[r * record->n + c] = 2 * values[r * record->n + c] + 1;
      ++(*record->visits)[r * record->n + c];
    }
  }
}

// The epilogue gets every element exactly once, after its sum is complete:
// one thread and a pool, sizes Eigen splits into several blocks, a
// matrix-vector product, and a long k (Eigen may shard the sums over k).
TEST(RuntimeMatMulTest, TheEpilogueSeesEachFinishedElementOnce) {
  Eigen::ThreadPool pool(2);
  Eigen::ThreadPoolDevice device(&pool, 2);
  std::mt19937_64 rng(11);
  for (auto [m, n, k] : {std::array<int64_t, 3>{300, 260, 170}, {1, 77, 33}, {77, 1, 33}, {8, 8, 30000}, {5, 3, 1}}) {
    for (const void* run_on : {static_cast<const void*>(nullptr), static_cast<const void*>(&device)}) {
      std::vector<float> lhs = Random<float>(m * k, rng), rhs = Random<float>(k * n, rng), out(m * n);
      std::vector<std::atomic<int>> visits(m * n);
      EpilogueRecord record{n, &visits};
      __xla_cpu_runtime_MatMulF32(run_on, out.data(), lhs.data(), rhs.data(), m, n, k, 0, 1, &DoubleAndAddOne,
                                  &record, nullptr);
      std::vector<long double> want = Reference(lhs, rhs, m, n, k, false, true);
      for (int64_t i = 0; i < m * n; ++i) {
        ASSERT_EQ(visits[i].load(), 1) << m << "x" << n << "x" << k << " at " << i;
        ASSERT_NEAR(out[i], 2 * static_cast<double>(want[i]) + 1, 1e-5 * (1 + k)) << m << "x" << n << "x" << k;
      }
    }
  }
}

// Row groups hand the epilogue rows in `out`'s numbering: every element
// once, both transposes of lhs (the transposed one is a column range).
TEST(RuntimeMatMulTest, RowGroupsHandTheEpilogueEachElementOnce) {
  PoolScheduler pool(2);
  std::mt19937_64 rng(13);
  const int64_t m = 50, n = 37, k = 29;
  for (TaskScheduler* scheduler : {static_cast<TaskScheduler*>(nullptr), static_cast<TaskScheduler*>(&pool)}) {
    for (bool tl : {false, true}) {
      std::vector<float> lhs = Random<float>(m * k, rng), rhs = Random<float>(k * n, rng), out(m * n);
      std::vector<std::atomic<int>> visits(m * n);
      EpilogueRecord record{n, &visits};
      SelectedMatMulKernels().f32(scheduler, out.data(), lhs.data(), rhs.data(), m, n, k, tl, false,
                                  &DoubleAndAddOne, &record, /*rows_per_call=*/7, nullptr);
      std::vector<long double> want = Reference(lhs, rhs, m, n, k, tl, false);
      for (int64_t i = 0; i < m * n; ++i) {
        ASSERT_EQ(visits[i].load(), 1) << "tl=" << tl << " at " << i;
        ASSERT_NEAR(out[i], 2 * static_cast<double>(want[i]) + 1, 1e-5 * (1 + k)) << "tl=" << tl << " at " << i;
      }
    }
  }
}

// Small products are one contraction; large ones are split so that a stop
// waits for about kMatMulMacsPerStopCheck multiply-adds, never groups
// smaller than kMatMulMinRowsPerCall.
TEST(RuntimeMatMulTest, RowsPerCallBoundTheWorkBetweenStopChecks) {
  EXPECT_EQ(MatMulRowsPerCall(1024, 1024, 1024), 1024);
  EXPECT_EQ(MatMulRowsPerCall(65536, 1024, 1024), 1024);
  EXPECT_EQ(MatMulRowsPerCall(16384, 16384, 16384), kMatMulMinRowsPerCall);
  EXPECT_EQ(MatMulRowsPerCall(1 << 20, 1, 1), 1 << 20);
}

void SetStop(const void* context, void*, int64_t, int64_t, int64_t, int64_t) {
  *static_cast<volatile uint8_t*>(const_cast<void*>(context)) = 1;
}

// A stop raised while the first group of rows runs (here by its epilogue)
// skips the other groups; a stop raised before the call skips everything.
TEST(RuntimeMatMulTest, AStopSkipsTheRemainingRowGroups) {
  std::mt19937_64 rng(17);
  const int64_t m = 12, n = 5, k = 9;
  std::vector<float> lhs = Random<float>(m * k, rng), rhs = Random<float>(k * n, rng), out(m * n, -7.0f);
  volatile uint8_t stop = 0;
  SelectedMatMulKernels().f32(nullptr, out.data(), lhs.data(), rhs.data(), m, n, k, false, false, &SetStop,
                              const_cast<uint8_t*>(&stop), /*rows_per_call=*/4, &stop);
  std::vector<long double> want = Reference(lhs, rhs, m, n, k, false, false);
  for (int64_t i = 0; i < 4 * n; ++i) EXPECT_NEAR(out[i], static_cast<double>(want[i]), 1e-5) << i;
  for (int64_t i = 4 * n; i < m * n; ++i) EXPECT_EQ(out[i], -7.0f) << i;

  std::vector<float> untouched(m * n, -7.0f);
  __xla_cpu_runtime_MatMulF32(nullptr, untouched.data(), lhs.data(), rhs.data(), m, n, k, 0, 0, nullptr, nullptr,
                              &stop);
  for (float v : untouched) EXPECT_EQ(v, -7.0f);
}

}  // namespace
}  // namespace cpu
}  // namespace xla
