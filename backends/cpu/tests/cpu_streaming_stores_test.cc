// Non-temporal stores (streaming_stores.h): large entry results are written
// with aligned non-temporal vector stores, fenced before the writing function
// returns; small results and intermediate values are not. Results must stay
// exactly the evaluator's, with any thread count.
#include <string>

#include "absl/strings/str_cat.h"
#include "backends/cpu/tests/cpu_test_util.h"
#include "backends/cpu/codegen/streaming_stores.h"
#include "gtest/gtest.h"

namespace xla {
namespace cpu {
namespace {

using cpu_test::CompareWithEvaluator;
using cpu_test::CountOccurrences;
using cpu_test::OptimizedIr;
using cpu_test::RandomArguments;
using cpu_test::WithThreads;

std::string Negate(int64_t elements) {
  return absl::StrCat("HloModule m\nENTRY e {\n  x = f32[", elements, "] parameter(0)\n  ROOT r = f32[", elements,
                      "] negate(x)\n}\n");
}

TEST(CpuStreamingStoresTest, LargeResultsAreStreamedAndFenced) {
  const int64_t elements = kMinStreamingResultBytes / 4 + 40;  // not a multiple of the vector width
  const std::string text = Negate(elements);
  for (int threads : {1, 2}) {
    SCOPED_TRACE(absl::StrCat("threads=", threads));
    const std::string ir = OptimizedIr(text, threads);
    EXPECT_GE(CountOccurrences(ir, "!nontemporal"), 1) << ir.substr(0, 4000);
    // Every function with streaming stores fences them before returning.
    EXPECT_GE(CountOccurrences(ir, "call void @llvm.x86.sse.sfence()"), 1) << ir.substr(0, 4000);
    CompareWithEvaluator(text, RandomArguments(text, 3), ErrorSpec{0, 0}, WithThreads(threads));
  }
}

TEST(CpuStreamingStoresTest, SmallResultsAndIntermediatesAreCached) {
  const std::string small = Negate(kMinStreamingResultBytes / 8);
  EXPECT_EQ(OptimizedIr(small, 2).find("!nontemporal"), std::string::npos);
  // A large intermediate (the transpose, read by the reduction) is cached;
  // the result is small.
  const std::string intermediate = R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[2048,2048] parameter(0)
  t = f32[2048,2048] transpose(x), dimensions={1,0}
  e = f32[2048,2048] exponential(t)
  z = f32[] constant(0)
  ROOT r = f32[2048] reduce(e, z), dimensions={1}, to_apply=add
})";
  EXPECT_EQ(OptimizedIr(intermediate, 2).find("!nontemporal"), std::string::npos);
}

TEST(CpuStreamingStoresTest, RowGroupResultsAreStreamed) {
  // Softmax rows: the result row is written after the row's reductions.
  // The next row of x is prefetched, the next result row is not: fetching
  // lines that non-temporal stores then write around the cache would read
  // each of them from memory for nothing.
  const std::string text = cpu_test::SoftmaxHlo("f32", 2048, 1024, "{1,0}");
  const std::string ir = OptimizedIr(text, 2);
  EXPECT_GE(CountOccurrences(ir, "!nontemporal"), 1) << ir.substr(0, 4000);
  EXPECT_NE(ir.find(", i32 0, i32 3, i32 1)"), std::string::npos) << "no read prefetch\n" << ir.substr(0, 4000);
  EXPECT_EQ(ir.find(", i32 1, i32 3, i32 1)"), std::string::npos) << "write prefetch\n" << ir.substr(0, 4000);
  CompareWithEvaluator(text, RandomArguments(text, 4), ErrorSpec{1e-6, 1e-5}, WithThreads(2));
}

}  // namespace
}  // namespace cpu
}  // namespace xla
