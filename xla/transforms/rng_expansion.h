// The HLO that `rng` (RngUniform, RngNormal) stands for, shared by the
// rng-expander pass (xla/transforms/rng_expander.h, run by the CPU
// pipeline) and the reference evaluator, which evaluates this same
// expansion, so both backends give the same values bit for bit.
//
// Bits: rng-bit-generator THREE_FRY (XLA's stream, xla/random_bits.h) from
// the state [key, 0], key = SplitMix64(seed ^ FNV-1a-64(instruction name)),
// where seed is the module's `rng_seed` header attribute (0 without one;
// the client stamps ExecutionOptions.seed into it, see docs/ops.md). Names
// are module-unique, so two rng ops of one module draw different numbers
// and a fixed seed reproduces. The state is fixed per instruction, so an rng
// in a computation that can run more than once per execution (a while
// body, a reducer, a computation with several callers) would repeat its
// numbers: that is Unimplemented (CheckRngRunsOnce), never a silent repeat.
//
// Uniform floats (f16/bf16 computed in f32): u = bitcast(bits >> (W - m) |
//   bits(1.0)) - 1 in [0, 1) (the mantissa trick, W-bit bits, m mantissa
//   bits), r = u * (b - a) + a; a value that rounded up to b (or any value
//   when b <= a) becomes a, so results lie in [a, b) and b <= a gives a.
// Uniform integers: a + (bits mod (b - a)), in 32-bit (64-bit for 64-bit
//   types) unsigned arithmetic; b <= a gives a. Pred: a.
// Normal: Box-Muller z = sqrt(-2 log u1) cos(2 pi u2) with u1 in (0, 1] and
//   u2 in [0, 1) from two streams (keys SplitMix64(key + 1), + 2), then
//   z * sigma + mu (f16/bf16 in f32). log and cos are written out as
//   polynomials (exponent split and atanh series; quadrant reduction of
//   4 u2, which is exact, and Taylor series), made of +, -, *, /, sqrt only,
//   since the backends' log/cos differ in their last bits.
#ifndef XLA_TRANSFORMS_RNG_EXPANSION_H_
#define XLA_TRANSFORMS_RNG_EXPANSION_H_

#include <cstdint>
#include <functional>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/hlo/hlo_computation.h"
#include "xla/hlo/hlo_instruction.h"
#include "xla/hlo/hlo_module.h"

namespace xla {

// The module's rng seed: its `rng_seed` header attribute (a decimal uint64),
// 0 when absent.
absl::StatusOr<uint64_t> ModuleRngSeed(const HloModule& module);

// The THREE_FRY key of the rng instruction named `name`.
uint64_t RngKey(uint64_t seed, absl::string_view name);

// OK when `rng`'s computation runs at most once per execution of its module
// (the entry, or reached only through call/conditional instructions, one
// caller each); Unimplemented otherwise.
absl::Status CheckRngRunsOnce(const HloInstruction& rng);

// Adds an instruction to the computation being built (the caller names it).
using AddHloFn = std::function<HloInstruction*(std::unique_ptr<HloInstruction>)>;

// Builds the expansion of rng(a, b) with `distribution` into `shape` (array,
// no layout needed) from `key`; returns the instruction holding the value.
// The caller has checked the rng with shape inference.
absl::StatusOr<HloInstruction*> BuildRngExpansion(const AddHloFn& add, HloInstruction* a, HloInstruction* b,
                                                  RandomDistribution distribution, const Shape& shape, uint64_t key);

}  // namespace xla

#endif  // XLA_TRANSFORMS_RNG_EXPANSION_H_
