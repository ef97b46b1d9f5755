// The CPU pipeline: pass order, disabling, and --xla_dump_to output.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>

#include "absl/strings/match.h"
#include "absl/strings/str_replace.h"
#include "backends/backend.h"
#include "backends/cpu/transforms/cpu_pipeline.h"
#include "backends/cpu/tests/cpu_test_util.h"
#include "gtest/gtest.h"
#include "xla/hlo/hlo_parser.h"

namespace xla {
namespace cpu {
namespace {

constexpr char kModule[] = R"(HloModule pipe
helper {
  a = f32[8] parameter(0)
  ROOT n = f32[8] negate(a)
}
ENTRY e {
  x = f32[8] parameter(0)
  z = f32[] constant(0)
  zb = f32[8] broadcast(z), dimensions={}
  s = f32[8] add(x, zb)
  ROOT c = f32[8] call(s), to_apply=helper
}
)";

TEST(CpuPipelineTest, ListsPassesInOrder) {
  std::vector<std::string> names = CpuHloPassNames();
  ASSERT_FALSE(names.empty());
  // rng-expander keys each rng by its name, so it runs before the inliner
  // clones and renames instructions.
  ASSERT_GE(names.size(), 2u);
  EXPECT_EQ(names[0], "rng-expander") << names[0];
  EXPECT_EQ(names[1], "call-inliner") << names[1];
}

TEST(CpuPipelineTest, SimplifiesAndHonorsDisableAll) {
  auto module = ParseHloModule(kModule);
  ASSERT_TRUE(module.ok()) << module.status();
  DebugOptions off;
  off.set_xla_disable_all_hlo_passes(true);
  ASSERT_TRUE(RunCpuHloPasses(module->get(), off, /*verify=*/true).ok());
  EXPECT_EQ((*module)->entry_computation()->root_instruction()->opcode(), HloOpcode::kCall);
  ASSERT_TRUE(RunCpuHloPasses(module->get(), DebugOptions(), /*verify=*/true).ok());
  // The inlined call's negate, simplified, and fused with what it reads.
  const HloInstruction* root = (*module)->entry_computation()->root_instruction();
  ASSERT_EQ(root->opcode(), HloOpcode::kFusion) << (*module)->ToString();
  EXPECT_EQ(root->called_computations().front()->root_instruction()->opcode(), HloOpcode::kNegate);
}

// A transposed dot operand is read in place by the matmul runtime instead
// of being copied first.
TEST(CpuPipelineTest, TransposesIntoDotsAreFolded) {
  const std::string text = R"(HloModule fold
ENTRY e {
  a = f32[70,50] parameter(0)
  b = f32[70,40] parameter(1)
  at = f32[50,70] transpose(a), dimensions={1,0}
  ROOT d = f32[50,40] dot(at, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})";
  auto module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  ASSERT_TRUE(RunCpuHloPasses(module->get(), DebugOptions(), /*verify=*/true).ok());
  const HloInstruction* root = (*module)->entry_computation()->root_instruction();
  EXPECT_EQ(root->opcode(), HloOpcode::kDot);
  EXPECT_EQ(root->operand(0)->opcode(), HloOpcode::kParameter);
  cpu_test::CompareWithEvaluator(text, cpu_test::RandomArguments(text, 3, 1.0), ErrorSpec{1e-5, 1e-5});
}

TEST(CpuPipelineTest, DumpsHloAndIr) {
  const std::string dir = ::testing::TempDir() + "/cpu_dump";
  std::filesystem::remove_all(dir);
  DebugOptions options;
  options.set_xla_dump_to(dir);
  // A name too long for std::string's inline storage: the pass dumps once
  // named their files from a copy that no longer existed.
  const std::string name = "pipe_with_a_name_long_enough_to_be_allocated";
  auto module = ParseHloModule(absl::StrReplaceAll(kModule, {{"HloModule pipe", "HloModule " + name}}));
  ASSERT_TRUE(module.ok()) << module.status();
  auto backend = BackendRegistry::Create("cpu");
  ASSERT_TRUE(backend.ok()) << backend.status();
  auto executable = (*backend)->compiler()->Compile(std::move(*module), options);
  ASSERT_TRUE(executable.ok()) << executable.status();
  int before = 0, after = 0, ll = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string file = entry.path().filename().string();
    EXPECT_TRUE(absl::StartsWith(file, name + ".")) << file;
    if (absl::EndsWith(file, ".before.hlo")) ++before;
    if (absl::EndsWith(file, ".after.hlo")) ++after;
    if (absl::EndsWith(file, ".ll")) ++ll;
  }
  // One before/after pair per pass run, numbered from 0000.
  EXPECT_GT(before, 5);
  EXPECT_EQ(before, after);
  EXPECT_TRUE(std::filesystem::exists(dir + "/" + name + ".0001.call-inliner.before.hlo"));
  EXPECT_EQ(ll, 2);
  auto read = [&](const std::string& suffix) {
    std::ifstream in(dir + "/" + name + suffix);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  };
  const std::string assembly = read(".s");
  EXPECT_NE(assembly.find("xla_cpu_entry:"), std::string::npos);
#if defined(__x86_64__)
  // The dump is the code the JIT runs: small code model, PIC (negate's
  // sign mask is read from the constant pool relative to %rip, not through
  // a 64-bit absolute address as the large code model would).
  EXPECT_NE(assembly.find(".LCPI"), std::string::npos) << assembly;
  EXPECT_EQ(assembly.find("movabs"), std::string::npos) << assembly;
#endif
  EXPECT_NE(read(".buffer-assignment.txt").find("arena bytes: "), std::string::npos);
  // LLVM's time per pass, as -time-passes reports it.
  const std::string timings = read(".llvm-pass-timings.txt");
  EXPECT_NE(timings.find("Total Execution Time"), std::string::npos) << timings;
  EXPECT_NE(timings.find("InstCombinePass"), std::string::npos) << timings;
  EXPECT_NE(timings.find("; code generation of the object (no per-pass times) "), std::string::npos) << timings;
  // The compile's phases, each with a time.
  const std::string phases = read(".compile-phases.txt");
  for (const char* phase : {"HLO passes ", "JIT setup, buffer assignment and IR emission ",
                            "LLVM (IR pipeline and code generation, 1 part(s)) ", "linking "}) {
    EXPECT_NE(phases.find(phase), std::string::npos) << phase << "\n" << phases;
  }
  EXPECT_TRUE(std::regex_search(phases, std::regex("linking [0-9]+\\.[0-9]{3} ms"))) << phases;
}

// A chain whose links are each read twice (so each is materialized), the
// second time reversed (so no two links share a row loop, row_fusion.h):
// with liveness-based reuse, three 4 KiB buffers take two slots.
TEST(CpuPipelineTest, DeadBuffersAreReusedAndTheAssignmentIsDumped) {
  constexpr char kChain[] = R"(HloModule chain
ENTRY e {
  x = f32[1024] parameter(0)
  a = f32[1024] exponential(x)
  ra = f32[1024] reverse(a), dimensions={0}
  a2 = f32[1024] add(a, ra)
  ra2 = f32[1024] reverse(a2), dimensions={0}
  b = f32[1024] multiply(a2, ra2)
  rb = f32[1024] reverse(b), dimensions={0}
  c = f32[1024] subtract(b, rb)
  ROOT r = f32[1024] negate(c)
}
)";
  const std::string dir = ::testing::TempDir() + "/cpu_dump_chain";
  std::filesystem::remove_all(dir);
  DebugOptions options;
  options.set_xla_dump_to(dir);
  options.add_xla_disable_hlo_passes("cse");
  options.add_xla_disable_hlo_passes("algsimp");
  auto module = ParseHloModule(kChain);
  ASSERT_TRUE(module.ok()) << module.status();
  auto backend = BackendRegistry::Create("cpu");
  ASSERT_TRUE(backend.ok()) << backend.status();
  auto executable = (*backend)->compiler()->Compile(std::move(*module), options);
  ASSERT_TRUE(executable.ok()) << executable.status();
  std::ifstream in(dir + "/chain.buffer-assignment.txt");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // a, a2, b (4096 bytes each) are materialized; c is fused into r.
  EXPECT_NE(text.find("arena bytes: 8192\n"), std::string::npos) << text;
  EXPECT_NE(text.find("8192 bytes for 3 buffers of 12288 bytes"), std::string::npos) << text;
}

}  // namespace
}  // namespace cpu
}  // namespace xla
