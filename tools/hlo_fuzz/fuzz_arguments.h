// Deterministic random arguments for a module's entry parameters, rich in
// the values where backends disagree: -0, NaN, +-inf, subnormals, the
// smallest normal, ties for rounding (+-0.5, 2.5), and for integers 0, +-1,
// INT_MIN, INT_MAX and shift counts around the bit width.
//
// Each parameter's values come from a hash of (seed, parameter name), so a
// shrunk module that keeps a parameter keeps its values. Float parameters
// mostly stay within [-4, 4] plus specials; one in five also gets huge
// finite values (up to the type's maximum), whose outputs the error model
// may then leave uncompared. Only the raw bits of std::mt19937_64 are used,
// so the values are the same on every host.
#ifndef TOOLS_HLO_FUZZ_FUZZ_ARGUMENTS_H_
#define TOOLS_HLO_FUZZ_FUZZ_ARGUMENTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "xla/hlo/hlo_module.h"
#include "xla/literal.h"

namespace xla {
namespace hlo_fuzz {

// A literal of `shape` (in its layout; tuples element by element).
Literal MakeArgument(const Shape& shape, uint64_t seed);

// One argument per entry parameter, in parameter order.
std::vector<Literal> MakeArguments(const HloModule& module, uint64_t seed);

// FNV-1a of `text` mixed with `seed`: the same on every host.
uint64_t StableHash(uint64_t seed, const std::string& text);

}  // namespace hlo_fuzz
}  // namespace xla

#endif  // TOOLS_HLO_FUZZ_FUZZ_ARGUMENTS_H_
