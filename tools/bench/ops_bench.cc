// Single-op benchmark: ops the CPU backend hands to its runtime (sort, topk,
// fft, cholesky, triangular-solve), each an HLO text module compiled by the
// "cpu" backend, next to a reference measured in the same run:
//   sort_f32_1M                sort of 2^20 random f32 (LT comparator), in M
//                              elements/s, vs torch.sort (torch_ops.py) and vs
//                              std::sort on the same data in C++ (each run a
//                              copy of the data, then the sort: XLA's sort
//                              copies its operand into the result too)
//   topk_f32_1Mx128_k8         topk k=8, largest, over the rows of
//                              f32[8192,128] (1M elements) in M elements/s
//                              vs torch.topk(x, 8, dim=-1)
//   fft_c64_1M                 FFT of one c64[2^20], ms, vs torch.fft.fft
//   rfft_f32_4096x1024         RFFT over the rows of f32[4096,1024], ms, vs
//                              torch.fft.rfft(x, dim=-1)
//   cholesky_f64_1024          lower Cholesky of an SPD f64[1024,1024], ms, vs
//                              Eigen::LLT<Eigen::MatrixXd> on the same matrix
//   triangular_solve_f64_1024  l x = b, l lower f64[1024,1024], b
//                              f64[1024,1024], ms, vs Eigen's
//                              l.triangularView<Eigen::Lower>().solve(b)
// The topk shape: the literal reading f32[1048576,128] (512 MiB) takes
// about 11 s per run on the CPU backend (its topk is a stable sort of every
// whole row of (value, index) pairs through the runtime's comparator
// callback) and about 2 s in torch.topk on a 2-core machine: too long for a
// figure repeated N times. The figure keeps its name and has 2^20 elements,
// as sort_f32_1M and fft_c64_1M do; --topk_rows=1048576 is the literal one.
// Every XLA result is checked once against the C++ reference first (sort:
// std::sort's output; topk: the 8 largest of each row and their positions;
// fft, rfft: bins computed directly in long double; cholesky, solve: Eigen's
// result). The torch script makes data of the same shapes and distributions
// (not the same values). Timings are the best of up to N runs (within a few
// seconds) after a warm-up run; XLA runs are Execute calls on arguments
// already transferred, including the result's allocation. The thread count
// is the cores of the affinity mask (--threads=N overrides), given to the
// cpu backend (xla_cpu_threads) and to torch; std::sort and Eigen run on one
// thread, as the CPU runtime does for one sort slice and one matrix, and
// Eigen is compiled with the default flags (no AVX), as the runtime's is.
//
// Usage: ops_bench [--threads=N] [--reps=N] [--topk_rows=N] [--torch_script=PATH]
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "Eigen/Cholesky"
#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "backends/backend.h"
#include "tools/bench/bench_report.h"
#include "xla/hlo/hlo_parser.h"
#include "xla/literal.h"
#include "xla/shape_util.h"

namespace xla {
namespace {

[[noreturn]] void Die(const std::string& message) {
  std::fflush(stdout);
  std::fprintf(stderr, "ops_bench: %s\n", message.c_str());
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

struct Options {
  int threads = AffinityCores();
  int reps = 10;
  int64_t topk_rows = 8192;
  std::string torch_script;
};

// Best seconds of `fn` after one warm-up run: up to `reps` runs, 3 s.
double Time(const Options& o, const std::function<void()>& fn) {
  fn();
  return bench::BestSecondsWithin(o.reps, 3.0, fn);
}

// One compiled module and its transferred arguments.
class CompiledOp {
 public:
  CompiledOp(Backend* backend, int threads, const std::string& text, const std::vector<const Literal*>& args)
      : backend_(backend) {
    DebugOptions options;
    options.set_xla_cpu_threads(threads);
    exe_ = OrDie(backend->compiler()->Compile(OrDie(ParseHloModule(text), "parse"), options), "compile");
    for (const Literal* a : args) {
      args_.push_back(OrDie(backend->transfer_manager()->TransferLiteralToDevice(*a), "transfer"));
    }
  }
  std::shared_ptr<DeviceBuffer> Run() const { return OrDie(exe_->Execute(args_), "execute"); }
  Literal RunToLiteral() const {
    return OrDie(backend_->transfer_manager()->TransferLiteralFromDevice(*Run()), "fetch");
  }

 private:
  Backend* backend_;
  std::unique_ptr<Executable> exe_;
  std::vector<std::shared_ptr<const DeviceBuffer>> args_;
};

// Uniform in [-1, 1] (real and imaginary parts).
template <typename T>
Literal Random(PrimitiveType type, std::vector<int64_t> dims, uint32_t seed) {
  Literal literal(ShapeUtil::MakeShape(type, dims));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(-1, 1);
  for (T& v : literal.data<T>()) {
    if constexpr (std::is_same_v<T, std::complex<float>>) {
      v = T(dist(rng), dist(rng));
    } else {
      v = T(dist(rng));
    }
  }
  return literal;
}

// The torch figures (name -> best ms), or empty after printing why not.
std::map<std::string, double> TorchMs(const Options& o) {
  std::map<std::string, double> ms;
  std::string command = absl::StrCat("/usr/bin/python3 '", o.torch_script, "' --threads=", o.threads,
                                     " --reps=", o.reps, " --topk_rows=", o.topk_rows, " 2>&1");
  std::fflush(stdout);
  FILE* pipe = access(o.torch_script.c_str(), R_OK) == 0 ? popen(command.c_str(), "r") : nullptr;
  std::string other;
  char line[4096];
  while (pipe != nullptr && std::fgets(line, sizeof(line), pipe) != nullptr) {
    std::string text = line;
    size_t eq = text.find("_ms=");
    if (text[0] == '#') {
      std::printf("%s", text.c_str());
    } else if (eq != std::string::npos && text.find(' ') == std::string::npos) {
      ms[text.substr(0, eq)] = std::atof(text.c_str() + eq + 4);
    } else {
      other += text;
    }
  }
  int status = pipe != nullptr ? pclose(pipe) : -1;
  if (ms.empty()) {
    while (!other.empty() && other.back() == '\n') other.pop_back();
    if (other.rfind("skip: ", 0) == 0) other = other.substr(6);
    if (pipe == nullptr) other = "cannot run " + o.torch_script;
    if (status > 0) other += absl::StrCat(" (exit status ", status, ")");
    std::printf("# torch references skipped: %s\n", other.empty() ? "no output" : other.c_str());
  }
  return ms;
}

void ReportVsTorch(const std::map<std::string, double>& torch, const std::string& name, double seconds,
                   double elements) {
  // Element rates for sort and topk (higher is better), else ms.
  const bool rate = elements > 0;
  auto value = [&](double s) { return rate ? elements / s / 1e6 : s * 1e3; };
  const std::string unit = rate ? "Melem/s" : "ms";
  auto it = torch.find(name);
  if (it == torch.end()) {
    if (!torch.empty()) std::printf("# %s: torch_ops.py printed no %s_ms\n", name.c_str(), name.c_str());
    bench::ReportWithoutReference(name, value(seconds), unit);
  } else {
    bench::Report(name, value(seconds), unit, "torch", value(it->second / 1e3), rate);
  }
}

void BenchSort(Backend* backend, const Options& o, const std::map<std::string, double>& torch) {
  constexpr int64_t n = 1 << 20;
  Literal x = Random<float>(F32, {n}, 1);
  CompiledOp op(backend, o.threads, absl::StrCat(R"(HloModule sort
lt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=LT
}
ENTRY e {
  x = f32[)", n, R"(] parameter(0)
  ROOT s = f32[)", n, R"(] sort(x), dimensions={0}, to_apply=lt
})"),
           {&x});
  std::vector<float> want(x.data<float>().begin(), x.data<float>().end());
  std::sort(want.begin(), want.end());
  Literal got = op.RunToLiteral();
  if (!std::equal(want.begin(), want.end(), got.data<float>().begin())) Die("sort_f32_1M: differs from std::sort");
  const double xla = Time(o, [&] { op.Run(); });
  std::vector<float> copy(n);
  const double ref = Time(o, [&] {
    std::copy(x.data<float>().begin(), x.data<float>().end(), copy.begin());
    std::sort(copy.begin(), copy.end());
  });
  ReportVsTorch(torch, "sort_f32_1M", xla, n);
  bench::Report("sort_f32_1M", n / xla / 1e6, "Melem/s", "std_sort", n / ref / 1e6, true);
}

void BenchTopK(Backend* backend, const Options& o, const std::map<std::string, double>& torch) {
  const int64_t rows = o.topk_rows, cols = 128, k = 8;
  Literal x = Random<float>(F32, {rows, cols}, 2);
  CompiledOp op(backend, o.threads, absl::StrCat("HloModule topk\nENTRY e {\n  x = f32[", rows, ",", cols,
                                            "] parameter(0)\n  ROOT t = (f32[", rows, ",", k, "], s32[", rows, ",", k,
                                            "]) topk(x), k=", k, ", largest=true\n}\n"),
           {&x});
  std::vector<Literal> got = op.RunToLiteral().DecomposeTuple();
  absl::Span<const float> in = x.data<float>(), values = got[0].data<float>();
  absl::Span<const int32_t> index = got[1].data<int32_t>();
  std::vector<float> row(cols);
  for (int64_t r = 0; r < rows; ++r) {
    std::copy(in.begin() + r * cols, in.begin() + (r + 1) * cols, row.begin());
    std::partial_sort(row.begin(), row.begin() + k, row.end(), std::greater<float>());
    for (int64_t i = 0; i < k; ++i) {
      const int32_t at = index[r * k + i];
      if (values[r * k + i] != row[i] || at < 0 || at >= cols || in[r * cols + at] != row[i]) {
        Die(absl::StrCat("topk_f32_1Mx128_k8: row ", r, " entry ", i, " is ", values[r * k + i], " at ", at,
                         ", want ", row[i]));
      }
    }
  }
  std::printf("# topk_f32_1Mx128_k8: operand f32[%lld,%lld] (see ops_bench.cc's header)\n",
              static_cast<long long>(rows), static_cast<long long>(cols));
  ReportVsTorch(torch, "topk_f32_1Mx128_k8", Time(o, [&] { op.Run(); }), rows * cols);
}

// exp(-2 pi i j / n) for j < n, in long double.
std::vector<std::complex<long double>> Twiddles(int64_t n) {
  const long double two_pi = 6.283185307179586476925286766559L;
  std::vector<std::complex<long double>> w(n);
  for (int64_t j = 0; j < n; ++j) w[j] = std::polar(1.0L, -two_pi * j / n);
  return w;
}

// Dies unless `got` is bin k of the DFT of x[0..n), summed directly in long
// double (w: Twiddles(n)), within rounding: 2e-6 log2(n) ||x||_2.
template <typename T>
void CheckBin(const std::string& name, const T* x, const std::vector<std::complex<long double>>& w, int64_t k,
              std::complex<float> got) {
  const int64_t n = w.size();
  long double norm = 0;
  std::complex<long double> want = 0;
  for (int64_t j = 0; j < n; ++j) {
    norm += std::norm(std::complex<long double>(x[j]));
    want += std::complex<long double>(x[j]) * w[j * k % n];
  }
  const long double error = std::abs(std::complex<long double>(got) - want);
  if (!(error <= 2e-6L * std::log2(static_cast<long double>(n)) * std::sqrt(norm))) {
    Die(absl::StrCat(name, ": bin ", k, " is (", got.real(), ",", got.imag(), "), want (",
                     static_cast<double>(want.real()), ",", static_cast<double>(want.imag()), ")"));
  }
}

void BenchFft(Backend* backend, const Options& o, const std::map<std::string, double>& torch) {
  constexpr int64_t n = 1 << 20;
  Literal x = Random<std::complex<float>>(C64, {n}, 3);
  CompiledOp op(backend, o.threads,
           absl::StrCat("HloModule fft\nENTRY e {\n  x = c64[", n, "] parameter(0)\n  ROOT f = c64[", n,
                        "] fft(x), fft_type=FFT, fft_length={", n, "}\n}\n"),
           {&x});
  Literal got = op.RunToLiteral();
  const std::vector<std::complex<long double>> w = Twiddles(n);
  for (int64_t k : {int64_t{0}, int64_t{1}, int64_t{12345}, n / 2, n - 1}) {
    CheckBin("fft_c64_1M", x.data<std::complex<float>>().data(), w, k, got.data<std::complex<float>>()[k]);
  }
  ReportVsTorch(torch, "fft_c64_1M", Time(o, [&] { op.Run(); }), 0);
}

void BenchRfft(Backend* backend, const Options& o, const std::map<std::string, double>& torch) {
  constexpr int64_t rows = 4096, n = 1024, h = n / 2 + 1;
  Literal x = Random<float>(F32, {rows, n}, 5);
  CompiledOp op(backend, o.threads,
           absl::StrCat("HloModule rfft\nENTRY e {\n  x = f32[", rows, ",", n, "] parameter(0)\n  ROOT f = c64[", rows,
                        ",", h, "] fft(x), fft_type=RFFT, fft_length={", n, "}\n}\n"),
           {&x});
  Literal got = op.RunToLiteral();
  const std::vector<std::complex<long double>> w = Twiddles(n);
  for (int64_t r : {int64_t{0}, int64_t{1}, int64_t{2049}, rows - 1}) {
    for (int64_t k = 0; k < h; ++k) {
      CheckBin("rfft_f32_4096x1024", x.data<float>().data() + r * n, w, k, got.data<std::complex<float>>()[r * h + k]);
    }
  }
  ReportVsTorch(torch, "rfft_f32_4096x1024", Time(o, [&] { op.Run(); }), 0);
}

using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Dies unless the row-major `got` is within 1e-9 (relative to its largest
// entry) of `want`.
void CheckClose(const std::string& name, const Literal& got, const Eigen::MatrixXd& want) {
  Eigen::Map<const RowMajor> g(got.data<double>().data(), want.rows(), want.cols());
  const double error = (g - want).cwiseAbs().maxCoeff(), scale = want.cwiseAbs().maxCoeff();
  if (!(error <= 1e-9 * scale)) Die(absl::StrCat(name, ": differs from Eigen's by ", error, " (scale ", scale, ")"));
}

void BenchCholesky(Backend* backend, const Options& o) {
  constexpr int64_t n = 1024;
  // Symmetric, entries in [-1, 1] off the diagonal, n on it: positive
  // definite (diagonally dominant) and well conditioned.
  Literal a = Random<double>(F64, {n, n}, 6);
  Eigen::Map<RowMajor> am(a.data<double>().data(), n, n);
  am = (am + am.transpose()) / 2;
  am.diagonal().setConstant(n);
  CompiledOp op(backend, o.threads,
           absl::StrCat("HloModule cholesky\nENTRY e {\n  a = f64[", n, ",", n, "] parameter(0)\n  ROOT l = f64[", n,
                        ",", n, "] cholesky(a), lower=true\n}\n"),
           {&a});
  const Eigen::MatrixXd matrix = am;
  Eigen::LLT<Eigen::MatrixXd> llt(matrix);
  if (llt.info() != Eigen::Success) Die("cholesky_f64_1024: Eigen's LLT failed");
  CheckClose("cholesky_f64_1024", op.RunToLiteral(), llt.matrixL().toDenseMatrix());
  const double xla = Time(o, [&] { op.Run(); });
  const double ref = Time(o, [&] { llt.compute(matrix); });
  bench::Report("cholesky_f64_1024", xla * 1e3, "ms", "eigen_llt", ref * 1e3, false);
}

void BenchTriangularSolve(Backend* backend, const Options& o) {
  constexpr int64_t n = 1024;
  // Lower triangle in [-1, 1] with n on the diagonal: well conditioned. The
  // upper triangle holds values too (the op must not read them).
  Literal a = Random<double>(F64, {n, n}, 7);
  Eigen::Map<RowMajor>(a.data<double>().data(), n, n).diagonal().setConstant(n);
  Literal b = Random<double>(F64, {n, n}, 8);
  CompiledOp op(backend, o.threads,
           absl::StrCat("HloModule trsm\nENTRY e {\n  a = f64[", n, ",", n, "] parameter(0)\n  b = f64[", n, ",", n,
                        "] parameter(1)\n  ROOT x = f64[", n, ",", n,
                        "] triangular-solve(a, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE\n}\n"),
           {&a, &b});
  const Eigen::MatrixXd l = Eigen::Map<const RowMajor>(a.data<double>().data(), n, n);
  const Eigen::MatrixXd rhs = Eigen::Map<const RowMajor>(b.data<double>().data(), n, n);
  Eigen::MatrixXd x = l.triangularView<Eigen::Lower>().solve(rhs);
  CheckClose("triangular_solve_f64_1024", op.RunToLiteral(), x);
  const double xla = Time(o, [&] { op.Run(); });
  const double ref = Time(o, [&] { x = l.triangularView<Eigen::Lower>().solve(rhs); });
  bench::Report("triangular_solve_f64_1024", xla * 1e3, "ms", "eigen_trsm", ref * 1e3, false);
}

std::string DefaultTorchScript() {
  // Next to the binary in its Bazel runfiles, else relative to the source root.
  char exe[4096];
  ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (len > 0) {
    exe[len] = '\0';
    std::string candidate = std::string(exe) + ".runfiles/xla_project/tools/bench/torch_ops.py";
    if (access(candidate.c_str(), R_OK) == 0) return candidate;
  }
  return "tools/bench/torch_ops.py";
}

int Main(int argc, char** argv) {
  Options o;
  o.torch_script = DefaultTorchScript();
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--threads=", 0) == 0) {
      o.threads = std::atoi(arg.c_str() + 10);
    } else if (arg.rfind("--reps=", 0) == 0) {
      o.reps = std::atoi(arg.c_str() + 7);
    } else if (arg.rfind("--topk_rows=", 0) == 0) {
      o.topk_rows = std::atoll(arg.c_str() + 12);
    } else if (arg.rfind("--torch_script=", 0) == 0) {
      o.torch_script = arg.substr(15);
    } else {
      Die("unknown argument '" + arg +
          "' (usage: ops_bench [--threads=N] [--reps=N] [--topk_rows=N] [--torch_script=PATH])");
    }
  }
  if (o.threads < 1 || o.reps < 1 || o.topk_rows < 1) Die("--threads, --reps and --topk_rows must be positive");
  std::printf("# ops_bench: %d thread(s) (affinity cores %d); best of up to %d runs after a warm-up\n", o.threads,
              AffinityCores(), o.reps);
  const std::map<std::string, double> torch = TorchMs(o);
  std::unique_ptr<Backend> backend = OrDie(BackendRegistry::Create("cpu"), "cpu backend");
  BenchSort(backend.get(), o, torch);
  BenchTopK(backend.get(), o, torch);
  BenchFft(backend.get(), o, torch);
  BenchRfft(backend.get(), o, torch);
  BenchCholesky(backend.get(), o);
  BenchTriangularSolve(backend.get(), o);
  return 0;
}

}  // namespace
}  // namespace xla

int main(int argc, char** argv) { return xla::Main(argc, argv); }
