// The compile's own settings: optimization levels, code generation in parts
// on several threads (module_partition.h), and keeping the optimized IR.
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/backend.h"
#include "backends/cpu/cpu_executable.h"
#include "backends/cpu/saved_executable.h"
#include "backends/cpu/tests/cpu_test_util.h"
#include "gtest/gtest.h"
#include "xla/build_id.h"
#include "xla/evaluator/hlo_evaluator.h"
#include "xla/hlo/hlo_parser.h"
#include "xla/literal_comparison.h"
#include "xla/status_macros.h"

namespace xla {
namespace cpu {
namespace {

using cpu_test::CompareWithEvaluator;
using cpu_test::CpuBackendOrDie;
using cpu_test::RandomArguments;
using cpu_test::WithThreads;

// `steps` elementwise ops and row reductions over f32[32,128] that read two
// constants: `expf`, f32[128] (small: in the code, copied into every part
// reading it), and `memcpy`, f32[32,128] (16 KiB: outside the code,
// external_constants.h). Their names are the runtime's symbols', which the
// names the parts share must not clash with.
std::string PartsChainHlo(int steps) {
  std::vector<std::string> row, matrix, matrix_rows;
  for (int j = 0; j < 128; ++j) row.push_back(absl::StrCat(0.5 + j / 512.0));
  for (int i = 0; i < 32; ++i) {
    std::vector<std::string> values;
    for (int j = 0; j < 128; ++j) values.push_back(absl::StrCat(((i * 7 + j * 3) % 19) / 19.0 - 0.5));
    matrix_rows.push_back(absl::StrCat("{", absl::StrJoin(values, ", "), "}"));
  }
  std::string text = absl::StrCat(R"(HloModule parts_chain
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[32,128] parameter(0)
  zero = f32[] constant(0)
  expf = f32[128] constant({)", absl::StrJoin(row, ", "), R"(})
  scale = f32[32,128] broadcast(expf), dimensions={1}
  memcpy = f32[32,128] constant({)", absl::StrJoin(matrix_rows, ", "), "})\n");
  std::string v = "x";
  for (int i = 0; i < steps; ++i) {
    const std::string out = absl::StrCat("v", i);
    switch (i % 6) {
      case 0: absl::StrAppend(&text, "  ", out, " = f32[32,128] add(", v, ", x)\n"); break;
      case 1: absl::StrAppend(&text, "  ", out, " = f32[32,128] multiply(", v, ", scale)\n"); break;
      case 2: absl::StrAppend(&text, "  ", out, " = f32[32,128] tanh(", v, ")\n"); break;
      case 3: absl::StrAppend(&text, "  ", out, " = f32[32,128] subtract(", v, ", memcpy)\n"); break;
      case 4: absl::StrAppend(&text, "  ", out, " = f32[32,128] maximum(", v, ", x)\n"); break;
      default:
        absl::StrAppend(&text, "  ", out, "r = f32[32] reduce(", v, ", zero), dimensions={1}, to_apply=add\n");
        absl::StrAppend(&text, "  ", out, "b = f32[32,128] broadcast(", out, "r), dimensions={0}\n");
        absl::StrAppend(&text, "  ", out, " = f32[32,128] subtract(", v, ", ", out, "b)\n");
        break;
    }
    v = out;
  }
  absl::StrAppend(&text, "  ROOT r = f32[32,128] negate(", v, ")\n}\n");
  return text;
}

absl::StatusOr<std::unique_ptr<Executable>> Compile(const std::string& text, const DebugOptions& options) {
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, ParseHloModule(text));
  return CpuBackendOrDie()->compiler()->Compile(std::move(module), options);
}

absl::StatusOr<Literal> RunExecutable(Executable& executable, const std::vector<Literal>& args) {
  std::vector<std::shared_ptr<const DeviceBuffer>> buffers;
  for (const Literal& a : args) {
    ASSIGN_OR_RETURN(std::shared_ptr<DeviceBuffer> b, DeviceBuffer::FromLiteral(a));
    buffers.push_back(std::move(b));
  }
  ASSIGN_OR_RETURN(std::shared_ptr<DeviceBuffer> result, executable.Execute(buffers));
  return result->ToLiteral();
}

Literal Evaluate(const std::string& text, const std::vector<Literal>& args) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  std::vector<const Literal*> pointers;
  for (const Literal& a : args) pointers.push_back(&a);
  absl::StatusOr<Literal> expected = HloEvaluator().Evaluate(**module, pointers);
  EXPECT_TRUE(expected.ok()) << expected.status();
  return std::move(*expected);
}

constexpr ErrorSpec kChainTolerance{1e-4, 1e-4};

TEST(CpuCompileOptionsTest, ALargeModuleCompilesInPartsWhoseResultsMatchTheEvaluator) {
  const std::string text = PartsChainHlo(400);
  const std::vector<Literal> args = RandomArguments(text, 7, 1.0);
  const Literal expected = Evaluate(text, args);
  for (int threads : {1, 2, 3}) {
    SCOPED_TRACE(absl::StrCat(threads, " threads"));
    absl::StatusOr<std::unique_ptr<Executable>> executable = Compile(text, WithThreads(threads));
    ASSERT_TRUE(executable.ok()) << executable.status();
    const auto& cpu = static_cast<const CpuExecutable&>(**executable);
    // As many parts as threads: the module has far more work than that.
    EXPECT_EQ(cpu.objects().size(), threads);
    // `memcpy` (16 KiB) is outside the code, `expf` (512 bytes) in it.
    ASSERT_NE(cpu.constants(), nullptr);
    ASSERT_EQ(cpu.constants()->entries().size(), 1);
    EXPECT_EQ(cpu.constants()->total_bytes(), 32 * 128 * 4);
    absl::StatusOr<Literal> actual = RunExecutable(**executable, args);
    ASSERT_TRUE(actual.ok()) << actual.status();
    absl::Status near = literal_comparison::Near(expected, *actual, kChainTolerance);
    EXPECT_TRUE(near.ok()) << near;
  }
}

TEST(CpuCompileOptionsTest, ASmallModuleIsOnePart) {
  absl::StatusOr<std::unique_ptr<Executable>> executable = Compile(PartsChainHlo(6), WithThreads(2));
  ASSERT_TRUE(executable.ok()) << executable.status();
  EXPECT_EQ(static_cast<const CpuExecutable&>(**executable).objects().size(), 1);
}

TEST(CpuCompileOptionsTest, AnExecutableInPartsIsSavedAndLoaded) {
  if (BuildId().empty()) GTEST_FAIL() << "this build has no build id (.bazelrc links with --build-id)";
  const std::string text = PartsChainHlo(400);
  const std::vector<Literal> args = RandomArguments(text, 11, 1.0);
  const DebugOptions options = WithThreads(2);
  absl::StatusOr<std::unique_ptr<Executable>> compiled = Compile(text, options);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  ASSERT_EQ(static_cast<const CpuExecutable&>(**compiled).objects().size(), 2);
  const std::unique_ptr<Backend> backend = CpuBackendOrDie();
  Compiler* compiler = backend->compiler();
  absl::StatusOr<std::string> saved = compiler->SerializeExecutable(**compiled);
  ASSERT_TRUE(saved.ok()) << saved.status();
  // Without an owner of the bytes: the constants are copied.
  absl::StatusOr<std::unique_ptr<Executable>> loaded = compiler->LoadExecutable(*saved, nullptr, options);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(static_cast<const CpuExecutable&>(**loaded).objects().size(), 2);
  ASSERT_NE(static_cast<const CpuExecutable&>(**loaded).constants(), nullptr);
  EXPECT_EQ(static_cast<const CpuExecutable&>(**loaded).constants()->total_bytes(), 32 * 128 * 4);
  absl::StatusOr<Literal> from_compiled = RunExecutable(**compiled, args);
  absl::StatusOr<Literal> from_loaded = RunExecutable(**loaded, args);
  ASSERT_TRUE(from_compiled.ok()) << from_compiled.status();
  ASSERT_TRUE(from_loaded.ok()) << from_loaded.status();
  EXPECT_EQ(*from_compiled, *from_loaded);
  absl::Status near = literal_comparison::Near(Evaluate(text, args), *from_loaded, kChainTolerance);
  EXPECT_TRUE(near.ok()) << near;

  // From 64-byte aligned bytes with an owner (as the persistent cache's
  // mapping): the constants are used in place, and the executable keeps
  // the bytes alive after the caller lets them go.
  std::shared_ptr<char> aligned(static_cast<char*>(std::aligned_alloc(64, (saved->size() + 63) / 64 * 64)), &std::free);
  ASSERT_NE(aligned, nullptr);
  std::memcpy(aligned.get(), saved->data(), saved->size());
  const absl::string_view aligned_bytes(aligned.get(), saved->size());
  absl::StatusOr<std::unique_ptr<Executable>> in_place = compiler->LoadExecutable(aligned_bytes, aligned, options);
  ASSERT_TRUE(in_place.ok()) << in_place.status();
  const ExternalConstants* constants = static_cast<const CpuExecutable&>(**in_place).constants();
  ASSERT_NE(constants, nullptr);
  ASSERT_EQ(constants->entries().size(), 1u);
  const char* constant = constants->entries()[0].data.get();
  EXPECT_GE(constant, aligned_bytes.data());
  EXPECT_LT(constant, aligned_bytes.data() + aligned_bytes.size());
  aligned.reset();
  absl::StatusOr<Literal> from_in_place = RunExecutable(**in_place, args);
  ASSERT_TRUE(from_in_place.ok()) << from_in_place.status();
  EXPECT_EQ(*from_compiled, *from_in_place);

  // Damaged layouts are errors, not crashes: cut short, or a constant
  // moved off its 64-byte grid or past the end.
  EXPECT_FALSE(compiler->LoadExecutable(saved->substr(0, saved->size() - 1), nullptr, options).ok());
  EXPECT_FALSE(compiler->LoadExecutable(saved->substr(0, 20), nullptr, options).ok());
  absl::StatusOr<DecodedSavedExecutable> decoded = DecodeSavedExecutable(*saved);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  absl::StatusOr<std::string> reencoded = EncodeSavedExecutable(decoded->proto, decoded->constants);
  ASSERT_TRUE(reencoded.ok()) << reencoded.status();
  EXPECT_EQ(*reencoded, *saved);
  for (int64_t moved : {int64_t{8}, int64_t{64}, int64_t{1} << 40}) {
    CpuExecutableProto proto = decoded->proto;
    proto.mutable_external_constants(0)->set_offset(proto.external_constants(0).offset() + moved);
    const std::string serialized = proto.SerializeAsString();
    std::string bytes = saved->substr(0, 8);  // the magic word
    for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<char>(serialized.size() >> (8 * i)));
    // The constant's bytes stay where they were: moved by 64, its last 64
    // bytes would lie past the end.
    absl::StrAppend(&bytes, serialized, saved->substr(16 + decoded->proto.ByteSizeLong()));
    EXPECT_EQ(DecodeSavedExecutable(bytes).status().code(), absl::StatusCode::kInvalidArgument) << moved;
  }
}

TEST(CpuCompileOptionsTest, EveryOptimizationLevelMatchesTheEvaluator) {
  const std::vector<std::string> programs = {PartsChainHlo(60), cpu_test::SoftmaxHlo("f32", 33, 70),
                                             cpu_test::GeluHlo("[1031]"), R"(HloModule dot
ENTRY e {
  a = f32[37,64] parameter(0)
  b = f32[64,29] parameter(1)
  d = f32[37,29] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT r = f32[37,29] tanh(d)
})"};
  for (int level = 0; level <= 3; ++level) {
    for (const std::string& text : programs) {
      SCOPED_TRACE(absl::StrCat("level ", level, ": ", text.substr(0, 40)));
      DebugOptions options = WithThreads(2);
      options.set_xla_backend_optimization_level(level);
      CompareWithEvaluator(text, RandomArguments(text, 3 + level, 1.0), kChainTolerance, options);
    }
  }
}

TEST(CpuCompileOptionsTest, AnOptimizationLevelOutsideZeroToThreeIsAnError) {
  for (int level : {-1, 4}) {
    DebugOptions options;
    options.set_xla_backend_optimization_level(level);
    absl::StatusOr<std::unique_ptr<Executable>> executable = Compile(PartsChainHlo(6), options);
    ASSERT_FALSE(executable.ok());
    EXPECT_EQ(executable.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(executable.status().message().find("xla_backend_optimization_level"), std::string::npos)
        << executable.status();
  }
}

// Level 0 skips LLVM's optimization: its code keeps what O3 removes.
TEST(CpuCompileOptionsTest, LevelZeroLeavesTheIrUnoptimized) {
  auto ir_at = [](int level) {
    DebugOptions options = cpu_test::WithTarget(cpu_test::kIrTestTarget, 1);
    options.set_xla_backend_optimization_level(level);
    absl::StatusOr<std::unique_ptr<Executable>> executable = Compile(PartsChainHlo(12), options);
    EXPECT_TRUE(executable.ok()) << executable.status();
    return executable.ok() ? static_cast<const CpuExecutable&>(**executable).optimized_ir() : std::string();
  };
  const std::string o0 = ir_at(0), o3 = ir_at(3);
  // O3 vectorizes the loops for AVX2; O0 leaves them scalar.
  EXPECT_NE(o3.find("<8 x float>"), std::string::npos);
  EXPECT_EQ(o0.find("<8 x float>"), std::string::npos);
  EXPECT_NE(o0.find("alloca"), std::string::npos);
}

TEST(CpuCompileOptionsTest, TheOptimizedIrIsKeptOnlyWhenAskedFor) {
  const std::string text = PartsChainHlo(400);
  DebugOptions options = WithThreads(2);
  absl::StatusOr<std::unique_ptr<Executable>> plain = Compile(text, options);
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(static_cast<const CpuExecutable&>(**plain).optimized_ir(), "");
  options.set_xla_cpu_keep_optimized_ir(true);
  absl::StatusOr<std::unique_ptr<Executable>> kept = Compile(text, options);
  ASSERT_TRUE(kept.ok()) << kept.status();
  const std::string& ir = static_cast<const CpuExecutable&>(**kept).optimized_ir();
  // Both parts' IR, the entry in one of them.
  EXPECT_NE(ir.find("; ---- part 1 of 2"), std::string::npos);
  EXPECT_NE(ir.find("; ---- part 2 of 2"), std::string::npos);
  EXPECT_EQ(cpu_test::CountOccurrences(ir, "define void @xla_cpu_entry("), 1);
}

}  // namespace
}  // namespace cpu
}  // namespace xla
