// Differential tests of the CPU backend against the reference evaluator for
// the data-movement ops beyond the elementwise/reduce/dot core:
// dynamic-slice (fused), dynamic-update-slice (materialized) and
// bitcast-convert (same and different widths). Start indices include
// negative, huge and u64-above-INT64_MAX values, which both sides clamp.
#include <algorithm>
#include <cstdint>
#include <tuple>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "backends/backend.h"
#include "backends/cpu/cpu_executable.h"
#include "backends/cpu/tests/cpu_test_util.h"
#include "gtest/gtest.h"
#include "xla/evaluator/hlo_evaluator.h"
#include "xla/hlo/hlo_parser.h"
#include "xla/literal_comparison.h"
#include "xla/primitive_util.h"
#include "xla/shape_util.h"

namespace xla {
namespace cpu {
namespace {

using cpu_test::CpuBackendOrDie;

// Everything here moves or reinterprets bits: exact.
constexpr ErrorSpec kExact{0, 0};

const std::vector<std::string> kAllTypes = {"pred", "s8", "s16", "s32", "s64", "u8", "u16",
                                            "u32",  "u64", "f32", "f64", "f16", "bf16"};
const std::vector<std::string> kIndexTypes = {"s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64"};

Literal RandomLiteral(const Shape& shape, std::mt19937_64& rng) {
  Literal lit(shape);
  primitive_util::ArrayTypeSwitch(shape.element_type(), [&](auto tag) {
    using T = decltype(tag);
    for (auto& v : lit.data<T>()) {
      if constexpr (std::is_same_v<T, bool>) {
        v = rng() & 1;
      } else if constexpr (std::is_integral_v<T>) {
        v = static_cast<T>(rng());
      } else if constexpr (std::is_floating_point_v<T>) {
        v = static_cast<T>(std::uniform_real_distribution<double>(-100, 100)(rng));
      } else {  // f16, bf16
        v = static_cast<T>(static_cast<float>(std::uniform_real_distribution<double>(-100, 100)(rng)));
      }
    }
  });
  return lit;
}

// A scalar of integral type `type` holding `value` (wrapped to the type).
Literal IndexScalar(PrimitiveType type, int64_t value) {
  Literal lit(ShapeUtil::MakeScalarShape(type));
  primitive_util::ArrayTypeSwitch(type, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) lit.data<T>()[0] = static_cast<T>(value);
  });
  return lit;
}

int g_compared = 0;
class CountingEnvironment : public ::testing::Environment {
 public:
  void TearDown() override { std::printf("cpu_ops_test: %d modules compared with the evaluator\n", g_compared); }
};
[[maybe_unused]] ::testing::Environment* const kCounting =
    ::testing::AddGlobalTestEnvironment(new CountingEnvironment);

// Runs `text` on the CPU backend and the evaluator and compares exactly.
// `fixed` gives arguments by parameter number; the rest are random.
void RunAndCompare(const std::string& text, std::vector<std::pair<int, Literal>> fixed = {}, uint64_t seed = 7) {
  SCOPED_TRACE(text);
  auto module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  std::mt19937_64 rng(seed);
  std::vector<Literal> args;
  for (const HloInstruction* p : (*module)->entry_computation()->parameter_instructions()) {
    args.push_back(RandomLiteral(p->shape(), rng));
  }
  for (auto& [i, lit] : fixed) args.at(i) = std::move(lit);
  ++g_compared;
  cpu_test::CompareWithEvaluator(text, args, kExact);
}

std::string Dims(const std::vector<int64_t>& dims) { return absl::StrCat("[", absl::StrJoin(dims, ","), "]"); }

// Start values that probe the clamping: in range, negative, past the end,
// huge (INT64_MAX / UINT64_MAX when the type has them).
const std::vector<int64_t> kStarts = {0, 1, 2, -1, -100, 3, 100, INT64_MAX, -1 /*u64: UINT64_MAX*/, INT64_MIN};

struct SliceCase {
  std::vector<int64_t> operand, sizes;
};
const std::vector<SliceCase> kSliceCases = {
    {{}, {}}, {{7}, {3}}, {{7}, {7}}, {{7}, {0}}, {{5, 9}, {2, 4}}, {{3, 4, 5}, {1, 4, 2}}, {{4, 0, 3}, {2, 0, 1}}};

// --- dynamic-slice ------------------------------------------------------------

TEST(CpuOpsTest, DynamicSliceTypesAndClamping) {
  for (const SliceCase& c : kSliceCases) {
    const int rank = c.operand.size();
    for (const std::string& t : kAllTypes) {
      for (size_t k = 0; k < kIndexTypes.size(); ++k) {
        const std::string& it = kIndexTypes[k];
        // Fewer combinations for the element types that move like others.
        if (t != "f32" && t != "pred" && t != "bf16" && k % 3 != 0) continue;
        std::string text = absl::StrCat("HloModule m\nENTRY e {\n  a = ", t, Dims(c.operand), " parameter(0)\n");
        std::vector<std::string> idx;
        for (int d = 0; d < rank; ++d) {
          absl::StrAppend(&text, "  i", d, " = ", it, "[] parameter(", d + 1, ")\n");
          idx.push_back(absl::StrCat("i", d));
        }
        absl::StrAppend(&text, "  ROOT r = ", t, Dims(c.sizes), " dynamic-slice(a", idx.empty() ? "" : ", ",
                        absl::StrJoin(idx, ", "), "), dynamic_slice_sizes={", absl::StrJoin(c.sizes, ","), "}\n}\n");
        for (size_t s = 0; s < kStarts.size(); ++s) {
          std::vector<std::pair<int, Literal>> fixed;
          for (int d = 0; d < rank; ++d) {
            fixed.push_back({d + 1, IndexScalar(primitive_util::TypeFromLowercaseName(it).value(),
                                                kStarts[(s + d * 3) % kStarts.size()])});
          }
          RunAndCompare(text, std::move(fixed));
          if (rank == 0) break;
        }
      }
    }
  }
}

TEST(CpuOpsTest, DynamicSliceFusedAndComputedIndices) {
  // Fused operand (add), indices computed in the module (one from a
  // parameter, one constant), a consumer of the slice, non-default layout.
  const std::string text =
      "HloModule m\nENTRY e {\n  a = f32[6,10]{0,1} parameter(0)\n  b = f32[6,10] parameter(1)\n"
      "  i = s32[] parameter(2)\n  one = s32[] constant(1)\n  j = s32[] add(i, one)\n"
      "  c = s32[] constant(-3)\n  s = f32[6,10] add(a, b)\n"
      "  d = f32[2,5] dynamic-slice(s, j, i), dynamic_slice_sizes={2,5}\n"
      "  e = f32[2,5] dynamic-slice(a, c, j), dynamic_slice_sizes={2,5}\n"
      "  ROOT r = f32[2,5]{0,1} multiply(d, e)\n}\n";
  for (int64_t i : {-7, 0, 2, 3, 4, 5, 9, 1000}) {
    std::vector<std::pair<int, Literal>> fixed;
    fixed.push_back({2, IndexScalar(S32, i)});
    RunAndCompare(text, std::move(fixed));
  }
  // A slice used twice (materialized) and a slice of a slice.
  RunAndCompare(
      "HloModule m\nENTRY e {\n  a = s32[20] parameter(0)\n  i = u8[] parameter(1)\n"
      "  d = s32[8] dynamic-slice(a, i), dynamic_slice_sizes={8}\n"
      "  e = s32[3] dynamic-slice(d, i), dynamic_slice_sizes={3}\n  f = s32[8] add(d, d)\n"
      "  ROOT t = (s32[8], s32[3]) tuple(f, e)\n}\n");
}

// --- dynamic-update-slice -----------------------------------------------------

TEST(CpuOpsTest, DynamicUpdateSliceTypesAndClamping) {
  for (const SliceCase& c : kSliceCases) {
    const int rank = c.operand.size();
    for (const std::string& t : kAllTypes) {
      for (size_t k = 0; k < kIndexTypes.size(); ++k) {
        const std::string& it = kIndexTypes[k];
        if (t != "f32" && t != "pred" && t != "f16" && k % 3 != 1) continue;
        std::string text = absl::StrCat("HloModule m\nENTRY e {\n  a = ", t, Dims(c.operand), " parameter(0)\n  u = ",
                                        t, Dims(c.sizes), " parameter(1)\n");
        std::vector<std::string> idx;
        for (int d = 0; d < rank; ++d) {
          absl::StrAppend(&text, "  i", d, " = ", it, "[] parameter(", d + 2, ")\n");
          idx.push_back(absl::StrCat("i", d));
        }
        absl::StrAppend(&text, "  ROOT r = ", t, Dims(c.operand), " dynamic-update-slice(a, u",
                        idx.empty() ? "" : ", ", absl::StrJoin(idx, ", "), ")\n}\n");
        for (size_t s = 0; s < kStarts.size(); ++s) {
          std::vector<std::pair<int, Literal>> fixed;
          for (int d = 0; d < rank; ++d) {
            fixed.push_back({d + 2, IndexScalar(primitive_util::TypeFromLowercaseName(it).value(),
                                                kStarts[(s + d * 7) % kStarts.size()])});
          }
          RunAndCompare(text, std::move(fixed));
          if (rank == 0) break;
        }
      }
    }
  }
}

TEST(CpuOpsTest, DynamicUpdateSliceFusedAndInLoops) {
  // Fused operand and update, consumers, non-default layouts.
  const std::string text =
      "HloModule m\nENTRY e {\n  a = f64[5,6]{0,1} parameter(0)\n  u = f64[2,3] parameter(1)\n"
      "  i = s64[] parameter(2)\n  j = s64[] negate(i)\n  n = f64[5,6] negate(a)\n  e = f64[2,3] abs(u)\n"
      "  d = f64[5,6]{0,1} dynamic-update-slice(n, e, i, j)\n  ROOT r = f64[5,6] add(d, a)\n}\n";
  for (int64_t i : {-4, 0, 1, 3, 4, 77}) {
    std::vector<std::pair<int, Literal>> fixed;
    fixed.push_back({2, IndexScalar(S64, i)});
    RunAndCompare(text, std::move(fixed));
  }
  // The usual loop: write row k of an accumulator on each iteration, reading
  // a dynamic slice of the input.
  RunAndCompare(
      "HloModule m\ncond {\n  s = (s32[], f32[6,4], f32[6,4]) parameter(0)\n  k = s32[] get-tuple-element(s), "
      "index=0\n  n = s32[] constant(6)\n  ROOT c = pred[] compare(k, n), direction=LT\n}\n"
      "body {\n  s = (s32[], f32[6,4], f32[6,4]) parameter(0)\n  k = s32[] get-tuple-element(s), index=0\n"
      "  x = f32[6,4] get-tuple-element(s), index=1\n  acc = f32[6,4] get-tuple-element(s), index=2\n"
      "  z = s32[] constant(0)\n  row = f32[1,4] dynamic-slice(x, k, z), dynamic_slice_sizes={1,4}\n"
      "  sq = f32[1,4] multiply(row, row)\n  acc2 = f32[6,4] dynamic-update-slice(acc, sq, k, z)\n"
      "  one = s32[] constant(1)\n  k2 = s32[] add(k, one)\n"
      "  ROOT t = (s32[], f32[6,4], f32[6,4]) tuple(k2, x, acc2)\n}\n"
      "ENTRY e {\n  x = f32[6,4] parameter(0)\n  z = f32[] constant(0)\n  acc = f32[6,4] broadcast(z), "
      "dimensions={}\n  k = s32[] constant(0)\n  t = (s32[], f32[6,4], f32[6,4]) tuple(k, x, acc)\n"
      "  w = (s32[], f32[6,4], f32[6,4]) while(t), condition=cond, body=body\n"
      "  ROOT r = f32[6,4] get-tuple-element(w), index=2\n}\n");
}

// --- bitcast-convert ----------------------------------------------------------

TEST(CpuOpsTest, BitcastConvertSameWidth) {
  const std::vector<std::vector<std::string>> groups = {
      {"s8", "u8"}, {"s16", "u16", "f16", "bf16"}, {"s32", "u32", "f32"}, {"s64", "u64", "f64"}};
  for (const auto& g : groups) {
    for (const std::string& from : g) {
      for (const std::string& to : g) {
        for (const std::string d : {"[]", "[0]", "[17]", "[3,5]{0,1}"}) {
          RunAndCompare(absl::StrCat("HloModule m\nENTRY e {\n  a = ", from, d, " parameter(0)\n  ROOT r = ", to, d,
                                     " bitcast-convert(a)\n}\n"));
        }
        // Of a fused producer and into a fused consumer.
        RunAndCompare(absl::StrCat("HloModule m\nENTRY e {\n  a = ", from, "[9] parameter(0)\n  n = ", from,
                                   "[9] negate(a)\n  b = ", to, "[9] bitcast-convert(n)\n  ROOT r = ", to,
                                   "[9] add(b, b)\n}\n"));
      }
    }
  }
}

TEST(CpuOpsTest, BitcastConvertDifferentWidths) {
  const std::vector<std::string> types = {"s8", "u8", "s16", "u16", "f16", "bf16", "s32", "u32", "f32",
                                          "s64", "u64", "f64"};
  for (const std::string& from : types) {
    for (const std::string& to : types) {
      const int wi = primitive_util::ByteWidth(primitive_util::TypeFromLowercaseName(from).value());
      const int wo = primitive_util::ByteWidth(primitive_util::TypeFromLowercaseName(to).value());
      if (wi == wo) continue;
      for (const std::vector<int64_t>& outer : std::vector<std::vector<int64_t>>{{}, {5}, {3, 2}, {0}}) {
        std::vector<int64_t> in = outer, out = outer;
        if (wo > wi) {
          in.push_back(wo / wi);
        } else {
          out.push_back(wi / wo);
        }
        RunAndCompare(absl::StrCat("HloModule m\nENTRY e {\n  a = ", from, Dims(in), " parameter(0)\n  ROOT r = ", to,
                                   Dims(out), " bitcast-convert(a)\n}\n"));
      }
      // Of a fused producer (bits generated, not loaded).
      std::vector<int64_t> in = {4}, out = {4};
      if (wo > wi) {
        in.push_back(wo / wi);
      } else {
        out.push_back(wi / wo);
      }
      RunAndCompare(absl::StrCat("HloModule m\nENTRY e {\n  a = ", from, Dims(in), " parameter(0)\n  n = ", from,
                                 Dims(in), " negate(a)\n  ROOT r = ", to, Dims(out), " bitcast-convert(n)\n}\n"));
    }
  }
}

// --- map ----------------------------------------------------------------------

TEST(CpuOpsTest, MapUnaryBinaryTernaryAndFused) {
  for (const std::string t : {"s8", "s32", "u16", "u64", "f32", "f64", "f16", "bf16"}) {
    for (const std::string d : {"[]", "[0]", "[17]", "[3,5]{0,1}"}) {
      const std::string fns = absl::StrCat(
          "f1 {\n  x = ", t, "[] parameter(0)\n  n = ", t, "[] negate(x)\n  ROOT m = ", t, "[] maximum(x, n)\n}\n",
          "f2 {\n  x = ", t, "[] parameter(0)\n  y = ", t, "[] parameter(1)\n  s = ", t,
          "[] subtract(x, y)\n  ROOT m = ", t, "[] multiply(s, x)\n}\n",
          "f3 {\n  p = pred[] parameter(0)\n  x = ", t, "[] parameter(1)\n  y = ", t,
          "[] parameter(2)\n  c = ", t, "[] constant(3)\n  a = ", t, "[] add(x, c)\n  ROOT s = ", t,
          "[] select(p, a, y)\n}\n");
      RunAndCompare(absl::StrCat("HloModule m\n", fns, "ENTRY e {\n  a = ", t, d, " parameter(0)\n  b = ", t, d,
                                 " parameter(1)\n  p = pred", d, " parameter(2)\n  m1 = ", t, d,
                                 " map(a), dimensions={}, to_apply=f1\n  ab = ", t, d, " add(a, b)\n  m2 = ", t, d,
                                 " map(ab, b), to_apply=f2\n  m3 = ", t, d, " map(p, m1, m2), to_apply=f3\n  ROOT r = ",
                                 t, d, " add(m3, m1)\n}\n"));
    }
  }
  // Mixed operand types and a compare in the mapped computation.
  RunAndCompare(
      "HloModule m\nf {\n  x = s32[] parameter(0)\n  y = f32[] parameter(1)\n  c = f32[] convert(x)\n"
      "  g = pred[] compare(c, y), direction=GT\n  ROOT s = f32[] select(g, c, y)\n}\n"
      "ENTRY e {\n  a = s32[4,6] parameter(0)\n  b = f32[4,6] parameter(1)\n  ROOT r = f32[4,6] map(a, b), "
      "to_apply=f\n}\n");
}

// --- variadic reduce -------------------------------------------------------

// A literal of small integers (0..2) of `shape`'s type: many ties.
Literal TieLiteral(const Shape& shape, std::mt19937_64& rng) {
  Literal lit(shape);
  primitive_util::ArrayTypeSwitch(shape.element_type(), [&](auto tag) {
    using T = decltype(tag);
    for (auto& v : lit.data<T>()) v = static_cast<T>(static_cast<int>(rng() % 3));
  });
  return lit;
}

// argmax reducers: (value, index) accumulators, then (value, index) elements.
// "first" keeps the accumulator on ties, "last" takes the element.
std::string ArgmaxReducers(const std::string& t) {
  std::string out;
  for (const auto& [name, dir] : {std::pair<std::string, std::string>{"first", "GE"}, {"last", "GT"}}) {
    absl::StrAppend(&out, "argmax_", name, " {\n  v0 = ", t, "[] parameter(0)\n  i0 = s32[] parameter(1)\n  v1 = ", t,
                    "[] parameter(2)\n  i1 = s32[] parameter(3)\n  keep = pred[] compare(v0, v1), direction=", dir,
                    "\n  v = ", t, "[] select(keep, v0, v1)\n  i = s32[] select(keep, i0, i1)\n  ROOT r = (", t,
                    "[], s32[]) tuple(v, i)\n}\n");
  }
  return out;
}

TEST(CpuOpsTest, VariadicReduceArgmaxWithTies) {
  struct Case {
    std::string dims;  // operand shape suffix, e.g. "[4,6]{0,1}"
    std::vector<int64_t> sizes;
    std::vector<std::vector<int64_t>> reduce;
  };
  const std::vector<Case> cases = {
      {"[]", {}, {{}}},
      {"[9]", {9}, {{0}, {}}},
      {"[4,6]", {4, 6}, {{0}, {1}, {0, 1}}},
      {"[4,6]{0,1}", {4, 6}, {{0}, {1}, {0, 1}}},
      {"[3,4,5]", {3, 4, 5}, {{0}, {1}, {2}, {0, 2}, {1, 2}, {0, 1, 2}}},
      {"[4,0]", {4, 0}, {{0}, {1}, {0, 1}}},
      {"[0,5]", {0, 5}, {{0}, {1}}},
  };
  int seed = 0;
  for (const std::string t : {"f32", "s32"}) {
    for (const Case& c : cases) {
      for (const auto& red : c.reduce) {
        for (int iota_dim = 0; iota_dim < std::max<int>(1, c.sizes.size()); ++iota_dim) {
          std::vector<int64_t> kept;
          for (int d = 0; d < static_cast<int>(c.sizes.size()); ++d) {
            if (std::find(red.begin(), red.end(), d) == red.end()) kept.push_back(c.sizes[d]);
          }
          const std::string out = Dims(kept);
          const std::string idx =
              c.sizes.empty() ? "  i = s32[] constant(5)\n"
                              : absl::StrCat("  i = s32", Dims(c.sizes), " iota(), iota_dimension=", iota_dim, "\n");
          for (const std::string which : {"first", "last"}) {
            const std::string text = absl::StrCat(
                "HloModule m\n", ArgmaxReducers(t), "ENTRY e {\n  a = ", t, c.dims, " parameter(0)\n", idx,
                "  lo = ", t, "[] constant(-1)\n  z = s32[] constant(-7)\n  ROOT r = (", t, out, ", s32", out,
                ") reduce(a, i, lo, z), dimensions={", absl::StrJoin(red, ","), "}, to_apply=argmax_", which,
                "\n}\n");
            std::mt19937_64 rng(++seed);
            std::vector<std::pair<int, Literal>> fixed;
            auto module = ParseHloModule(text);
            ASSERT_TRUE(module.ok()) << module.status() << text;
            fixed.push_back({0, TieLiteral((*module)->entry_computation()->parameter_instruction(0)->shape(), rng)});
            RunAndCompare(text, std::move(fixed));
          }
          if (c.sizes.empty()) break;
        }
      }
    }
  }
}

TEST(CpuOpsTest, VariadicReduceSumMaxPairAndThree) {
  const std::string pair =
      "sm {\n  a0 = f32[] parameter(0)\n  a1 = s32[] parameter(1)\n  x0 = f32[] parameter(2)\n"
      "  x1 = s32[] parameter(3)\n  s = f32[] add(a0, x0)\n  m = s32[] maximum(a1, x1)\n"
      "  ROOT r = (f32[], s32[]) tuple(s, m)\n}\n";
  for (const auto& [dims, red, out] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"[]", "", "[]"}, {"[17]", "0", "[]"}, {"[5,7]", "1", "[5]"}, {"[5,7]{0,1}", "0", "[7]"},
           {"[3,0]", "1", "[3]"}, {"[0,3]", "1", "[0]"}, {"[2,3,4]", "0,2", "[3]"}}) {
    // Tuple as root, and the elements used by a fused consumer.
    RunAndCompare(absl::StrCat("HloModule m\n", pair, "ENTRY e {\n  a = f32", dims, " parameter(0)\n  b = s32", dims,
                               " parameter(1)\n  na = f32", dims, " negate(a)\n  c0 = f32[] constant(0.5)\n",
                               "  c1 = s32[] constant(-3)\n  ROOT r = (f32", out, ", s32", out,
                               ") reduce(na, b, c0, c1), dimensions={", red, "}, to_apply=sm\n}\n"));
    RunAndCompare(absl::StrCat("HloModule m\n", pair, "ENTRY e {\n  a = f32", dims, " parameter(0)\n  b = s32", dims,
                               " parameter(1)\n  c0 = f32[] constant(0.5)\n  c1 = s32[] constant(-3)\n  t = (f32",
                               out, ", s32", out, ") reduce(a, b, c0, c1), dimensions={", red,
                               "}, to_apply=sm\n  g0 = f32", out, " get-tuple-element(t), index=0\n  g1 = s32", out,
                               " get-tuple-element(t), index=1\n  g1f = f32", out, " convert(g1)\n  ROOT s = f32",
                               out, " add(g0, g1f)\n}\n"));
  }
  // N = 3: (min, index of the first min, count of elements equal to 1).
  const std::string three =
      "r3 {\n  a0 = s32[] parameter(0)\n  a1 = s32[] parameter(1)\n  a2 = u8[] parameter(2)\n"
      "  x0 = s32[] parameter(3)\n  x1 = s32[] parameter(4)\n  x2 = u8[] parameter(5)\n"
      "  le = pred[] compare(a0, x0), direction=LE\n  m = s32[] select(le, a0, x0)\n"
      "  i = s32[] select(le, a1, x1)\n  c = u8[] add(a2, x2)\n  ROOT r = (s32[], s32[], u8[]) tuple(m, i, c)\n}\n";
  int seed = 100;
  for (const auto& [dims, red, out] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"[]", "", "[]"}, {"[6,8]", "1", "[6]"}, {"[6,8]{0,1}", "0", "[8]"}, {"[4,0,2]", "1", "[4,2]"}}) {
    const std::string text = absl::StrCat(
        "HloModule m\n", three, "ENTRY e {\n  a = s32", dims, " parameter(0)\n  i = s32", dims,
        " parameter(1)\n  one = s32[] constant(1)\n  ob = s32", dims, " broadcast(one), dimensions={}\n  eq = pred",
        dims, " compare(a, ob), direction=EQ\n  cu = u8", dims, " convert(eq)\n  big = s32[] constant(1000)\n",
        "  zi = s32[] constant(0)\n  zu = u8[] constant(0)\n  ROOT r = (s32", out, ", s32", out, ", u8", out,
        ") reduce(a, i, cu, big, zi, zu), dimensions={", red, "}, to_apply=r3\n}\n");
    auto module = ParseHloModule(text);
    ASSERT_TRUE(module.ok()) << module.status() << text;
    std::mt19937_64 rng(++seed);
    const Shape& shape = (*module)->entry_computation()->parameter_instruction(0)->shape();
    std::vector<std::pair<int, Literal>> fixed;
    fixed.push_back({0, TieLiteral(shape, rng)});
    RunAndCompare(text, std::move(fixed));
  }
}

// --- Custom calls (tests/custom_call_test.cc runs registered ones) -------------

TEST(CpuOpsTest, UnregisteredCustomCallNamesTheTarget) {
  auto module = ParseHloModule(
      "HloModule m\nENTRY e {\n  a = c64[4] parameter(0)\n  ROOT r = c64[4] custom-call(a), custom_call_target=\"foo\"\n}\n");
  ASSERT_TRUE(module.ok()) << module.status();
  auto executable = CpuBackendOrDie()->compiler()->Compile(std::move(*module), DebugOptions());
  ASSERT_FALSE(executable.ok());
  EXPECT_EQ(executable.status().code(), absl::StatusCode::kNotFound) << executable.status();
  EXPECT_NE(executable.status().message().find("custom-call r: target 'foo' is not registered"), std::string::npos)
      << executable.status();
}

}  // namespace
}  // namespace cpu
}  // namespace xla

namespace xla {
namespace {

// rng-bit-generator: the runtime writes both result leaves; the state feeds
// a second generator, the bits feed fused consumers (uniform floats in
// [0, 1) from the top mantissa bits), every type width and both algorithms.
TEST(CpuOpsTest, RngBitGeneratorMatchesEvaluator) {
  for (const char* algorithm : {"rng_three_fry", "rng_philox", "rng_default"}) {
    for (const char* type : {"u64[3,5]", "u32[4,3]", "s32[7]", "u16[2,3,5]", "u8[9]", "f32[6]", "f64[2,2]", "u32[]"}) {
      const std::string state = std::string(algorithm) == "rng_three_fry" ? "u64[2]" : "u64[3]";
      const std::string text = absl::StrCat(
          "HloModule m\nENTRY e {\n  s = ", state, " parameter(0)\n  g = (", state, ", ", type,
          ") rng-bit-generator(s), algorithm=", algorithm, "\n  s1 = ", state,
          " get-tuple-element(g), index=0\n  b = ", type, " get-tuple-element(g), index=1\n  g2 = (", state, ", ", type,
          ") rng-bit-generator(s1), algorithm=", algorithm, "\n  b2 = ", type,
          " get-tuple-element(g2), index=1\n  s2 = ", state, " get-tuple-element(g2), index=0\n  ROOT t = (", type, ", ",
          type, ", ", state, ") tuple(b, b2, s2)\n}\n");
      std::vector<Literal> args;
      args.push_back(std::string(state) == "u64[2]" ? Literal::CreateR1<uint64_t>({0x0123456789abcdefULL, 41})
                                                    : Literal::CreateR1<uint64_t>({7, ~uint64_t{0} - 3, 2}));
      cpu_test::CompareWithEvaluator(text, args, ErrorSpec{});
    }
  }
  const std::string uniform = R"(HloModule m
ENTRY e {
  s = u64[2] parameter(0)
  g = (u64[2], u32[1000]) rng-bit-generator(s), algorithm=rng_three_fry
  b = u32[1000] get-tuple-element(g), index=1
  nine = u32[] constant(9)
  nines = u32[1000] broadcast(nine), dimensions={}
  m = u32[1000] shift-right-logical(b, nines)
  one = u32[] constant(1065353216)
  ones = u32[1000] broadcast(one), dimensions={}
  x = u32[1000] or(m, ones)
  f = f32[1000] bitcast-convert(x)
  c1 = f32[] constant(1)
  c1s = f32[1000] broadcast(c1), dimensions={}
  ROOT r = f32[1000] subtract(f, c1s)
})";
  std::vector<Literal> args;
  args.push_back(Literal::CreateR1<uint64_t>({1, 2}));
  cpu_test::CompareWithEvaluator(uniform, args, ErrorSpec{});
  absl::StatusOr<Literal> values = cpu_test::RunOnCpu(uniform, args);
  ASSERT_TRUE(values.ok()) << values.status();
  double sum = 0;
  for (float v : values->data<float>()) {
    ASSERT_GE(v, 0.0f);
    ASSERT_LT(v, 1.0f);
    sum += v;
  }
  EXPECT_NEAR(sum / 1000, 0.5, 0.05);  // 1000 uniform draws: mean 0.5, sd 0.009
}

}  // namespace
}  // namespace xla
