#include "xla/transforms/rng_expansion.h"

#include <cmath>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "xla/literal.h"
#include "xla/primitive_util.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"

namespace xla {
namespace {

uint64_t SplitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

uint64_t Fnv1a64(absl::string_view text) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001B3ull;
  }
  return h;
}

// Element-wise HLO over one array of dimensions `dims`.
class Emitter {
 public:
  Emitter(const AddHloFn& add, std::vector<int64_t> dims) : add_(add), dims_(std::move(dims)) {}

  Shape ArrayOf(PrimitiveType t) const { return ShapeUtil::MakeShape(t, dims_); }

  // A scalar (rank-0 instruction) broadcast over the array.
  HloInstruction* Splat(HloInstruction* scalar) {
    return add_(HloInstruction::CreateBroadcast(ArrayOf(scalar->shape().element_type()), scalar, {}));
  }
  HloInstruction* Constant(Literal scalar) { return Splat(add_(HloInstruction::CreateConstant(std::move(scalar)))); }
  HloInstruction* Float(PrimitiveType t, double v) {
    return Constant(t == F64 ? Literal::CreateR0<double>(v) : Literal::CreateR0<float>(static_cast<float>(v)));
  }
  HloInstruction* Unsigned(PrimitiveType t, uint64_t v) {
    return Constant(t == U64 ? Literal::CreateR0<uint64_t>(v) : Literal::CreateR0<uint32_t>(static_cast<uint32_t>(v)));
  }
  HloInstruction* Signed(PrimitiveType t, int64_t v) {
    return Constant(t == S64 ? Literal::CreateR0<int64_t>(v) : Literal::CreateR0<int32_t>(static_cast<int32_t>(v)));
  }
  HloInstruction* Binary(HloOpcode op, HloInstruction* x, HloInstruction* y) {
    return add_(HloInstruction::CreateBinary(op, x->shape(), x, y));
  }
  HloInstruction* Unary(HloOpcode op, HloInstruction* x) { return add_(HloInstruction::CreateUnary(op, x->shape(), x)); }
  HloInstruction* Convert(HloInstruction* x, PrimitiveType t) {
    if (x->shape().element_type() == t) return x;
    return add_(HloInstruction::Create(HloOpcode::kConvert, ShapeUtil::ChangeElementType(x->shape(), t), {x}));
  }
  HloInstruction* Bitcast(HloInstruction* x, PrimitiveType t) {
    return add_(HloInstruction::Create(HloOpcode::kBitcastConvert, ShapeUtil::ChangeElementType(x->shape(), t), {x}));
  }
  HloInstruction* Compare(HloInstruction* x, HloInstruction* y, const char* direction) {
    HloInstructionProto attrs;
    attrs.set_comparison_direction(direction);
    return add_(HloInstruction::Create(HloOpcode::kCompare, ShapeUtil::ChangeElementType(x->shape(), PRED), {x, y},
                                       {}, attrs));
  }
  HloInstruction* Select(HloInstruction* p, HloInstruction* x, HloInstruction* y) {
    return add_(HloInstruction::Create(HloOpcode::kSelect, x->shape(), {p, x, y}));
  }
  HloInstruction* Add(HloInstruction* x, HloInstruction* y) { return Binary(HloOpcode::kAdd, x, y); }
  HloInstruction* Sub(HloInstruction* x, HloInstruction* y) { return Binary(HloOpcode::kSubtract, x, y); }
  HloInstruction* Mul(HloInstruction* x, HloInstruction* y) { return Binary(HloOpcode::kMultiply, x, y); }

  // W-bit random bits (U32 or U64) of the array from THREE_FRY state [key, 0].
  HloInstruction* Bits(PrimitiveType bits_type, uint64_t key) {
    HloInstruction* state =
        add_(HloInstruction::CreateConstant(Literal::CreateR1<uint64_t>({key, 0})));
    const Shape out = ArrayOf(bits_type);
    HloInstructionProto attrs;
    attrs.set_rng_algorithm(RNG_THREE_FRY);
    HloInstruction* generator = add_(HloInstruction::Create(
        HloOpcode::kRngBitGenerator, ShapeUtil::MakeTupleShape({state->shape(), out}), {state}, {}, attrs));
    return add_(HloInstruction::CreateGetTupleElement(out, generator, 1));
  }

  // Uniform in [0, 1) of type `c` (F32 or F64) by the mantissa trick.
  HloInstruction* UnitUniform(PrimitiveType c, uint64_t key) {
    const PrimitiveType u = c == F64 ? U64 : U32;
    const int width = c == F64 ? 64 : 32;
    const int mantissa = c == F64 ? 52 : 23;
    const uint64_t one_bits = c == F64 ? 0x3FF0000000000000ull : 0x3F800000ull;
    HloInstruction* bits = Bits(u, key);
    HloInstruction* m = Binary(HloOpcode::kShiftRightLogical, bits, Unsigned(u, width - mantissa));
    HloInstruction* one_to_two = Bitcast(Binary(HloOpcode::kOr, m, Unsigned(u, one_bits)), c);
    return Sub(one_to_two, Float(c, 1.0));
  }

  // sum_k coefficients[k] x^k by Horner's rule.
  HloInstruction* Polynomial(PrimitiveType c, HloInstruction* x, const std::vector<long double>& coefficients) {
    HloInstruction* p = Float(c, static_cast<double>(coefficients.back()));
    for (int k = static_cast<int>(coefficients.size()) - 2; k >= 0; --k) {
      p = Add(Mul(p, x), Float(c, static_cast<double>(coefficients[k])));
    }
    return p;
  }

  // log(x) for x in (0, 1], normal (not subnormal): x = 2^e f, f folded into
  // [sqrt(1/2), sqrt(2)), log f = 2 atanh((f - 1) / (f + 1)) as a series.
  HloInstruction* Log(PrimitiveType c, HloInstruction* x) {
    const bool f64 = c == F64;
    const PrimitiveType s = f64 ? S64 : S32;
    const int mantissa = f64 ? 52 : 23;
    const int64_t bias = f64 ? 1023 : 127;
    const int64_t mantissa_mask = (int64_t{1} << mantissa) - 1;
    const int64_t one_bits = f64 ? 0x3FF0000000000000ll : 0x3F800000ll;
    HloInstruction* ix = Bitcast(x, s);
    HloInstruction* e = Sub(Binary(HloOpcode::kShiftRightArithmetic, ix, Signed(s, mantissa)), Signed(s, bias));
    HloInstruction* f =
        Bitcast(Binary(HloOpcode::kOr, Binary(HloOpcode::kAnd, ix, Signed(s, mantissa_mask)), Signed(s, one_bits)), c);
    HloInstruction* big = Compare(f, Float(c, std::sqrt(2.0)), "GT");
    f = Select(big, Mul(f, Float(c, 0.5)), f);
    e = Select(big, Add(e, Signed(s, 1)), e);
    HloInstruction* t = Binary(HloOpcode::kDivide, Sub(f, Float(c, 1.0)), Add(f, Float(c, 1.0)));
    std::vector<long double> series;
    for (int k = 0; k < (f64 ? 14 : 8); ++k) series.push_back(1.0L / (2 * k + 1));
    HloInstruction* log_f = Mul(Mul(Float(c, 2.0), t), Polynomial(c, Mul(t, t), series));
    return Add(Mul(Convert(e, c), Float(c, 0.693147180559945309417232121458176568L)), log_f);
  }

  // cos(2 pi u) for u in [0, 1): 4u = q + r exactly (q the quadrant), then
  // cos or -sin, sign by quadrant, of r pi/2 in [0, pi/2) by Taylor series.
  HloInstruction* CosTwoPi(PrimitiveType c, HloInstruction* u) {
    const bool f64 = c == F64;
    HloInstruction* four_u = Mul(u, Float(c, 4.0));
    HloInstruction* q = Unary(HloOpcode::kFloor, four_u);
    HloInstruction* theta = Mul(Sub(four_u, q), Float(c, 1.570796326794896619231321691639751442L));
    HloInstruction* theta2 = Mul(theta, theta);
    std::vector<long double> sin_series, cos_series;
    long double factorial = 1;  // (n)! as n grows
    for (int n = 0; n <= (f64 ? 27 : 17); ++n) {
      if (n > 0) factorial *= n;
      const long double term = ((n / 2) % 2 == 0 ? 1.0L : -1.0L) / factorial;
      (n % 2 == 0 ? cos_series : sin_series).push_back(term);
    }
    HloInstruction* sin_theta = Mul(theta, Polynomial(c, theta2, sin_series));
    HloInstruction* cos_theta = Polynomial(c, theta2, cos_series);
    HloInstruction* qi = Convert(q, S32);
    HloInstruction* odd = Compare(Binary(HloOpcode::kAnd, qi, Signed(S32, 1)), Signed(S32, 1), "EQ");
    // Quadrants 1 and 2 are negative: bit 1 of q + 1.
    HloInstruction* negative =
        Compare(Binary(HloOpcode::kAnd, Add(qi, Signed(S32, 1)), Signed(S32, 2)), Signed(S32, 2), "EQ");
    HloInstruction* magnitude = Select(odd, sin_theta, cos_theta);
    return Select(negative, Unary(HloOpcode::kNegate, magnitude), magnitude);
  }

 private:
  const AddHloFn& add_;
  std::vector<int64_t> dims_;
};

HloInstruction* Uniform(Emitter& e, HloInstruction* a, HloInstruction* b, PrimitiveType t, uint64_t key) {
  HloInstruction* wide_a = e.Splat(a);
  if (t == PRED) return wide_a;
  HloInstruction* wide_b = e.Splat(b);
  HloInstruction* in_range;  // a < b, per element
  HloInstruction* value;
  if (primitive_util::IsFloatingPointType(t)) {
    const PrimitiveType c = t == F64 ? F64 : F32;
    HloInstruction* a_c = e.Convert(wide_a, c);
    HloInstruction* u = e.UnitUniform(c, key);
    HloInstruction* r = e.Convert(e.Add(e.Mul(u, e.Sub(e.Convert(wide_b, c), a_c)), a_c), t);
    // Covers b <= a and values that rounded up to b alike.
    in_range = e.Compare(r, wide_b, "LT");
    value = r;
  } else {
    const bool wide = primitive_util::BitWidth(t) > 32;
    const bool is_signed = primitive_util::IsSignedIntegralType(t);
    const PrimitiveType u = wide ? U64 : U32;
    const PrimitiveType s = wide ? S64 : S32;
    auto widen = [&](HloInstruction* x) { return is_signed ? e.Bitcast(e.Convert(x, s), u) : e.Convert(x, u); };
    HloInstruction* a_u = widen(wide_a);
    in_range = e.Compare(wide_a, wide_b, "LT");
    // The divisor is 1 where b <= a (those elements take a), so no lane
    // divides by zero.
    HloInstruction* range = e.Select(in_range, e.Sub(widen(wide_b), a_u), e.Unsigned(u, 1));
    HloInstruction* r = e.Add(a_u, e.Binary(HloOpcode::kRemainder, e.Bits(u, key), range));
    value = e.Convert(is_signed ? e.Bitcast(r, s) : r, t);
  }
  return e.Select(in_range, value, wide_a);
}

HloInstruction* Normal(Emitter& e, HloInstruction* mu, HloInstruction* sigma, PrimitiveType t, uint64_t key) {
  const PrimitiveType c = t == F64 ? F64 : F32;
  HloInstruction* u1 = e.Sub(e.Float(c, 1.0), e.UnitUniform(c, SplitMix64(key + 1)));
  HloInstruction* u2 = e.UnitUniform(c, SplitMix64(key + 2));
  HloInstruction* radius = e.Unary(HloOpcode::kSqrt, e.Mul(e.Float(c, -2.0), e.Log(c, u1)));
  HloInstruction* z = e.Mul(radius, e.CosTwoPi(c, u2));
  HloInstruction* scaled = e.Add(e.Mul(z, e.Convert(e.Splat(sigma), c)), e.Convert(e.Splat(mu), c));
  return e.Convert(scaled, t);
}

}  // namespace

absl::StatusOr<uint64_t> ModuleRngSeed(const HloModule& module) {
  auto it = module.attributes().find("rng_seed");
  if (it == module.attributes().end()) return uint64_t{0};
  uint64_t seed = 0;
  if (!absl::SimpleAtoi(it->second, &seed)) {
    return InvalidArgument("module '%s': rng_seed must be a decimal unsigned 64-bit integer, got '%s'", module.name(),
                           it->second);
  }
  return seed;
}

uint64_t RngKey(uint64_t seed, absl::string_view name) { return SplitMix64(seed ^ Fnv1a64(name)); }

absl::Status CheckRngRunsOnce(const HloInstruction& rng) {
  const HloComputation* computation = rng.parent();
  if (computation == nullptr || computation->parent() == nullptr) {
    return InvalidArgument("rng '%s' is not in a module", rng.name());
  }
  const HloModule& module = *computation->parent();
  absl::flat_hash_set<const HloComputation*> seen;
  while (computation != module.entry_computation()) {
    if (!seen.insert(computation).second) break;  // a cycle: reported below
    std::vector<const HloInstruction*> callers;
    for (const HloComputation* c : module.computations()) {
      for (const HloInstruction* i : c->instructions()) {
        for (const HloComputation* called : i->called_computations()) {
          if (called == computation) callers.push_back(i);
        }
      }
    }
    if (callers.size() != 1 ||
        (callers[0]->opcode() != HloOpcode::kCall && callers[0]->opcode() != HloOpcode::kConditional)) {
      return Unimplemented(
          "rng '%s': its computation '%s' can run more than once per execution (%d callers, the first a %s); an rng "
          "there would repeat its numbers, and a per-call random state is not implemented",
          rng.name(), computation->name(), callers.size(),
          callers.empty() ? "none" : std::string(HloOpcodeString(callers[0]->opcode())));
    }
    computation = callers[0]->parent();
  }
  if (computation != module.entry_computation()) {
    return Unimplemented("rng '%s': its computation is called recursively", rng.name());
  }
  return absl::OkStatus();
}

absl::StatusOr<HloInstruction*> BuildRngExpansion(const AddHloFn& add, HloInstruction* a, HloInstruction* b,
                                                  RandomDistribution distribution, const Shape& shape, uint64_t key) {
  if (!shape.IsArray()) return InvalidArgument("rng: the output must be an array, got %s", shape.ToString());
  const std::vector<int64_t> dims(shape.dimensions().begin(), shape.dimensions().end());
  Emitter e(add, dims);
  const PrimitiveType t = shape.element_type();
  if (distribution == RNG_UNIFORM) return Uniform(e, a, b, t, key);
  if (distribution == RNG_NORMAL) return Normal(e, a, b, t, key);
  return InvalidArgument("rng: unknown distribution %s", RandomDistribution_Name(distribution));
}

}  // namespace xla
