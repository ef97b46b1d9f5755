// Random, well-typed HLO text modules from a seed (std::mt19937_64 only, so
// the same seed gives the same module on every host).
//
// A module is a small DAG over a few parameters (random shapes, some with
// 0- and 1-sized dimensions and non-default layouts), with values used
// several times, and a root tuple of the values nothing else uses. Ops are
// drawn by weight from: elementwise unary/binary/compare/select/clamp/
// convert on s8/s32/s64/u8/u32/pred and f32/f64/bf16/f16 (constants include
// -0, NaN, +-inf, subnormals, INT_MIN/INT_MAX, shift counts past the bit
// width); broadcast, reshape, transpose, slice (strided), reverse,
// concatenate, pad (negative and interior), iota, dynamic-slice and
// dynamic-update-slice (out-of-range starts); gather, scatter, reduce (also
// variadic), reduce-window (padding, strides, dilations), dot (batch
// dimensions), convolution; while (counted, tuple state), conditional (pred
// and indexed), call.
//
// Every op's result must stay comparable under the error model
// (precision.h): e.g. floor, compare or convert-to-int are applied only to
// values the CPU must compute exactly. Result shapes of the structured ops
// come from the library's ShapeInference.
#ifndef TOOLS_HLO_FUZZ_MODULE_GENERATOR_H_
#define TOOLS_HLO_FUZZ_MODULE_GENERATOR_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>

namespace xla {
namespace hlo_fuzz {

struct GeneratorOptions {
  int min_ops = 3;            // ops drawn for the entry computation
  int max_ops = 10;
  int max_parameters = 4;
  int64_t max_elements = 24;  // per array
  // Modules with arrays of 64K-128K elements, few ops and no dot,
  // convolution, gather or control flow: enough work for the CPU backend's
  // parallel loops (>= 64K) and long vector loops, which small modules never
  // reach, so that 1 and N threads really differ.
  double large_fraction = 0.04;
  // Op families not to generate, by HLO opcode name or unary-float,
  // unary-int, binary-float, binary-int (e.g. "conditional" while
  // a known conditional bug would hide everything else).
  std::set<std::string> excluded_ops;
};

struct GeneratedModule {
  std::string text;
  // How often each op (by HLO opcode name) and feature ("layout:non-default",
  // "dim:0", "multi-use", "conditional:indexed", ...) was generated.
  std::map<std::string, int> counts;
};

GeneratedModule GenerateModule(uint64_t seed, const GeneratorOptions& options = GeneratorOptions());

}  // namespace hlo_fuzz
}  // namespace xla

#endif  // TOOLS_HLO_FUZZ_MODULE_GENERATOR_H_
