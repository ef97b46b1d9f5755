// Alias scopes (alias_analysis.h) and interleave hints (loop_emitter.h):
// chains of materialized values vectorize now that LLVM knows the buffers
// differ, results stay exact where liveness makes values share arena bytes,
// and only long loop bodies are interleaved.
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "absl/strings/str_cat.h"
#include "backends/cpu/tests/cpu_test_util.h"
#include "gtest/gtest.h"

namespace xla {
namespace cpu {
namespace {

using cpu_test::CompareWithEvaluator;
using cpu_test::OptimizedIr;
using cpu_test::RandomArguments;
using cpu_test::WithThreads;

// A chain of `links` materialized values over f32[rows, cols]: each used by
// the next link and by a reverse of itself (so it is materialized and row
// fusion cannot merge the links). Values two links apart share arena bytes.
std::string Chain(int links, int64_t rows, int64_t cols) {
  const std::string shape = absl::StrCat("f32[", rows, ",", cols, "]");
  std::string text = absl::StrCat("HloModule chain\nENTRY e {\n  x = ", shape, " parameter(0)\n  v0 = ", shape,
                                  " negate(x)\n");
  const char* ops[] = {"add", "multiply", "subtract", "maximum"};
  for (int i = 1; i <= links; ++i) {
    absl::StrAppend(&text, "  r", i, " = ", shape, " reverse(v", i - 1, "), dimensions={1}\n");
    absl::StrAppend(&text, "  v", i, " = ", shape, " ", ops[i % 4], "(v", i - 1, ", r", i, ")\n");
  }
  absl::StrAppend(&text, "  ROOT out = ", shape, " negate(v", links, ")\n}\n");
  return text;
}

int Count(const std::string& text, const std::string& pattern) {
  const std::regex re(pattern);
  return static_cast<int>(std::distance(std::sregex_iterator(text.begin(), text.end(), re), std::sregex_iterator()));
}

TEST(CpuAliasTest, EveryLinkOfAMaterializedChainIsVectorized) {
  constexpr int kLinks = 10;
  for (int threads : {1, 2}) {
    // Rows of 4096: vector loops long enough not to be fully unrolled.
    const std::string ir = OptimizedIr(Chain(kLinks, 32, 4096), threads);
    ASSERT_FALSE(ir.empty());
    // v0 .. v(links-1) and the root (the last link, used once, is fused
    // into it): one vector loop each, except that links of the same op
    // (four apart) share one kernel (kernel_sharing.h) when outlined. So:
    // every outlined kernel has a vector loop, and there is a loop for
    // every distinct link at least.
    const std::regex kernel_def(R"(\ndefine internal void @([^(]+)\()");
    for (std::sregex_iterator it(ir.begin(), ir.end(), kernel_def), end; it != end; ++it) {
      EXPECT_FALSE(cpu_test::VectorLoopBodies(ir, (*it)[1]).empty()) << "threads=" << threads << " " << (*it)[1];
    }
    EXPECT_GE(cpu_test::VectorLoopBodies(ir).size(), threads == 1 ? kLinks + 1 : 4 + 2)
        << "threads=" << threads << "\n" << ir;
    EXPECT_NE(ir.find("!alias.scope"), std::string::npos);
    EXPECT_NE(ir.find("!noalias"), std::string::npos);
  }
}

TEST(CpuAliasTest, ChainsWhoseValuesShareArenaBytesMatchTheEvaluator) {
  for (int links : {2, 3, 10, 13, 24}) {
    for (int threads : {1, 2}) {
      SCOPED_TRACE(absl::StrCat("links=", links, " threads=", threads));
      const std::string text = Chain(links, 64, 1024 + links);  // odd widths: vector remainders
      CompareWithEvaluator(text, RandomArguments(text, 100 + links, 0.5), ErrorSpec{0, 0}, WithThreads(threads));
    }
  }
}

TEST(CpuAliasTest, ParametersResultsAndArenaValuesMixedMatchTheEvaluator) {
  // A parameter passed through to a result, a reduce (reduction_emitter)
  // reading and writing arena values, values of different sizes reusing
  // bytes. (Control flow is covered by cpu_backend_test.)
  constexpr char kText[] = R"(HloModule mixed
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[256,512] parameter(0)
  y = f32[512] parameter(1)
  a = f32[256,512] negate(x)
  ra = f32[256,512] reverse(a), dimensions={1}
  b = f32[256,512] subtract(a, ra)
  rb = f32[256,512] reverse(b), dimensions={0}
  z = f32[] constant(0)
  col = f32[512] reduce(b, z), dimensions={0}, to_apply=sum
  small = f32[512] add(col, y)
  c = f32[256,512] multiply(b, rb)
  final = f32[256,512] add(c, c)
  ry = f32[512] reverse(y), dimensions={0}
  ROOT r = (f32[256,512], f32[512], f32[512], f32[512]) tuple(final, small, y, ry)
}
)";
  for (int threads : {1, 2}) {
    SCOPED_TRACE(absl::StrCat("threads=", threads));
    CompareWithEvaluator(kText, RandomArguments(kText, 7, 0.5), ErrorSpec{0, 0}, WithThreads(threads));
  }
}

std::string Gelu() { return cpu_test::GeluHlo("[65536]"); }

TEST(CpuAliasTest, LongLoopBodiesAreInterleavedAndShortOnesAreNot) {
  // GELU: the vector body computes four independent vectors per iteration
  // (tanh divides once per vector).
  const std::string gelu = OptimizedIr(Gelu(), 1);
  ASSERT_FALSE(gelu.empty());
  const std::vector<std::string> bodies = cpu_test::VectorLoopBodies(gelu);
  ASSERT_FALSE(bodies.empty()) << gelu;
  const std::string& vector_body = bodies.front();
  EXPECT_GE(Count(vector_body, R"(= fdiv <[0-9]+ x float>)"), 4) << vector_body;

  // The hint itself, in the IR before optimization: on GELU's loop only.
  auto unoptimized = [](const std::string& text, const std::string& name) {
    const std::string dir = ::testing::TempDir() + "/cpu_alias_" + name;
    std::filesystem::remove_all(dir);
    DebugOptions options = WithThreads(1);
    options.set_xla_dump_to(dir);
    EXPECT_TRUE(cpu_test::RunOnCpu(text, RandomArguments(text, 1), options).ok());
    std::ifstream in(dir + "/" + name + ".ir-no-opt.ll");
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  const std::string gelu_ir = unoptimized(Gelu(), "gelu");
  ASSERT_FALSE(gelu_ir.empty());
  EXPECT_EQ(Count(gelu_ir, R"("llvm\.loop\.interleave\.count", i32 4\})"), 1) << gelu_ir;
  // ... with the unroller told to leave it alone (the loop's ID lists both).
  std::smatch interleave, unroll;
  ASSERT_TRUE(std::regex_search(gelu_ir, interleave, std::regex(R"((![0-9]+) = !\{!"llvm\.loop\.interleave\.count")")));
  ASSERT_TRUE(std::regex_search(gelu_ir, unroll, std::regex(R"((![0-9]+) = !\{!"llvm\.loop\.unroll\.disable"\})")));
  EXPECT_NE(gelu_ir.find(absl::StrCat(", ", interleave[1].str(), ", ", unroll[1].str(), "}")), std::string::npos)
      << gelu_ir;
  const std::string chain_ir = unoptimized(Chain(3, 8, 64), "chain");
  ASSERT_FALSE(chain_ir.empty());
  EXPECT_EQ(chain_ir.find("llvm.loop.interleave.count"), std::string::npos) << chain_ir;
  CompareWithEvaluator(Gelu(), RandomArguments(Gelu(), 3), ErrorSpec{1e-6, 1e-6});
}

}  // namespace
}  // namespace cpu
}  // namespace xla
