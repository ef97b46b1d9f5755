// Input/output aliasing on the CPU backend (buffer_assignment.h:
// in_place_results): which aliases the code writes in place, that a donated
// argument's buffer then holds the result, and that every other alias (a
// transpose, a reduction of the parameter, a parameter read after the
// result is written) still gives the evaluator's values from a buffer of
// its own.
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "backends/replicated_execution.h"
#include "backends/cpu/cpu_executable.h"
#include "backends/cpu/tests/cpu_test_util.h"
#include "gtest/gtest.h"
#include "xla/evaluator/hlo_evaluator.h"
#include "xla/hlo/hlo_parser.h"
#include "xla/literal_comparison.h"

namespace xla {
namespace cpu {
namespace {

struct Compiled {
  std::unique_ptr<Backend> backend;
  std::unique_ptr<Executable> executable;
  CpuExecutable* cpu = nullptr;
  Literal expected;
  std::vector<Literal> args;
};

// Compiles `text` (two f32[64,64] parameters), with the evaluator's result
// on random arguments.
Compiled Compile(const std::string& text) {
  Compiled c;
  auto module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return c;
  std::mt19937_64 rng(7);
  for (const HloInstruction* p : (*module)->entry_computation()->parameter_instructions()) {
    c.args.push_back(cpu_test::RandomLiteral(p->shape(), rng, 2.0));
  }
  std::vector<const Literal*> arg_ptrs;
  for (const Literal& a : c.args) arg_ptrs.push_back(&a);
  auto expected = HloEvaluator().Evaluate(**module, arg_ptrs);
  EXPECT_TRUE(expected.ok()) << expected.status();
  if (expected.ok()) c.expected = std::move(*expected);
  c.backend = cpu_test::CpuBackendOrDie();
  auto executable = c.backend->compiler()->Compile(std::move(*module), DebugOptions());
  EXPECT_TRUE(executable.ok()) << executable.status();
  if (!executable.ok()) return c;
  c.executable = std::move(*executable);
  c.cpu = dynamic_cast<CpuExecutable*>(c.executable.get());
  return c;
}

// Runs with every argument donated; returns the result, and in `reused`
// which result leaves hold a donated argument's bytes.
std::shared_ptr<DeviceBuffer> RunDonating(Compiled& c, std::vector<bool>* reused) {
  std::vector<std::shared_ptr<DeviceBuffer>> donated;
  std::vector<std::shared_ptr<const DeviceBuffer>> arguments;
  for (const Literal& a : c.args) {
    auto b = DeviceBuffer::FromLiteral(a);
    EXPECT_TRUE(b.ok()) << b.status();
    donated.push_back(*b);
    arguments.push_back(*b);
  }
  auto result = c.executable->ExecuteWithDonations(arguments, donated);
  EXPECT_TRUE(result.ok()) << result.status();
  if (!result.ok()) return nullptr;
  reused->clear();
  for (DeviceBuffer* leaf : (*result)->MutableLeaves()) {
    bool found = false;
    for (const auto& d : donated) found |= leaf->data() == d->data();
    reused->push_back(found);
  }
  absl::Status same = literal_comparison::Near(c.expected, (*result)->ToLiteral(), ErrorSpec{1e-5, 1e-5});
  EXPECT_TRUE(same.ok()) << same;
  return *result;
}

constexpr char kHeader[] = "HloModule m, input_output_alias={ {}: (0, {}, may-alias) }\nENTRY e {\n"
                           "  w = f32[64,64] parameter(0)\n  g = f32[64,64] parameter(1)\n";

TEST(CpuInPlaceTest, ElementwiseUpdateIsWrittenIntoTheDonatedArgument) {
  Compiled c = Compile(std::string(kHeader) + R"(  lr = f32[] constant(0.1)
  b = f32[64,64] broadcast(lr), dimensions={}
  s = f32[64,64] multiply(b, g)
  ROOT u = f32[64,64] subtract(w, s)
})");
  ASSERT_NE(c.cpu, nullptr);
  ASSERT_EQ(c.cpu->in_place_results().size(), 1u);
  EXPECT_EQ(c.cpu->in_place_results()[0].result_leaf, 0);
  EXPECT_EQ(c.cpu->in_place_results()[0].parameter, 0);
  std::vector<bool> reused;
  ASSERT_NE(RunDonating(c, &reused), nullptr);
  EXPECT_EQ(reused, std::vector<bool>{true});
  // Without a donation: a fresh result, the argument unchanged.
  auto w = DeviceBuffer::FromLiteral(c.args[0]);
  auto g = DeviceBuffer::FromLiteral(c.args[1]);
  ASSERT_TRUE(w.ok() && g.ok());
  auto result = c.executable->Execute({*w, *g});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_NE((*result)->data(), (*w)->data());
  EXPECT_TRUE(literal_comparison::Equal((*w)->ToLiteral(), c.args[0]).ok());
  EXPECT_TRUE(literal_comparison::Near(c.expected, (*result)->ToLiteral(), ErrorSpec{1e-5, 1e-5}).ok());
}

TEST(CpuInPlaceTest, ReadsAtOtherPositionsGetAResultOfTheirOwn) {
  // Each reads the parameter at positions other than the one it writes: in
  // place they would read what they had already overwritten.
  for (const char* body : {
           "  ROOT t = f32[64,64] transpose(w), dimensions={1,0}\n}",
           "  t = f32[64,64] transpose(w), dimensions={1,0}\n  ROOT r = f32[64,64] add(w, t)\n}",
           "  ROOT r = f32[64,64] reverse(w), dimensions={0}\n}",
       }) {
    SCOPED_TRACE(body);
    Compiled c = Compile(std::string(kHeader) + body);
    ASSERT_NE(c.cpu, nullptr);
    EXPECT_TRUE(c.cpu->in_place_results().empty());
    std::vector<bool> reused;
    ASSERT_NE(RunDonating(c, &reused), nullptr);
    EXPECT_EQ(reused, std::vector<bool>{false});
  }
}

TEST(CpuInPlaceTest, ReductionOfTheParameterGetsAResultOfItsOwn) {
  // x - max(x) row by row: the maxima read the whole row.
  Compiled c = Compile(R"(HloModule m, input_output_alias={ {}: (0, {}, may-alias) }
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
ENTRY e {
  w = f32[64,64] parameter(0)
  g = f32[64,64] parameter(1)
  lo = f32[] constant(-inf)
  m = f32[64] reduce(w, lo), dimensions={1}, to_apply=max
  b = f32[64,64] broadcast(m), dimensions={0}
  ROOT r = f32[64,64] subtract(w, b)
})");
  ASSERT_NE(c.cpu, nullptr);
  EXPECT_TRUE(c.cpu->in_place_results().empty());
  std::vector<bool> reused;
  ASSERT_NE(RunDonating(c, &reused), nullptr);
  EXPECT_EQ(reused, std::vector<bool>{false});
}

TEST(CpuInPlaceTest, TupleResultLeavesEachTakeTheirArgument) {
  Compiled c = Compile(R"(HloModule m, input_output_alias={ {0}: (0, {}, may-alias), {1}: (1, {}, may-alias) }
ENTRY e {
  w = f32[64,64] parameter(0)
  g = f32[64,64] parameter(1)
  u = f32[64,64] subtract(w, g)
  v = f32[64,64] multiply(g, g)
  ROOT t = (f32[64,64], f32[64,64]) tuple(u, v)
})");
  ASSERT_NE(c.cpu, nullptr);
  std::vector<bool> reused;
  ASSERT_NE(RunDonating(c, &reused), nullptr);
  // u only reads w where it writes it: always in place. v overwrites g,
  // which u reads too: in place only when emission runs u first.
  ASSERT_GE(c.cpu->in_place_results().size(), 1u);
  EXPECT_EQ(c.cpu->in_place_results()[0].result_leaf, 0);
  EXPECT_TRUE(reused[0]);
  EXPECT_EQ(reused[1], c.cpu->in_place_results().size() == 2u);
}

TEST(CpuInPlaceTest, ParameterAlsoReturnedIsNotOverwritten) {
  Compiled c = Compile(R"(HloModule m, input_output_alias={ {0}: (0, {}, may-alias) }
ENTRY e {
  w = f32[64,64] parameter(0)
  g = f32[64,64] parameter(1)
  u = f32[64,64] add(w, g)
  ROOT t = (f32[64,64], f32[64,64]) tuple(u, w)
})");
  ASSERT_NE(c.cpu, nullptr);
  EXPECT_TRUE(c.cpu->in_place_results().empty());
  std::vector<bool> reused;
  ASSERT_NE(RunDonating(c, &reused), nullptr);
}

TEST(CpuInPlaceTest, AllReduceSumsIntoTheDonatedOperands) {
  Compiled c = Compile(R"(HloModule m, input_output_alias={ {}: (0, {}, may-alias) }
add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
ENTRY e {
  x = s32[1000] parameter(0)
  ROOT r = s32[1000] all-reduce(x), replica_groups={}, to_apply=add
})");
  ASSERT_NE(c.cpu, nullptr);
  ASSERT_EQ(c.cpu->in_place_results().size(), 1u);
  constexpr int kReplicas = 3;
  std::vector<DeviceProcessRun> runs(kReplicas);
  std::vector<const void*> donated_data;
  std::vector<int32_t> want(1000, 0);
  for (int r = 0; r < kReplicas; ++r) {
    std::vector<int32_t> v(1000);
    for (int i = 0; i < 1000; ++i) want[i] += v[i] = i * (r + 1) - 7 * r;
    auto b = DeviceBuffer::FromLiteral(Literal::CreateR1<int32_t>(v));
    ASSERT_TRUE(b.ok()) << b.status();
    runs[r].executable = c.executable.get();
    runs[r].arguments = {*b};
    runs[r].donated = {*b};
    donated_data.push_back((*b)->data());
  }
  ReplicatedRunOptions options;
  options.num_replicas = kReplicas;
  auto results = ExecuteReplicatedOnDevices(std::move(runs), options);
  ASSERT_TRUE(results.ok()) << results.status();
  for (int r = 0; r < kReplicas; ++r) {
    EXPECT_EQ((*results)[r]->data(), donated_data[r]) << r;
    EXPECT_TRUE(literal_comparison::Equal(Literal::CreateR1<int32_t>(want), (*results)[r]->ToLiteral()).ok()) << r;
  }
}

// Found by hlo_fuzz (seed 2494, donated run): v5 and the product run as one
// row group, v5 first, and the product is written over v1 in place. That is
// safe row by row, but only if LLVM knows the result and v1 share storage:
// with the two marked as distinct buffers (scoped noalias), it reordered
// v1's loads after the product's stores.
TEST(CpuInPlaceTest, RowGroupMemberReadingTheParameterFirst) {
  Compiled c = Compile(R"(HloModule fuzz, input_output_alias={ {0}: (0, {}, may-alias) }
ENTRY %main (v1: u32[4]) -> (u32[4], u32[4]) {
  %v1 = u32[4]{0} parameter(0)
  %v5 = u32[4]{0} negate(%v1)
  %v31 = u32[4]{0} iota(), iota_dimension=0
  %v32 = u32[4]{0} multiply(%v31, %v5)
  ROOT %out35 = (u32[4]{0}, u32[4]{0}) tuple(%v32, %v5)
})");
  ASSERT_NE(c.cpu, nullptr);
  std::vector<bool> reused;
  ASSERT_NE(RunDonating(c, &reused), nullptr);
  EXPECT_EQ(c.cpu->in_place_results().size(), 1u);
}

TEST(CpuInPlaceTest, SavedExecutableKeepsItsAliases) {
  Compiled c = Compile(std::string(kHeader) + "  ROOT u = f32[64,64] add(w, g)\n}");
  ASSERT_NE(c.cpu, nullptr);
  ASSERT_EQ(c.cpu->in_place_results().size(), 1u);
  auto bytes = c.backend->compiler()->SerializeExecutable(*c.executable);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  auto loaded = c.backend->compiler()->LoadExecutable(*bytes, nullptr, DebugOptions());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  auto* cpu = dynamic_cast<CpuExecutable*>(loaded->get());
  ASSERT_NE(cpu, nullptr);
  ASSERT_EQ(cpu->in_place_results().size(), 1u);
  ASSERT_EQ(cpu->input_output_aliases().size(), 1u);
  c.executable = std::move(*loaded);
  std::vector<bool> reused;
  ASSERT_NE(RunDonating(c, &reused), nullptr);
  EXPECT_EQ(reused, std::vector<bool>{true});
}

}  // namespace
}  // namespace cpu
}  // namespace xla
