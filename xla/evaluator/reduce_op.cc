// Reduce and reduce-window (single and variadic), and map.
//
// Reduce order: for each result element (row-major), the reduced elements are
// folded in row-major order of the reduced dimensions, starting from the init
// value: acc = f(acc, x). Reduce-window folds each window's positions in
// row-major order the same way; positions in the padding or in a base
// dilation hole hold the init value (the document pads with init values). A
// reducer that is a single same-type binary op of its two parameters runs
// as a typed loop; any other reducer is evaluated as a computation on scalar
// literals. Select-and-scatter selects in each window as the document
// describes (the first position inside the operand, replaced by each later
// one for which select(selected, candidate) is false; windows entirely in
// the padding select nothing), then scatters the source elements in
// row-major order.
#include <algorithm>
#include <vector>

#include "xla/evaluator/elementwise_kernels.h"
#include "xla/evaluator/evaluator_internal.h"
#include "xla/hlo/scalar_reducer.h"
#include "xla/shape_inference.h"
#include "xla/status_macros.h"

namespace xla {
namespace evaluator_internal {

namespace {

bool IsScalarOf(const Shape& s, PrimitiveType type) {
  return s.IsArray() && s.rank() == 0 && s.element_type() == type;
}

// If `computation` is `op(p0, p1)` (or `op(p1, p0)`) with a same-type binary
// op on scalars of `type`, returns op and whether the operands are swapped.
bool MatchSimpleReducer(const HloComputation& computation, PrimitiveType type, HloOpcode* op, bool* swapped) {
  const std::optional<ScalarBinaryReducer> match = MatchScalarBinaryReducer(computation, type);
  if (!match.has_value() || !IsSameTypeBinary(match->opcode)) return false;
  *op = match->opcode;
  *swapped = match->swapped;
  return true;
}

}  // namespace

absl::StatusOr<Literal> EvaluateReduce(const HloInstruction& instruction, absl::Span<const Literal* const> operands,
                                       const ComputationRunner& run) {
  const HloComputation* reducer = instruction.to_apply();
  if (operands.size() < 2 || operands.size() % 2 != 0 || reducer == nullptr) {
    return InvalidArgument("HloEvaluator: %s: needs N operands, N init values and a reducer",
                           InstrLabel(instruction));
  }
  const int64_t n = operands.size() / 2;
  const Shape& in = operands[0]->shape();
  RETURN_IF_ERROR(ExpectArray(instruction, in, "operand 0"));
  for (int64_t i = 0; i < n; ++i) {
    RETURN_IF_ERROR(ExpectSameDims(instruction, operands[i]->shape(), in, "operand"));
    if (!IsScalarOf(operands[n + i]->shape(), operands[i]->element_type())) {
      return InvalidArgument("HloEvaluator: %s: init value %d must be a %s scalar, got %s", InstrLabel(instruction),
                             i, primitive_util::LowercaseName(operands[i]->element_type()),
                             operands[n + i]->shape().ToString());
    }
  }
  // Reduced and kept dimensions.
  std::vector<bool> reduced(in.rank(), false);
  for (int64_t d : instruction.dimensions()) {
    if (d < 0 || d >= in.rank() || reduced[d]) {
      return InvalidArgument("HloEvaluator: %s: invalid or repeated reduce dimension %d for %s",
                             InstrLabel(instruction), d, in.ToString());
    }
    reduced[d] = true;
  }
  std::vector<int64_t> in_strides = RowMajorStrides(in.dimensions());
  std::vector<int64_t> kept_dims, kept_strides, red_dims, red_strides;
  for (int64_t d = 0; d < in.rank(); ++d) {
    (reduced[d] ? red_dims : kept_dims).push_back(in.dimensions(d));
    (reduced[d] ? red_strides : kept_strides).push_back(in_strides[d]);
  }
  // Result shapes.
  const Shape& shape = instruction.shape();
  std::vector<Shape> out_shapes;
  for (int64_t i = 0; i < n; ++i) {
    out_shapes.push_back(ShapeUtil::MakeShape(operands[i]->element_type(), kept_dims));
  }
  bool shape_ok = n == 1 ? shape.Compatible(out_shapes[0])
                         : shape.Compatible(ShapeUtil::MakeTupleShape(out_shapes));
  if (!shape_ok) {
    return InvalidArgument("HloEvaluator: %s: result %s does not match the reduction of %s over dimensions",
                           InstrLabel(instruction), shape.ToString(), in.ToString());
  }
  // The reducer's signature: 2N scalars -> N scalars (a tuple when N > 1).
  if (reducer->num_parameters() != 2 * n || reducer->root_instruction() == nullptr) {
    return InvalidArgument("HloEvaluator: %s: reducer %s must take %d parameters", InstrLabel(instruction),
                           reducer->name(), 2 * n);
  }
  for (int64_t i = 0; i < 2 * n; ++i) {
    const HloInstruction* p = reducer->parameter_instruction(i);
    if (p == nullptr || !IsScalarOf(p->shape(), operands[i % n]->element_type())) {
      return InvalidArgument("HloEvaluator: %s: reducer parameter %d must be a %s scalar", InstrLabel(instruction), i,
                             primitive_util::LowercaseName(operands[i % n]->element_type()));
    }
  }
  const Shape& rshape = reducer->root_instruction()->shape();
  bool root_ok = n == 1 ? IsScalarOf(rshape, operands[0]->element_type())
                        : rshape.IsTuple() && rshape.tuple_shapes_size() == n;
  for (int64_t i = 0; root_ok && n > 1 && i < n; ++i) {
    root_ok = IsScalarOf(rshape.tuple_shapes(i), operands[i]->element_type());
  }
  if (!root_ok) {
    return InvalidArgument("HloEvaluator: %s: reducer %s returns %s, not the accumulator types",
                           InstrLabel(instruction), reducer->name(), rshape.ToString());
  }

  // Offsets of the first element of each result element, and of each
  // reduced element relative to it.
  auto offsets = [](const std::vector<int64_t>& dims, const std::vector<int64_t>& strides) {
    std::vector<int64_t> out;
    int64_t count = 1;
    for (int64_t d : dims) count *= d;
    out.reserve(count);
    if (count == 0) return out;
    std::vector<int64_t> index(dims.size(), 0);
    int64_t off = 0;
    while (true) {
      out.push_back(off);
      int d = static_cast<int>(dims.size()) - 1;
      for (; d >= 0; --d) {
        off += strides[d];
        if (++index[d] < dims[d]) break;
        off -= strides[d] * dims[d];
        index[d] = 0;
      }
      if (d < 0) return out;
    }
  };
  const std::vector<int64_t> base = offsets(kept_dims, kept_strides);
  const std::vector<int64_t> roff = offsets(red_dims, red_strides);

  std::vector<Literal> results;
  for (int64_t i = 0; i < n; ++i) results.emplace_back(out_shapes[i]);

  HloOpcode op;
  bool swapped = false;
  if (n == 1 && MatchSimpleReducer(*reducer, operands[0]->element_type(), &op, &swapped)) {
    absl::Status status = WithBinaryKernel(op, operands[0]->element_type(), [&](auto tag, auto kernel) {
      using T = decltype(tag);
      auto x = operands[0]->data<T>();
      const T init = operands[1]->data<T>()[0];
      auto o = results[0].data<T>();
      for (size_t j = 0; j < base.size(); ++j) {
        if (StopRequested()) return absl::AbortedError("stopped by the caller");
        T acc = init;
        // An offset, not a pointer: an empty input has no data pointer.
        const int64_t b = base[j];
        if (swapped) {
          for (int64_t r : roff) acc = kernel(x[b + r], acc);
        } else {
          for (int64_t r : roff) acc = kernel(acc, x[b + r]);
        }
        o[j] = acc;
      }
      return absl::OkStatus();
    });
    if (!status.ok()) return AddErrorContext(status, InstrLabel(instruction));
    return std::move(results[0]);
  }

  // General path: call the reducer on scalar literals.
  std::vector<Literal> args;
  for (int64_t i = 0; i < 2 * n; ++i) args.emplace_back(ShapeUtil::MakeScalarShape(operands[i % n]->element_type()));
  std::vector<const Literal*> arg_ptrs;
  for (const Literal& a : args) arg_ptrs.push_back(&a);
  for (size_t j = 0; j < base.size(); ++j) {
    for (int64_t i = 0; i < n; ++i) args[i].CopyElementFrom(*operands[n + i], 0, 0);
    for (int64_t r : roff) {
      for (int64_t i = 0; i < n; ++i) args[n + i].CopyElementFrom(*operands[i], base[j] + r, 0);
      ASSIGN_OR_RETURN(Literal value, run(*reducer, arg_ptrs));
      if (n == 1) {
        args[0].CopyElementFrom(value, 0, 0);
      } else {
        for (int64_t i = 0; i < n; ++i) args[i].CopyElementFrom(value.tuple_elements()[i], 0, 0);
      }
    }
    for (int64_t i = 0; i < n; ++i) results[i].CopyElementFrom(args[i], 0, j);
  }
  if (n == 1) return std::move(results[0]);
  return Literal::MakeTuple(std::move(results));
}

absl::StatusOr<Literal> EvaluateReduceWindow(const HloInstruction& instruction,
                                             absl::Span<const Literal* const> operands,
                                             const ComputationRunner& run) {
  const HloComputation* reducer = instruction.to_apply();
  if (reducer == nullptr || reducer->root_instruction() == nullptr) {
    return InvalidArgument("HloEvaluator: %s: needs a reducer", InstrLabel(instruction));
  }
  std::vector<const Shape*> arg_shapes;
  for (const Literal* op : operands) arg_shapes.push_back(&op->shape());
  const Window& window = instruction.attributes().window();
  ASSIGN_OR_RETURN(Shape inferred,
                   ShapeInference::InferReduceWindowShape(arg_shapes, window, reducer->ComputeProgramShape()));
  if (!inferred.Compatible(instruction.shape())) {
    return InvalidArgument("HloEvaluator: %s: result %s does not match the reduce-window's shape %s",
                           InstrLabel(instruction), instruction.shape().ToString(), inferred.ToString());
  }
  const int64_t n = operands.size() / 2;
  const Shape& in = operands[0]->shape();
  const Shape& out_shape = n == 1 ? inferred : inferred.tuple_shapes(0);
  const int64_t rank = in.rank();
  const std::vector<int64_t> in_strides = RowMajorStrides(in.dimensions());
  std::vector<int64_t> window_sizes;
  for (const WindowDimension& w : window.dimensions()) window_sizes.push_back(w.size());
  const int64_t out_count = ShapeUtil::ElementsIn(out_shape);
  int64_t positions = 1;
  for (int64_t s : window_sizes) positions *= s;

  // Calls fn(offset) for the current output element's window positions in
  // row-major order: the offset into the operands, or -1 for padding.
  std::vector<int64_t> out_index(rank, 0), k(rank, 0);
  auto for_each_position = [&](auto&& fn) -> absl::Status {
    std::fill(k.begin(), k.end(), 0);
    for (int64_t p = 0; p < positions; ++p) {
      int64_t offset = 0;
      for (int64_t d = 0; d < rank && offset >= 0; ++d) {
        const WindowDimension& w = window.dimensions(d);
        const int64_t pos = out_index[d] * w.stride() + k[d] * w.window_dilation() - w.padding_low();
        if (pos < 0 || pos % w.base_dilation() != 0 || pos / w.base_dilation() >= in.dimensions(d)) {
          offset = -1;
        } else {
          offset += pos / w.base_dilation() * in_strides[d];
        }
      }
      RETURN_IF_ERROR(fn(offset));
      for (int64_t d = rank - 1; d >= 0; --d) {
        if (++k[d] < window_sizes[d]) break;
        k[d] = 0;
      }
    }
    return absl::OkStatus();
  };
  auto next_output = [&] {
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++out_index[d] < out_shape.dimensions(d)) break;
      out_index[d] = 0;
    }
  };

  std::vector<Literal> results;
  for (int64_t i = 0; i < n; ++i) results.emplace_back(ShapeUtil::MakeShape(operands[i]->element_type(),
                                                                            out_shape.dimensions()));
  HloOpcode op;
  bool swapped = false;
  if (n == 1 && MatchSimpleReducer(*reducer, operands[0]->element_type(), &op, &swapped)) {
    absl::Status status = WithBinaryKernel(op, operands[0]->element_type(), [&](auto tag, auto kernel) {
      using T = decltype(tag);
      auto x = operands[0]->data<T>();
      const T init = operands[1]->data<T>()[0];
      auto o = results[0].data<T>();
      for (int64_t j = 0; j < out_count; ++j) {
        if (StopRequested()) return absl::AbortedError("stopped by the caller");
        T acc = init;
        RETURN_IF_ERROR(for_each_position([&](int64_t off) {
          const T v = off < 0 ? init : x[off];
          acc = swapped ? kernel(v, acc) : kernel(acc, v);
          return absl::OkStatus();
        }));
        o[j] = acc;
        next_output();
      }
      return absl::OkStatus();
    });
    if (!status.ok()) return AddErrorContext(status, InstrLabel(instruction));
    return std::move(results[0]);
  }

  // General path: call the reducer on scalar literals.
  std::vector<Literal> args;
  for (int64_t i = 0; i < 2 * n; ++i) args.emplace_back(ShapeUtil::MakeScalarShape(operands[i % n]->element_type()));
  std::vector<const Literal*> arg_ptrs;
  for (const Literal& a : args) arg_ptrs.push_back(&a);
  for (int64_t j = 0; j < out_count; ++j) {
    for (int64_t i = 0; i < n; ++i) args[i].CopyElementFrom(*operands[n + i], 0, 0);
    RETURN_IF_ERROR(for_each_position([&](int64_t off) -> absl::Status {
      for (int64_t i = 0; i < n; ++i) {
        args[n + i].CopyElementFrom(off < 0 ? *operands[n + i] : *operands[i], off < 0 ? 0 : off, 0);
      }
      ASSIGN_OR_RETURN(Literal value, run(*reducer, arg_ptrs));
      if (n == 1) {
        args[0].CopyElementFrom(value, 0, 0);
      } else {
        for (int64_t i = 0; i < n; ++i) args[i].CopyElementFrom(value.tuple_elements()[i], 0, 0);
      }
      return absl::OkStatus();
    }));
    for (int64_t i = 0; i < n; ++i) results[i].CopyElementFrom(args[i], 0, j);
    next_output();
  }
  if (n == 1) return std::move(results[0]);
  return Literal::MakeTuple(std::move(results));
}

absl::StatusOr<Literal> EvaluateSelectAndScatter(const HloInstruction& instruction,
                                                 absl::Span<const Literal* const> operands,
                                                 const ComputationRunner& run) {
  const auto& called = instruction.called_computations();
  if (operands.size() != 3 || called.size() != 2 || called[0] == nullptr || called[1] == nullptr) {
    return InvalidArgument("HloEvaluator: %s: needs operand, source, init value, select and scatter",
                           InstrLabel(instruction));
  }
  const HloComputation& select = *called[0];
  const HloComputation& scatter = *called[1];
  const Literal& operand = *operands[0];
  const Literal& source = *operands[1];
  const Window& window = instruction.attributes().window();
  ASSIGN_OR_RETURN(Shape inferred, ShapeInference::InferSelectAndScatterShape(
                                       operand.shape(), select.ComputeProgramShape(), window, source.shape(),
                                       operands[2]->shape(), scatter.ComputeProgramShape()));
  if (!inferred.Compatible(instruction.shape())) {
    return InvalidArgument("HloEvaluator: %s: result %s does not match the operand's shape %s",
                           InstrLabel(instruction), instruction.shape().ToString(), inferred.ToString());
  }
  const Shape& in = operand.shape();
  const int64_t rank = in.rank();
  const std::vector<int64_t> strides = RowMajorStrides(in.dimensions());
  Literal out(RowMajorShape(in));
  for (int64_t i = 0; i < out.element_count(); ++i) out.CopyElementFrom(*operands[2], 0, i);
  const PrimitiveType type = in.element_type();
  Literal a(ShapeUtil::MakeScalarShape(type)), b(ShapeUtil::MakeScalarShape(type));
  const std::vector<const Literal*> pair = {&a, &b};
  std::vector<int64_t> s_index(rank, 0), k(rank, 0);
  const int64_t count = ShapeUtil::ElementsIn(source.shape());
  for (int64_t j = 0; j < count; ++j) {
    // The window's positions inside the operand in row-major order; the
    // first is selected, then each later one replaces the selection when
    // select(selected, candidate) is false.
    int64_t selected = -1;
    std::fill(k.begin(), k.end(), 0);
    bool more = true;
    while (more) {
      int64_t offset = 0;
      for (int64_t d = 0; d < rank && offset >= 0; ++d) {
        const WindowDimension& w = window.dimensions(d);
        const int64_t pos = s_index[d] * w.stride() + k[d] - w.padding_low();
        offset = pos < 0 || pos >= in.dimensions(d) ? -1 : offset + pos * strides[d];
      }
      if (offset >= 0) {
        if (selected < 0) {
          selected = offset;
        } else {
          a.CopyElementFrom(operand, selected, 0);
          b.CopyElementFrom(operand, offset, 0);
          ASSIGN_OR_RETURN(Literal keep, run(select, pair));
          if (!keep.data<bool>()[0]) selected = offset;
        }
      }
      more = false;
      for (int64_t d = rank - 1; d >= 0; --d) {
        if (++k[d] < window.dimensions(d).size()) {
          more = true;
          break;
        }
        k[d] = 0;
      }
    }
    if (selected >= 0) {
      a.CopyElementFrom(out, selected, 0);
      b.CopyElementFrom(source, j, 0);
      ASSIGN_OR_RETURN(Literal value, run(scatter, pair));
      out.CopyElementFrom(value, 0, selected);
    }
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++s_index[d] < source.shape().dimensions(d)) break;
      s_index[d] = 0;
    }
  }
  return out;
}

absl::StatusOr<Literal> EvaluateMap(const HloInstruction& instruction, absl::Span<const Literal* const> operands,
                                    const ComputationRunner& run) {
  const HloComputation* fn = instruction.to_apply();
  const Shape& shape = instruction.shape();
  RETURN_IF_ERROR(ExpectArray(instruction, shape, "result"));
  if (operands.empty() || fn == nullptr || fn->root_instruction() == nullptr ||
      fn->num_parameters() != static_cast<int64_t>(operands.size())) {
    return InvalidArgument("HloEvaluator: %s: needs operands and a computation taking one scalar per operand",
                           InstrLabel(instruction));
  }
  for (size_t i = 0; i < operands.size(); ++i) {
    RETURN_IF_ERROR(ExpectSameDims(instruction, operands[i]->shape(), shape, "operand"));
    const HloInstruction* p = fn->parameter_instruction(i);
    if (p == nullptr || !IsScalarOf(p->shape(), operands[i]->element_type())) {
      return InvalidArgument("HloEvaluator: %s: parameter %d of %s must be a %s scalar", InstrLabel(instruction), i,
                             fn->name(), primitive_util::LowercaseName(operands[i]->element_type()));
    }
  }
  if (!IsScalarOf(fn->root_instruction()->shape(), shape.element_type())) {
    return InvalidArgument("HloEvaluator: %s: %s returns %s, not a %s scalar", InstrLabel(instruction), fn->name(),
                           fn->root_instruction()->shape().ToString(),
                           primitive_util::LowercaseName(shape.element_type()));
  }
  Literal out(RowMajorShape(shape));
  std::vector<Literal> args;
  for (const Literal* op : operands) args.emplace_back(ShapeUtil::MakeScalarShape(op->element_type()));
  std::vector<const Literal*> arg_ptrs;
  for (const Literal& a : args) arg_ptrs.push_back(&a);
  const int64_t count = out.element_count();
  for (int64_t j = 0; j < count; ++j) {
    for (size_t i = 0; i < operands.size(); ++i) args[i].CopyElementFrom(*operands[i], j, 0);
    ASSIGN_OR_RETURN(Literal value, run(*fn, arg_ptrs));
    out.CopyElementFrom(value, 0, j);
  }
  return out;
}

}  // namespace evaluator_internal
}  // namespace xla
