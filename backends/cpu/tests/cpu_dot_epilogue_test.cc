// Dot + elementwise epilogue fusion (ir_emitter.h): a dot whose only
// use is an elementwise chain ending at a materialized value of its shape is
// computed into that value's buffer, the chain applied by the matmul runtime
// to each finished block. Every module runs against the evaluator with one
// and two threads (Eigen splits these sizes into several blocks); the IR
// shows whether the epilogue was fused.
#include <string>

#include "backends/cpu/tests/cpu_test_util.h"
#include "gtest/gtest.h"

namespace xla {
namespace cpu {
namespace {

using cpu_test::CompareWithEvaluator;
using cpu_test::OptimizedIr;
using cpu_test::RandomArguments;
using cpu_test::WithThreads;

// Sums over k of products of values in [-1, 1], then the epilogue.
const ErrorSpec kTolerance{1e-4, 1e-5};

void ExpectMatchesEvaluator(const std::string& text) {
  for (int threads : {1, 2}) {
    SCOPED_TRACE(threads);
    CompareWithEvaluator(text, RandomArguments(text, 7, /*range=*/1.0), kTolerance, WithThreads(threads));
  }
}

bool HasEpilogue(const std::string& text, const std::string& end) {
  const std::string ir = OptimizedIr(text, 2);
  return ir.find("@" + end + ".epilogue(") != std::string::npos;
}

// A dense layer: bias along the columns, then ReLU; odd sizes (no multiple
// of the vector width or of Eigen's blocks).
TEST(CpuDotEpilogueTest, BiasAndReluAreAppliedToTheDotsBlocks) {
  const std::string text = R"(HloModule dense
ENTRY e {
  x = f32[301,517] parameter(0)
  w = f32[517,413] parameter(1)
  b = f32[413] parameter(2)
  d = f32[301,413] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[301,413] broadcast(b), dimensions={1}
  z = f32[301,413] add(d, bb)
  zero = f32[] constant(0)
  zb = f32[301,413] broadcast(zero), dimensions={}
  ROOT r = f32[301,413] maximum(z, zb)
})";
  ExpectMatchesEvaluator(text);
  EXPECT_TRUE(HasEpilogue(text, "r"));
}

// With two threads Eigen hands each worker blocks of 48 and 16 of the 64
// columns, fewer than the epilogue's unrolled vector loop takes (8 vectors of
// 8): they run its vectorized remainder loop (epilogue vectorization, see
// jit.cc), not the scalar one, which made this module 2x slower on two
// threads than on one. bf16 rounding of a differently ordered f32 sum may
// differ by one bf16 ulp.
TEST(CpuDotEpilogueTest, NarrowBlocksRunVectorRemainders) {
  const std::string text = R"(HloModule pointwise
ENTRY e {
  x = bf16[1,40,150,32] parameter(0)
  w = bf16[32,64] parameter(1)
  bias = bf16[64] parameter(2)
  xf = f32[1,40,150,32] convert(x)
  wf = f32[32,64] convert(w)
  d = f32[1,40,150,64] dot(xf, wf), lhs_contracting_dims={3}, rhs_contracting_dims={0}
  db = bf16[1,40,150,64] convert(d)
  bb = bf16[1,40,150,64] broadcast(bias), dimensions={3}
  a = bf16[1,40,150,64] add(db, bb)
  z = bf16[] constant(0)
  six = bf16[] constant(6)
  bz = bf16[1,40,150,64] broadcast(z), dimensions={}
  b6 = bf16[1,40,150,64] broadcast(six), dimensions={}
  r = bf16[1,40,150,64] clamp(bz, a, b6)
  ROOT c = f32[1,40,150,64] convert(r)
})";
  for (int threads : {1, 2}) {
    SCOPED_TRACE(threads);
    CompareWithEvaluator(text, RandomArguments(text, 7, /*range=*/1.0), ErrorSpec{2e-2, 1e-2}, WithThreads(threads));
  }
  const std::string ir = OptimizedIr(text, 2);
  const std::string epilogue = cpu_test::FunctionIr(ir, "c.epilogue");
  ASSERT_FALSE(epilogue.empty()) << ir.substr(0, 3000);
  // The main vector loop and a narrower one for the tail of each row.
  EXPECT_GE(cpu_test::VectorLoopBodies(ir, "c.epilogue").size(), 2) << epilogue;
}

// A transformer-style projection [batch, seq, hidden] x [hidden, out] with
// bias and tanh: the epilogue's rows are (batch, seq) pairs.
TEST(CpuDotEpilogueTest, ProjectionOfASequence) {
  const std::string text = R"(HloModule proj
ENTRY e {
  x = f32[3,37,65] parameter(0)
  w = f32[65,29] parameter(1)
  b = f32[29] parameter(2)
  d = f32[3,37,29] dot(x, w), lhs_contracting_dims={2}, rhs_contracting_dims={0}
  bb = f32[3,37,29] broadcast(b), dimensions={2}
  z = f32[3,37,29] add(d, bb)
  ROOT r = f32[3,37,29] tanh(z)
})";
  ExpectMatchesEvaluator(text);
  EXPECT_TRUE(HasEpilogue(text, "r"));
}

// Both operands read transposed; the epilogue's end is an intermediate
// (materialized: two uses) and the dot is read twice within the chain.
TEST(CpuDotEpilogueTest, TransposedOperandsAndAnIntermediateEnd) {
  const std::string text = R"(HloModule dense
ENTRY e {
  x = f32[97,130] parameter(0)
  w = f32[70,97]{0,1} parameter(1)
  d = f32[130,70] dot(x, w), lhs_contracting_dims={0}, rhs_contracting_dims={1}
  sq = f32[130,70] multiply(d, d)
  t = f32[130,70] tanh(sq)
  s = f32[130] reduce(t, z), dimensions={1}, to_apply=add
  z = f32[] constant(0)
  sb = f32[130,70] broadcast(s), dimensions={0}
  ROOT r = f32[130,70] add(t, sb)
}
add {
  a = f32[] parameter(0)
  c = f32[] parameter(1)
  ROOT s = f32[] add(a, c)
})";
  ExpectMatchesEvaluator(text);
  EXPECT_TRUE(HasEpilogue(text, "t"));
}

// An SGD step: w - rate * (a^T g), written straight into a result, next to
// a dot whose own buffer is a result (no epilogue: nothing consumes it).
TEST(CpuDotEpilogueTest, SgdUpdateIntoAResult) {
  const std::string text = R"(HloModule sgd
ENTRY e {
  a = f32[256,300] parameter(0)
  g = f32[256,200] parameter(1)
  w = f32[300,200] parameter(2)
  dw = f32[300,200] dot(a, g), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  rate = f32[] constant(0.01)
  rb = f32[300,200] broadcast(rate), dimensions={}
  s = f32[300,200] multiply(rb, dw)
  w2 = f32[300,200] subtract(w, s)
  h = f32[256,300] dot(g, w), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  ROOT out = (f32[300,200], f32[256,300]) tuple(w2, h)
})";
  ExpectMatchesEvaluator(text);
  EXPECT_TRUE(HasEpilogue(text, "w2"));
}

// f64, a matrix-vector product (one column) and a vector-matrix one (one
// row): Eigen's matrix-vector path also calls the epilogue.
TEST(CpuDotEpilogueTest, F64AndMatrixVectorShapes) {
  const std::string text = R"(HloModule mv
ENTRY e {
  m = f64[150,90] parameter(0)
  v = f64[90,1] parameter(1)
  u = f64[1,150] parameter(2)
  mv = f64[150,1] dot(m, v), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  e1 = f64[150,1] exponential(mv)
  one = f64[] constant(1)
  ob = f64[150,1] broadcast(one), dimensions={}
  r1 = f64[150,1] add(e1, ob)
  um = f64[1,90] dot(u, m), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  r2 = f64[1,90] negate(um)
  ROOT out = (f64[150,1], f64[1,90]) tuple(r1, r2)
})";
  ExpectMatchesEvaluator(text);
  EXPECT_TRUE(HasEpilogue(text, "r1"));
  EXPECT_TRUE(HasEpilogue(text, "r2"));
}

// Not fused: the dot has a second use; the chain changes shape (a
// transpose reads other elements than the one it writes); the end has
// another element type.
TEST(CpuDotEpilogueTest, ChainsThatCannotBeAnEpilogueKeepTheDotsBuffer) {
  const std::string used_twice = R"(HloModule m
ENTRY e {
  x = f32[40,50] parameter(0)
  w = f32[50,60] parameter(1)
  d = f32[40,60] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  n = f32[40,60] negate(d)
  ROOT out = (f32[40,60], f32[40,60]) tuple(n, d)
})";
  const std::string transposed = R"(HloModule m
ENTRY e {
  x = f32[40,50] parameter(0)
  w = f32[50,40] parameter(1)
  d = f32[40,40] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  t = f32[40,40] transpose(d), dimensions={1,0}
  ROOT r = f32[40,40] add(t, d)
})";
  const std::string converted = R"(HloModule m
ENTRY e {
  x = f32[40,50] parameter(0)
  w = f32[50,60] parameter(1)
  d = f32[40,60] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT c = f64[40,60] convert(d)
})";
  for (const auto& [text, end] : {std::pair{used_twice, "n"}, {transposed, "r"}, {converted, "c"}}) {
    ExpectMatchesEvaluator(text);
    EXPECT_FALSE(HasEpilogue(text, end)) << text;
  }
}

// A dense layer in a while body (a computation emitted inside control flow).
TEST(CpuDotEpilogueTest, InsideAWhileBody) {
  const std::string text = R"(HloModule loop
cond {
  p = (s32[], f32[64,64]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT c = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[64,64]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[64,64] get-tuple-element(p), index=1
  d = f32[64,64] dot(x, x), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  h = f32[] constant(0.125)
  hb = f32[64,64] broadcast(h), dimensions={}
  s = f32[64,64] multiply(d, hb)
  y = f32[64,64] tanh(s)
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT t = (s32[], f32[64,64]) tuple(j, y)
}
ENTRY e {
  x = f32[64,64] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[64,64]) tuple(zero, x)
  w = (s32[], f32[64,64]) while(init), condition=cond, body=body
  ROOT r = f32[64,64] get-tuple-element(w), index=1
})";
  ExpectMatchesEvaluator(text);
  EXPECT_TRUE(HasEpilogue(text, "y"));
}

}  // namespace
}  // namespace cpu
}  // namespace xla
