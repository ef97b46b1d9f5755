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
    int weight;
    bool top_level_only;
    std::function<bool()> run;
  };
  const Family families[] = {
      {12, false, [this] { return UnaryFloatOp(); }},
      {5, false, [this] { return UnaryIntOp(); }},
      {12, false, [this] { return BinaryOp(true); }},
      {9, false, [this] { return BinaryOp(false); }},
      {5, false, [this] { return CompareOp(); }},
      {5, false, [this] { return SelectOp(); }},
      {3, false, [this] { return ClampOp(); }},
      {6, false, [this] { return ConvertOp(); }},
      {4, false, [this] { return BroadcastOp(); }},
      {4, false, [this] { return ReshapeOp(); }},
      {4, false, [this] { return TransposeOp(); }},
      {5, false, [this] { return SliceOp(); }},
      {3, false, [this] { return ReverseOp(); }},
      {4, false, [this] { return ConcatenateOp(); }},
      {4, false, [this] { return PadOp(); }},
      {2, false, [this] { return IotaOp(); }},
      {3, false, [this] { return DynamicSliceOp(); }},
      {3, false, [this] { return DynamicUpdateSliceOp(); }},
      {3, false, [this] { return GatherOp(); }},
      {3, false, [this] { return ScatterOp(); }},
      {5, false, [this] { return ReduceOp(); }},
      {3, false, [this] { return ReduceWindowOp(); }},
      {4, false, [this] { return DotOp(); }},
      {2, false, [this] { return ConvolutionOp(); }},
      {2, true, [this] { return WhileOp(); }},
      {2, true, [this] { return ConditionalOp(); }},
      {2, true, [this] { return CallOp(); }},
  };
  std::vector<int> weights;
  for (const Family& f : families) weights.push_back(f.top_level_only && current()->depth > 0 ? 0 : f.weight);
  for (int i = 0; i < n; ++i) {
    for (int attempt = 0; attempt < 6; ++attempt) {
      if (families[Weighted(weights)].run()) break;
    }
  }
}

GeneratedModule Generator::Generate() {
  PushScope("main");
  for (int i = Range(1, 3); i > 0; --i) NewParameter(RandomShape(RandomArrayType(), Weighted({2, 4, 4, 2})));
  GenerateOps(Range(options_.min_ops, options_.max_ops));

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
