// Differential tests of the CPU backend's complex (c64/c128) support against
// the reference evaluator: every elementwise op the evaluator defines on
// complex, compare, select, convert to and from every type, complex(),
// data movement, reduce, dot, map, bitcast-convert and constants, on random
// inputs mixed with zeros of both signs, infinities, NaNs, huge and
// subnormal parts.
//
// Tolerance table: every complex result is compared BIT-EXACTLY (NaN equal
// to any NaN). The transcendentals, division, abs, sign and power call the
// evaluator's own std::complex expressions (runtime_complex.h), and the
// inline ops are the same IEEE operations in the same order, so no
// tolerance is needed. The one exception is a reduction or dot whose adds
// LLVM may not reorder (no fast-math on complex): also exact.
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "backends/backend.h"
#include "backends/cpu/tests/cpu_test_util.h"
#include "gtest/gtest.h"
#include "xla/evaluator/hlo_evaluator.h"
#include "xla/hlo/hlo_parser.h"
#include "xla/primitive_util.h"
#include "xla/shape_util.h"

namespace xla {
namespace cpu {
namespace {

using cpu_test::CpuBackendOrDie;

const std::vector<std::string> kComplexTypes = {"c64", "c128"};
const std::vector<std::string> kAllTypes = {"pred", "s8",  "s16", "s32", "s64", "u8",  "u16", "u32",
                                            "u64",  "f32", "f64", "f16", "bf16", "c64", "c128"};

// A component: mostly uniform in [-3, 3], else a special value.
template <typename R>
R RandomPart(std::mt19937_64& rng, bool specials) {
  if (specials && rng() % 3 == 0) {
    const R values[] = {R(0),
                        -R(0),
                        std::numeric_limits<R>::infinity(),
                        -std::numeric_limits<R>::infinity(),
                        std::numeric_limits<R>::quiet_NaN(),
                        std::numeric_limits<R>::max() / 4,
                        -std::numeric_limits<R>::denorm_min() * 3,
                        R(1),
                        R(-1)};
    return values[rng() % (sizeof(values) / sizeof(values[0]))];
  }
  return static_cast<R>(std::uniform_real_distribution<double>(-3, 3)(rng));
}

Literal RandomLiteral(const Shape& shape, std::mt19937_64& rng, bool specials) {
  if (shape.IsTuple()) {
    std::vector<Literal> elements;
    for (const Shape& s : shape.tuple_shapes()) elements.push_back(RandomLiteral(s, rng, specials));
    return Literal::MakeTuple(std::move(elements));
  }
  Literal lit(shape);
  primitive_util::ArrayTypeSwitch(shape.element_type(), [&](auto tag) {
    using T = decltype(tag);
    for (auto& v : lit.data<T>()) {
      if constexpr (std::is_same_v<T, bool>) {
        v = rng() & 1;
      } else if constexpr (std::is_integral_v<T>) {
        v = static_cast<T>(static_cast<int64_t>(rng() % 201) - 100);
      } else if constexpr (primitive_util::is_complex_v<T>) {
        using R = typename T::value_type;
        v = T(RandomPart<R>(rng, specials), RandomPart<R>(rng, specials));
      } else if constexpr (std::is_floating_point_v<T>) {
        v = RandomPart<T>(rng, specials);
      } else {  // f16, bf16
        v = static_cast<T>(RandomPart<float>(rng, specials) * 0.5f);
      }
    }
  });
  return lit;
}

// Float bits equal, or both NaN.
template <typename R>
bool SameBits(R e, R a) {
  if (std::isnan(e) || std::isnan(a)) return std::isnan(e) && std::isnan(a);
  return std::memcmp(&e, &a, sizeof(R)) == 0;
}

absl::Status BitExact(const Literal& expected, const Literal& actual) {
  if (expected.shape().ToString(true) != actual.shape().ToString(true)) {
    return absl::InvalidArgumentError(
        absl::StrCat("shape ", actual.shape().ToString(true), " != ", expected.shape().ToString(true)));
  }
  if (expected.shape().IsTuple()) {
    for (size_t i = 0; i < expected.tuple_elements().size(); ++i) {
      absl::Status s = BitExact(expected.tuple_elements()[i], actual.tuple_elements()[i]);
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }
  return primitive_util::ArrayTypeSwitch(expected.element_type(), [&](auto tag) -> absl::Status {
    using T = decltype(tag);
    auto ev = expected.data<T>();
    auto av = actual.data<T>();
    for (size_t i = 0; i < ev.size(); ++i) {
      bool ok;
      if constexpr (primitive_util::is_complex_v<T>) {
        ok = SameBits(ev[i].real(), av[i].real()) && SameBits(ev[i].imag(), av[i].imag());
      } else if constexpr (std::is_floating_point_v<T>) {
        ok = SameBits(ev[i], av[i]);
      } else if constexpr (primitive_util::is_float_v<T>) {
        ok = SameBits(static_cast<float>(ev[i]), static_cast<float>(av[i]));
      } else {
        ok = ev[i] == av[i];
      }
      if (!ok) {
        Literal e1(ShapeUtil::MakeScalarShape(expected.element_type())), a1(e1.shape());
        e1.data<T>()[0] = ev[i];
        a1.data<T>()[0] = av[i];
        return absl::InvalidArgumentError(absl::StrCat("element ", i, ": expected ", e1.ToStringWithoutShape(),
                                                       ", actual ", a1.ToStringWithoutShape()));
      }
    }
    return absl::OkStatus();
  });
}

int g_compared = 0;

// Runs `text` on the CPU backend and the evaluator (random arguments, or
// `args`) and compares bit-exactly.
void RunAndCompare(const std::string& text, std::vector<Literal> args = {}, uint64_t seed = 11,
                   bool specials = true) {
  SCOPED_TRACE(text);
  auto module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  if (args.empty()) {
    std::mt19937_64 rng(seed);
    for (const HloInstruction* p : (*module)->entry_computation()->parameter_instructions()) {
      args.push_back(RandomLiteral(p->shape(), rng, specials));
    }
  }
  std::vector<const Literal*> arg_ptrs;
  for (const Literal& a : args) arg_ptrs.push_back(&a);
  auto expected = HloEvaluator().Evaluate(**module, arg_ptrs);
  ASSERT_TRUE(expected.ok()) << expected.status();
  auto executable = CpuBackendOrDie()->compiler()->Compile(std::move(*module), DebugOptions());
  ASSERT_TRUE(executable.ok()) << executable.status();
  std::vector<std::shared_ptr<const DeviceBuffer>> buffers;
  for (const Literal& a : args) {
    auto b = DeviceBuffer::FromLiteral(a);
    ASSERT_TRUE(b.ok()) << b.status();
    buffers.push_back(*b);
  }
  auto result = (*executable)->Execute(buffers);
  ASSERT_TRUE(result.ok()) << result.status();
  Literal actual = (*result)->ToLiteral();
  absl::Status cmp = BitExact(*expected, actual);
  EXPECT_TRUE(cmp.ok()) << cmp << "\nargs[0]: " << args.at(0).ToString().substr(0, 1500)
                        << (args.size() > 1 ? "\nargs[1]: " + args[1].ToString().substr(0, 1500) : "")
                        << "\nexpected: " << expected->ToString().substr(0, 1500)
                        << "\nactual:   " << actual.ToString().substr(0, 1500);
  ++g_compared;
}

std::string Sub(std::string text, const std::vector<std::pair<std::string, std::string>>& subs) {
  return absl::StrReplaceAll(text, subs);
}

std::string RealOf(const std::string& t) { return t == "c64" ? "f32" : "f64"; }

TEST(CpuComplexTest, UnaryOps) {
  for (const std::string& t : kComplexTypes) {
    for (const std::string op : {"negate", "exponential", "exponential-minus-one", "log", "log-plus-one", "sqrt",
                                 "rsqrt", "sine", "cosine", "tan", "tanh", "logistic", "sign", "cbrt", "copy"}) {
      for (const std::string dims : {"[]", "[0]", "[67]", "[3,5]"}) {
        RunAndCompare(Sub(R"(HloModule m
ENTRY e {
  p = $T$D parameter(0)
  ROOT r = $T$D $OP(p)
})",
                          {{"$T", t}, {"$D", dims}, {"$OP", op}}));
      }
    }
    for (const std::string op : {"abs", "real", "imag"}) {
      RunAndCompare(Sub(R"(HloModule m
ENTRY e {
  p = $T[67] parameter(0)
  ROOT r = $R[67] $OP(p)
})",
                        {{"$T", t}, {"$R", RealOf(t)}, {"$OP", op}}));
    }
  }
}

TEST(CpuComplexTest, BinaryOps) {
  for (const std::string& t : kComplexTypes) {
    for (const std::string op : {"add", "subtract", "multiply", "divide", "power", "maximum", "minimum"}) {
      for (uint64_t seed : {1, 2, 3}) {
        RunAndCompare(Sub(R"(HloModule m
ENTRY e {
  a = $T[129] parameter(0)
  b = $T[129] parameter(1)
  ROOT r = $T[129] $OP(a, b)
})",
                          {{"$T", t}, {"$OP", op}}),
                      {}, seed);
      }
    }
  }
}

// Products whose naive parts are both NaN although the product is infinite
// (C99 Annex G recovery), and quotients by zero and infinity.
TEST(CpuComplexTest, MultiplyAndDivideSpecialPairs) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<complex64> specials = {{inf, inf}, {inf, nan}, {nan, inf}, {0, 0}, {-0.0f, 0}, {inf, 0},
                                           {0, -inf},  {nan, nan}, {1, 2},     {1e30f, 1e30f}, {1e-30f, -1e-45f}};
  std::vector<complex64> a, b;
  for (const complex64& x : specials) {
    for (const complex64& y : specials) {
      a.push_back(x);
      b.push_back(y);
    }
  }
  for (const std::string op : {"multiply", "divide", "power"}) {
    const std::string n = absl::StrCat(a.size());
    RunAndCompare(Sub(R"(HloModule m
ENTRY e {
  a = c64[$N] parameter(0)
  b = c64[$N] parameter(1)
  ROOT r = c64[$N] $OP(a, b)
})",
                      {{"$N", n}, {"$OP", op}}),
                  [&] {
                    std::vector<Literal> args;
                    args.push_back(Literal::CreateR1<complex64>(a));
                    args.push_back(Literal::CreateR1<complex64>(b));
                    return args;
                  }());
  }
}

TEST(CpuComplexTest, CompareAndSelect) {
  for (const std::string& t : kComplexTypes) {
    for (const std::string dir : {"EQ", "NE", "LT", "LE", "GT", "GE"}) {
      // Parts drawn from few values so that equal parts are common.
      std::mt19937_64 rng(5);
      Literal a(ShapeUtil::MakeShape(t == "c64" ? C64 : C128, {64})), b(a.shape());
      const double parts[] = {0, 1, -1, std::numeric_limits<double>::quiet_NaN()};
      primitive_util::ArrayTypeSwitch(a.element_type(), [&](auto tag) {
        using T = decltype(tag);
        if constexpr (primitive_util::is_complex_v<T>) {
          for (Literal* l : {&a, &b}) {
            for (auto& v : l->data<T>()) v = T(parts[rng() % 4], parts[rng() % 4]);
          }
        }
      });
      std::vector<Literal> args;
      args.push_back(std::move(a));
      args.push_back(std::move(b));
      RunAndCompare(Sub(R"(HloModule m
ENTRY e {
  a = $T[64] parameter(0)
  b = $T[64] parameter(1)
  c = pred[64] compare(a, b), direction=$DIR
  s = $T[64] select(c, a, b)
  ROOT r = (pred[64], $T[64]) tuple(c, s)
})",
                        {{"$T", t}, {"$DIR", dir}}),
                    std::move(args));
    }
  }
}

TEST(CpuComplexTest, ConvertToAndFromEveryType) {
  for (const std::string& c : kComplexTypes) {
    for (const std::string& t : kAllTypes) {
      RunAndCompare(Sub(R"(HloModule m
ENTRY e {
  p = $C[33] parameter(0)
  ROOT r = $T[33] convert(p)
})",
                        {{"$C", c}, {"$T", t}}));
      RunAndCompare(Sub(R"(HloModule m
ENTRY e {
  p = $T[33] parameter(0)
  ROOT r = $C[33] convert(p)
})",
                        {{"$C", c}, {"$T", t}}));
    }
  }
}

TEST(CpuComplexTest, ComplexFromPartsFused) {
  for (const std::string& t : kComplexTypes) {
    RunAndCompare(Sub(R"(HloModule m
ENTRY e {
  re = $R[4,6] parameter(0)
  im = $R[6] parameter(1)
  b = $R[4,6] broadcast(im), dimensions={1}
  z = $T[4,6] complex(re, b)
  e = $T[4,6] exponential(z)
  ROOT r = $T[4,6] multiply(z, e)
})",
                      {{"$T", t}, {"$R", RealOf(t)}}));
  }
}

TEST(CpuComplexTest, DataMovement) {
  for (const std::string& t : kComplexTypes) {
    RunAndCompare(Sub(R"(HloModule m
ENTRY e {
  a = $T[3,4] parameter(0)
  b = $T[2,4] parameter(1)
  c = $T[5,4] concatenate(a, b), dimensions={0}
  t = $T[4,5] transpose(c), dimensions={1,0}
  s = $T[4,3] slice(t), slice={[0:4], [1:4]}
  rv = $T[4,3] reverse(s), dimensions={0,1}
  rs = $T[12] reshape(rv)
  z = $T[] constant((1.5, -2))
  p = $T[17] pad(rs, z), padding=2_3_0
  br = $T[2,17] broadcast(p), dimensions={1}
  ROOT r = $T[17,2] transpose(br), dimensions={1,0}
})",
                      {{"$T", t}}));
    // A constant array lives in a global; dynamic-update-slice materializes.
    RunAndCompare(Sub(R"(HloModule m
ENTRY e {
  a = $T[5] parameter(0)
  k = $T[3] constant({(1, 2), (-0, inf), (nan, -3.5)})
  i = s32[] constant(1)
  d = $T[5] dynamic-update-slice(a, k, i)
  ds = $T[2] dynamic-slice(d, i), dynamic_slice_sizes={2}
  io = $T[2] iota(), iota_dimension=0
  sum = $T[2] add(ds, io)
  ROOT r = ($T[5], $T[2], $T[3]) tuple(d, sum, k)
})",
                      {{"$T", t}}));
  }
}

TEST(CpuComplexTest, ReduceAndDot) {
  for (const std::string& t : kComplexTypes) {
    for (const std::string op : {"add", "multiply"}) {
      for (const std::string dims : {"{0}", "{1}", "{0,1}"}) {
        const std::string out = dims == "{0}" ? "[7]" : dims == "{1}" ? "[5]" : "[]";
        RunAndCompare(Sub(R"(HloModule m
f {
  x = $T[] parameter(0)
  y = $T[] parameter(1)
  ROOT r = $T[] $OP(x, y)
}
ENTRY e {
  a = $T[5,7] parameter(0)
  z = $T[] constant((0, 0))
  ROOT r = $T$SHAPE reduce(a, z), dimensions=$DIMS, to_apply=f
})",
                          {{"$T", t}, {"$OP", op}, {"$SHAPE", out}, {"$DIMS", dims}}),
                      {}, 3, /*specials=*/false);
      }
    }
    // Dot on finite values and on values with specials.
    for (bool specials : {false, true}) {
      RunAndCompare(Sub(R"(HloModule m
ENTRY e {
  a = $T[2,3,4] parameter(0)
  b = $T[2,4,5] parameter(1)
  ROOT d = $T[2,3,5] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}
})",
                        {{"$T", t}}),
                    {}, 9, specials);
    }
  }
}

TEST(CpuComplexTest, MapAndVariadicReduce) {
  RunAndCompare(R"(HloModule m
f {
  x = c64[] parameter(0)
  y = c128[] parameter(1)
  cx = c128[] convert(x)
  m = c128[] multiply(cx, y)
  ROOT r = c128[] sqrt(m)
}
ENTRY e {
  a = c64[9] parameter(0)
  b = c128[9] parameter(1)
  ROOT r = c128[9] map(a, b), dimensions={0}, to_apply=f
})");
  // Argmax-like: keeps the lexicographically largest complex value and the
  // sum of the real parts' magnitudes.
  RunAndCompare(R"(HloModule m
f {
  a = c64[] parameter(0)
  s = f32[] parameter(1)
  x = c64[] parameter(2)
  y = f32[] parameter(3)
  mx = c64[] maximum(a, x)
  ab = f32[] abs(x)
  sum = f32[] add(s, ab)
  ROOT r = (c64[], f32[]) tuple(mx, sum)
}
ENTRY e {
  a = c64[4,6] parameter(0)
  b = f32[4,6] parameter(1)
  z = c64[] constant((-inf, -inf))
  w = f32[] constant(0)
  ROOT r = (c64[4], f32[4]) reduce(a, b, z, w), dimensions={1}, to_apply=f
})",
                {}, 4, /*specials=*/false);
}

// Tuples chosen whole by a scalar pred; a reducer that builds a tuple and
// takes it apart again.
TEST(CpuComplexTest, TupleSelectAndTuplesInsideReducers) {
  for (bool pred : {false, true}) {
    std::mt19937_64 rng(2);
    std::vector<Literal> args;
    args.push_back(Literal::CreateR0<bool>(pred));
    args.push_back(RandomLiteral(ShapeUtil::MakeShape(C64, {3}), rng, true));
    args.push_back(RandomLiteral(ShapeUtil::MakeShape(F32, {}), rng, true));
    RunAndCompare(R"(HloModule m
ENTRY e {
  p = pred[] parameter(0)
  a = c64[3] parameter(1)
  f = f32[] parameter(2)
  n = c64[3] negate(a)
  t1 = (c64[3], f32[]) tuple(a, f)
  t2 = (c64[3], f32[]) tuple(n, f)
  ROOT s = (c64[3], f32[]) select(p, t1, t2)
})",
                  std::move(args));
  }
  RunAndCompare(R"(HloModule m
f {
  x = c128[] parameter(0)
  y = c128[] parameter(1)
  u = (c128[], c128[]) tuple(y, x)
  t = (c128[], (c128[], c128[])) tuple(x, u)
  inner = (c128[], c128[]) get-tuple-element(t), index=1
  a = c128[] get-tuple-element(inner), index=0
  b = c128[] get-tuple-element(t), index=0
  ROOT r = c128[] add(a, b)
}
ENTRY e {
  a = c128[4,5] parameter(0)
  z = c128[] constant((0, 1))
  ROOT r = c128[4] reduce(a, z), dimensions={1}, to_apply=f
})",
                {}, 6, /*specials=*/false);
}

TEST(CpuComplexTest, BitcastConvert) {
  RunAndCompare(R"(HloModule m
ENTRY e {
  a = c64[6] parameter(0)
  b = s64[6] bitcast-convert(a)
  c = f64[6] bitcast-convert(a)
  d = f32[6,2] bitcast-convert(a)
  e = c64[6] bitcast-convert(d)
  ROOT r = (s64[6], f64[6], f32[6,2], c64[6]) tuple(b, c, d, e)
})");
  RunAndCompare(R"(HloModule m
ENTRY e {
  a = c128[6] parameter(0)
  b = s64[6,2] bitcast-convert(a)
  c = c128[6] bitcast-convert(b)
  n = c128[6] negate(a)
  d = u8[6,16] bitcast-convert(n)
  ROOT r = (s64[6,2], c128[6], u8[6,16]) tuple(b, c, d)
})");
}

// pred is one bit (StableHLO's i1), element i being bit i: packed into
// and unpacked from every width, from buffers and from fused values (a
// compare), and back.
TEST(CpuComplexTest, BitcastConvertPredIsOneBit) {
  RunAndCompare(R"(HloModule m
ENTRY e {
  a = pred[3,8] parameter(0)
  b = pred[2,64] parameter(1)
  c = pred[4,32] parameter(2)
  g = pred[4,2,16] parameter(3)
  s = s8[3] bitcast-convert(a)
  u = u8[3] bitcast-convert(a)
  l = s64[2] bitcast-convert(b)
  d = f64[2] bitcast-convert(b)
  z = c64[2] bitcast-convert(b)
  f = f32[4] bitcast-convert(c)
  h = bf16[4,2] bitcast-convert(g)
  p = pred[3,8] bitcast-convert(a)
  ROOT r = (s8[3], u8[3], s64[2], f64[2], c64[2], f32[4], bf16[4,2], pred[3,8]) tuple(s, u, l, d, z, f, h, p)
})");
  RunAndCompare(R"(HloModule m
ENTRY e {
  a = s16[5] parameter(0)
  b = f32[5] parameter(1)
  c = c128[2] parameter(2)
  h = f16[5] parameter(3)
  p = pred[5,16] bitcast-convert(a)
  q = pred[5,32] bitcast-convert(b)
  w = pred[2,128] bitcast-convert(c)
  g = pred[5,16] bitcast-convert(h)
  back = f32[5] bitcast-convert(q)
  ROOT r = (pred[5,16], pred[5,32], pred[2,128], pred[5,16], f32[5]) tuple(p, q, w, g, back)
})");
  // Fused: the pred side is a compare's value, the other side a negation's.
  RunAndCompare(R"(HloModule m
ENTRY e {
  a = f32[6,16] parameter(0)
  z = f32[] constant(0)
  zs = f32[6,16] broadcast(z), dimensions={}
  lt = pred[6,16] compare(a, zs), direction=LT
  u = u16[6] bitcast-convert(lt)
  x = s32[6] parameter(1)
  n = s32[6] negate(x)
  bits = pred[6,32] bitcast-convert(n)
  ROOT r = (u16[6], pred[6,32]) tuple(u, bits)
})");
}

TEST(CpuComplexTest, ClampOnComplexIsRejected) {
  auto module = ParseHloModule(R"(HloModule m
ENTRY e {
  a = c64[3] parameter(0)
  ROOT r = c64[3] clamp(a, a, a)
})");
  ASSERT_TRUE(module.ok()) << module.status();
  auto executable = CpuBackendOrDie()->compiler()->Compile(std::move(*module), DebugOptions());
  EXPECT_FALSE(executable.ok());
}

class CountingEnvironment : public ::testing::Environment {
 public:
  void TearDown() override { std::printf("cpu_complex_test: %d modules compared bit-exactly\n", g_compared); }
};
[[maybe_unused]] ::testing::Environment* const kCounting =
    ::testing::AddGlobalTestEnvironment(new CountingEnvironment);

}  // namespace
}  // namespace cpu
}  // namespace xla
