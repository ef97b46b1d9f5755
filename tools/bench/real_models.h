// The real models cpu_bench times, ready to compile: the TensorFlow HLO
// modules of ../shared/benchmarks/hlo (whose large weight constants are
// elided, so they get seeded random weights, as cpu_real_model_test does)
// and a StableHLO program of the conformance corpus (whose inputs are
// constants, so they become arguments: constant folding would otherwise
// compute the whole program at compile time). Each comes with seeded
// arguments and the tolerance its CPU result must meet against the
// interpreter's.
#ifndef TOOLS_BENCH_REAL_MODELS_H_
#define TOOLS_BENCH_REAL_MODELS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "xla/hlo/hlo_module.h"
#include "xla/literal.h"
#include "xla/literal_comparison.h"

namespace xla {
namespace bench {

struct RealModel {
  std::string name;         // BENCH name stem, e.g. "model_ssd_mobilenet"
  std::string file;         // where it was read from
  std::string preparation;  // what was done to it before compiling (one line)
  std::unique_ptr<HloModule> module;
  std::vector<Literal> arguments;
  ErrorSpec tolerance;  // CPU result against the interpreter's
};

// $XLA_SHARED_DIR, else ../shared: tools/xla runs the benchmarks from the
// checkout root, next to which the shared folder lives.
std::string SharedDir();

// An HLO text module: every all-zero float constant of 2 or more elements
// (an elided weight) gets uniform values in [-weight_scale, weight_scale];
// float parameters get uniform values in [-1, 1], integer ones uniform
// values in [0, index_bound). NOT_FOUND when the file is absent.
absl::StatusOr<RealModel> LoadHloModel(const std::string& name, const std::string& file, double weight_scale,
                                       int64_t index_bound, ErrorSpec tolerance);

// A StableHLO program with one entry point: imported (check ops dropped),
// calls inlined and dead code removed, then every array constant of 2 or
// more elements left in the entry becomes a parameter whose argument is the
// constant's value. NOT_FOUND when the file is absent.
absl::StatusOr<RealModel> LoadStableHloModel(const std::string& name, const std::string& file, ErrorSpec tolerance);

}  // namespace bench
}  // namespace xla

#endif  // TOOLS_BENCH_REAL_MODELS_H_
