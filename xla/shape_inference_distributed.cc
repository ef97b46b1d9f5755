// Shape inference for tokens, side-effecting I/O and the collectives
// (operation-semantics.md: AfterAll, Infeed, Outfeed, ReplicaId,
// PartitionId, AllReduce, AllGather, AllToAll, ReduceScatter,
// CollectivePermute, Send/Recv; StableHLO's collective_broadcast). Group
// sizes depend on the run's replica and partition counts, which a module
// does not know, so all-gather and reduce-scatter check their declared
// result against what the groups allow.
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xla/shape_inference.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"

namespace xla {
namespace {

absl::Status ExpectCount(absl::string_view op, absl::Span<const Shape* const> operands, size_t n) {
  if (operands.size() == n) return absl::OkStatus();
  return InvalidArgument("%s: expects %d operands, got %d", op, n, operands.size());
}

absl::Status ExpectCalled(absl::string_view op, absl::Span<const ProgramShape* const> called, size_t n) {
  if (called.size() == n) return absl::OkStatus();
  return InvalidArgument("%s: expects %d called computations, got %d", op, n, called.size());
}

// Replica groups: non-negative ids, each at most once, no empty group.
absl::Status CheckReplicaGroups(absl::string_view op, const HloInstructionProto& attrs) {
  absl::flat_hash_set<int64_t> seen;
  for (const ReplicaGroup& g : attrs.replica_groups()) {
    if (g.replica_ids().empty()) return InvalidArgument("%s: replica group %d is empty", op, seen.size());
    for (int64_t id : g.replica_ids()) {
      if (id < 0) return InvalidArgument("%s: replica group id %d is negative", op, id);
      if (!seen.insert(id).second) return InvalidArgument("%s: id %d appears in more than one replica group", op, id);
    }
  }
  if (attrs.use_global_device_ids() && attrs.channel_id() <= 0) {
    return InvalidArgument("%s: use_global_device_ids needs a channel_id > 0 (got %d)", op, attrs.channel_id());
  }
  return absl::OkStatus();
}

absl::Status ExpectArrays(absl::string_view op, absl::Span<const Shape* const> operands) {
  if (operands.empty()) return InvalidArgument("%s: needs at least one operand", op);
  for (size_t i = 0; i < operands.size(); ++i) {
    if (!operands[i]->IsArray()) {
      return InvalidArgument("%s: operand %d must be an array, got %s", op, i, operands[i]->ToString());
    }
  }
  return absl::OkStatus();
}

// One operand: its shape; several: the tuple of their shapes.
Shape SameShapes(absl::Span<const Shape* const> operands) {
  if (operands.size() == 1) {
    Shape s = *operands[0];
    s.clear_layout();
    return s;
  }
  std::vector<Shape> shapes;
  for (const Shape* s : operands) {
    shapes.push_back(*s);
    shapes.back().clear_layout();
  }
  return ShapeUtil::MakeTupleShape(std::move(shapes));
}

bool IsArrayOrTupleOfArrays(const Shape& shape) {
  if (shape.IsArray()) return true;
  if (!shape.IsTuple()) return false;
  for (const Shape& s : shape.tuple_shapes()) {
    if (!IsArrayOrTupleOfArrays(s)) return false;
  }
  return true;
}

// All-reduce's and reduce-scatter's operands share one (T, T) -> T reducer.
absl::Status CheckReducer(absl::string_view op, absl::Span<const Shape* const> operands, const ProgramShape& reducer) {
  const PrimitiveType type = operands[0]->element_type();
  for (size_t i = 1; i < operands.size(); ++i) {
    if (operands[i]->element_type() != type) {
      return InvalidArgument("%s: operands share one reducer, so they need one element type: operand 0 is %s but "
                             "operand %d is %s",
                             op, operands[0]->ToString(), i, operands[i]->ToString());
    }
  }
  const Shape scalar = ShapeUtil::MakeScalarShape(type);
  if (reducer.parameters().size() != 2 || !reducer.parameters()[0].Compatible(scalar) ||
      !reducer.parameters()[1].Compatible(scalar) || !reducer.result().Compatible(scalar)) {
    return InvalidArgument("%s: the reducer must be (%s, %s) -> %s, got %s", op, scalar.ToString(), scalar.ToString(),
                           scalar.ToString(), reducer.ToString());
  }
  return absl::OkStatus();
}

absl::StatusOr<Shape> InferAllReduce(absl::string_view op, const HloInstructionProto& attrs,
                                     absl::Span<const Shape* const> operands, const ProgramShape& reducer) {
  RETURN_IF_ERROR(ExpectArrays(op, operands));
  RETURN_IF_ERROR(CheckReplicaGroups(op, attrs));
  RETURN_IF_ERROR(CheckReducer(op, operands, reducer));
  return SameShapes(operands);
}

// The size every group has when the module says it: groups given and read
// as replica ids (no channel) or flattened ids; 0 when partitions multiply
// it or the groups are the run's (empty replica_groups).
absl::StatusOr<int64_t> KnownGroupSize(absl::string_view op, const HloInstructionProto& attrs) {
  const bool exact = attrs.replica_groups_size() > 0 && (attrs.channel_id() <= 0 || attrs.use_global_device_ids());
  if (!exact) return 0;
  const int64_t size = attrs.replica_groups(0).replica_ids_size();
  for (const ReplicaGroup& g : attrs.replica_groups()) {
    if (g.replica_ids_size() != size) {
      return InvalidArgument("%s: all replica groups must have the same size (%d and %d)", op, size,
                             g.replica_ids_size());
    }
  }
  return size;
}

// The declared result's arrays, one per operand.
absl::StatusOr<std::vector<const Shape*>> DeclaredResults(absl::string_view op, absl::Span<const Shape* const> operands,
                                                          const Shape& declared) {
  std::vector<const Shape*> results;
  if (operands.size() == 1) {
    results.push_back(&declared);
  } else if (declared.IsTuple() && declared.tuple_shapes_size() == static_cast<int>(operands.size())) {
    for (const Shape& s : declared.tuple_shapes()) results.push_back(&s);
  } else {
    return InvalidArgument("%s: %d operands need a declared tuple of %d results, got %s", op, operands.size(),
                           operands.size(), declared.ToString());
  }
  return results;
}

// reduce-scatter: the declared result is the operand with dimension
// `dimensions[0]` divided by the group size.
absl::StatusOr<Shape> InferReduceScatter(absl::string_view op, const HloInstructionProto& attrs,
                                         absl::Span<const Shape* const> operands, const ProgramShape& reducer,
                                         const Shape& declared) {
  RETURN_IF_ERROR(ExpectArrays(op, operands));
  RETURN_IF_ERROR(CheckReplicaGroups(op, attrs));
  RETURN_IF_ERROR(CheckReducer(op, operands, reducer));
  if (attrs.dimensions_size() != 1) {
    return InvalidArgument("%s: needs exactly one scatter dimension in dimensions, got %d", op,
                           attrs.dimensions_size());
  }
  const int64_t dim = attrs.dimensions(0);
  ASSIGN_OR_RETURN(std::vector<const Shape*> results, DeclaredResults(op, operands, declared));
  ASSIGN_OR_RETURN(int64_t group_size, KnownGroupSize(op, attrs));
  std::vector<Shape> out;
  for (size_t i = 0; i < operands.size(); ++i) {
    const Shape& in = *operands[i];
    const Shape& r = *results[i];
    if (dim < 0 || dim >= in.rank()) {
      return InvalidArgument("%s: scatter dimension %d is out of range for operand %s", op, dim, in.ToString());
    }
    if (group_size > 0 && in.dimensions(dim) % group_size != 0) {
      return InvalidArgument("%s: dimension %d of operand %s is not divisible by the group size %d", op, dim,
                             in.ToString(), group_size);
    }
    if (!r.IsArray() || r.element_type() != in.element_type() || r.rank() != in.rank()) {
      return InvalidArgument("%s: declared result %s does not fit operand %s", op, r.ToString(), in.ToString());
    }
    for (int64_t d = 0; d < in.rank(); ++d) {
      const int64_t have = in.dimensions(d);
      const int64_t got = r.dimensions(d);
      const bool ok = d != dim ? got == have
                               : (group_size > 0 ? got * group_size == have
                                                 : (got == 0 ? have == 0 : have % got == 0));
      if (!ok) {
        return InvalidArgument("%s: declared result %s does not scatter operand %s along dimension %d%s", op,
                               r.ToString(), in.ToString(), dim,
                               group_size > 0 ? absl::StrCat(" over groups of ", group_size) : std::string());
      }
    }
    out.push_back(r);
    out.back().clear_layout();
  }
  if (out.size() == 1) return out[0];
  return ShapeUtil::MakeTupleShape(std::move(out));
}

// all-to-all as XLA's HLO has it: with one split (= concat) dimension, one
// array operand whose dimension the group size divides, and its shape as
// the result; without, the tuple form, one operand per group member, all of
// one shape, and their tuple as the result.
absl::StatusOr<Shape> InferAllToAll(absl::string_view op, const HloInstructionProto& attrs,
                                    absl::Span<const Shape* const> operands) {
  RETURN_IF_ERROR(ExpectArrays(op, operands));
  RETURN_IF_ERROR(CheckReplicaGroups(op, attrs));
  if (attrs.use_global_device_ids()) return InvalidArgument("%s: has no use_global_device_ids", op);
  // all-to-all reads groups as replica ids without a channel, partition ids
  // with one: the size is known whenever groups are given.
  int64_t group_size = 0;
  for (const ReplicaGroup& g : attrs.replica_groups()) {
    if (group_size != 0 && g.replica_ids_size() != group_size) {
      return InvalidArgument("%s: all replica groups must have the same size (%d and %d)", op, group_size,
                             g.replica_ids_size());
    }
    group_size = g.replica_ids_size();
  }
  if (attrs.dimensions_size() > 1) {
    return InvalidArgument("%s: takes at most one split dimension, got %d", op, attrs.dimensions_size());
  }
  if (attrs.dimensions_size() == 1) {
    RETURN_IF_ERROR(ExpectCount(op, operands, 1));
    const int64_t dim = attrs.dimensions(0);
    const Shape& in = *operands[0];
    if (dim < 0 || dim >= in.rank()) {
      return InvalidArgument("%s: split dimension %d is out of range for operand %s", op, dim, in.ToString());
    }
    if (group_size > 0 && in.dimensions(dim) % group_size != 0) {
      return InvalidArgument("%s: dimension %d of operand %s is not divisible by the group size %d", op, dim,
                             in.ToString(), group_size);
    }
    return SameShapes(operands);
  }
  if (group_size > 0 && static_cast<int64_t>(operands.size()) != group_size) {
    return InvalidArgument("%s: the tuple form needs one operand per group member (%d), got %d", op, group_size,
                           operands.size());
  }
  std::vector<Shape> out;
  for (size_t i = 0; i < operands.size(); ++i) {
    if (!operands[i]->Compatible(*operands[0])) {
      return InvalidArgument("%s: the tuple form's operands must have one shape: operand 0 is %s but operand %d is %s",
                             op, operands[0]->ToString(), i, operands[i]->ToString());
    }
    out.push_back(*operands[i]);
    out.back().clear_layout();
  }
  return ShapeUtil::MakeTupleShape(std::move(out));
}

// send/recv's (value, u32[] context, token) and the value it carries.
bool IsTransferTuple(const Shape& shape) {
  return shape.IsTuple() && shape.tuple_shapes_size() == 3 && IsArrayOrTupleOfArrays(shape.tuple_shapes(0)) &&
         shape.tuple_shapes(1).Compatible(ShapeUtil::MakeScalarShape(U32)) &&
         shape.tuple_shapes(2).IsToken();
}

absl::Status CheckChannel(absl::string_view op, const HloInstructionProto& attrs) {
  if (attrs.channel_id() < 0) return InvalidArgument("%s: channel_id %d is negative", op, attrs.channel_id());
  return absl::OkStatus();
}

absl::StatusOr<Shape> InferAllGather(absl::string_view op, const HloInstructionProto& attrs,
                                     absl::Span<const Shape* const> operands, const Shape& declared) {
  RETURN_IF_ERROR(ExpectArrays(op, operands));
  RETURN_IF_ERROR(CheckReplicaGroups(op, attrs));
  if (attrs.dimensions_size() != 1) {
    return InvalidArgument("%s: needs exactly one all-gather dimension in dimensions, got %d", op,
                           attrs.dimensions_size());
  }
  const int64_t dim = attrs.dimensions(0);
  ASSIGN_OR_RETURN(std::vector<const Shape*> results, DeclaredResults(op, operands, declared));
  // With groups read as replica ids (no channel) or flattened ids, every
  // group has the size the result must show; otherwise partitions multiply it.
  ASSIGN_OR_RETURN(const int64_t group_size, KnownGroupSize(op, attrs));
  const bool exact = group_size > 0;
  std::vector<Shape> out;
  for (size_t i = 0; i < operands.size(); ++i) {
    const Shape& in = *operands[i];
    const Shape& r = *results[i];
    if (dim < 0 || dim >= in.rank()) {
      return InvalidArgument("%s: all-gather dimension %d is out of range for operand %s", op, dim, in.ToString());
    }
    if (!r.IsArray() || r.element_type() != in.element_type() || r.rank() != in.rank()) {
      return InvalidArgument("%s: declared result %s does not fit operand %s", op, r.ToString(), in.ToString());
    }
    for (int64_t d = 0; d < in.rank(); ++d) {
      const int64_t want = in.dimensions(d);
      const int64_t got = r.dimensions(d);
      const bool ok = d != dim ? got == want
                               : (exact ? got == want * group_size : (want == 0 ? got == 0 : got % want == 0 && got > 0));
      if (!ok) {
        return InvalidArgument("%s: declared result %s does not gather operand %s along dimension %d%s", op,
                               r.ToString(), in.ToString(), dim,
                               exact ? absl::StrCat(" over groups of ", group_size) : std::string());
      }
    }
    out.push_back(r);
    out.back().clear_layout();
  }
  if (out.size() == 1) return out[0];
  return ShapeUtil::MakeTupleShape(std::move(out));
}

}  // namespace

absl::StatusOr<Shape> ShapeInference::InferDistributedShape(HloOpcode opcode, const HloInstructionProto& attrs,
                                                            absl::Span<const Shape* const> operands,
                                                            absl::Span<const ProgramShape* const> called,
                                                            const Shape& declared) {
  const std::string op(HloOpcodeString(opcode));
  if (opcode != HloOpcode::kAllReduce && opcode != HloOpcode::kReduceScatter) {
    RETURN_IF_ERROR(ExpectCalled(op, called, 0));
  }
  switch (opcode) {
    case HloOpcode::kAfterAll:
      for (size_t i = 0; i < operands.size(); ++i) {
        if (!operands[i]->IsToken()) {
          return InvalidArgument("%s: operand %d must be a token, got %s", op, i, operands[i]->ToString());
        }
      }
      return ShapeUtil::MakeTokenShape();
    case HloOpcode::kReplicaId:
    case HloOpcode::kPartitionId:
      RETURN_IF_ERROR(ExpectCount(op, operands, 0));
      return ShapeUtil::MakeScalarShape(U32);
    case HloOpcode::kInfeed: {
      RETURN_IF_ERROR(ExpectCount(op, operands, 1));
      if (!operands[0]->IsToken()) return InvalidArgument("%s: the operand must be a token, got %s", op, operands[0]->ToString());
      if (!declared.IsTuple() || declared.tuple_shapes_size() != 2 || !declared.tuple_shapes(1).IsToken() ||
          !IsArrayOrTupleOfArrays(declared.tuple_shapes(0))) {
        return InvalidArgument("%s: the result must be declared as (value, token) with an array or a tuple of arrays "
                               "as the value, got %s",
                               op, declared.ToString());
      }
      RETURN_IF_ERROR(ShapeUtil::ValidateShape(declared));
      Shape out = declared;
      out.clear_layout();
      return out;
    }
    case HloOpcode::kOutfeed: {
      RETURN_IF_ERROR(ExpectCount(op, operands, 2));
      if (!IsArrayOrTupleOfArrays(*operands[0])) {
        return InvalidArgument("%s: the value must be an array or a tuple of arrays, got %s", op,
                               operands[0]->ToString());
      }
      if (!operands[1]->IsToken()) {
        return InvalidArgument("%s: operand 1 must be a token, got %s", op, operands[1]->ToString());
      }
      if (attrs.has_outfeed_shape()) {
        ASSIGN_OR_RETURN(Shape want, ShapeUtil::FromProto(attrs.outfeed_shape()));
        if (!want.Compatible(*operands[0])) {
          return InvalidArgument("%s: outfeed_shape %s does not match the value %s", op, want.ToString(),
                                 operands[0]->ToString());
        }
      }
      return ShapeUtil::MakeTokenShape();
    }
    case HloOpcode::kAllReduce:
      RETURN_IF_ERROR(ExpectCalled(op, called, 1));
      return InferAllReduce(op, attrs, operands, *called[0]);
    case HloOpcode::kAllGather:
      return InferAllGather(op, attrs, operands, declared);
    case HloOpcode::kReduceScatter:
      RETURN_IF_ERROR(ExpectCalled(op, called, 1));
      return InferReduceScatter(op, attrs, operands, *called[0], declared);
    case HloOpcode::kAllToAll:
      return InferAllToAll(op, attrs, operands);
    case HloOpcode::kSend: {
      RETURN_IF_ERROR(ExpectCount(op, operands, 2));
      RETURN_IF_ERROR(CheckChannel(op, attrs));
      if (!IsArrayOrTupleOfArrays(*operands[0])) {
        return InvalidArgument("%s: the value must be an array or a tuple of arrays, got %s", op,
                               operands[0]->ToString());
      }
      if (!operands[1]->IsToken()) {
        return InvalidArgument("%s: operand 1 must be a token, got %s", op, operands[1]->ToString());
      }
      Shape value = *operands[0];
      value.clear_layout();
      return ShapeUtil::MakeTupleShape({value, ShapeUtil::MakeScalarShape(U32), ShapeUtil::MakeTokenShape()});
    }
    case HloOpcode::kRecv: {
      RETURN_IF_ERROR(ExpectCount(op, operands, 1));
      RETURN_IF_ERROR(CheckChannel(op, attrs));
      if (!operands[0]->IsToken()) {
        return InvalidArgument("%s: the operand must be a token, got %s", op, operands[0]->ToString());
      }
      if (!IsTransferTuple(declared)) {
        return InvalidArgument("%s: the result must be declared as (value, u32[], token) with an array or a tuple of "
                               "arrays as the value, got %s",
                               op, declared.ToString());
      }
      RETURN_IF_ERROR(ShapeUtil::ValidateShape(declared));
      Shape out = declared;
      out.clear_layout();
      return out;
    }
    case HloOpcode::kSendDone:
    case HloOpcode::kRecvDone: {
      RETURN_IF_ERROR(ExpectCount(op, operands, 1));
      RETURN_IF_ERROR(CheckChannel(op, attrs));
      if (!IsTransferTuple(*operands[0])) {
        return InvalidArgument("%s: the operand must be a %s's (value, u32[], token), got %s", op,
                               opcode == HloOpcode::kSendDone ? "send" : "recv", operands[0]->ToString());
      }
      if (opcode == HloOpcode::kSendDone) return ShapeUtil::MakeTokenShape();
      Shape value = operands[0]->tuple_shapes(0);
      value.clear_layout();
      return ShapeUtil::MakeTupleShape({value, ShapeUtil::MakeTokenShape()});
    }
    case HloOpcode::kCollectivePermute: {
      RETURN_IF_ERROR(ExpectCount(op, operands, 1));
      RETURN_IF_ERROR(ExpectArrays(op, operands));
      absl::flat_hash_set<int64_t> sources, targets;
      for (const SourceTarget& st : attrs.source_target_pairs()) {
        if (st.source() < 0 || st.target() < 0) {
          return InvalidArgument("%s: pair {%d, %d} has a negative id", op, st.source(), st.target());
        }
        if (!sources.insert(st.source()).second) return InvalidArgument("%s: %d is the source of two pairs", op, st.source());
        if (!targets.insert(st.target()).second) return InvalidArgument("%s: %d is the target of two pairs", op, st.target());
      }
      return SameShapes(operands);
    }
    case HloOpcode::kCollectiveBroadcast:
      RETURN_IF_ERROR(ExpectArrays(op, operands));
      RETURN_IF_ERROR(CheckReplicaGroups(op, attrs));
      return SameShapes(operands);
    default:
      return Internal("%s: not a distributed op", op);
  }
}

}  // namespace xla
