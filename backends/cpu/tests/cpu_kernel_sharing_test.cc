// Identical kernels compiled once (kernel_sharing.h): the HLO key that
// picks candidates, the IR comparison that decides, and whole programs
// whose repeated blocks share kernels and still match the evaluator.
#include <memory>
#include <regex>
#include <string>

#include "absl/strings/str_cat.h"
#include "backends/cpu/codegen/alias_analysis.h"
#include "backends/cpu/codegen/kernel_sharing.h"
#include "backends/cpu/tests/cpu_test_util.h"
#include "gtest/gtest.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "xla/hlo/hlo_module.h"
#include "xla/hlo/hlo_parser.h"

namespace xla {
namespace cpu {
namespace {

// Outlined kernels a module's optimized IR defines.
int DefinedKernels(const std::string& ir) {
  const std::regex re("define internal void @");
  return static_cast<int>(std::distance(std::sregex_iterator(ir.begin(), ir.end(), re), std::sregex_iterator()));
}

// A kernel of the outlined shape: out[0] = in[0] * factor, the two buffer
// addresses read from the captured array and marked with their regions.
llvm::Function* MakeKernel(llvm::Module& module, const BufferRegion& in, const BufferRegion& out, float factor) {
  llvm::LLVMContext& ctx = module.getContext();
  llvm::IRBuilder<> b(ctx);
  auto* type = llvm::FunctionType::get(b.getVoidTy(), {b.getPtrTy()}, false);
  llvm::Function* fn = llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage, "kernel", module);
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", fn));
  llvm::Value* captured = fn->getArg(0);
  llvm::Value* in_ptr = b.CreateLoad(b.getPtrTy(), captured);
  llvm::Value* out_ptr = b.CreateLoad(b.getPtrTy(), b.CreateConstInBoundsGEP1_64(b.getPtrTy(), captured, 1));
  MarkBufferRegion(in_ptr, in);
  MarkBufferRegion(out_ptr, out);
  auto* x = b.CreateLoad(b.getFloatTy(), in_ptr);
  TagBufferAccess(x, in_ptr);
  auto* store = b.CreateStore(b.CreateFMul(x, llvm::ConstantFP::get(b.getFloatTy(), factor)), out_ptr);
  TagBufferAccess(store, out_ptr);
  b.CreateRetVoid();
  return fn;
}

TEST(KernelSharingTest, KernelsAreTheSameUpToTheirRegionsOffsets) {
  llvm::LLVMContext ctx;
  llvm::Module module("m", ctx);
  llvm::Function* a = MakeKernel(module, BufferRegion::Arena(0, 64), BufferRegion::Arena(64, 128), 2.0f);
  // Other bytes, the same (absence of) overlap: the same kernel.
  llvm::Function* b = MakeKernel(module, BufferRegion::Arena(512, 576), BufferRegion::Arena(128, 192), 2.0f);
  EXPECT_TRUE(SameKernel(*a, *b));
  // In place (the regions overlap): LLVM may not assume they differ.
  llvm::Function* overlapping = MakeKernel(module, BufferRegion::Arena(0, 64), BufferRegion::Arena(32, 96), 2.0f);
  EXPECT_FALSE(SameKernel(*a, *overlapping));
  // A parameter instead of an arena buffer: another kind of storage.
  llvm::Function* from_param = MakeKernel(module, BufferRegion::Param(0), BufferRegion::Arena(64, 128), 2.0f);
  EXPECT_FALSE(SameKernel(*a, *from_param));
  // Another constant.
  llvm::Function* other_factor = MakeKernel(module, BufferRegion::Arena(0, 64), BufferRegion::Arena(64, 128), 3.0f);
  EXPECT_FALSE(SameKernel(*a, *other_factor));
}

TEST(KernelSharingTest, ShareReturnsTheEarlierEqualKernelAndErasesTheNewOne) {
  llvm::LLVMContext ctx;
  llvm::Module module("m", ctx);
  KernelSharing sharing;
  llvm::Function* first = MakeKernel(module, BufferRegion::Arena(0, 64), BufferRegion::Arena(64, 128), 2.0f);
  EXPECT_EQ(sharing.Share("k", first), first);
  llvm::Function* twin = MakeKernel(module, BufferRegion::Arena(256, 320), BufferRegion::Arena(0, 64), 2.0f);
  EXPECT_EQ(sharing.Share("k", twin), first);
  EXPECT_EQ(sharing.shared(), 1);
  EXPECT_EQ(module.size(), 1u);  // the twin is gone
  // Equal IR under another key is not looked at.
  llvm::Function* other_key = MakeKernel(module, BufferRegion::Arena(256, 320), BufferRegion::Arena(0, 64), 2.0f);
  EXPECT_EQ(sharing.Share("other", other_key), other_key);
  // Different IR under the same key is kept.
  llvm::Function* different = MakeKernel(module, BufferRegion::Arena(0, 64), BufferRegion::Arena(64, 128), 5.0f);
  EXPECT_EQ(sharing.Share("k", different), different);
  EXPECT_EQ(sharing.shared(), 1);
  EXPECT_EQ(module.size(), 3u);
}

TEST(KernelSharingTest, FusionKeysIgnoreNamesAndMetadataButNotConstants) {
  const std::string text = R"(
HloModule m
fused_a {
  x = f32[64] parameter(0)
  c = f32[] constant(2)
  bc = f32[64] broadcast(c), dimensions={}
  m = f32[64] multiply(x, bc), metadata={op_name="layer0/mul"}
  ROOT t = f32[64] tanh(m)
}
fused_b {
  y = f32[64] parameter(0)
  two = f32[] constant(2)
  b2 = f32[64] broadcast(two), dimensions={}
  mul = f32[64] multiply(y, b2), metadata={op_name="layer1/mul" source_line=7}
  ROOT th = f32[64] tanh(mul)
}
fused_c {
  z = f32[64] parameter(0)
  three = f32[] constant(3)
  b3 = f32[64] broadcast(three), dimensions={}
  mz = f32[64] multiply(z, b3)
  ROOT tz = f32[64] tanh(mz)
}
ENTRY e {
  p0 = f32[64] parameter(0)
  p1 = f32[64] parameter(1)
  f0 = f32[64] fusion(p0), kind=kLoop, calls=fused_a
  f1 = f32[64] fusion(p1), kind=kLoop, calls=fused_b
  f2 = f32[64] fusion(p1), kind=kLoop, calls=fused_c
  ROOT r = (f32[64], f32[64], f32[64]) tuple(f0, f1, f2)
}
)";
  auto parsed = ParseHloModule(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  HloModule& module = **parsed;
  auto find = [&](const std::string& name) -> const HloInstruction& {
    for (const HloInstruction* h : module.entry_computation()->instructions()) {
      if (h->name() == name) return *h;
    }
    ADD_FAILURE() << "no " << name;
    return *module.entry_computation()->root_instruction();
  };
  const std::string key0 = FusionStructureKey(find("f0"));
  EXPECT_EQ(key0, FusionStructureKey(find("f1")));
  EXPECT_NE(key0, FusionStructureKey(find("f2")));  // constant 3, not 2

  KernelSharing sharing;
  sharing.CountFusions(module);
  EXPECT_EQ(sharing.CandidateKey(find("f0")), key0);
  EXPECT_EQ(sharing.CandidateKey(find("f1")), key0);
  EXPECT_EQ(sharing.CandidateKey(find("f2")), "");  // no twin
}

// A long chain of identical row-local steps (x - rowsum(x)): its row groups
// after the first are the same kernel on other buffers.
TEST(KernelSharingTest, RepeatedRowGroupsShareOneKernelAndMatchTheEvaluator) {
  const std::string text = cpu_test::RowSumChainHlo(100, 32, 128);
  const std::string ir = cpu_test::OptimizedIr(text, /*threads=*/1);
  ASSERT_FALSE(ir.empty());
  const int kernels = DefinedKernels(ir);
  // 200 row-local values in groups of at most 16: 13 groups, of which the
  // first reads the parameter and the last writes the result; the 11 in
  // the middle differ only in which arena bytes they use: one kernel.
  EXPECT_EQ(kernels, 3) << ir.substr(0, 4000);
  for (int threads : {1, 2}) {
    cpu_test::CompareWithEvaluator(text, cpu_test::RandomArguments(text, 7 + threads), ErrorSpec{1e-3, 1e-3},
                                   cpu_test::WithThreads(threads));
  }
}

// Parallel fusions (two threads): each layer's kernel is the first one's.
TEST(KernelSharingTest, RepeatedParallelLayersShareKernelsAndMatchTheEvaluator) {
  constexpr int kLayers = 6;
  std::string text = "HloModule layers\nENTRY e {\n  v0 = f32[256,512] parameter(0)\n  w = f32[256,512] parameter(1)\n";
  for (int i = 0; i < kLayers; ++i) {
    // Each layer reverses its input (so it cannot fuse into the next) and
    // mixes it with the weights.
    absl::StrAppend(&text, "  r", i, " = f32[256,512] reverse(v", i, "), dimensions={1}\n");
    absl::StrAppend(&text, "  m", i, " = f32[256,512] multiply(r", i, ", w)\n");
    absl::StrAppend(&text, "  a", i, " = f32[256,512] add(m", i, ", v", i, ")\n");
    absl::StrAppend(&text, "  ", i + 1 == kLayers ? "ROOT " : "", "v", i + 1, " = f32[256,512] tanh(a", i, ")\n");
  }
  text += "}\n";
  const std::string shared_ir = cpu_test::OptimizedIr(text, /*threads=*/2);
  ASSERT_FALSE(shared_ir.empty());
  // The first layer reads a parameter, the last writes the result, the
  // four between are one kernel.
  EXPECT_EQ(DefinedKernels(shared_ir), 3) << shared_ir.substr(0, 4000);
  cpu_test::CompareWithEvaluator(text, cpu_test::RandomArguments(text, 3), ErrorSpec{1e-4, 1e-4},
                                 cpu_test::WithThreads(2));
}

}  // namespace
}  // namespace cpu
}  // namespace xla
