// HloEvaluator: argument checking, the walk over a computation, the opcode
// dispatch, and the ops that call computations or restructure values
// (tuple, get-tuple-element, call, fusion, while, conditional, convert,
// bitcast-convert, copy). The op families live in the sibling files.
#include "xla/evaluator/hlo_evaluator.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "xla/evaluator/evaluator_internal.h"
#include "xla/status_macros.h"

namespace xla {

using evaluator_internal::ExpectArray;
using evaluator_internal::ExpectSameDims;
using evaluator_internal::InstrLabel;
using evaluator_internal::RowMajorShape;

namespace {

// `lit` in row-major layout: a pointer to `lit` itself when it already is,
// else to a relayouted copy kept in `storage`.
const Literal* ToRowMajor(const Literal& lit, Literal* storage) {
  if (ShapeUtil::HasDefaultLayout(lit.shape())) return &lit;
  *storage = lit.RelayoutTo(ShapeUtil::WithDefaultLayout(lit.shape()));
  return storage;
}

absl::Status CheckArguments(const HloComputation& computation, absl::Span<const Literal* const> args) {
  if (static_cast<int64_t>(args.size()) != computation.num_parameters()) {
    return InvalidArgument("HloEvaluator: computation '%s' takes %d arguments, got %d", computation.name(),
                           computation.num_parameters(), args.size());
  }
  for (int64_t i = 0; i < computation.num_parameters(); ++i) {
    const HloInstruction* p = computation.parameter_instruction(i);
    if (p == nullptr) {
      return InvalidArgument("HloEvaluator: computation '%s' has no parameter %d", computation.name(), i);
    }
    if (args[i] == nullptr || !args[i]->shape().Compatible(p->shape())) {
      return InvalidArgument("HloEvaluator: argument %d of computation '%s' has shape %s but parameter '%s' has "
                             "shape %s",
                             i, computation.name(), args[i] ? args[i]->shape().ToString() : "null", p->name(),
                             p->shape().ToString());
    }
  }
  return absl::OkStatus();
}

// Bytes of all arrays in `shape` (tuples summed), saturating.
int64_t TotalBytes(const Shape& shape) {
  if (shape.IsTuple()) {
    int64_t total = 0;
    for (const Shape& e : shape.tuple_shapes()) {
      total += std::min(TotalBytes(e), std::numeric_limits<int64_t>::max() / 4);
      total = std::min(total, std::numeric_limits<int64_t>::max() / 4);
    }
    return total;
  }
  return shape.IsArray() ? ShapeUtil::ByteSizeOfElements(shape) : 0;
}

// The largest value the evaluator allocates: half the physical memory, so
// a huge (but valid) shape is an error instead of an allocation failure.
int64_t MaxValueBytes() {
  static const int64_t limit = [] {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || page <= 0) return int64_t{1} << 34;
    return static_cast<int64_t>(pages) * page / 2;
  }();
  return limit;
}

// Valid bitcast-convert: equal widths keep the dimensions; a wider result
// drops a minor dimension of size ratio; a narrower one adds it. Widths in
// bits: pred is one (StableHLO's i1).
absl::Status CheckBitcastConvert(const HloInstruction& instruction, const Shape& in, const Shape& out) {
  const int wi = primitive_util::BitWidth(in.element_type());
  const int wo = primitive_util::BitWidth(out.element_type());
  std::vector<int64_t> expected = in.dimensions();
  bool ok = true;
  if (wo > wi) {
    ok = in.rank() > 0 && in.dimensions(in.rank() - 1) * wi == wo;
    if (ok) expected.pop_back();
  } else if (wo < wi) {
    expected.push_back(wi / wo);
  }
  if (!ok || expected != out.dimensions()) {
    return InvalidArgument("HloEvaluator: %s: cannot bitcast-convert %s to %s", InstrLabel(instruction),
                           in.ToString(), out.ToString());
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Literal> HloEvaluator::Evaluate(const HloModule& module, absl::Span<const Literal* const> args) {
  if (module.entry_computation() == nullptr) {
    return InvalidArgument("HloEvaluator: module '%s' has no entry computation", module.name());
  }
  return Evaluate(*module.entry_computation(), args);
}

absl::StatusOr<Literal> HloEvaluator::Evaluate(const HloComputation& computation,
                                               absl::Span<const Literal* const> args) {
  plans_.clear();
  call_depth_ = 0;
  evaluator_internal::ScopedStopFlag stop_flag(stop_flag_);
  RETURN_IF_ERROR(CheckArguments(computation, args));
  if (computation.root_instruction() == nullptr) {
    return InvalidArgument("HloEvaluator: computation '%s' has no root", computation.name());
  }
  std::vector<Literal> storage(args.size());
  std::vector<const Literal*> row_major(args.size());
  for (size_t i = 0; i < args.size(); ++i) row_major[i] = ToRowMajor(*args[i], &storage[i]);
  ASSIGN_OR_RETURN(Literal result, EvaluateRowMajor(computation, row_major));
  const Shape& root_shape = computation.root_instruction()->shape();
  if (!ShapeUtil::HasDefaultLayout(root_shape)) return result.RelayoutTo(root_shape);
  return result;
}

absl::StatusOr<Literal> HloEvaluator::EvaluateInstruction(const HloInstruction& instruction,
                                                          absl::Span<const Literal* const> operands) {
  plans_.clear();
  call_depth_ = 0;
  if (static_cast<int64_t>(operands.size()) != instruction.operand_count()) {
    return InvalidArgument("HloEvaluator: %s has %d operands, got %d values", InstrLabel(instruction),
                           instruction.operand_count(), operands.size());
  }
  if (instruction.opcode() == HloOpcode::kParameter) {
    return InvalidArgument("HloEvaluator: %s: a parameter has no value on its own", InstrLabel(instruction));
  }
  std::vector<Literal> storage(operands.size());
  std::vector<const Literal*> row_major(operands.size());
  for (size_t i = 0; i < operands.size(); ++i) {
    if (operands[i] == nullptr || !operands[i]->shape().Compatible(instruction.operand(i)->shape())) {
      return InvalidArgument("HloEvaluator: %s: operand %d value has shape %s but the operand has shape %s",
                             InstrLabel(instruction), i, operands[i] ? operands[i]->shape().ToString() : "null",
                             instruction.operand(i)->shape().ToString());
    }
    row_major[i] = ToRowMajor(*operands[i], &storage[i]);
  }
  ASSIGN_OR_RETURN(Literal result, Dispatch(instruction, row_major));
  if (!result.shape().Compatible(instruction.shape())) {
    return Internal("HloEvaluator: %s evaluated to %s but is declared %s", InstrLabel(instruction),
                    result.shape().ToString(), instruction.shape().ToString());
  }
  if (!ShapeUtil::HasDefaultLayout(instruction.shape())) return result.RelayoutTo(instruction.shape());
  return result;
}

struct HloEvaluator::Plan {
  // What the root depends on and every side-effecting instruction with what
  // it depends on, in post order (side effects in definition order).
  std::vector<const HloInstruction*> order;
  std::vector<std::vector<int32_t>> operands;    // positions (in order) of each step's operands
  std::vector<std::vector<int32_t>> frees;       // positions whose last use is this step
  int32_t root = 0;                              // position of the root
};

absl::StatusOr<const HloEvaluator::Plan*> HloEvaluator::GetPlan(const HloComputation& computation) {
  auto it = plans_.find(&computation);
  if (it != plans_.end()) return it->second.get();
  const HloInstruction* root = computation.root_instruction();
  if (root == nullptr) return InvalidArgument("HloEvaluator: computation '%s' has no root", computation.name());
  auto plan = std::make_shared<Plan>();
  std::vector<HloInstruction*> order = computation.MakeInstructionPostOrder();
  absl::flat_hash_set<const HloInstruction*> needed;
  std::vector<const HloInstruction*> stack = {root};
  for (const HloInstruction* i : order) {
    if (i->HasSideEffect()) stack.push_back(i);
  }
  while (!stack.empty()) {
    const HloInstruction* i = stack.back();
    stack.pop_back();
    if (!needed.insert(i).second) continue;
    for (const HloInstruction* op : i->operands()) stack.push_back(op);
  }
  for (const HloInstruction* i : order) {
    if (needed.contains(i)) plan->order.push_back(i);
  }
  absl::flat_hash_map<const HloInstruction*, int32_t> position;
  for (size_t i = 0; i < plan->order.size(); ++i) position[plan->order[i]] = static_cast<int32_t>(i);
  if (!position.contains(root)) return Internal("HloEvaluator: root of '%s' not in post order", computation.name());
  plan->root = position.at(root);
  const size_t n = plan->order.size();
  plan->operands.resize(n);
  plan->frees.resize(n);
  std::vector<int32_t> last_use(n, -1);
  for (size_t i = 0; i < n; ++i) {
    for (const HloInstruction* op : plan->order[i]->operands()) {
      auto pos = position.find(op);
      if (pos == position.end()) {
        return Internal("HloEvaluator: operand '%s' of %s is not in computation '%s'", op->name(),
                        InstrLabel(*plan->order[i]), computation.name());
      }
      plan->operands[i].push_back(pos->second);
      last_use[pos->second] = static_cast<int32_t>(i);
    }
  }
  for (size_t v = 0; v < n; ++v) {  // the root is never freed
    if (last_use[v] >= 0 && static_cast<int32_t>(v) != plan->root) plan->frees[last_use[v]].push_back(static_cast<int32_t>(v));
  }
  const Plan* raw = plan.get();
  plans_[&computation] = std::move(plan);
  return raw;
}

absl::StatusOr<Literal> HloEvaluator::EvaluateRowMajor(const HloComputation& computation,
                                                       absl::Span<const Literal* const> args) {
  constexpr int kMaxCallDepth = 256;
  if (call_depth_ >= kMaxCallDepth) {
    return InvalidArgument("HloEvaluator: computations nest deeper than %d calls at '%s' (a cycle?)", kMaxCallDepth,
                           computation.name());
  }
  ++call_depth_;
  absl::StatusOr<Literal> result = EvaluateSteps(computation, args);
  --call_depth_;
  return result;
}

absl::StatusOr<Literal> HloEvaluator::EvaluateSteps(const HloComputation& computation,
                                                    absl::Span<const Literal* const> args) {
  RETURN_IF_ERROR(CheckArguments(computation, args));
  ASSIGN_OR_RETURN(const Plan* plan, GetPlan(computation));
  const size_t n = plan->order.size();
  std::vector<const Literal*> values(n, nullptr);
  std::vector<std::optional<Literal>> owned(n);
  std::vector<const Literal*> operand_values;

  for (size_t step = 0; step < n; ++step) {
    const HloInstruction* instr = plan->order[step];
    if (stop_flag_ != nullptr && stop_flag_->load(std::memory_order_relaxed) != 0) {
      return absl::AbortedError(absl::StrCat("HloEvaluator: stopped by the caller before ", InstrLabel(*instr)));
    }
    if (instr->opcode() == HloOpcode::kParameter) {
      int64_t number = instr->parameter_number();
      if (number < 0 || number >= static_cast<int64_t>(args.size())) {
        return InvalidArgument("HloEvaluator: parameter '%s' has number %d but %d arguments were given",
                               instr->name(), number, args.size());
      }
      values[step] = args[number];
    } else if (instr->opcode() == HloOpcode::kConstant) {
      if (!instr->has_literal()) return InvalidArgument("HloEvaluator: %s has no literal", InstrLabel(*instr));
      const Literal& lit = instr->literal();
      if (!lit.shape().Compatible(instr->shape())) {
        return InvalidArgument("HloEvaluator: %s: literal %s does not match its shape %s", InstrLabel(*instr),
                               lit.shape().ToString(), instr->shape().ToString());
      }
      if (ShapeUtil::HasDefaultLayout(lit.shape())) {
        values[step] = &lit;
      } else {
        owned[step] = lit.RelayoutTo(ShapeUtil::WithDefaultLayout(lit.shape()));
        values[step] = &*owned[step];
      }
    } else {
      operand_values.clear();
      for (int32_t pos : plan->operands[step]) {
        if (values[pos] == nullptr) {
          return Internal("HloEvaluator: an operand of %s has no value", InstrLabel(*instr));
        }
        operand_values.push_back(values[pos]);
      }
      absl::StatusOr<Literal> result = Dispatch(*instr, operand_values);
      if (!result.ok()) return result.status();
      if (!result->shape().Compatible(instr->shape())) {
        return Internal("HloEvaluator: %s evaluated to %s but is declared %s", InstrLabel(*instr),
                        result->shape().ToString(), instr->shape().ToString());
      }
      owned[step] = std::move(*result);
      values[step] = &*owned[step];
    }
    for (int32_t pos : plan->frees[step]) {
      values[pos] = nullptr;
      owned[pos].reset();
    }
  }
  if (owned[plan->root].has_value()) return std::move(*owned[plan->root]);
  return *values[plan->root];
}

absl::StatusOr<Literal> HloEvaluator::Dispatch(const HloInstruction& instruction,
                                               absl::Span<const Literal* const> operands) {
  namespace ei = evaluator_internal;
  const HloOpcode opcode = instruction.opcode();
  const int64_t bytes = TotalBytes(instruction.shape());
  if (bytes > MaxValueBytes()) {
    return ResourceExhausted("HloEvaluator: %s: result %s needs %d bytes, more than the %d bytes allowed",
                             InstrLabel(instruction), instruction.shape().ToString(), bytes, MaxValueBytes());
  }
  const int arity = HloOpcodeArity(opcode);
  if (arity != kHloOpcodeVariadic && arity != static_cast<int>(operands.size())) {
    return InvalidArgument("HloEvaluator: %s takes %d operands, got %d", InstrLabel(instruction), arity,
                           operands.size());
  }
  auto run = [this](const HloComputation& c, absl::Span<const Literal* const> args) {
    return EvaluateRowMajor(c, args);
  };
  auto need_called = [&](size_t count) -> absl::Status {
    if (instruction.called_computations().size() < count) {
      return InvalidArgument("HloEvaluator: %s needs %d called computation(s)", InstrLabel(instruction), count);
    }
    for (const HloComputation* c : instruction.called_computations()) {
      if (c == nullptr) return InvalidArgument("HloEvaluator: %s has a null called computation", InstrLabel(instruction));
    }
    return absl::OkStatus();
  };

  if (IsElementwiseUnary(opcode)) return ei::EvaluateUnary(instruction, *operands[0]);
  if (IsDistributedOpcode(opcode)) return ei::EvaluateDistributed(instruction, operands, replica_context_, run);
  switch (opcode) {
    case HloOpcode::kConstant:
      if (!instruction.has_literal()) return InvalidArgument("HloEvaluator: %s has no literal", InstrLabel(instruction));
      return instruction.literal().RelayoutTo(ShapeUtil::WithDefaultLayout(instruction.literal().shape()));
    case HloOpcode::kCompare:
      return ei::EvaluateCompare(instruction, *operands[0], *operands[1]);
    case HloOpcode::kAdd: case HloOpcode::kSubtract: case HloOpcode::kMultiply: case HloOpcode::kDivide:
    case HloOpcode::kRemainder: case HloOpcode::kPower: case HloOpcode::kMaximum: case HloOpcode::kMinimum:
    case HloOpcode::kAnd: case HloOpcode::kOr: case HloOpcode::kXor: case HloOpcode::kShiftLeft:
    case HloOpcode::kShiftRightArithmetic: case HloOpcode::kShiftRightLogical: case HloOpcode::kAtan2:
    case HloOpcode::kComplex:
      return ei::EvaluateBinary(instruction, *operands[0], *operands[1]);
    case HloOpcode::kRngBitGenerator:
      return ei::EvaluateRngBitGenerator(instruction, *operands[0]);
    case HloOpcode::kRng:
      if (operands.size() != 2) return InvalidArgument("HloEvaluator: %s needs two operands", InstrLabel(instruction));
      return ei::EvaluateRng(instruction, *operands[0], *operands[1]);
    case HloOpcode::kBatchNormTraining:
    case HloOpcode::kBatchNormInference:
    case HloOpcode::kBatchNormGrad:
      return ei::EvaluateBatchNorm(instruction, operands);
    case HloOpcode::kGetDimensionSize:
    case HloOpcode::kSetDimensionSize:
      return ei::EvaluateDimensionSize(instruction, operands);
    case HloOpcode::kReducePrecision:
      return ei::EvaluateReducePrecision(instruction, *operands[0]);
    case HloOpcode::kSelect:
      return ei::EvaluateSelect(instruction, *operands[0], *operands[1], *operands[2]);
    case HloOpcode::kClamp:
      return ei::EvaluateClamp(instruction, *operands[0], *operands[1], *operands[2]);
    case HloOpcode::kConvert: {
      RETURN_IF_ERROR(ExpectArray(instruction, instruction.shape(), "result"));
      RETURN_IF_ERROR(ExpectSameDims(instruction, operands[0]->shape(), instruction.shape(), "operand"));
      return operands[0]->Convert(instruction.shape().element_type());
    }
    case HloOpcode::kBitcastConvert: {
      RETURN_IF_ERROR(ExpectArray(instruction, instruction.shape(), "result"));
      RETURN_IF_ERROR(ExpectArray(instruction, operands[0]->shape(), "operand"));
      RETURN_IF_ERROR(CheckBitcastConvert(instruction, operands[0]->shape(), instruction.shape()));
      return operands[0]->BitcastConvert(RowMajorShape(instruction.shape()));
    }
    case HloOpcode::kBitcast: {
      // Reinterprets the operand's physical (layout-ordered) elements.
      const Shape& in_shape = instruction.operand(0)->shape();
      const Shape& shape = instruction.shape();
      RETURN_IF_ERROR(ExpectArray(instruction, shape, "result"));
      RETURN_IF_ERROR(ExpectArray(instruction, operands[0]->shape(), "operand"));
      // Same bytes, any element types but pred with another (as shape inference).
      const bool pred_mix = in_shape.element_type() != shape.element_type() &&
                            (in_shape.element_type() == PRED || shape.element_type() == PRED);
      if (pred_mix || ShapeUtil::ByteSizeOfElements(in_shape) != ShapeUtil::ByteSizeOfElements(shape)) {
        return InvalidArgument("HloEvaluator: %s: cannot bitcast %s to %s", InstrLabel(instruction),
                               in_shape.ToString(true), shape.ToString(true));
      }
      Literal physical = operands[0]->Relayout(in_shape.layout());
      // The same bytes, read in the result layout's order.
      Literal out(shape);
      std::memcpy(out.untyped_data(), physical.untyped_data(), physical.size_bytes());
      return out.Relayout(ShapeUtil::DefaultLayout(shape.rank()));
    }
    case HloOpcode::kCopy:
    case HloOpcode::kOptimizationBarrier:
      return *operands[0];
    case HloOpcode::kBroadcast:
      return ei::EvaluateBroadcast(instruction, *operands[0]);
    case HloOpcode::kReshape:
      return ei::EvaluateReshape(instruction, *operands[0]);
    case HloOpcode::kTranspose:
      return ei::EvaluateTranspose(instruction, *operands[0]);
    case HloOpcode::kReverse:
      return ei::EvaluateReverse(instruction, *operands[0]);
    case HloOpcode::kSlice:
      return ei::EvaluateSlice(instruction, *operands[0]);
    case HloOpcode::kDynamicSlice:
      return ei::EvaluateDynamicSlice(instruction, operands);
    case HloOpcode::kDynamicUpdateSlice:
      return ei::EvaluateDynamicUpdateSlice(instruction, operands);
    case HloOpcode::kConcatenate:
      return ei::EvaluateConcatenate(instruction, operands);
    case HloOpcode::kPad:
      return ei::EvaluatePad(instruction, *operands[0], *operands[1]);
    case HloOpcode::kIota:
      return ei::EvaluateIota(instruction);
    case HloOpcode::kDot:
      return ei::EvaluateDot(instruction, *operands[0], *operands[1]);
    case HloOpcode::kGather:
      return ei::EvaluateGather(instruction, *operands[0], *operands[1]);
    case HloOpcode::kConvolution:
      return ei::EvaluateConvolution(instruction, *operands[0], *operands[1]);
    case HloOpcode::kFft:
      return ei::EvaluateFft(instruction, *operands[0]);
    case HloOpcode::kTriangularSolve:
      return ei::EvaluateTriangularSolve(instruction, *operands[0], *operands[1]);
    case HloOpcode::kCholesky:
      return ei::EvaluateCholesky(instruction, *operands[0]);
    case HloOpcode::kCustomCall:
      return ei::EvaluateCustomCall(instruction, operands);
    case HloOpcode::kReduce:
      RETURN_IF_ERROR(need_called(1));
      return ei::EvaluateReduce(instruction, operands, run);
    case HloOpcode::kScatter:
      RETURN_IF_ERROR(need_called(1));
      return ei::EvaluateScatter(instruction, operands, run);
    case HloOpcode::kSelectAndScatter:
      RETURN_IF_ERROR(need_called(2));
      return ei::EvaluateSelectAndScatter(instruction, operands, run);
    case HloOpcode::kReduceWindow:
      RETURN_IF_ERROR(need_called(1));
      return ei::EvaluateReduceWindow(instruction, operands, run);
    case HloOpcode::kSort:
      RETURN_IF_ERROR(need_called(1));
      return ei::EvaluateSort(instruction, operands, run);
    case HloOpcode::kTopK:
      return ei::EvaluateTopK(instruction, *operands[0]);
    case HloOpcode::kMap:
      RETURN_IF_ERROR(need_called(1));
      return ei::EvaluateMap(instruction, operands, run);
    case HloOpcode::kTuple: {
      std::vector<Literal> elements;
      elements.reserve(operands.size());
      for (const Literal* op : operands) elements.push_back(*op);
      return Literal::MakeTuple(std::move(elements));
    }
    case HloOpcode::kGetTupleElement: {
      const Literal& tuple = *operands[0];
      const int64_t index = instruction.tuple_index();
      if (!tuple.shape().IsTuple() || index < 0 ||
          index >= static_cast<int64_t>(tuple.tuple_elements().size())) {
        return InvalidArgument("HloEvaluator: %s: tuple index %d is out of range for %s", InstrLabel(instruction),
                               index, tuple.shape().ToString());
      }
      return tuple.tuple_elements()[index];
    }
    case HloOpcode::kCall:
    case HloOpcode::kFusion:
      RETURN_IF_ERROR(need_called(1));
      return EvaluateRowMajor(*instruction.called_computations()[0], operands);
    case HloOpcode::kWhile:
      RETURN_IF_ERROR(need_called(2));
      return EvaluateWhile(instruction, *operands[0]);
    case HloOpcode::kConditional:
      RETURN_IF_ERROR(need_called(1));
      return EvaluateConditional(instruction, operands);
    case HloOpcode::kParameter:
      return InvalidArgument("HloEvaluator: %s: a parameter has no value on its own", InstrLabel(instruction));
    default:
      break;
  }
  return Unimplemented("HloEvaluator: opcode '%s' is not implemented yet (instruction '%s')",
                       HloOpcodeString(opcode), instruction.name());
}

absl::StatusOr<Literal> HloEvaluator::EvaluateWhile(const HloInstruction& instruction, const Literal& init) {
  const HloComputation& cond = *instruction.while_condition();
  const HloComputation& body = *instruction.while_body();
  const HloInstruction* cond_root = cond.root_instruction();
  if (cond_root == nullptr || !ShapeUtil::IsScalar(cond_root->shape()) || cond_root->shape().element_type() != PRED) {
    return InvalidArgument("HloEvaluator: %s: condition '%s' must return a pred scalar", InstrLabel(instruction),
                           cond.name());
  }
  Literal state = init;
  int64_t iterations = 0;
  while (true) {
    const Literal* arg = &state;
    ASSIGN_OR_RETURN(Literal keep_going, EvaluateRowMajor(cond, absl::MakeConstSpan(&arg, 1)));
    if (!keep_going.data<bool>()[0]) break;
    if (max_loop_iterations_ >= 0 && iterations >= max_loop_iterations_) {
      return ResourceExhausted("HloEvaluator: %s: loop exceeded the limit of %d iterations",
                               InstrLabel(instruction), max_loop_iterations_);
    }
    if (should_stop_ && should_stop_()) {
      return absl::AbortedError(absl::StrCat("HloEvaluator: ", InstrLabel(instruction), ": stopped by the caller"));
    }
    ASSIGN_OR_RETURN(state, EvaluateRowMajor(body, absl::MakeConstSpan(&arg, 1)));
    ++iterations;
  }
  return state;
}

absl::StatusOr<Literal> HloEvaluator::EvaluateConditional(const HloInstruction& instruction,
                                                          absl::Span<const Literal* const> operands) {
  absl::Span<HloComputation* const> branches = instruction.branch_computations();
  if (operands.size() != branches.size() + 1) {
    return InvalidArgument("HloEvaluator: %s: %d branches need %d operands, got %d", InstrLabel(instruction),
                           branches.size(), branches.size() + 1, operands.size());
  }
  const Literal& selector = *operands[0];
  if (!selector.shape().IsArray() || selector.shape().rank() != 0) {
    return InvalidArgument("HloEvaluator: %s: branch index must be a scalar, got %s", InstrLabel(instruction),
                           selector.shape().ToString());
  }
  int64_t branch;
  if (selector.element_type() == PRED) {
    if (branches.size() != 2) {
      return InvalidArgument("HloEvaluator: %s: a pred conditional needs 2 branches, has %d", InstrLabel(instruction),
                             branches.size());
    }
    branch = selector.data<bool>()[0] ? 0 : 1;
  } else if (selector.element_type() == S32) {
    int64_t index = selector.data<int32_t>()[0];
    const int64_t n = static_cast<int64_t>(branches.size());
    branch = (index < 0 || index >= n) ? n - 1 : index;
  } else {
    return InvalidArgument("HloEvaluator: %s: branch index must be pred or s32, got %s", InstrLabel(instruction),
                           selector.shape().ToString());
  }
  return EvaluateRowMajor(*branches[branch], operands.subspan(branch + 1, 1));
}

}  // namespace xla
