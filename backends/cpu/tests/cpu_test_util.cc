#include "backends/cpu/tests/cpu_test_util.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>

#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_executable.h"
#include "gtest/gtest.h"
#include "xla/evaluator/hlo_evaluator.h"
#include "xla/hlo/hlo_parser.h"
#include "xla/primitive_util.h"
#include "xla/status_macros.h"

namespace xla {
namespace cpu_test {

std::unique_ptr<Backend> CpuBackendOrDie() {
  auto backend = BackendRegistry::Create("cpu");
  EXPECT_TRUE(backend.ok()) << backend.status();
  return std::move(backend).value();
}

absl::StatusOr<Literal> RunOnCpu(const std::string& text, const std::vector<Literal>& args,
                                 const DebugOptions& options) {
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, ParseHloModule(text));
  return RunOnCpu(std::move(module), args, options);
}

absl::StatusOr<Literal> RunOnCpu(std::unique_ptr<HloModule> module, const std::vector<Literal>& args,
                                 const DebugOptions& options) {
  ASSIGN_OR_RETURN(std::unique_ptr<Backend> backend, BackendRegistry::Create("cpu"));
  ASSIGN_OR_RETURN(std::unique_ptr<Executable> executable, backend->compiler()->Compile(std::move(module), options));
  std::vector<std::shared_ptr<const DeviceBuffer>> buffers;
  for (const Literal& a : args) {
    ASSIGN_OR_RETURN(std::shared_ptr<DeviceBuffer> b, DeviceBuffer::FromLiteral(a));
    buffers.push_back(std::move(b));
  }
  ASSIGN_OR_RETURN(std::shared_ptr<DeviceBuffer> result, executable->Execute(buffers));
  return result->ToLiteral();
}

void CompareWithEvaluator(const std::string& text, const std::vector<Literal>& args, const ErrorSpec& tolerance,
                          const DebugOptions& options) {
  auto module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  CompareWithEvaluator(std::move(*module), args, tolerance, options);
}

void CompareWithEvaluator(std::unique_ptr<HloModule> module, const std::vector<Literal>& args,
                          const ErrorSpec& tolerance, const DebugOptions& options) {
  std::vector<const Literal*> arg_ptrs;
  for (const Literal& a : args) arg_ptrs.push_back(&a);
  auto expected = HloEvaluator().Evaluate(*module, arg_ptrs);
  ASSERT_TRUE(expected.ok()) << expected.status();
  auto actual = RunOnCpu(std::move(module), args, options);
  ASSERT_TRUE(actual.ok()) << actual.status();
  EXPECT_EQ(actual->shape().ToString(true), expected->shape().ToString(true));
  absl::Status cmp = literal_comparison::Near(*expected, *actual, tolerance);
  EXPECT_TRUE(cmp.ok()) << cmp << "\nexpected: " << expected->ToString().substr(0, 2000)
                        << "\nactual:   " << actual->ToString().substr(0, 2000);
}

Literal RandomLiteral(const Shape& shape, std::mt19937_64& rng, double range, int64_t small) {
  if (shape.IsTuple()) {
    std::vector<Literal> elements;
    for (const Shape& s : shape.tuple_shapes()) elements.push_back(RandomLiteral(s, rng, range, small));
    return Literal::MakeTuple(std::move(elements));
  }
  Literal lit(shape);
  primitive_util::ArrayTypeSwitch(shape.element_type(), [&](auto tag) {
    using T = decltype(tag);
    auto data = lit.data<T>();
    for (auto& v : data) {
      if constexpr (std::is_same_v<T, bool>) {
        v = rng() & 1;
      } else if constexpr (is_int_n_v<T>) {  // s2/s4/u2/u4: random bits, wrapped
        v = T(small > 0 ? static_cast<int64_t>(rng() % (2 * small + 1)) - small : static_cast<int64_t>(rng()));
      } else if constexpr (std::is_integral_v<T>) {
        if (small > 0) {
          v = static_cast<T>(static_cast<int64_t>(rng() % (2 * small + 1)) - small);
        } else {
          v = static_cast<T>(rng());
        }
      } else if constexpr (std::is_floating_point_v<T>) {
        v = static_cast<T>(std::uniform_real_distribution<double>(-range, range)(rng));
      } else if constexpr (primitive_util::is_float_v<T>) {  // f16, bf16, f8/f6/f4
        v = static_cast<T>(static_cast<float>(std::uniform_real_distribution<double>(-range, range)(rng)));
      }
    }
  });
  return lit;
}

std::string SoftmaxHlo(const std::string& type, int64_t rows, int64_t cols, const std::string& layout) {
  const std::string matrix = absl::StrCat(type, "[", rows, ",", cols, "]", layout);
  const std::string vector = absl::StrCat(type, "[", rows, "]");
  const std::string scalar = absl::StrCat(type, "[]");
  auto reducer = [&](const std::string& name, const std::string& op) {
    return absl::StrCat(name, " {\n  a = ", scalar, " parameter(0)\n  b = ", scalar, " parameter(1)\n  ROOT s = ", scalar,
                        " ", op, "(a, b)\n}\n");
  };
  return absl::StrCat("HloModule softmax\n", reducer("add", "add"), reducer("mx", "maximum"), "ENTRY e {\n",
                      "  x = ", matrix, " parameter(0)\n",
                      "  ninf = ", scalar, " constant(-inf)\n",
                      "  m = ", vector, " reduce(x, ninf), dimensions={1}, to_apply=mx\n",
                      "  mb = ", matrix, " broadcast(m), dimensions={0}\n",
                      "  d = ", matrix, " subtract(x, mb)\n",
                      "  ex = ", matrix, " exponential(d)\n",
                      "  z = ", scalar, " constant(0)\n",
                      "  s = ", vector, " reduce(ex, z), dimensions={1}, to_apply=add\n",
                      "  sb = ", matrix, " broadcast(s), dimensions={0}\n",
                      "  ROOT r = ", matrix, " divide(ex, sb)\n}\n");
}

std::string MaxPoolGradientHlo(const std::string& type, const std::string& operand, const std::string& source,
                               const std::string& window) {
  const std::string scalar = absl::StrCat(type, "[]");
  return absl::StrCat("HloModule m\nge {\n  a = ", scalar, " parameter(0)\n  b = ", scalar,
                      " parameter(1)\n  ROOT c = pred[] compare(a, b), direction=GE\n}\n",
                      "add {\n  a = ", scalar, " parameter(0)\n  b = ", scalar, " parameter(1)\n  ROOT c = ", scalar,
                      " add(a, b)\n}\n", "ENTRY e {\n  x = ", type, operand, " parameter(0)\n  g = ", type, source,
                      " parameter(1)\n  z = ", scalar, " constant(0)\n  ROOT r = ", type, operand,
                      " select-and-scatter(x, g, z), window={", window, "}, select=ge, scatter=add\n}\n");
}

std::string GeluHlo(const std::string& dims, const std::string& type) {
  const std::string t = absl::StrCat(type, dims), scalar = absl::StrCat(type, "[]");
  return absl::StrCat("HloModule gelu\nENTRY e {\n",
                      "  x = ", t, " parameter(0)\n",
                      "  half = ", scalar, " constant(0.5)\n",
                      "  one = ", scalar, " constant(1)\n",
                      "  c = ", scalar, " constant(0.79788456)\n",
                      "  k = ", scalar, " constant(0.044715)\n",
                      "  x2 = ", t, " multiply(x, x)\n",
                      "  x3 = ", t, " multiply(x2, x)\n",
                      "  kb = ", t, " broadcast(k), dimensions={}\n",
                      "  kx3 = ", t, " multiply(kb, x3)\n",
                      "  inner = ", t, " add(x, kx3)\n",
                      "  cb = ", t, " broadcast(c), dimensions={}\n",
                      "  scaled = ", t, " multiply(cb, inner)\n",
                      "  th = ", t, " tanh(scaled)\n",
                      "  ob = ", t, " broadcast(one), dimensions={}\n",
                      "  t1 = ", t, " add(ob, th)\n",
                      "  hb = ", t, " broadcast(half), dimensions={}\n",
                      "  hx = ", t, " multiply(hb, x)\n",
                      "  ROOT g = ", t, " multiply(hx, t1)\n}\n");
}

std::string RowSumChainHlo(int steps, int64_t rows, int64_t cols) {
  const std::string m = absl::StrCat("f32[", rows, ",", cols, "]"), v = absl::StrCat("f32[", rows, "]");
  std::string text = absl::StrCat("HloModule chain\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n",
                                  "  ROOT s = f32[] add(a, b)\n}\nENTRY e {\n  v0 = ", m, " parameter(0)\n",
                                  "  zero = f32[] constant(0)\n");
  for (int i = 0; i < steps; ++i) {
    absl::StrAppend(&text, "  r", i, " = ", v, " reduce(v", i, ", zero), dimensions={1}, to_apply=add\n");
    absl::StrAppend(&text, "  b", i, " = ", m, " broadcast(r", i, "), dimensions={0}\n");
    absl::StrAppend(&text, "  ", i + 1 == steps ? "ROOT " : "", "v", i + 1, " = ", m, " subtract(v", i, ", b", i,
                    ")\n");
  }
  return text + "}\n";
}

int CountOccurrences(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) ++n;
  return n;
}

DebugOptions WithThreads(int threads) {
  DebugOptions options;
  options.set_xla_cpu_threads(threads);
  return options;
}

std::vector<Literal> RandomArguments(const std::string& text, uint64_t seed, double range, int64_t small) {
  auto module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  std::vector<Literal> args;
  if (!module.ok()) return args;
  std::mt19937_64 rng(seed);
  for (const HloInstruction* p : (*module)->entry_computation()->parameter_instructions()) {
    args.push_back(RandomLiteral(p->shape(), rng, range, small));
  }
  return args;
}

namespace {

// `text` compiled for the CPU backend with `threads` workers, or null (and
// a test failure).
std::unique_ptr<cpu::CpuExecutable> CompileForCpu(const std::string& text, int threads) {
  auto module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return nullptr;
  auto executable = CpuBackendOrDie()->compiler()->Compile(std::move(*module), WithThreads(threads));
  EXPECT_TRUE(executable.ok()) << executable.status();
  if (!executable.ok()) return nullptr;
  return std::unique_ptr<cpu::CpuExecutable>(static_cast<cpu::CpuExecutable*>(executable->release()));
}

}  // namespace

DebugOptions WithTarget(const std::string& target, int threads) {
  DebugOptions options = WithThreads(threads);
  options.set_xla_cpu_target(target);
  options.set_xla_cpu_keep_optimized_ir(true);  // the IR tests read
  return options;
}

std::string OptimizedIr(const std::string& text, int threads, const std::string& target) {
  auto module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return "";
  auto executable = CpuBackendOrDie()->compiler()->Compile(std::move(*module), WithTarget(target, threads));
  EXPECT_TRUE(executable.ok()) << executable.status();
  if (!executable.ok()) return "";
  return static_cast<cpu::CpuExecutable*>(executable->get())->optimized_ir();
}

absl::Status FileCheck(const std::string& input, const std::string& checks) {
  static constexpr char kFileCheck[] = "/usr/lib/llvm-19/bin/FileCheck";
  if (!std::filesystem::exists(kFileCheck)) {
    return absl::FailedPreconditionError(absl::StrCat(kFileCheck, " is missing (Debian package llvm-19-tools)"));
  }
  static std::atomic<int> counter{0};
  const std::string stem = absl::StrCat(::testing::TempDir(), "/filecheck_", getpid(), "_", counter++);
  std::ofstream(stem + ".in") << input;
  std::ofstream(stem + ".checks") << checks;
  const std::string command = absl::StrCat(kFileCheck, " --dump-input=never ", stem, ".checks --input-file=", stem,
                                           ".in > ", stem, ".out 2>&1");
  const int status = std::system(command.c_str());
  std::ifstream out(stem + ".out");
  const std::string report((std::istreambuf_iterator<char>(out)), std::istreambuf_iterator<char>());
  for (const char* suffix : {".in", ".checks", ".out"}) std::filesystem::remove(stem + suffix);
  if (status != 0) return absl::NotFoundError(absl::StrCat("FileCheck failed:\n", report));
  return absl::OkStatus();
}

std::vector<std::string> VectorLoopBodies(const std::string& ir, const std::string& function) {
  // Loop metadata nodes that say "vectorized": !N = distinct !{!N, !a, ...}
  // where one of !a... is !{!"llvm.loop.isvectorized", i32 1}.
  const std::regex marker_def(R"(\n(![0-9]+) = !\{!"llvm\.loop\.isvectorized", i32 1\})");
  std::set<std::string> markers;
  for (std::sregex_iterator it(ir.begin(), ir.end(), marker_def), end; it != end; ++it) markers.insert((*it)[1]);
  const std::regex loop_def(R"(\n(![0-9]+) = distinct !\{([^\n]*)\})");
  std::set<std::string> vectorized_loops;
  for (std::sregex_iterator it(ir.begin(), ir.end(), loop_def), end; it != end; ++it) {
    for (const std::string& marker : markers) {
      if (std::regex_search((*it)[2].str(), std::regex(absl::StrCat(marker, "(,|$)")))) {
        vectorized_loops.insert((*it)[1]);
      }
    }
  }
  // Blocks are separated by blank lines; a latch ends in "br ..., !llvm.loop !N".
  const std::regex latch(R"(br [^\n]*!llvm\.loop (![0-9]+)\n?$)");
  const std::regex vector_value(R"(<[0-9]+ x [a-z0-9]+>)");
  const std::string code = function.empty() ? ir : FunctionIr(ir, function);
  std::vector<std::string> bodies;
  size_t start = 0;
  while (start < code.size()) {
    size_t end = code.find("\n\n", start);
    if (end == std::string::npos) end = code.size();
    const std::string block = code.substr(start, end - start);
    std::smatch m;
    if (std::regex_search(block, m, latch) && vectorized_loops.count(m[1]) && std::regex_search(block, vector_value)) {
      bodies.push_back(block);
    }
    start = end + 2;
  }
  return bodies;
}

std::string FunctionIr(const std::string& ir, const std::string& name) {
  const size_t at = ir.find(absl::StrCat("@", name, "("));
  if (at == std::string::npos) return "";
  const size_t begin = ir.rfind("\ndefine ", at);
  if (begin == std::string::npos) return "";
  const size_t end = ir.find("\n}\n", at);
  return ir.substr(begin + 1, end == std::string::npos ? std::string::npos : end + 2 - begin);
}

int64_t ArenaBytes(const std::string& text) {
  std::unique_ptr<cpu::CpuExecutable> executable = CompileForCpu(text, 1);
  return executable == nullptr ? -1 : executable->arena_bytes();
}

}  // namespace cpu_test
}  // namespace xla
