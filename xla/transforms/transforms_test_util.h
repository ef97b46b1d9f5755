// Test helpers for pass tests: HLO text in, then the printed module or a
// compact expression of the root out, and a numeric check that the pass did
// not change what the entry computation computes (the reference evaluator
// runs the module before and after on fixed inputs, including -0, +-inf and
// NaN for floats, and the results must match bit for bit, NaN = NaN).
#ifndef XLA_TRANSFORMS_TRANSFORMS_TEST_UTIL_H_
#define XLA_TRANSFORMS_TRANSFORMS_TEST_UTIL_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "xla/hlo/hlo_module.h"
#include "xla/literal.h"
#include "xla/transforms/hlo_pass.h"

namespace xla {
namespace testing {

// Parses and verifies; a failure is reported to gtest and returns nullptr.
std::unique_ptr<HloModule> ParseAndVerify(absl::string_view text);

struct PassRun {
  bool changed = false;
  std::unique_ptr<HloModule> module;  // after the pass (nullptr on failure)
};

// Parses `text`, runs `pass`, verifies the result, and checks that the
// entry computes the same values as before on every input set of
// MakeArguments. Failures are reported to gtest.
PassRun RunPass(HloPass& pass, absl::string_view text);
template <typename T>
PassRun RunPass(absl::string_view text) {
  T pass;
  return RunPass(pass, text);
}

// `text` parsed and printed again: the printer's canonical form (layouts,
// '%' sigils, program shapes), so expected modules can be written loosely:
//   EXPECT_EQ(run.module->ToString(), Canonical(R"(HloModule m ...)"));
std::string Canonical(absl::string_view text);

// Deterministic arguments for the entry's parameters; `set` 0..kInputSets-1
// picks ordinary values, special floats (-0, +-inf, NaN) or a mix.
inline constexpr int kInputSets = 3;
std::vector<Literal> MakeArguments(const HloComputation& entry, int set);

// Evaluates both modules on every input set and expects equal results.
void ExpectSameResults(const HloModule& before, const HloModule& after);

// Bitwise equality (layouts ignored; any NaN equals any NaN of the same
// type); `why` says where they differ.
bool SameValues(const Literal& a, const Literal& b, std::string* why);

// A compact, shape-free expression of an instruction and its operands:
//   "add(parameter(0), broadcast{}(constant(-0)))",
//   "get-tuple-element[1](while(tuple(...)))", "slice[0:4:2](parameter(1))".
// Deeper than `depth` levels prints "...".
std::string Expr(const HloInstruction* instruction, int depth = 6);
std::string RootExpr(const HloModule& module);

// Instructions of `opcode` in the computation / in the whole module.
int CountOpcode(const HloComputation& computation, HloOpcode opcode);
int CountOpcode(const HloModule& module, HloOpcode opcode);

}  // namespace testing
}  // namespace xla

#endif  // XLA_TRANSFORMS_TRANSFORMS_TEST_UTIL_H_
