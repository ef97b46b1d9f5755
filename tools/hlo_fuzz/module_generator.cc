// The module: parameters, a schedule of op families drawn by weight, and a
// root tuple of the values nothing uses.
#include "tools/hlo_fuzz/module_generator.h"

#include <functional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tools/hlo_fuzz/generator_internal.h"
#include "xla/shape_util.h"

namespace xla {
namespace hlo_fuzz {

void Generator::GenerateOps(int n) {
  struct Family {
    const char* name;  // its HLO opcode, or unary-/binary-float/int
    int weight;
    bool top_level_only;
    std::function<bool()> run;
  };
  const Family families[] = {
      {"unary-float", 12, false, [this] { return UnaryFloatOp(); }},
      {"unary-int", 5, false, [this] { return UnaryIntOp(); }},
      {"binary-float", 12, false, [this] { return BinaryOp(true); }},
      {"binary-int", 9, false, [this] { return BinaryOp(false); }},
      {"compare", 5, false, [this] { return CompareOp(); }},
      {"select", 5, false, [this] { return SelectOp(); }},
      {"clamp", 3, false, [this] { return ClampOp(); }},
      {"convert", 6, false, [this] { return ConvertOp(); }},
      {"broadcast", 4, false, [this] { return BroadcastOp(); }},
      {"reshape", 4, false, [this] { return ReshapeOp(); }},
      {"transpose", 4, false, [this] { return TransposeOp(); }},
      {"slice", 5, false, [this] { return SliceOp(); }},
      {"reverse", 3, false, [this] { return ReverseOp(); }},
      {"concatenate", 4, false, [this] { return ConcatenateOp(); }},
      {"pad", 4, false, [this] { return PadOp(); }},
      {"iota", 2, false, [this] { return IotaOp(); }},
      {"dynamic-slice", 3, false, [this] { return DynamicSliceOp(); }},
      {"dynamic-update-slice", 3, false, [this] { return DynamicUpdateSliceOp(); }},
      {"gather", 3, false, [this] { return GatherOp(); }},
      {"scatter", 3, false, [this] { return ScatterOp(); }},
      {"reduce", 5, false, [this] { return ReduceOp(); }},
      {"reduce-window", 3, false, [this] { return ReduceWindowOp(); }},
      {"dot", 4, false, [this] { return DotOp(); }},
      {"convolution", 2, false, [this] { return ConvolutionOp(); }},
      {"while", 2, true, [this] { return WhileOp(); }},
      {"conditional", 2, true, [this] { return ConditionalOp(); }},
      {"call", 2, true, [this] { return CallOp(); }},
  };
  std::vector<int> weights;
  for (const Family& f : families) {
    const std::string name = f.name;
    // The evaluator would take seconds (per-element reducer calls, cubic loops).
    const bool too_slow_when_large =
        name == "dot" || name == "convolution" || name == "gather" || name == "scatter" || f.top_level_only;
    const bool off = (f.top_level_only && current()->depth > 0) || options_.excluded_ops.count(f.name) > 0 ||
                     (large_ && too_slow_when_large);
    weights.push_back(off ? 0 : f.weight);
  }
  for (int i = 0; i < n; ++i) {
    for (int attempt = 0; attempt < 6; ++attempt) {
      if (families[Weighted(weights)].run()) break;
    }
  }
}

GeneratedModule Generator::Generate() {
  PushScope("main");
  large_ = Chance(options_.large_fraction);
  if (large_) Count("large-module");
  for (int i = Range(1, 3); i > 0; --i) {
    NewParameter(RandomShape(RandomArrayType(), large_ ? Range(1, 3) : Weighted({2, 4, 4, 2})));
  }
  GenerateOps(large_ ? Range(2, 4) : Range(options_.min_ops, options_.max_ops));

  // Outputs: the latest values nothing uses (at most 4), else the last value.
  Scope& entry = *current();
  std::vector<Value*> outputs;
  for (auto it = entry.values.rbegin(); it != entry.values.rend() && outputs.size() < 4; ++it) {
    if (!it->is_leaf && it->uses == 0) outputs.push_back(&*it);
  }
  if (outputs.empty()) outputs.push_back(&entry.values.back());
  if (outputs.size() == 1 && Chance(0.3)) {
    MarkRoot(outputs[0]);
  } else {
    std::vector<Shape> shapes;
    std::vector<std::string> names;
    for (Value* v : outputs) {
      shapes.push_back(v->shape);
      names.push_back(Use(v));
    }
    entry.lines.push_back(absl::StrCat("  ROOT ", Fresh("out"), " = ", ShapeText(ShapeUtil::MakeTupleShape(shapes)),
                                       " tuple(", absl::StrJoin(names, ", "), ")"));
    Count("root-tuple");
  }
  std::unique_ptr<Scope> done = PopScope();
  GeneratedModule module;
  module.text = absl::StrCat("HloModule fuzz\n\n", absl::StrJoin(computations_, ""), "ENTRY ",
                             ComputationText(*done));
  module.counts = counts_;
  return module;
}

GeneratedModule GenerateModule(uint64_t seed, const GeneratorOptions& options) {
  Generator generator(seed, options);
  return generator.Generate();
}

}  // namespace hlo_fuzz
}  // namespace xla
