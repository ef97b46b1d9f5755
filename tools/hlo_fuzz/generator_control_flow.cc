// Control-flow op families: counted while loops over a tuple state,
// conditionals (pred and indexed, out-of-range indices included) and calls.
// Their bodies are drawn like any computation, one level deep.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tools/hlo_fuzz/generator_internal.h"
#include "xla/shape_util.h"

namespace xla {
namespace hlo_fuzz {
namespace {

// A value of the scope with `shape`'s type and dimensions to return:
// computed values preferred over parameters; exact ones only when
// `need_exact` (an exact loop state element must stay exact, or later
// iterations would feed approximate values to ops chosen for exact ones).
Value* ChooseResult(Scope& scope, const Shape& shape, bool need_exact) {
  Value* best = nullptr;
  for (Value& v : scope.values) {
    if (v.shape.element_type() != shape.element_type() || v.shape.dimensions() != shape.dimensions()) continue;
    if (v.precision.unusable || (need_exact && !v.precision.exact())) continue;
    if (best == nullptr || best->is_leaf || !v.is_leaf) best = &v;
  }
  return best;
}

}  // namespace

bool Generator::WhileOp() {
  if (current()->depth > 0) return false;
  std::vector<Value*> init;
  for (int i = Range(1, 2); i > 0; --i) {
    Value* v = Pick([](const Value&) { return true; });
    if (v == nullptr) return false;
    init.push_back(v);
  }
  const int trips = Range(0, 4);
  std::vector<Shape> shapes = {ShapeUtil::MakeShape(S32, {})};
  for (Value* v : init) shapes.push_back(v->shape);
  const std::string tuple_text = ShapeText(ShapeUtil::MakeTupleShape(shapes));

  const std::string cond = Fresh("cond_");
  const std::string cp = Fresh("cp"), ci = Fresh("ci"), cn = Fresh("cn"), cr = Fresh("cr");
  AddComputation(absl::StrCat(cond, " {\n  ", cp, " = ", tuple_text, " parameter(0)\n  ", ci,
                              " = s32[] get-tuple-element(", cp, "), index=0\n  ", cn, " = s32[] constant(", trips,
                              ")\n  ROOT ", cr, " = pred[] compare(", ci, ", ", cn, "), direction=LT\n}\n\n"));

  const std::string body = Fresh("body_");
  PushScope(body);
  const std::string state = Fresh("st");
  current()->lines.push_back(absl::StrCat("  ", state, " = ", tuple_text, " parameter(0)"));
  Value* counter = Emit(shapes[0], absl::StrCat("get-tuple-element(", state, "), index=0"), Exact(trips),
                        "get-tuple-element");
  counter->is_leaf = true;
  for (size_t i = 0; i < init.size(); ++i) {
    Value* e = Emit(shapes[i + 1], absl::StrCat("get-tuple-element(", state, "), index=", i + 1), init[i]->precision,
                    "get-tuple-element");
    e->is_leaf = true;
  }
  GenerateOps(Range(2, 5));
  Value* one = ScalarConstant(S32, "1");
  std::vector<std::string> next = {
      Emit(shapes[0], absl::StrCat("add(", Use(counter), ", ", Use(one), ")"), Exact(trips + 1), "add")->name};
  std::vector<Precision> out_precision;
  for (size_t i = 0; i < init.size(); ++i) {
    Value* r = ChooseResult(*current(), shapes[i + 1], init[i]->precision.exact());
    next.push_back(Use(r));
    out_precision.push_back(r->precision);
  }
  current()->lines.push_back(
      absl::StrCat("  ROOT ", Fresh("bt"), " = ", tuple_text, " tuple(", absl::StrJoin(next, ", "), ")"));
  AddComputation(ComputationText(*PopScope()));

  Value* zero = ScalarConstant(S32, "0");
  std::vector<std::string> init_names = {Use(zero)};
  for (Value* v : init) init_names.push_back(Use(v));
  const std::string t = EmitTuple(shapes, absl::StrCat("tuple(", absl::StrJoin(init_names, ", "), ")"), "tuple");
  const std::string w =
      EmitTuple(shapes, absl::StrCat("while(", t, "), condition=", cond, ", body=", body), "while");
  for (size_t i = 0; i < init.size(); ++i) {
    // Up to `trips` applications of the body: errors and magnitudes grow.
    const Precision both[] = {init[i]->precision, out_precision[i]};
    Precision p = Join(both);
    if (out_precision[i].mag > init[i]->precision.mag) p.mag = kInf;
    p.rel *= 2 * (trips + 1);
    p.abs *= 2 * (trips + 1);
    if (!p.exact() && !(p.abs < 1e30 && p.rel < 0.05)) p = Unusable();
    Emit(shapes[i + 1], absl::StrCat("get-tuple-element(", w, "), index=", i + 1), p, "get-tuple-element");
  }
  if (Chance(0.2)) Emit(shapes[0], absl::StrCat("get-tuple-element(", w, "), index=0"), Exact(trips), "get-tuple-element");
  return true;
}

bool Generator::ConditionalOp() {
  if (current()->depth > 0) return false;
  const bool indexed = Chance(0.5);
  const int branches = indexed ? Range(1, 3) : 2;
  Value* index;
  if (indexed) {
    index = IndexScalar(S32, branches);
    Count("conditional:indexed");
  } else {
    index = Pick([](const Value& v) {
      return v.shape.element_type() == PRED && v.shape.rank() == 0 && v.precision.exact();
    });
    if (index == nullptr) {
      const PrimitiveType t = Chance(0.5) ? RandomFloatType() : RandomIntType();
      Value* a = FindOrMake(t, {}, true);
      Value* b = FindOrMake(t, {}, true);
      index = Emit(ShapeUtil::MakeShape(PRED, {}), absl::StrCat("compare(", Use(a), ", ", Use(b), "), direction=GT"),
                   Exact(1), "compare");
    }
    Count("conditional:pred");
  }
  std::vector<Value*> operands;
  for (int b = 0; b < branches; ++b) {
    Value* v = Pick([](const Value&) { return true; });
    if (v == nullptr) return false;
    operands.push_back(v);
  }
  const Shape result_shape = MakeShape(operands[0]->shape.element_type(), operands[0]->shape.dimensions());
  std::vector<std::string> names;
  std::vector<Precision> results;
  for (int b = 0; b < branches; ++b) {
    names.push_back(Fresh("branch_"));
    PushScope(names.back());
    Emit(operands[b]->shape, "parameter(0)", operands[b]->precision, "parameter")->is_leaf = true;
    current()->parameters = 1;
    GenerateOps(Range(1, 3));
    Value* r = ChooseResult(*current(), result_shape, false);
    if (r == nullptr) r = FindOrMake(result_shape.element_type(), result_shape.dimensions(), false);
    MarkRoot(r);
    results.push_back(r->precision);
    AddComputation(ComputationText(*PopScope()));
  }
  std::vector<std::string> args = {Use(index)};
  for (Value* v : operands) args.push_back(Use(v));
  const std::string callees =
      indexed ? absl::StrCat("branch_computations={", absl::StrJoin(names, ", "), "}")
              : absl::StrCat("true_computation=", names[0], ", false_computation=", names[1]);
  Emit(result_shape, absl::StrCat("conditional(", absl::StrJoin(args, ", "), "), ", callees), Join(results),
       "conditional");
  return true;
}

bool Generator::CallOp() {
  if (current()->depth > 0) return false;
  std::vector<Value*> operands;
  for (int i = Range(1, 2); i > 0; --i) {
    Value* v = Pick([](const Value&) { return true; });
    if (v == nullptr) return false;
    operands.push_back(v);
  }
  const std::string name = Fresh("callee_");
  PushScope(name);
  for (size_t i = 0; i < operands.size(); ++i) {
    Emit(operands[i]->shape, absl::StrCat("parameter(", i, ")"), operands[i]->precision, "parameter")->is_leaf = true;
  }
  current()->parameters = static_cast<int>(operands.size());
  GenerateOps(Range(1, 4));
  Value* r = &current()->values.back();
  for (Value& v : current()->values) {
    if (!v.is_leaf && v.uses == 0) r = &v;
  }
  MarkRoot(r);
  const Shape shape = r->shape;
  const Precision p = r->precision;
  AddComputation(ComputationText(*PopScope()));
  std::vector<std::string> args;
  for (Value* v : operands) args.push_back(Use(v));
  Emit(shape, absl::StrCat("call(", absl::StrJoin(args, ", "), "), to_apply=", name), p, "call");
  return true;
}

}  // namespace hlo_fuzz
}  // namespace xla
