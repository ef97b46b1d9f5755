#include "tools/hlo_fuzz/precision_analysis.h"

#include <algorithm>
#include <cmath>

#include "absl/container/flat_hash_map.h"
#include "xla/primitive_util.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"

namespace xla {
namespace hlo_fuzz {
namespace {

using Leaves = std::vector<Precision>;

// Folds of a reducer are simulated at most this many times (more steps
// change nothing for exact values; approximate ones are bounded anyway).
constexpr int64_t kMaxFoldSteps = 512;

Leaves JoinLeaves(const Leaves& a, const Leaves& b) {
  Leaves out(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    const Precision both[] = {a[i], i < b.size() ? b[i] : Unusable()};
    out[i] = Join(both);
  }
  return out;
}

bool AllExact(const Leaves& leaves) {
  return std::all_of(leaves.begin(), leaves.end(), [](const Precision& p) { return p.exact(); });
}

Leaves AllUnusable(const Shape& shape) { return Leaves(LeafCount(shape), Unusable()); }

// A float add/multiply of the reducer's two parameters: the CPU may
// reassociate such a reduce (vector accumulators).
bool IsReassociableReducer(const HloComputation& c, HloOpcode* op) {
  const HloInstruction* root = c.root_instruction();
  if (root == nullptr || c.num_parameters() != 2) return false;
  if (root->opcode() != HloOpcode::kAdd && root->opcode() != HloOpcode::kMultiply) return false;
  *op = root->opcode();
  return root->operand(0)->opcode() == HloOpcode::kParameter && root->operand(1)->opcode() == HloOpcode::kParameter;
}

class Analyzer {
 public:
  absl::StatusOr<Leaves> Computation(const HloComputation& c, const std::vector<Leaves>& params) {
    if (++depth_ > 64) return absl::InvalidArgumentError("precision analysis: computations nested too deep");
    absl::flat_hash_map<const HloInstruction*, Leaves> values;
    for (const HloInstruction* instr : c.instructions()) {
      Leaves v;
      if (instr->opcode() == HloOpcode::kParameter) {
        const int64_t n = instr->parameter_number();
        v = n < static_cast<int64_t>(params.size()) ? params[n] : AllUnusable(instr->shape());
      } else {
        std::vector<const Leaves*> ops;
        for (const HloInstruction* o : instr->operands()) ops.push_back(&values.at(o));
        ASSIGN_OR_RETURN(v, Instruction(*instr, ops));
      }
      if (static_cast<int64_t>(v.size()) != LeafCount(instr->shape())) v = AllUnusable(instr->shape());
      values[instr] = std::move(v);
    }
    --depth_;
    return values.at(c.root_instruction());
  }

 private:
  // The reducer applied `steps` times to accumulators starting at `init`,
  // folding in elements of precision `element` each time.
  absl::StatusOr<Leaves> Fold(const HloComputation& reducer, Leaves acc, const Leaves& element, int64_t steps) {
    steps = std::min(steps, kMaxFoldSteps);
    for (int64_t i = 0; i < steps; ++i) {
      std::vector<Leaves> params;
      for (const Precision& p : acc) params.push_back({p});
      for (const Precision& p : element) params.push_back({p});
      ASSIGN_OR_RETURN(Leaves next, Computation(reducer, params));
      Leaves joined = JoinLeaves(acc, next);
      if (AllExact(acc) && AllExact(next)) {
        // Exact stays exact; only magnitudes grow, and linearly.
        for (size_t k = 0; k < joined.size(); ++k) {
          joined[k].mag = std::max(acc[k].mag, next[k].mag) * static_cast<double>(steps) / (i + 1);
        }
        return joined;
      }
      acc = std::move(joined);
    }
    return acc;
  }

  absl::StatusOr<Leaves> Instruction(const HloInstruction& instr, const std::vector<const Leaves*>& ops) {
    const HloOpcode op = instr.opcode();
    const Shape& shape = instr.shape();
    auto leaf = [&](int i) -> const Precision& { return ops[i]->at(0); };
    auto type_of = [&](int i) { return instr.operand(i)->shape().element_type(); };
    // Data movement: the worst of the data operands; index operands must be exact.
    auto movement = [&](std::initializer_list<int> data, int first_index) -> Leaves {
      std::vector<Precision> all;
      for (int i : data) all.push_back(leaf(i));
      for (int i = first_index; i >= 0 && i < instr.operand_count(); ++i) {
        if (!leaf(i).exact()) return {Unusable()};
      }
      return {Join(all)};
    };
    switch (op) {
      case HloOpcode::kConstant:
        return LeafPrecisions(instr.literal());
      case HloOpcode::kIota: {
        double m = 0;
        for (int64_t d : shape.dimensions()) m = std::max(m, static_cast<double>(d));
        Precision p = Exact(m);
        p.may_be_inf = false;
        return Leaves{p};
      }
      case HloOpcode::kTuple: {
        Leaves out;
        for (const Leaves* l : ops) out.insert(out.end(), l->begin(), l->end());
        return out;
      }
      case HloOpcode::kGetTupleElement: {
        const Shape& tuple = instr.operand(0)->shape();
        int64_t offset = 0;
        for (int64_t i = 0; i < instr.tuple_index(); ++i) offset += LeafCount(tuple.tuple_shapes(i));
        const int64_t n = LeafCount(shape);
        return Leaves(ops[0]->begin() + offset, ops[0]->begin() + offset + n);
      }
      case HloOpcode::kBroadcast: case HloOpcode::kReshape: case HloOpcode::kTranspose:
      case HloOpcode::kSlice: case HloOpcode::kReverse: case HloOpcode::kCopy: case HloOpcode::kBitcast:
        return movement({0}, -1);
      case HloOpcode::kConcatenate: {
        Leaves all;
        for (const Leaves* l : ops) all.push_back(l->at(0));
        return Leaves{Join(all)};
      }
      case HloOpcode::kPad: return movement({0, 1}, -1);
      case HloOpcode::kDynamicSlice: return movement({0}, 1);
      case HloOpcode::kDynamicUpdateSlice: return movement({0, 1}, 2);
      case HloOpcode::kGather: return movement({0}, 1);
      case HloOpcode::kBitcastConvert:
        return Leaves{leaf(0).exact() ? Exact(kInf) : Unusable()};
      case HloOpcode::kSelect: {
        if (ops[1]->size() == 1) return Leaves{SelectPrecision(leaf(0), leaf(1), leaf(2))};
        if (!leaf(0).exact()) return AllUnusable(shape);
        return JoinLeaves(*ops[1], *ops[2]);
      }
      case HloOpcode::kClamp: return Leaves{ClampPrecision(leaf(0), leaf(1), leaf(2))};
      case HloOpcode::kDot: {
        int64_t n = 1;
        for (int64_t d : instr.attributes().dot_dimension_numbers().lhs_contracting_dimensions()) {
          n *= instr.operand(0)->shape().dimensions(d);
        }
        return Leaves{ContractionPrecision(type_of(0), shape.element_type(), leaf(0), leaf(1), n)};
      }
      case HloOpcode::kConvolution: {
        const auto& dn = instr.attributes().convolution_dimension_numbers();
        const Shape& kernel = instr.operand(1)->shape();
        int64_t n = kernel.dimensions(dn.kernel_input_feature_dimension());
        for (int64_t d : dn.kernel_spatial_dimensions()) n *= kernel.dimensions(d);
        return Leaves{ContractionPrecision(type_of(0), shape.element_type(), leaf(0), leaf(1), n)};
      }
      case HloOpcode::kReduce: return Reduce(instr, ops);
      case HloOpcode::kReduceWindow: {
        const int64_t n = instr.operand_count() / 2;
        Leaves init, element;
        for (int64_t i = 0; i < n; ++i) {
          init.push_back(leaf(n + i));
          const Precision both[] = {leaf(i), leaf(n + i)};  // padding holds the init value
          element.push_back(Join(both));
        }
        int64_t steps = 1;
        for (const auto& d : instr.attributes().window().dimensions()) steps *= d.size();
        return Fold(*instr.to_apply(), init, element, steps);
      }
      case HloOpcode::kScatter: {
        const int64_t n = (instr.operand_count() - 1) / 2;
        if (!leaf(n).exact()) return AllUnusable(shape);
        Leaves acc, update;
        for (int64_t i = 0; i < n; ++i) {
          acc.push_back(leaf(i));
          update.push_back(leaf(n + 1 + i));
        }
        const int64_t steps = ShapeUtil::ElementsIn(instr.operand(n + 1)->shape());
        return Fold(*instr.to_apply(), acc, update, std::max<int64_t>(steps, 1));
      }
      case HloOpcode::kSelectAndScatter: {
        // Which position a window selects must not depend on rounding.
        if (!leaf(0).exact() || !leaf(2).exact()) return AllUnusable(shape);
        const int64_t steps = ShapeUtil::ElementsIn(instr.operand(1)->shape());
        return Fold(*instr.called_computations()[1], {leaf(2)}, {leaf(1)}, std::max<int64_t>(steps, 1));
      }
      case HloOpcode::kFft:
      case HloOpcode::kTriangularSolve:
      case HloOpcode::kCholesky:
        // The runtime (Eigen's FFT, solves, factorizations) and the
        // evaluator (direct sums, substitution) round differently, with
        // error growing with the size and the conditioning: no bound.
        return AllUnusable(shape);
      case HloOpcode::kCall: {
        std::vector<Leaves> params;
        for (const Leaves* l : ops) params.push_back(*l);
        return Computation(*instr.to_apply(), params);
      }
      case HloOpcode::kWhile: return While(instr, *ops[0]);
      case HloOpcode::kConditional: {
        if (!leaf(0).exact()) return AllUnusable(shape);
        Leaves out;
        for (size_t b = 0; b < instr.branch_computations().size(); ++b) {
          ASSIGN_OR_RETURN(Leaves r, Computation(*instr.branch_computations()[b], {*ops[b + 1]}));
          out = b == 0 ? r : JoinLeaves(out, r);
        }
        return out;
      }
      default:
        break;
    }
    if (IsElementwiseUnary(op) || op == HloOpcode::kConvert) {
      return Leaves{UnaryPrecision(op, type_of(0), shape.element_type(), leaf(0))};
    }
    if (op == HloOpcode::kCompare && IsFloat(type_of(0)) && instr.comparison_type() == ComparisonType::kTotalOrder) {
      return Leaves{TotalOrderComparePrecision(leaf(0), leaf(1))};
    }
    if (IsElementwiseBinary(op) && instr.operand_count() == 2) {
      return Leaves{BinaryPrecision(op, type_of(0), leaf(0), leaf(1))};
    }
    // Anything else: deterministic if its operands are exact.
    for (const Leaves* l : ops) {
      if (!AllExact(*l)) return AllUnusable(shape);
    }
    return Leaves(LeafCount(shape), Exact(kInf));
  }

  absl::StatusOr<Leaves> Reduce(const HloInstruction& instr, const std::vector<const Leaves*>& ops) {
    const int64_t n = instr.operand_count() / 2;
    const Shape& in = instr.operand(0)->shape();
    int64_t count = 1;
    for (int64_t d : instr.dimensions()) count *= in.dimensions(d);
    const PrimitiveType type = in.element_type();
    HloOpcode reducer_op;
    if (n == 1 && IsFloat(type) && type != F16 && type != BF16 &&
        IsReassociableReducer(*instr.to_apply(), &reducer_op)) {
      const Precision both[] = {ops[0]->at(0), ops[1]->at(0)};
      const Precision term = Join(both);
      if (reducer_op == HloOpcode::kAdd) return Leaves{ReassociatedSumPrecision(type, type, term, count + 1)};
      // A reassociated product can underflow or overflow in another order.
      return Leaves{count <= 1 && term.exact() ? Exact(kInf) : Unusable()};
    }
    Leaves init, element;
    for (int64_t i = 0; i < n; ++i) {
      init.push_back(ops[n + i]->at(0));
      element.push_back(ops[i]->at(0));
    }
    return Fold(*instr.to_apply(), init, element, count);
  }

  absl::StatusOr<Leaves> While(const HloInstruction& instr, Leaves state) {
    for (int trip = 0; trip <= kAssumedMaxTrips; ++trip) {
      ASSIGN_OR_RETURN(Leaves cond, Computation(*instr.while_condition(), {state}));
      // The trip count itself must not depend on rounding.
      if (!AllExact(cond)) return AllUnusable(instr.shape());
      if (trip == kAssumedMaxTrips) break;
      ASSIGN_OR_RETURN(Leaves next, Computation(*instr.while_body(), {state}));
      state = JoinLeaves(state, next);
    }
    return state;
  }

  int depth_ = 0;
};

}  // namespace

int64_t LeafCount(const Shape& shape) {
  if (!shape.IsTuple()) return shape.IsArray() ? 1 : 0;
  int64_t n = 0;
  for (const Shape& s : shape.tuple_shapes()) n += LeafCount(s);
  return n;
}

std::vector<double> LeafMagnitudes(const Literal& literal) {
  if (literal.shape().IsTuple()) {
    std::vector<double> out;
    for (const Literal& e : literal.tuple_elements()) {
      std::vector<double> m = LeafMagnitudes(e);
      out.insert(out.end(), m.begin(), m.end());
    }
    return out;
  }
  if (!literal.shape().IsArray()) return {};
  double m = 0;
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    const double v = std::fabs(literal.GetAsDouble(i));
    if (std::isfinite(v)) m = std::max(m, v);
  }
  return {m};
}

std::vector<Precision> LeafPrecisions(const Literal& literal) {
  if (literal.shape().IsTuple()) {
    std::vector<Precision> out;
    for (const Literal& e : literal.tuple_elements()) {
      std::vector<Precision> p = LeafPrecisions(e);
      out.insert(out.end(), p.begin(), p.end());
    }
    return out;
  }
  if (!literal.shape().IsArray()) return {};
  Precision p = Exact(LeafMagnitudes(literal)[0]);
  p.may_be_inf = false;
  for (int64_t i = 0; i < literal.element_count() && !p.may_be_inf; ++i) {
    p.may_be_inf = std::isinf(literal.GetAsDouble(i));
  }
  return {p};
}

absl::StatusOr<std::vector<Precision>> AnalyzeOutputPrecision(const HloModule& module,
                                                              absl::Span<const Literal> arguments) {
  const HloComputation* entry = module.entry_computation();
  if (entry == nullptr) return absl::InvalidArgumentError("module has no entry computation");
  std::vector<Leaves> params;
  for (const Literal& arg : arguments) params.push_back(LeafPrecisions(arg));
  Analyzer analyzer;
  return analyzer.Computation(*entry, params);
}

}  // namespace hlo_fuzz
}  // namespace xla
