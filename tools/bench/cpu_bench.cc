// CPU backend benchmark: figures of the "cpu" backend through the public
// client API (LocalClient, arguments transferred once, Execute by handle,
// result released), each next to a reference measured in the same run on the
// same machine:
//   axpy, gelu            effective GB/s vs a STREAM-style triad (threads)
//   rowsum, colsum,       effective GB/s vs a read-bandwidth loop (threads)
//   softmax
//   matmul                GFLOP/s vs Eigen's tensor contraction on a
//                         ThreadPoolDevice; also vs the measured FMA peak
//   conv                  3x3 conv GFLOP/s vs Eigen on its im2col matrices;
//                         depthwise 3x3 effective GB/s vs the triad
//   mlp_train_step        ms per SGD step vs PyTorch (torch_mlp_step.py)
//   model_*               real models (GraphSAGE, SSD-MobileNet, a StableHLO
//                         program): us vs the interpreter, FLOP count,
//                         GFLOP/s vs the FMA peak, compile ms vs the
//                         interpreter's; skipped without ../shared
//   cache_load_ms_ssd_mobilenet  SSD-MobileNet loaded from the persistent
//                         executable cache (--xla_cache_dir) by a fresh
//                         process, vs compiling it in this run
//   compile_ms_N          compile time vs the interpreter backend
//   cache_hit_us          in-memory compilation-cache hit of the
//                         1000-instruction module vs compiling it
//   execute_overhead_us   tiny-add Execute vs the interpreter backend
// Every timing is the best of N runs after warm-up runs; bandwidth figures
// and matmul figures alternate one XLA run and one reference run per round.
// The thread count is the cores of this process's affinity mask
// (--threads=N overrides); the cpu backend gets it as
// DebugOptions.xla_cpu_threads at compile time.
//
// Usage: cpu_bench [--threads=N] [--torch_script=PATH] [GROUP...]
//   GROUP: elementwise reduce matmul conv mlp models compile overhead (default:
//   all). The models come from $XLA_SHARED_DIR, else ../shared.
//   For profiling a compile: --compile_sizes=10[,100...] (the chain sizes)
//   and --compile_repeat=N (compiles per size, default 5; 3 for 1000);
//   --dump_to=DIR writes the cpu backend's dumps (compile phases, LLVM
//   pass timings, IR) of every compile there.
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <immintrin.h>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "backends/host_memory_pool.h"
#include "client/client_library.h"
#include "client/xla_builder.h"
#include "service/service.h"
#include "tools/bench/bench_models.h"
#include "tools/bench/bench_report.h"
#include "tools/bench/eigen_matmul_reference.h"
#include "tools/bench/real_models.h"
#include "xla/analysis/hlo_cost_analysis.h"
#include "xla/hlo/hlo_instruction.h"
#include "xla/literal_comparison.h"
#include "xla/service_interface.h"
#include "xla/shape_util.h"

namespace xla {
namespace {

using bench::BestSeconds;
using bench::Report;

// ---------------------------------------------------------------------------
// Plumbing: errors abort the bench with a message (a figure of a failed or
// wrong run means nothing).

[[noreturn]] void Die(const std::string& message) {
  std::fprintf(stderr, "cpu_bench: %s\n", message.c_str());
  std::fflush(stdout);
  std::exit(1);
}

template <typename T>
T OrDie(absl::StatusOr<T> value, const std::string& what) {
  if (!value.ok()) Die(what + ": " + value.status().ToString());
  return std::move(*value);
}

int AffinityCores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return 1;
  return std::max(1, CPU_COUNT(&set));
}

void CheckOk(const absl::Status& status, const std::string& what) {
  if (!status.ok()) Die(what + ": " + status.ToString());
}

std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      size_t colon = line.find(':');
      if (colon != std::string::npos) return line.substr(std::min(line.size(), colon + 2));
    }
  }
  return "unknown";
}

using bench::MlpDims;
using bench::MlpInputs;
using bench::RandomLiteral;

XlaComputation ScalarComputation(XlaBuilder* parent, const std::string& name,
                                 XlaOp (*op)(XlaOp, XlaOp, absl::Span<const int64_t>)) {
  return OrDie(bench::ScalarComputation(parent, name, op), "build " + name);
}

// A client with its compile options: the cpu backend gets the bench's thread
// count; the interpreter ignores it.
struct Target {
  std::string backend;
  Client* client;
  ExecutionOptions options;
};

Target MakeTarget(const std::string& backend, int threads) {
  Target target{backend, OrDie(ClientLibrary::GetOrCreateLocalClient(backend), "client " + backend), {}};
  target.options.mutable_debug_options()->set_xla_cpu_threads(threads);
  return target;
}

ExecutionHandle Compile(const Target& target, const XlaComputation& computation, bool* cache_hit = nullptr) {
  return OrDie(target.client->Compile(computation, {}, &target.options, cache_hit),
               "compile " + computation.name() + " on " + target.backend);
}

std::vector<std::unique_ptr<GlobalData>> TransferAll(Client* client, const std::vector<const Literal*>& literals) {
  std::vector<std::unique_ptr<GlobalData>> data;
  for (const Literal* literal : literals) data.push_back(OrDie(client->TransferToServer(*literal), "transfer"));
  return data;
}

std::vector<GlobalData*> Pointers(const std::vector<std::unique_ptr<GlobalData>>& data) {
  std::vector<GlobalData*> pointers;
  for (const auto& d : data) pointers.push_back(d.get());
  return pointers;
}

// Best seconds of one Execute (the result released inside the timing: the
// backend's whole per-call cost), after `warmup` untimed runs.
double BestExecuteSeconds(const Target& target, const ExecutionHandle& exe, absl::Span<GlobalData* const> args,
                          int warmup, int reps) {
  auto run = [&] { OrDie(target.client->Execute(exe, args), "execute on " + target.backend); };
  for (int i = 0; i < warmup; ++i) run();
  return BestSeconds(reps, run);
}

// Best Execute seconds and best reference figure (a rate: higher is better)
// measured alternately, one run of each per round: on a shared machine
// memory bandwidth and the share of the cores drift by tens of percent within
// a minute, and a figure and its reference taken a minute apart would compare
// two machines.
struct AlternatingBest {
  double seconds = 1e30;
  double reference = 0;
};
AlternatingBest BestExecuteAlternating(const Target& target, const ExecutionHandle& exe,
                                       absl::Span<GlobalData* const> args, int rounds,
                                       const std::function<double()>& reference_once) {
  auto run = [&] { OrDie(target.client->Execute(exe, args), "execute on " + target.backend); };
  for (int i = 0; i < 2; ++i) run();
  AlternatingBest best;
  for (int r = 0; r < rounds; ++r) {
    best.seconds = std::min(best.seconds, BestSeconds(1, run));
    best.reference = std::max(best.reference, reference_once());
  }
  return best;
}

Literal ExecuteAndFetch(const Target& target, const ExecutionHandle& exe, absl::Span<GlobalData* const> args) {
  std::unique_ptr<GlobalData> result = OrDie(target.client->Execute(exe, args), "execute");
  return OrDie(target.client->TransferToClient(*result), "transfer result");
}

// Aborts unless |got - want| <= tol * (1 + |want|) at every index given.
void CheckClose(const std::string& what, absl::Span<const float> got, const std::vector<double>& want,
                const std::vector<int64_t>& indices, double tol) {
  for (size_t i = 0; i < indices.size(); ++i) {
    double g = got[indices[i]], w = want[i];
    if (!(std::fabs(g - w) <= tol * (1 + std::fabs(w)))) {
      Die(what + ": wrong result at " + std::to_string(indices[i]) + ": got " + std::to_string(g) + ", want " +
          std::to_string(w));
    }
  }
}

std::vector<int64_t> SampleIndices(int64_t n, int count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int64_t> dist(0, n - 1);
  std::vector<int64_t> indices = {0, n - 1};
  for (int i = 0; i < count; ++i) indices.push_back(dist(rng));
  return indices;
}

// ---------------------------------------------------------------------------
// Hand-written references: memory-bandwidth loops on `threads` threads, each
// over a contiguous part of the arrays, which the thread touches first (so
// its pages are its own), timed between two barriers; best of `reps`.

class Barrier {
 public:
  explicit Barrier(int count) : count_(count) {}
  void Wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    int generation = generation_;
    if (++waiting_ == count_) {
      waiting_ = 0;
      ++generation_;
      cv_.notify_all();
    } else {
      cv_.wait(lock, [&] { return generation != generation_; });
    }
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  const int count_;
  int waiting_ = 0, generation_ = 0;
};

double BestParallelSeconds(int threads, int reps, const std::function<void(int)>& init,
                           const std::function<void(int)>& body) {
  Barrier barrier(threads);
  double best = 1e30;
  auto worker = [&](int t) {
    init(t);
    for (int r = 0; r < reps; ++r) {
      barrier.Wait();
      auto start = std::chrono::steady_clock::now();
      body(t);
      barrier.Wait();
      if (t == 0) best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker, t);
  worker(0);
  for (auto& thread : pool) thread.join();
  return best;
}

// 4 floats: the x86-64 baseline (SSE2) width, so the accumulators stay in
// registers whatever the build targets; 16-byte loads are plenty to
// saturate memory bandwidth.
typedef float v4sf __attribute__((vector_size(16)));

// Reference arrays come from the pool the service's own buffers come from
// (64-byte aligned; huge pages for large ones), so that reference and XLA
// loops run on the same kind of memory.
struct AlignedFloats {
  explicit AlignedFloats(int64_t n)
      : bytes(std::max<int64_t>(n, 1) * sizeof(float)),
        data(static_cast<float*>(HostMemoryPool::Global().Allocate(bytes))) {
    if (data == nullptr) Die("out of memory");
  }
  ~AlignedFloats() { HostMemoryPool::Global().Free(data, bytes); }
  int64_t bytes;
  float* data;
};

// [begin, end) of thread t's part of n elements, in whole 64-byte lines.
std::pair<int64_t, int64_t> Part(int64_t n, int threads, int t) {
  int64_t lines = n / 16;
  return {lines * t / threads * 16, lines * (t + 1) / threads * 16};
}

// STREAM triad a[i] = b[i] + s*c[i] over n elements per array; bytes moved
// 3*n*4 (each array once, as STREAM counts).
double TriadGBs(int64_t n, int threads, int reps) {
  n = n / 16 * 16;
  AlignedFloats a(n), b(n), c(n);
  const float s = 3.0f;
  double seconds = BestParallelSeconds(
      threads, reps,
      [&](int t) {
        auto [lo, hi] = Part(n, threads, t);
        for (int64_t i = lo; i < hi; ++i) a.data[i] = 0, b.data[i] = 1, c.data[i] = 2;
      },
      [&](int t) {
        auto [lo, hi] = Part(n, threads, t);
        v4sf* va = reinterpret_cast<v4sf*>(a.data + lo);
        const v4sf* vb = reinterpret_cast<const v4sf*>(b.data + lo);
        const v4sf* vc = reinterpret_cast<const v4sf*>(c.data + lo);
        for (int64_t i = 0; i < (hi - lo) / 4; ++i) va[i] = vb[i] + s * vc[i];
      });
  if (a.data[n - 1] != 7.0f) Die("triad reference computed a wrong value");
  return 3.0 * n * sizeof(float) / seconds / 1e9;
}

// Sum of an n-element array (eight vector accumulators: bandwidth, not add
// latency, bounds it); bytes read n*4.
double ReadGBs(int64_t n, int threads, int reps) {
  n = n / 16 * 16;
  AlignedFloats a(n);
  std::vector<float> sums(threads);
  double seconds = BestParallelSeconds(
      threads, reps,
      [&](int t) {
        auto [lo, hi] = Part(n, threads, t);
        for (int64_t i = lo; i < hi; ++i) a.data[i] = 1.0f;
      },
      [&](int t) {
        auto [lo, hi] = Part(n, threads, t);
        const v4sf* v = reinterpret_cast<const v4sf*>(a.data + lo);
        v4sf s0 = {}, s1 = {}, s2 = {}, s3 = {}, s4 = {}, s5 = {}, s6 = {}, s7 = {};
        int64_t count = (hi - lo) / 4, i = 0;
        for (; i + 8 <= count; i += 8) {
          s0 += v[i], s1 += v[i + 1], s2 += v[i + 2], s3 += v[i + 3];
          s4 += v[i + 4], s5 += v[i + 5], s6 += v[i + 6], s7 += v[i + 7];
        }
        for (; i < count; ++i) s0 += v[i];
        v4sf s = ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7));
        float total = (s[0] + s[1]) + (s[2] + s[3]);
        sums[t] = total;
      });
  double total = 0;
  for (float s : sums) total += s;
  // Partial sums of ones stay exact below 2^24 per lane.
  if (total != static_cast<double>(n)) Die("read-bandwidth reference computed a wrong sum");
  return static_cast<double>(n) * sizeof(float) / seconds / 1e9;
}

// Register-only FMA loops: 12 independent accumulators (named, so they stay
// in registers) hide the FMA latency on two pipes. Returns a value that
// depends on every FMA so none is dropped.
#define XLA_BENCH_FMA_LOOP(VEC, SET1, FMADD, ADD)                                          \
  const VEC mul = SET1(0.9999999f), add = SET1(1e-7f);                                   \
  VEC a0 = SET1(0.0f), a1 = SET1(0.1f), a2 = SET1(0.2f), a3 = SET1(0.3f), a4 = SET1(0.4f); \
  VEC a5 = SET1(0.5f), a6 = SET1(0.6f), a7 = SET1(0.7f), a8 = SET1(0.8f), a9 = SET1(0.9f); \
  VEC a10 = SET1(1.0f), a11 = SET1(1.1f);                                                 \
  for (int64_t i = 0; i < iterations; ++i) {                                              \
    a0 = FMADD(a0, mul, add), a1 = FMADD(a1, mul, add), a2 = FMADD(a2, mul, add);         \
    a3 = FMADD(a3, mul, add), a4 = FMADD(a4, mul, add), a5 = FMADD(a5, mul, add);         \
    a6 = FMADD(a6, mul, add), a7 = FMADD(a7, mul, add), a8 = FMADD(a8, mul, add);         \
    a9 = FMADD(a9, mul, add), a10 = FMADD(a10, mul, add), a11 = FMADD(a11, mul, add);     \
  }                                                                                       \
  VEC sum = ADD(ADD(ADD(a0, a1), ADD(a2, a3)), ADD(ADD(a4, a5), ADD(a6, a7)));            \
  sum = ADD(sum, ADD(ADD(a8, a9), ADD(a10, a11)))

__attribute__((target("avx2,fma"))) float FmaLoopAvx2(int64_t iterations) {
  XLA_BENCH_FMA_LOOP(__m256, _mm256_set1_ps, _mm256_fmadd_ps, _mm256_add_ps);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, sum);
  return lanes[0];
}

__attribute__((target("avx512f"))) float FmaLoopAvx512(int64_t iterations) {
  XLA_BENCH_FMA_LOOP(__m512, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_add_ps);
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, sum);
  return lanes[0];
}

#undef XLA_BENCH_FMA_LOOP

struct FmaPeak {
  std::string isa;
  double gflops = 0;            // on `threads` threads
  double gflops_one_thread = 0;
};

FmaPeak MeasureFmaPeak(int threads) {
  FmaPeak peak;
  int lanes;
  float (*loop)(int64_t);
  if (__builtin_cpu_supports("avx512f")) {
    peak.isa = "avx512f", lanes = 16, loop = FmaLoopAvx512;
  } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    peak.isa = "avx2+fma", lanes = 8, loop = FmaLoopAvx2;
  } else {
    return peak;  // no FMA: no peak figure
  }
  const int64_t iterations = 50'000'000;
  const double flops_per_thread = 2.0 * 12 * lanes * iterations;
  std::vector<float> sink(threads);
  auto measure = [&](int n) {
    double seconds = BestParallelSeconds(n, 5, [](int) {}, [&](int t) { sink[t] = loop(iterations); });
    return n * flops_per_thread / seconds / 1e9;
  };
  peak.gflops_one_thread = measure(1);
  peak.gflops = measure(threads);
  for (float s : sink) {
    if (!std::isfinite(s)) Die("FMA loop produced a non-finite value");
  }
  return peak;
}

// ---------------------------------------------------------------------------
// Elementwise: axpy and gelu over 16M f32, effective GB/s vs the triad.

constexpr int64_t k16M = int64_t{16} << 20;

void BenchElementwise(const Target& cpu, int threads) {
  const Shape vec = ShapeUtil::MakeShape(F32, {k16M});
  Literal alpha = Literal::CreateR0<float>(2.5f);
  Literal x = RandomLiteral(vec, 1), y = RandomLiteral(vec, 2);
  auto x_data = TransferAll(cpu.client, {&alpha, &x, &y});

  // axpy: 2 arrays read, 1 written.
  {
    XlaBuilder b("axpy_f32_16M");
    Add(Mul(Parameter(&b, 0, alpha.shape(), "alpha"), Parameter(&b, 1, vec, "x")), Parameter(&b, 2, vec, "y"));
    ExecutionHandle exe = Compile(cpu, OrDie(b.Build(), "build axpy"));
    std::vector<GlobalData*> args = Pointers(x_data);
    Literal out = ExecuteAndFetch(cpu, exe, args);
    auto idx = SampleIndices(k16M, 4096, 3);
    std::vector<double> want;
    for (int64_t i : idx) want.push_back(2.5f * x.data<float>()[i] + y.data<float>()[i]);
    CheckClose("axpy_f32_16M", out.data<float>(), want, idx, 1e-6);
    AlternatingBest best = BestExecuteAlternating(cpu, exe, args, 10, [&] { return TriadGBs(k16M, threads, 1); });
    double bytes = 3.0 * k16M * sizeof(float);
    Report("axpy_f32_16M", bytes / best.seconds / 1e9, "GB/s", "stream_triad", best.reference, true);
  }
  // gelu (tanh form from elementary ops): 1 array read, 1 written; the triad
  // moves the same bytes with 2/3 of the elements per array.
  {
    XlaBuilder b("gelu_tanh_f32_16M");
    XlaOp p = Parameter(&b, 0, vec, "x");
    auto c = [&](float v) { return ConstantR0<float>(&b, v); };
    XlaOp inner = Mul(c(std::sqrt(2.0f / static_cast<float>(M_PI))), Add(p, Mul(c(0.044715f), Mul(Mul(p, p), p))));
    Mul(Mul(c(0.5f), p), Add(c(1.0f), Tanh(inner)));
    ExecutionHandle exe = Compile(cpu, OrDie(b.Build(), "build gelu"));
    std::vector<GlobalData*> args = {x_data[1].get()};
    Literal out = ExecuteAndFetch(cpu, exe, args);
    auto idx = SampleIndices(k16M, 4096, 4);
    std::vector<double> want;
    for (int64_t i : idx) {
      double v = x.data<float>()[i];
      want.push_back(0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v))));
    }
    CheckClose("gelu_tanh_f32_16M", out.data<float>(), want, idx, 1e-5);
    AlternatingBest best =
        BestExecuteAlternating(cpu, exe, args, 10, [&] { return TriadGBs(2 * k16M / 3, threads, 1); });
    double bytes = 2.0 * k16M * sizeof(float);
    Report("gelu_tanh_f32_16M", bytes / best.seconds / 1e9, "GB/s", "stream_triad", best.reference, true);
  }
}

// ---------------------------------------------------------------------------
// Reductions and softmax: effective GB/s vs the read-bandwidth loop over a
// 256 MiB array (well past the last-level cache).

void BenchReduce(const Target& cpu, int threads) {
  auto read_gbs = [&] { return ReadGBs(int64_t{64} << 20, threads, 1); };
  const int64_t n = 4096;
  Literal m = RandomLiteral(ShapeUtil::MakeShape(F32, {n, n}), 5);
  auto m_data = TransferAll(cpu.client, {&m});
  std::vector<GlobalData*> args = {m_data[0].get()};
  for (int dim : {1, 0}) {
    const std::string name = dim == 1 ? "rowsum_f32_4096x4096" : "colsum_f32_4096x4096";
    XlaBuilder b(name);
    XlaComputation add = ScalarComputation(&b, "add", Add);
    Reduce(Parameter(&b, 0, m.shape(), "m"), ConstantR0<float>(&b, 0.0f), add, {dim});
    ExecutionHandle exe = Compile(cpu, OrDie(b.Build(), "build " + name));
    Literal out = ExecuteAndFetch(cpu, exe, args);
    std::vector<double> want(n, 0.0);
    std::vector<int64_t> idx(n);
    for (int64_t i = 0; i < n; ++i) {
      idx[i] = i;
      for (int64_t j = 0; j < n; ++j) want[i] += dim == 1 ? m.data<float>()[i * n + j] : m.data<float>()[j * n + i];
    }
    CheckClose(name, out.data<float>(), want, idx, 1e-3);
    AlternatingBest best = BestExecuteAlternating(cpu, exe, args, 10, read_gbs);
    double bytes = (n * n + n) * sizeof(float);
    Report(name, bytes / best.seconds / 1e9, "GB/s", "read_bandwidth", best.reference, true);
  }
  {
    const int64_t rows = 4096, cols = 1024;
    Literal s = RandomLiteral(ShapeUtil::MakeShape(F32, {rows, cols}), 6, -4.0f, 4.0f);
    auto s_data = TransferAll(cpu.client, {&s});
    XlaBuilder b("softmax_f32_4096x1024");
    XlaComputation add = ScalarComputation(&b, "add", Add);
    XlaComputation max = ScalarComputation(&b, "max", Max);
    XlaOp p = Parameter(&b, 0, s.shape(), "x");
    XlaOp e = Exp(Sub(p, Reduce(p, MinValue(&b, F32), max, {1}), {0}));
    Div(e, Reduce(e, ConstantR0<float>(&b, 0.0f), add, {1}), {0});
    ExecutionHandle exe = Compile(cpu, OrDie(b.Build(), "build softmax"));
    std::vector<GlobalData*> s_args = {s_data[0].get()};
    Literal out = ExecuteAndFetch(cpu, exe, s_args);
    std::vector<int64_t> idx;
    std::vector<double> want;
    for (int64_t r : SampleIndices(rows, 16, 7)) {
      const float* row = s.data<float>().data() + r * cols;
      double mx = *std::max_element(row, row + cols), sum = 0;
      for (int64_t j = 0; j < cols; ++j) sum += std::exp(row[j] - mx);
      for (int64_t j = 0; j < cols; ++j) idx.push_back(r * cols + j), want.push_back(std::exp(row[j] - mx) / sum);
    }
    CheckClose("softmax_f32_4096x1024", out.data<float>(), want, idx, 1e-5);
    AlternatingBest best = BestExecuteAlternating(cpu, exe, s_args, 10, read_gbs);
    double bytes = 2.0 * rows * cols * sizeof(float);
    Report("softmax_f32_4096x1024", bytes / best.seconds / 1e9, "GB/s", "read_bandwidth", best.reference, true);
  }
}

// ---------------------------------------------------------------------------
// Matmul: GFLOP/s vs Eigen on a ThreadPoolDevice, and vs the FMA peak.

// Measured once per run and printed; the matmul and model groups compare
// against it.
FmaPeak MeasureAndReportFmaPeak(int threads) {
  FmaPeak peak = MeasureFmaPeak(threads);
  if (peak.gflops > 0) {
    std::printf("# fma peak: %s register-only FMA loop, %d thread(s) vs 1 thread\n", peak.isa.c_str(), threads);
    Report("fma_peak_f32", peak.gflops, "GFLOP/s", "fma_peak_f32_1thread", peak.gflops_one_thread, true);
  } else {
    std::printf("# fma peak: skipped, this CPU has neither AVX-512F nor AVX2+FMA\n");
  }
  return peak;
}

void BenchMatmul(const Target& cpu, int threads, const FmaPeak& peak) {
  const bool eigen_ok = bench::EigenMatMulReference::Supported();
  if (!eigen_ok) std::printf("# matmul: Eigen reference skipped, it is built for AVX2+FMA and this CPU lacks them\n");
  std::unique_ptr<bench::EigenMatMulReference> eigen;
  if (eigen_ok) eigen = std::make_unique<bench::EigenMatMulReference>(threads);
  for (int64_t n : {1024, 2048}) {
    const std::string name = "matmul_f32_" + std::to_string(n);
    const Shape shape = ShapeUtil::MakeShape(F32, {n, n});
    Literal a = RandomLiteral(shape, 8), c = RandomLiteral(shape, 9);
    auto data = TransferAll(cpu.client, {&a, &c});
    std::vector<GlobalData*> args = Pointers(data);
    XlaBuilder b(name);
    Dot(Parameter(&b, 0, shape, "a"), Parameter(&b, 1, shape, "b"));
    ExecutionHandle exe = Compile(cpu, OrDie(b.Build(), "build " + name));
    const int reps = n <= 1024 ? 6 : 4;
    const double flops = 2.0 * n * n * n;
    Literal out = ExecuteAndFetch(cpu, exe, args);
    double xla_gflops;
    if (eigen) {
      std::vector<float> ref(n * n);
      auto run_eigen = [&] { eigen->Run(a.data<float>().data(), c.data<float>().data(), ref.data(), n); };
      run_eigen();
      std::vector<int64_t> idx = SampleIndices(n * n, 4096, 10);
      std::vector<double> want;
      for (int64_t i : idx) want.push_back(ref[i]);
      CheckClose(name, out.data<float>(), want, idx, 1e-3);
      // Alternating, like the bandwidth figures: the VM's share of the cores
      // drifts between runs taken seconds apart.
      AlternatingBest best = BestExecuteAlternating(cpu, exe, args, reps, [&] {
        return flops / BestSeconds(1, run_eigen) / 1e9;
      });
      xla_gflops = flops / best.seconds / 1e9;
      Report(name, xla_gflops, "GFLOP/s", "eigen_contraction_threadpool", best.reference, true);
    } else {
      xla_gflops = flops / BestExecuteSeconds(cpu, exe, args, 1, reps) / 1e9;
    }
    if (peak.gflops > 0) Report(name + "_of_peak", xla_gflops, "GFLOP/s", "fma_peak_f32", peak.gflops, true);
  }
}

// ---------------------------------------------------------------------------
// Convolution: a 3x3 layer (ResNet's 56x56x64, batch 8) in GFLOP/s against
// Eigen contracting the same im2col matrices (the product alone: the ratio
// shows what building the patches costs), and a depthwise 3x3 layer
// (MobileNet's 112x112x64, batch 8) in effective GB/s against the triad.

// TensorFlow's 2-d layout: input and output NHWC, kernel HWIO.
ConvolutionDimensionNumbers NhwcConvolution() {
  ConvolutionDimensionNumbers d;
  d.set_input_batch_dimension(0);
  d.set_input_feature_dimension(3);
  d.set_kernel_input_feature_dimension(2);
  d.set_kernel_output_feature_dimension(3);
  d.set_output_batch_dimension(0);
  d.set_output_feature_dimension(3);
  for (int i = 0; i < 2; ++i) {
    d.add_input_spatial_dimensions(1 + i);
    d.add_kernel_spatial_dimensions(i);
    d.add_output_spatial_dimensions(1 + i);
  }
  return d;
}

void BenchConvolution(const Target& cpu, int threads) {
  const int64_t batch = 8, size = 56, channels = 64;
  {
    const std::string name = "conv2d_f32_3x3_56x56x64";
    const Shape in_shape = ShapeUtil::MakeShape(F32, {batch, size, size, channels});
    const Shape k_shape = ShapeUtil::MakeShape(F32, {3, 3, channels, channels});
    Literal x = RandomLiteral(in_shape, 21), w = RandomLiteral(k_shape, 22);
    auto data = TransferAll(cpu.client, {&x, &w});
    std::vector<GlobalData*> args = Pointers(data);
    XlaBuilder b(name);
    const ConvolutionDimensionNumbers d = NhwcConvolution();
    ConvGeneral(Parameter(&b, 0, in_shape, "x"), Parameter(&b, 1, k_shape, "w"), {1, 1}, {{1, 1}, {1, 1}}, d);
    ExecutionHandle exe = Compile(cpu, OrDie(b.Build(), "build " + name));
    Literal out = ExecuteAndFetch(cpu, exe, args);
    // im2col in plain C++: patches[m, (ky, kx, c)] with zeros over padding.
    const int64_t m = batch * size * size, k = 9 * channels;
    std::vector<float> patches(m * k, 0.0f), ref(m * channels);
    const float* xv = x.data<float>().data();
    for (int64_t bi = 0; bi < batch; ++bi) {
      for (int64_t y = 0; y < size; ++y) {
        for (int64_t xo = 0; xo < size; ++xo) {
          float* row = patches.data() + ((bi * size + y) * size + xo) * k;
          for (int64_t ky = 0; ky < 3; ++ky) {
            for (int64_t kx = 0; kx < 3; ++kx) {
              const int64_t iy = y + ky - 1, ix = xo + kx - 1;
              if (iy < 0 || iy >= size || ix < 0 || ix >= size) continue;
              std::copy_n(xv + ((bi * size + iy) * size + ix) * channels, channels,
                          row + (ky * 3 + kx) * channels);
            }
          }
        }
      }
    }
    const double flops = 2.0 * m * k * channels;
    if (bench::EigenMatMulReference::Supported()) {
      bench::EigenMatMulReference eigen(threads);
      auto run_eigen = [&] { eigen.Run(patches.data(), w.data<float>().data(), ref.data(), m, k, channels); };
      run_eigen();
      std::vector<int64_t> idx = SampleIndices(m * channels, 4096, 23);
      std::vector<double> want;
      for (int64_t i : idx) want.push_back(ref[i]);
      CheckClose(name, out.data<float>(), want, idx, 1e-3);
      AlternatingBest best = BestExecuteAlternating(cpu, exe, args, 5, [&] {
        return flops / BestSeconds(1, run_eigen) / 1e9;
      });
      Report(name, flops / best.seconds / 1e9, "GFLOP/s", "eigen_contraction_im2col_gemm", best.reference, true);
    } else {
      std::printf("# %s: Eigen reference skipped, it is built for AVX2+FMA and this CPU lacks them\n", name.c_str());
    }
  }
  {
    const std::string name = "depthwise_f32_3x3_112x112x64";
    const int64_t dsize = 112;
    const Shape in_shape = ShapeUtil::MakeShape(F32, {batch, dsize, dsize, channels});
    const Shape k_shape = ShapeUtil::MakeShape(F32, {3, 3, 1, channels});
    Literal x = RandomLiteral(in_shape, 24), w = RandomLiteral(k_shape, 25);
    auto data = TransferAll(cpu.client, {&x, &w});
    std::vector<GlobalData*> args = Pointers(data);
    XlaBuilder b(name);
    const ConvolutionDimensionNumbers d = NhwcConvolution();
    ConvGeneral(Parameter(&b, 0, in_shape, "x"), Parameter(&b, 1, k_shape, "w"), {1, 1}, {{1, 1}, {1, 1}}, d,
                /*feature_group_count=*/channels);
    ExecutionHandle exe = Compile(cpu, OrDie(b.Build(), "build " + name));
    Literal out = ExecuteAndFetch(cpu, exe, args);
    std::vector<int64_t> idx = SampleIndices(ShapeUtil::ElementsIn(in_shape), 4096, 26);
    std::vector<double> want;
    const float* xv = x.data<float>().data();
    const float* wv = w.data<float>().data();
    for (int64_t i : idx) {
      const int64_t c = i % channels, xo = i / channels % dsize, y = i / channels / dsize % dsize;
      const int64_t bi = i / channels / dsize / dsize;
      double sum = 0;
      for (int64_t ky = 0; ky < 3; ++ky) {
        for (int64_t kx = 0; kx < 3; ++kx) {
          const int64_t iy = y + ky - 1, ix = xo + kx - 1;
          if (iy < 0 || iy >= dsize || ix < 0 || ix >= dsize) continue;
          sum += double{xv[((bi * dsize + iy) * dsize + ix) * channels + c]} * wv[(ky * 3 + kx) * channels + c];
        }
      }
      want.push_back(sum);
    }
    CheckClose(name, out.data<float>(), want, idx, 1e-4);
    // Bytes: the input read and the output written once.
    const double bytes = 2.0 * ShapeUtil::ElementsIn(in_shape) * sizeof(float);
    AlternatingBest best = BestExecuteAlternating(cpu, exe, args, 10, [&] {
      return TriadGBs(ShapeUtil::ElementsIn(in_shape) * 2 / 3, threads, 1);
    });
    Report(name, bytes / best.seconds / 1e9, "GB/s", "stream_triad", best.reference, true);
  }
}

// ---------------------------------------------------------------------------
// MLP training step: forward, hand-written backward and SGD update as one
// computation; its correctness is checked on a small instance against a
// plain C++ step (whose gradients are themselves checked by finite
// differences) before the full size is timed.

XlaComputation MlpStep(const MlpDims& d, float lr) {
  return OrDie(bench::BuildMlpStep(d, lr), "build mlp_train_step");
}

// The same step in double precision: loss and the six gradients (in
// parameter order w1, b1, w2, b2, w3, b3).
struct MlpReference {
  double loss;
  std::vector<std::vector<double>> grads;
};

MlpReference ReferenceMlpStep(const MlpDims& d, const std::vector<std::vector<double>>& p) {
  const std::vector<double>&x = p[0], &y = p[1];
  const int64_t B = d.batch, sizes[] = {d.in, d.h1, d.h2, d.out};
  // Activations per layer: acts[0] = x, z[l] = pre-activation of layer l.
  std::vector<std::vector<double>> acts = {x}, z(3);
  for (int l = 0; l < 3; ++l) {
    const std::vector<double>&w = p[2 + 2 * l], &bias = p[3 + 2 * l];
    int64_t n_in = sizes[l], n_out = sizes[l + 1];
    z[l].assign(B * n_out, 0.0);
    for (int64_t i = 0; i < B; ++i) {
      for (int64_t j = 0; j < n_out; ++j) {
        double acc = bias[j];
        for (int64_t k = 0; k < n_in; ++k) acc += acts[l][i * n_in + k] * w[k * n_out + j];
        z[l][i * n_out + j] = acc;
      }
    }
    std::vector<double> a = z[l];
    if (l < 2) {
      for (double& v : a) v = std::max(v, 0.0);
    }
    acts.push_back(a);
  }
  MlpReference ref{0.0, std::vector<std::vector<double>>(6)};
  std::vector<double> g(B * d.out);
  for (int64_t i = 0; i < B; ++i) {
    const double* row = &z[2][i * d.out];
    double mx = *std::max_element(row, row + d.out), sum = 0;
    for (int64_t j = 0; j < d.out; ++j) sum += std::exp(row[j] - mx);
    for (int64_t j = 0; j < d.out; ++j) {
      double log_p = row[j] - mx - std::log(sum);
      ref.loss -= y[i * d.out + j] * log_p / B;
      g[i * d.out + j] = (std::exp(log_p) - y[i * d.out + j]) / B;
    }
  }
  for (int l = 2; l >= 0; --l) {
    int64_t n_in = sizes[l], n_out = sizes[l + 1];
    std::vector<double>&dw = ref.grads[2 * l], &db = ref.grads[2 * l + 1];
    dw.assign(n_in * n_out, 0.0);
    db.assign(n_out, 0.0);
    for (int64_t i = 0; i < B; ++i) {
      for (int64_t j = 0; j < n_out; ++j) {
        db[j] += g[i * n_out + j];
        for (int64_t k = 0; k < n_in; ++k) dw[k * n_out + j] += acts[l][i * n_in + k] * g[i * n_out + j];
      }
    }
    if (l == 0) break;
    std::vector<double> prev(B * n_in, 0.0);
    const std::vector<double>& w = p[2 + 2 * l];
    for (int64_t i = 0; i < B; ++i) {
      for (int64_t k = 0; k < n_in; ++k) {
        double acc = 0;
        for (int64_t j = 0; j < n_out; ++j) acc += g[i * n_out + j] * w[k * n_out + j];
        prev[i * n_in + k] = z[l - 1][i * n_in + k] > 0 ? acc : 0.0;
      }
    }
    g = std::move(prev);
  }
  return ref;
}

void VerifyMlpStep(const Target& cpu) {
  const MlpDims d{8, 24, 20, 16, 10};
  const float lr = 0.01f;
  std::vector<Literal> inputs = MlpInputs(d, 100);
  std::vector<std::vector<double>> p;
  for (const Literal& l : inputs) p.emplace_back(l.data<float>().begin(), l.data<float>().end());
  MlpReference ref = ReferenceMlpStep(d, p);
  // The reference's gradients against central differences of its loss.
  std::mt19937 rng(11);
  for (int t = 0; t < 6; ++t) {
    for (int probe = 0; probe < 4; ++probe) {
      size_t i = rng() % p[2 + t].size();
      const double eps = 1e-6, saved = p[2 + t][i];
      p[2 + t][i] = saved + eps;
      double up = ReferenceMlpStep(d, p).loss;
      p[2 + t][i] = saved - eps;
      double down = ReferenceMlpStep(d, p).loss;
      p[2 + t][i] = saved;
      double numeric = (up - down) / (2 * eps);
      if (std::fabs(numeric - ref.grads[t][i]) > 1e-6 + 1e-4 * std::fabs(numeric)) {
        Die("mlp reference gradient " + std::to_string(t) + " disagrees with finite differences");
      }
    }
  }
  // The XLA step: recover its gradients from the update, (w - w') / lr.
  std::vector<const Literal*> pointers;
  for (const Literal& l : inputs) pointers.push_back(&l);
  auto data = TransferAll(cpu.client, pointers);
  Literal out = ExecuteAndFetch(cpu, Compile(cpu, MlpStep(d, lr)), Pointers(data));
  const std::vector<Literal>& parts = out.tuple_elements();
  if (parts.size() != 7) Die("mlp_train_step returned " + std::to_string(parts.size()) + " values, want 7");
  double loss = parts[6].data<float>()[0];
  if (std::fabs(loss - ref.loss) > 1e-5 * (1 + std::fabs(ref.loss))) {
    Die("mlp_train_step: loss " + std::to_string(loss) + ", reference " + std::to_string(ref.loss));
  }
  for (int t = 0; t < 6; ++t) {
    const std::vector<double>& want = ref.grads[t];
    double scale = 0;
    for (double v : want) scale = std::max(scale, std::fabs(v));
    absl::Span<const float> before = inputs[2 + t].data<float>(), after = parts[t].data<float>();
    for (size_t i = 0; i < want.size(); ++i) {
      double got = (static_cast<double>(before[i]) - after[i]) / lr;
      if (std::fabs(got - want[i]) > 1e-4 + 1e-3 * scale) {
        Die("mlp_train_step: gradient of parameter " + std::to_string(2 + t) + " at " + std::to_string(i) + " is " +
            std::to_string(got) + ", reference " + std::to_string(want[i]));
      }
    }
  }
  std::printf("# mlp_train_step: checked against a plain C++ step (batch %lld, %lld-%lld-%lld-%lld): loss and all "
              "gradients agree\n",
              static_cast<long long>(d.batch), static_cast<long long>(d.in), static_cast<long long>(d.h1),
              static_cast<long long>(d.h2), static_cast<long long>(d.out));
}

// Runs the PyTorch script; returns its best ms per step, or a negative value
// after printing why the reference was skipped.
double TorchStepMs(const std::string& script, int threads, int reps) {
  if (access(script.c_str(), R_OK) != 0) {
    std::printf("# mlp_train_step: PyTorch reference skipped: script %s not found\n", script.c_str());
    return -1;
  }
  std::string command = "/usr/bin/python3 '" + script + "' --threads=" + std::to_string(threads) +
                        " --reps=" + std::to_string(reps) + " 2>&1";
  std::fflush(stdout);
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) {
    std::printf("# mlp_train_step: PyTorch reference skipped: cannot run /usr/bin/python3\n");
    return -1;
  }
  double ms = -1;
  std::string output;
  char line[4096];
  while (std::fgets(line, sizeof(line), pipe) != nullptr) {
    std::string text = line;
    if (text.rfind("torch_ms=", 0) == 0) {
      ms = std::atof(text.c_str() + 9);
    } else if (text.rfind("#", 0) == 0) {
      std::printf("%s", text.c_str());
    } else {
      output += text;
    }
  }
  int status = pclose(pipe);
  if (ms <= 0) {
    while (!output.empty() && output.back() == '\n') output.pop_back();
    if (output.rfind("skip: ", 0) == 0) output = output.substr(6);
    if (output.empty()) output = "no output";
    if (status != 0) output += " (exit status " + std::to_string(status) + ")";
    std::printf("# mlp_train_step: PyTorch reference skipped: %s\n", output.c_str());
  }
  return ms;
}

void BenchMlp(const Target& cpu, int threads, const std::string& torch_script) {
  VerifyMlpStep(cpu);
  const MlpDims d{256, 784, 512, 512, 10};
  const int reps = 20;
  std::vector<Literal> inputs = MlpInputs(d, 200);
  std::vector<const Literal*> pointers;
  for (const Literal& l : inputs) pointers.push_back(&l);
  auto data = TransferAll(cpu.client, pointers);
  ExecutionHandle exe = Compile(cpu, MlpStep(d, 0.01f));
  double xla_ms = BestExecuteSeconds(cpu, exe, Pointers(data), 3, reps) * 1e3;
  double torch_ms = TorchStepMs(torch_script, threads, reps);
  if (torch_ms > 0) {
    Report("mlp_train_step", xla_ms, "ms", "pytorch_step", torch_ms, false);
  } else {
    bench::ReportWithoutReference("mlp_train_step", xla_ms, "ms");
  }
}

// ---------------------------------------------------------------------------
// Real models (tools/bench/real_models.h): GraphSAGE and SSD-MobileNet from
// ../shared/benchmarks/hlo and a StableHLO conformance program. For each:
// run time (us) vs the interpreter's, FLOP count (xla/analysis/hlo_cost_analysis),
// achieved GFLOP/s vs the FMA peak, and compile time vs the interpreter's.
// The CPU result is checked against the interpreter's first.

// The model as a computation that misses the compilation cache: an unused
// constant numbered `variant` changes the fingerprint, and the compiler's
// dead-code elimination drops it (as BuildChain's variant constant does).
XlaComputation ModelVariant(const HloModule& module, int variant) {
  std::unique_ptr<HloModule> copy = OrDie(module.Clone(), "clone " + module.name());
  copy->entry_computation()->AddInstruction(HloInstruction::CreateConstant(Literal::CreateR0<float>(variant)));
  return XlaComputation(copy->ToProto());
}

// Best compile milliseconds of `reps` compilations that each miss the
// cache; the last executable is kept in `*kept`, the others unregistered.
double BestCompileMs(const Target& target, const HloModule& module, int reps, int* variant, ExecutionHandle* kept) {
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    XlaComputation computation = ModelVariant(module, ++*variant);
    bool cache_hit = false;
    double s = BestSeconds(1, [&] { *kept = Compile(target, computation, &cache_hit); });
    if (cache_hit) Die(module.name() + ": unexpected compilation-cache hit");
    if (r + 1 < reps) CheckOk(target.client->UnregisterExecutable(*kept), "unregister executable");
    best = std::min(best, s * 1e3);
  }
  return best;
}

// ---------------------------------------------------------------------------
// Loading from the persistent executable cache in a fresh process: this
// process compiles the model into a new cache directory, then runs itself
// (--cache_load_child) to time the compile that loads it instead.

constexpr int kCacheLoadVariant = 1 << 30;

// The child's side: compiles the model on a service with the cache
// directory and prints "cache_load_ms VALUE LOADS COMPILATIONS" on stdout.
int CacheLoadChild(const std::string& dir, const std::string& model_file, int threads) {
  absl::StatusOr<bench::RealModel> model =
      bench::LoadHloModel("model", model_file, 0.1, 100, ErrorSpec{5e-3, 5e-3});
  if (!model.ok()) Die(model.status().ToString());
  XlaComputation computation = ModelVariant(*model->module, kCacheLoadVariant);
  ServiceOptions options;
  options.backend = "cpu";
  options.cache_dir = dir;
  Target target{"cpu", OrDie(ClientLibrary::GetOrCreateLocalClient(options), "client with a cache"), {}};
  target.options.mutable_debug_options()->set_xla_cpu_threads(threads);
  const auto start = std::chrono::steady_clock::now();
  Compile(target, computation);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  GetServiceInfoResponse info = OrDie(target.client->GetServiceInfo(), "service info");
  std::printf("cache_load_ms %.3f %lld %lld\n", ms, static_cast<long long>(info.persistent_cache_loads()),
              static_cast<long long>(info.compilations()));
  return 0;
}

// Runs this binary as a CacheLoadChild; returns its milliseconds, loads and
// compilations.
struct CacheLoadRun {
  double ms = -1;
  long long loads = -1, compilations = -1;
};
CacheLoadRun RunCacheLoadChild(const std::string& dir, const std::string& model_file, int threads) {
  // This binary, by path: popen's shell would be /proc/self/exe to itself.
  char exe[4096];
  const ssize_t exe_length = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (exe_length <= 0) Die("cache_load: cannot find this binary");
  exe[exe_length] = '\0';
  const std::string command = std::string(exe) + " --cache_load_child=" + dir + " --cache_load_model=" + model_file +
                              " --threads=" + std::to_string(threads);
  FILE* child = popen(command.c_str(), "r");
  if (child == nullptr) Die("cache_load: cannot run " + command);
  CacheLoadRun run;
  char line[256];
  while (std::fgets(line, sizeof(line), child) != nullptr) {
    std::sscanf(line, "cache_load_ms %lf %lld %lld", &run.ms, &run.loads, &run.compilations);
  }
  if (pclose(child) != 0 || run.ms < 0) Die("cache_load: the child failed: " + command);
  return run;
}

// A process compiles the model into a new cache directory; fresh processes
// running the same program then load it (the daemon or xla_run restarted).
void BenchCacheLoad(const bench::RealModel& model, int threads, double compile_ms) {
  char dir_template[] = "/tmp/xla_bench_cache_XXXXXX";
  if (mkdtemp(dir_template) == nullptr) Die("mkdtemp for the cache directory");
  const std::string dir = dir_template;
  const CacheLoadRun writer = RunCacheLoadChild(dir, model.file, threads);
  if (writer.compilations != 1) Die("cache_load: the first process did not compile");
  double best = 1e30;
  for (int r = 0; r < 3; ++r) {
    const CacheLoadRun run = RunCacheLoadChild(dir, model.file, threads);
    if (run.loads != 1 || run.compilations != 0) Die("cache_load: a fresh process compiled instead of loading");
    best = std::min(best, run.ms);
  }
  std::printf("# cache_load_ms_ssd_mobilenet: a fresh process's Compile that loads the saved executable (digest, "
              "file read, checks, JIT link), best of 3 processes; the process that compiled and saved it took "
              "%.0f ms\n",
              writer.ms);
  Report("cache_load_ms_ssd_mobilenet", best, "ms", "compile_ms_ssd_mobilenet", compile_ms, false);
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
}

void BenchModel(const Target& cpu, const Target& interpreter, const FmaPeak& peak,
                absl::StatusOr<bench::RealModel> loaded, bool cache_load = false) {
  if (!loaded.ok()) {
    if (loaded.status().code() != absl::StatusCode::kNotFound) Die(loaded.status().ToString());
    std::printf("# %s: skipped\n", std::string(loaded.status().message()).c_str());
    return;
  }
  bench::RealModel& model = *loaded;
  const std::string& name = model.name;
  std::printf("# %s: %s; %s\n", name.c_str(), model.file.c_str(), model.preparation.c_str());
  const HloCost cost = AnalyzeHloCost(*model.module);
  std::string left_out;
  for (const auto& [opcode, count] : cost.not_counted) left_out += " " + opcode + " x" + std::to_string(count);
  if (!left_out.empty()) {
    std::printf("# %s: the FLOP count leaves out or counts in part:%s\n", name.c_str(), left_out.c_str());
  }

  int variant = 0;
  ExecutionHandle cpu_exe, interpreter_exe;
  const double cpu_compile_ms = BestCompileMs(cpu, *model.module, 3, &variant, &cpu_exe);
  const double interpreter_compile_ms = BestCompileMs(interpreter, *model.module, 3, &variant, &interpreter_exe);

  std::vector<const Literal*> literals;
  for (const Literal& l : model.arguments) literals.push_back(&l);
  auto cpu_data = TransferAll(cpu.client, literals);
  auto interpreter_data = TransferAll(interpreter.client, literals);
  std::vector<GlobalData*> cpu_args = Pointers(cpu_data), interpreter_args = Pointers(interpreter_data);
  auto run_interpreter = [&] { OrDie(interpreter.client->Execute(interpreter_exe, interpreter_args), "execute"); };
  const double interpreter_s = bench::BestSecondsWithin(3, 10.0, run_interpreter);
  Literal want = ExecuteAndFetch(interpreter, interpreter_exe, interpreter_args);
  Literal got = ExecuteAndFetch(cpu, cpu_exe, cpu_args);
  CheckOk(literal_comparison::Near(want, got, model.tolerance), name + ": CPU result differs from the interpreter's");

  auto run_cpu = [&] { OrDie(cpu.client->Execute(cpu_exe, cpu_args), "execute " + name); };
  for (int i = 0; i < 2; ++i) run_cpu();
  const double cpu_s = bench::BestSecondsWithin(50, 3.0, run_cpu);
  Report(name + "_us", cpu_s * 1e6, "us", "interpreter_us", interpreter_s * 1e6, false);
  std::printf("# %s_flops: counted by xla/analysis/hlo_cost_analysis (dot 2*M*N*K, convolution 2*outputs*window*"
              "features per group, elementwise and reduce 1 per element): a count, no reference\n", name.c_str());
  bench::ReportWithoutReference(name + "_flops", static_cast<double>(cost.flops), "FLOP");
  const double gflops = cost.flops / cpu_s / 1e9;
  if (peak.gflops > 0) {
    Report(name + "_gflops", gflops, "GFLOP/s", "fma_peak_f32", peak.gflops, true);
  } else {
    bench::ReportWithoutReference(name + "_gflops", gflops, "GFLOP/s");
  }
  Report(name + "_compile_ms", cpu_compile_ms, "ms", "interpreter_compile_ms", interpreter_compile_ms, false);
  if (cache_load) {
    BenchCacheLoad(model, static_cast<int>(cpu.options.debug_options().xla_cpu_threads()), cpu_compile_ms);
  }
}

// The StableHLO program: the conformance file with the most FLOPs that is
// dot- or convolution-based (every dot_general file is a 4x3 by 3x6
// product; this convolution is 1x28x28x1 by a 3x3x1x16 kernel with
// dilation, 180 KFLOP).
constexpr char kStableHloModel[] = "conv_general_dilated_float32_1_28_28_1_float32_3_3_1_16.mlir";

void BenchModels(const Target& cpu, const Target& interpreter, const FmaPeak& peak) {
  const std::string shared = bench::SharedDir();
  if (access(shared.c_str(), R_OK) != 0) {
    std::printf("# models: skipped: the shared folder %s is absent (set XLA_SHARED_DIR to it)\n", shared.c_str());
    return;
  }
  std::printf("# models: from %s; the FMA peak is f32 while most of GraphSAGE and SSD-MobileNet computes in bf16\n",
              shared.c_str());
  const std::string hlo = shared + "/benchmarks/hlo/";
  // GraphSAGE's integer arguments are node ids into its 56945-row
  // embedding tables (../shared/benchmarks/hlo/SOURCE.md).
  BenchModel(cpu, interpreter, peak,
             bench::LoadHloModel("model_graphsage", hlo + "graphsage_tf.hlo", 0.1, 56945, ErrorSpec{1e-5, 1e-5}));
  // bf16 activations: the backend sums convolutions in another order, so
  // results may round to a neighbouring bf16 value (cpu_real_model_test's
  // tolerance).
  BenchModel(cpu, interpreter, peak,
             bench::LoadHloModel("model_ssd_mobilenet", hlo + "ssd_mobilenet_tf.hlo", 0.1, 100, ErrorSpec{5e-3, 5e-3}),
             /*cache_load=*/true);
  BenchModel(cpu, interpreter, peak,
             bench::LoadStableHloModel("model_stablehlo_conv",
                                       shared + "/conformance/stablehlo/testdata/" + kStableHloModel,
                                       ErrorSpec{1e-4, 1e-4}));
}

// ---------------------------------------------------------------------------
// Compile time of generated modules with exactly N entry instructions.
// Reference: the same modules through the interpreter backend, whose compile
// is the service path alone (proto to HloModule, verification, cache key)
// with no optimization or code generation; the ratio is the share of the
// cpu backend's compile time that is not its own work.

// A chain of elementwise ops over f32[32,128], with a reduce + broadcast
// every few ops. `variant` changes a constant so that every compile misses
// the service's compilation cache.
XlaComputation BuildChain(int64_t instructions, int variant) {
  XlaBuilder b("chain_" + std::to_string(instructions));
  XlaComputation add = ScalarComputation(&b, "add", Add);
  const Shape shape = ShapeUtil::MakeShape(F32, {32, 128});
  XlaOp x = Parameter(&b, 0, shape, "x");
  XlaOp scale = Broadcast(ConstantR0<float>(&b, 0.5f + 0.001f * variant), {32, 128});
  XlaOp zero = ConstantR0<float>(&b, 0.0f);
  int64_t count = 4;  // x, the constant, its broadcast, zero
  XlaOp v = x;
  for (int64_t i = 0; count < instructions; ++i) {
    if (i % 8 == 7 && instructions - count >= 3) {
      v = Sub(v, BroadcastInDim(Reduce(v, zero, add, {1}), {32, 128}, {0}));
      count += 3;
      continue;
    }
    switch (i % 5) {
      case 0: v = Add(v, x); break;
      case 1: v = Mul(v, scale); break;
      case 2: v = Tanh(v); break;
      case 3: v = Sub(v, x); break;
      default: v = Max(v, x); break;
    }
    ++count;
  }
  XlaComputation computation = OrDie(b.Build(v), "build chain");
  for (const HloComputationProto& c : computation.proto().computations()) {
    if (c.id() == computation.proto().entry_computation_id() && c.instructions_size() != instructions) {
      Die("chain module has " + std::to_string(c.instructions_size()) + " instructions, want " +
          std::to_string(instructions));
    }
  }
  return computation;
}

void BenchCompile(const Target& cpu, const Target& interpreter, const std::vector<int64_t>& sizes, int repeat) {
  int variant = 0;
  for (int64_t n : sizes) {
    const int reps = repeat > 0 ? repeat : n >= 1000 ? 3 : 5;
    auto compile_ms = [&](const Target& target) {
      double best = 1e30;
      for (int r = 0; r < reps + 1; ++r) {  // the first is a warm-up
        XlaComputation computation = BuildChain(n, ++variant);
        bool cache_hit = false;
        ExecutionHandle exe;
        double s = BestSeconds(1, [&] { exe = Compile(target, computation, &cache_hit); });
        if (cache_hit) Die("compile_ms: unexpected compilation-cache hit");
        CheckOk(target.client->UnregisterExecutable(exe), "unregister executable");
        if (r > 0) best = std::min(best, s * 1e3);
      }
      return best;
    };
    double cpu_ms = compile_ms(cpu);
    double interpreter_ms = compile_ms(interpreter);
    Report("compile_ms_" + std::to_string(n), cpu_ms, "ms", "interpreter_compile_ms", interpreter_ms, false);
    if (n == 1000) {
      // The same computation again: the service's in-memory cache answers.
      XlaComputation computation = BuildChain(n, ++variant);
      ExecutionHandle exe = Compile(cpu, computation);
      bool cache_hit = false;
      const int hits = 20;
      const double s = BestSeconds(5, [&] {
        for (int i = 0; i < hits; ++i) exe = Compile(cpu, computation, &cache_hit);
      });
      if (!cache_hit) Die("cache_hit_us: the second compile missed the cache");
      Report("cache_hit_us", s / hits * 1e6, "us", "compile_us_1000", cpu_ms * 1e3, false);
    }
  }
}

// ---------------------------------------------------------------------------
// Per-call overhead: a 4-element add with arguments on the service.

// x + y on f32[4]: a run that is nearly all per-call overhead.
XlaComputation TinyAdd() {
  XlaBuilder b("tiny_add");
  Add(Parameter(&b, 0, ShapeUtil::MakeShape(F32, {4}), "x"), Parameter(&b, 1, ShapeUtil::MakeShape(F32, {4}), "y"));
  return OrDie(b.Build(), "build tiny_add");
}

// The same tiny add from two sessions at the same time, one thread each:
// on one service (a daemon's clients), or on a service each (nothing shared
// but the process and the machine: the reference). Sessions that shared a
// lock, or counters written on every call, on the execute path would wait
// for each other on one service and not on two. Returns the slower
// session's best time per call.
double OverheadOfTwoConcurrentSessions(bool shared_service) {
  const XlaComputation computation = TinyAdd();
  constexpr int kSessions = 2;
  constexpr int kRuns = 2000;
  struct Caller {
    std::shared_ptr<Service> service;
    std::unique_ptr<SessionService> session;
    std::unique_ptr<Client> client;
    ExecutionHandle exe;
    std::vector<std::unique_ptr<GlobalData>> data;
    std::vector<GlobalData*> args;
  };
  std::vector<Caller> callers(kSessions);
  ExecutionOptions options;
  options.mutable_debug_options()->set_xla_cpu_threads(1);
  for (Caller& c : callers) {
    c.service = shared_service && &c != &callers[0]
                    ? callers[0].service
                    : std::shared_ptr<Service>(OrDie(Service::Create("cpu", ServiceLimits{}), "service"));
    c.session = std::make_unique<SessionService>(c.service, c.service->OpenSession("bench"), /*owns_session=*/true);
    c.client = std::make_unique<Client>(c.session.get());
    c.exe = OrDie(c.client->Compile(computation, {}, &options), "compile tiny_add");
    Literal x = Literal::CreateR1<float>({1, 2, 3, 4}), y = Literal::CreateR1<float>({5, 6, 7, 8});
    c.data = TransferAll(c.client.get(), {&x, &y});
    c.args = Pointers(c.data);
  }
  // Rounds of both sessions at once (the first a warm-up); each round's
  // figure is the slower session's.
  double best = 1e30;
  for (int round = 0; round < 8; ++round) {
    std::vector<double> seconds(kSessions);
    std::vector<std::thread> threads;
    for (int i = 0; i < kSessions; ++i) {
      threads.emplace_back([&, i] {
        Caller& c = callers[i];
        const auto start = std::chrono::steady_clock::now();
        for (int r = 0; r < kRuns; ++r) OrDie(c.client->Execute(c.exe, c.args), "execute tiny_add");
        seconds[i] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      });
    }
    for (std::thread& t : threads) t.join();
    if (round > 0) best = std::min(best, *std::max_element(seconds.begin(), seconds.end()) / kRuns * 1e6);
  }
  return best;
}

void BenchOverhead(const Target& cpu, const Target& interpreter) {
  auto overhead_us = [](const Target& target) {
    ExecutionHandle exe = Compile(target, TinyAdd());
    Literal x = Literal::CreateR1<float>({1, 2, 3, 4}), y = Literal::CreateR1<float>({5, 6, 7, 8});
    auto data = TransferAll(target.client, {&x, &y});
    std::vector<GlobalData*> args = Pointers(data);
    Literal out = ExecuteAndFetch(target, exe, args);
    if (out != Literal::CreateR1<float>({6, 8, 10, 12})) Die("tiny_add on " + target.backend + ": wrong result");
    const int runs = 2000;
    auto batch = [&] {
      for (int i = 0; i < runs; ++i) OrDie(target.client->Execute(exe, args), "execute tiny_add");
    };
    batch();  // warm-up
    return BestSeconds(5, batch) / runs * 1e6;
  };
  Report("execute_overhead_us", overhead_us(cpu), "us", "interpreter_execute_us", overhead_us(interpreter), false);
  const double two_services_us = OverheadOfTwoConcurrentSessions(/*shared_service=*/false);
  Report("execute_overhead_us_2sessions", OverheadOfTwoConcurrentSessions(/*shared_service=*/true), "us",
         "execute_overhead_us_2services", two_services_us, false);
}

// ---------------------------------------------------------------------------

std::string DefaultTorchScript() {
  // Next to the binary in its Bazel runfiles, else relative to the source root.
  char exe[4096];
  ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (len > 0) {
    exe[len] = '\0';
    std::string candidate = std::string(exe) + ".runfiles/xla_project/tools/bench/torch_mlp_step.py";
    if (access(candidate.c_str(), R_OK) == 0) return candidate;
  }
  return "tools/bench/torch_mlp_step.py";
}

int Main(int argc, char** argv) {
  int threads = AffinityCores();
  std::string torch_script = DefaultTorchScript();
  std::string cache_load_dir, cache_load_model;  // the child of BenchCacheLoad
  std::set<std::string> groups;
  std::vector<int64_t> compile_sizes = {10, 100, 1000};
  int compile_repeat = 0;  // 0: the bench's own counts
  std::string dump_to;
  const std::set<std::string> known = {"elementwise", "reduce", "matmul",  "conv",
                                       "mlp",         "models", "compile", "overhead"};
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--threads=", 0) == 0) {
      threads = std::atoi(arg.c_str() + 10);
      if (threads < 1) Die("--threads wants a positive count");
    } else if (arg.rfind("--cache_load_child=", 0) == 0) {
      cache_load_dir = arg.substr(19);
    } else if (arg.rfind("--cache_load_model=", 0) == 0) {
      cache_load_model = arg.substr(19);
    } else if (arg.rfind("--compile_sizes=", 0) == 0) {
      // For profiling one size: --compile_sizes=10 --compile_repeat=500.
      compile_sizes.clear();
      for (absl::string_view size : absl::StrSplit(arg.substr(16), ',')) {
        int64_t n = 0;
        if (!absl::SimpleAtoi(size, &n) || n < 4) Die("--compile_sizes wants instruction counts of at least 4");
        compile_sizes.push_back(n);
      }
    } else if (arg.rfind("--compile_repeat=", 0) == 0) {
      compile_repeat = std::atoi(arg.c_str() + 17);
      if (compile_repeat < 1) Die("--compile_repeat wants a positive count");
    } else if (arg.rfind("--dump_to=", 0) == 0) {
      dump_to = arg.substr(10);
    } else if (arg.rfind("--torch_script=", 0) == 0) {
      torch_script = arg.substr(15);
    } else if (known.count(arg)) {
      groups.insert(arg);
    } else {
      Die("unknown argument '" + arg + "' (groups: elementwise reduce matmul conv mlp models compile overhead)");
    }
  }
  if (!cache_load_dir.empty()) return CacheLoadChild(cache_load_dir, cache_load_model, threads);
  if (groups.empty()) groups = known;
  std::printf("# cpu_bench: %d thread(s) (affinity cores %d), CPU: %s\n", threads, AffinityCores(),
              CpuModel().c_str());
  std::printf("# timing: best of N runs after warm-up runs (steady_clock); XLA runs are Execute calls with "
              "arguments already on the service, result released; GB/s and matmul figures alternate with their "
              "reference, one run of each per round\n");
  std::fflush(stdout);
  Target cpu = MakeTarget("cpu", threads);
  if (!dump_to.empty()) cpu.options.mutable_debug_options()->set_xla_dump_to(dump_to);
  Target interpreter = MakeTarget("interpreter", threads);
  if (groups.count("elementwise")) BenchElementwise(cpu, threads);
  if (groups.count("reduce")) BenchReduce(cpu, threads);
  FmaPeak peak;
  if (groups.count("matmul") || groups.count("models")) peak = MeasureAndReportFmaPeak(threads);
  if (groups.count("matmul")) BenchMatmul(cpu, threads, peak);
  if (groups.count("conv")) BenchConvolution(cpu, threads);
  if (groups.count("mlp")) BenchMlp(cpu, threads, torch_script);
  if (groups.count("models")) BenchModels(cpu, interpreter, peak);
  if (groups.count("compile")) BenchCompile(cpu, interpreter, compile_sizes, compile_repeat);
  if (groups.count("overhead")) BenchOverhead(cpu, interpreter);
  return 0;
}

}  // namespace
}  // namespace xla

int main(int argc, char** argv) { return xla::Main(argc, argv); }
