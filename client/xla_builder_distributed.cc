// The builder's tokens, I/O and collectives: one hook (DistributedOp) whose
// shape comes from shape inference, and the free functions over it.
#include <string>
#include <vector>

#include "client/xla_builder.h"
#include "xla/shape_inference.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"

namespace xla {

XlaOp XlaBuilder::DistributedOp(HloOpcode opcode, absl::Span<const XlaOp> operands, HloInstructionProto attrs,
                                const XlaComputation* reducer, const Shape& declared) {
  return ReportErrorOrReturn([&]() -> absl::StatusOr<XlaOp> {
    ASSIGN_OR_RETURN(std::vector<Shape> shapes, GetShapes(operands));
    std::vector<const Shape*> ptrs;
    for (const Shape& s : shapes) ptrs.push_back(&s);
    ProgramShape program;
    std::vector<const ProgramShape*> called;
    if (reducer != nullptr) {
      RETURN_IF_ERROR(AddCalledComputation(*reducer, &attrs, &program));
      called.push_back(&program);
    }
    ASSIGN_OR_RETURN(Shape out, ShapeInference::InferInstructionShape(opcode, attrs, ptrs, called, declared));
    return AddInstruction(std::move(attrs), opcode, out, operands);
  }());
}

namespace {

void SetGroups(absl::Span<const ReplicaGroup> groups, HloInstructionProto* attrs) {
  for (const ReplicaGroup& g : groups) *attrs->add_replica_groups() = g;
}

}  // namespace

XlaOp AfterAll(XlaBuilder* builder, absl::Span<const XlaOp> tokens) {
  return builder->DistributedOp(HloOpcode::kAfterAll, tokens, {});
}

XlaOp CreateToken(XlaBuilder* builder) { return AfterAll(builder, {}); }

XlaOp InfeedWithToken(XlaOp token, const Shape& shape, const std::string& config) {
  if (token.builder() == nullptr) return XlaOp();
  HloInstructionProto attrs;
  attrs.set_infeed_config(config);
  return token.builder()->DistributedOp(HloOpcode::kInfeed, {token}, std::move(attrs), nullptr,
                                        ShapeUtil::MakeTupleShape({shape, ShapeUtil::MakeTokenShape()}));
}

XlaOp OutfeedWithToken(XlaOp operand, XlaOp token, const Shape& shape_with_layout, const std::string& config) {
  if (operand.builder() == nullptr) return XlaOp();
  HloInstructionProto attrs;
  attrs.set_outfeed_config(config);
  *attrs.mutable_outfeed_shape() = shape_with_layout.ToProto();
  return operand.builder()->DistributedOp(HloOpcode::kOutfeed, {operand, token}, std::move(attrs));
}

XlaOp ReplicaId(XlaBuilder* builder) { return builder->DistributedOp(HloOpcode::kReplicaId, {}, {}); }

XlaOp PartitionId(XlaBuilder* builder) { return builder->DistributedOp(HloOpcode::kPartitionId, {}, {}); }

XlaOp AllReduce(XlaOp operand, const XlaComputation& computation, absl::Span<const ReplicaGroup> replica_groups,
                int64_t channel_id, bool use_global_device_ids) {
  if (operand.builder() == nullptr) return XlaOp();
  HloInstructionProto attrs;
  SetGroups(replica_groups, &attrs);
  attrs.set_channel_id(channel_id);
  attrs.set_use_global_device_ids(use_global_device_ids);
  return operand.builder()->DistributedOp(HloOpcode::kAllReduce, {operand}, std::move(attrs), &computation);
}

XlaOp CrossReplicaSum(XlaOp operand, absl::Span<const ReplicaGroup> replica_groups) {
  XlaBuilder* builder = operand.builder();
  if (builder == nullptr) return XlaOp();
  absl::StatusOr<Shape> shape = builder->GetShape(operand);
  if (!shape.ok()) return builder->ReportError(shape.status());
  if (!shape->IsArray()) {
    return builder->ReportError(InvalidArgument("CrossReplicaSum: the operand must be an array, got %s",
                                                shape->ToString()));
  }
  std::unique_ptr<XlaBuilder> sub = builder->CreateSubBuilder("sum");
  const Shape scalar = ShapeUtil::MakeScalarShape(shape->element_type());
  Add(Parameter(sub.get(), 0, scalar, "a"), Parameter(sub.get(), 1, scalar, "b"));
  absl::StatusOr<XlaComputation> sum = sub->Build();
  if (!sum.ok()) return builder->ReportError(sum.status());
  return AllReduce(operand, *sum, replica_groups);
}

XlaOp AllGather(XlaOp operand, int64_t all_gather_dimension, int64_t shard_count,
                absl::Span<const ReplicaGroup> replica_groups, int64_t channel_id, bool use_global_device_ids) {
  XlaBuilder* builder = operand.builder();
  if (builder == nullptr) return XlaOp();
  absl::StatusOr<Shape> shape = builder->GetShape(operand);
  if (!shape.ok()) return builder->ReportError(shape.status());
  if (!shape->IsArray() || all_gather_dimension < 0 || all_gather_dimension >= shape->rank() || shard_count < 1) {
    return builder->ReportError(InvalidArgument(
        "AllGather: dimension %d and shard count %d do not fit operand %s", all_gather_dimension, shard_count,
        shape->ToString()));
  }
  std::vector<int64_t> dims(shape->dimensions().begin(), shape->dimensions().end());
  dims[all_gather_dimension] *= shard_count;
  HloInstructionProto attrs;
  SetGroups(replica_groups, &attrs);
  attrs.set_channel_id(channel_id);
  attrs.set_use_global_device_ids(use_global_device_ids);
  attrs.add_dimensions(all_gather_dimension);
  return builder->DistributedOp(HloOpcode::kAllGather, {operand}, std::move(attrs), nullptr,
                                ShapeUtil::MakeShape(shape->element_type(), dims));
}

XlaOp CollectivePermute(XlaOp operand, absl::Span<const std::pair<int64_t, int64_t>> source_target_pairs,
                        int64_t channel_id) {
  if (operand.builder() == nullptr) return XlaOp();
  HloInstructionProto attrs;
  for (const auto& [source, target] : source_target_pairs) {
    SourceTarget* st = attrs.add_source_target_pairs();
    st->set_source(source);
    st->set_target(target);
  }
  attrs.set_channel_id(channel_id);
  return operand.builder()->DistributedOp(HloOpcode::kCollectivePermute, {operand}, std::move(attrs));
}

XlaOp CollectiveBroadcast(XlaOp operand, absl::Span<const ReplicaGroup> replica_groups, int64_t channel_id) {
  if (operand.builder() == nullptr) return XlaOp();
  HloInstructionProto attrs;
  SetGroups(replica_groups, &attrs);
  attrs.set_channel_id(channel_id);
  return operand.builder()->DistributedOp(HloOpcode::kCollectiveBroadcast, {operand}, std::move(attrs));
}

XlaOp AllToAll(XlaOp operand, int64_t split_dimension, int64_t concat_dimension, int64_t split_count,
               absl::Span<const ReplicaGroup> replica_groups, int64_t channel_id) {
  XlaBuilder* builder = operand.builder();
  if (builder == nullptr) return XlaOp();
  absl::StatusOr<Shape> shape = builder->GetShape(operand);
  if (!shape.ok()) return builder->ReportError(shape.status());
  const int64_t rank = shape->IsArray() ? shape->rank() : 0;
  const int64_t s = split_dimension;
  const int64_t c = concat_dimension;
  if (!shape->IsArray() || s < 0 || s >= rank || c < 0 || c >= rank || split_count < 1 ||
      shape->dimensions(s) % split_count != 0) {
    return builder->ReportError(InvalidArgument(
        "AllToAll: split dimension %d, concat dimension %d and split count %d do not fit operand %s (the split "
        "dimension must be divisible by the split count)",
        s, c, split_count, shape->ToString()));
  }
  for (const ReplicaGroup& g : replica_groups) {
    if (g.replica_ids_size() != split_count) {
      return builder->ReportError(InvalidArgument("AllToAll: split count %d but a replica group has %d members",
                                                  split_count, g.replica_ids_size()));
    }
  }
  HloInstructionProto attrs;
  SetGroups(replica_groups, &attrs);
  attrs.set_channel_id(channel_id);
  if (s == c) {
    attrs.add_dimensions(s);
    return builder->DistributedOp(HloOpcode::kAllToAll, {operand}, std::move(attrs));
  }
  // Dimension s becomes (split_count, size / split_count): index s names the
  // part, and after the exchange the member it came from.
  std::vector<int64_t> split_dims;
  for (int64_t d = 0; d < rank; ++d) {
    if (d == s) {
      split_dims.push_back(split_count);
      split_dims.push_back(shape->dimensions(d) / split_count);
    } else {
      split_dims.push_back(shape->dimensions(d));
    }
  }
  attrs.add_dimensions(s);
  XlaOp exchanged =
      builder->DistributedOp(HloOpcode::kAllToAll, {Reshape(operand, split_dims)}, std::move(attrs));
  // The member index moves just before the concat dimension and merges with
  // it: concatenation in group order.
  const int64_t concat_in_split = c < s ? c : c + 1;
  std::vector<int64_t> permutation;
  for (int64_t d = 0; d <= rank; ++d) {
    if (d == s) continue;
    if (d == concat_in_split) permutation.push_back(s);
    permutation.push_back(d);
  }
  std::vector<int64_t> out_dims(shape->dimensions().begin(), shape->dimensions().end());
  out_dims[s] /= split_count;
  out_dims[c] *= split_count;
  return Reshape(Transpose(exchanged, permutation), out_dims);
}

XlaOp AllToAllTuple(absl::Span<const XlaOp> operands, absl::Span<const ReplicaGroup> replica_groups,
                    int64_t channel_id) {
  if (operands.empty() || operands[0].builder() == nullptr) return XlaOp();
  HloInstructionProto attrs;
  SetGroups(replica_groups, &attrs);
  attrs.set_channel_id(channel_id);
  return operands[0].builder()->DistributedOp(HloOpcode::kAllToAll, operands, std::move(attrs));
}

XlaOp ReduceScatter(XlaOp operand, const XlaComputation& computation, int64_t scatter_dimension, int64_t shard_count,
                    absl::Span<const ReplicaGroup> replica_groups, int64_t channel_id, bool use_global_device_ids) {
  XlaBuilder* builder = operand.builder();
  if (builder == nullptr) return XlaOp();
  absl::StatusOr<Shape> shape = builder->GetShape(operand);
  if (!shape.ok()) return builder->ReportError(shape.status());
  // A tuple operand: each element, as one variadic reduce-scatter.
  std::vector<XlaOp> operands;
  std::vector<Shape> shapes;
  if (shape->IsTuple()) {
    for (int i = 0; i < shape->tuple_shapes_size(); ++i) {
      operands.push_back(GetTupleElement(operand, i));
      shapes.push_back(shape->tuple_shapes(i));
    }
  } else {
    operands.push_back(operand);
    shapes.push_back(*shape);
  }
  if (operands.empty()) return builder->ReportError(InvalidArgument("ReduceScatter: the operand is an empty tuple"));
  std::vector<Shape> results;
  for (const Shape& s : shapes) {
    if (!s.IsArray() || scatter_dimension < 0 || scatter_dimension >= s.rank() || shard_count < 1 ||
        s.dimensions(scatter_dimension) % shard_count != 0) {
      return builder->ReportError(InvalidArgument(
          "ReduceScatter: scatter dimension %d and shard count %d do not fit operand %s (the dimension must be "
          "divisible by the shard count)",
          scatter_dimension, shard_count, s.ToString()));
    }
    std::vector<int64_t> dims(s.dimensions().begin(), s.dimensions().end());
    dims[scatter_dimension] /= shard_count;
    results.push_back(ShapeUtil::MakeShape(s.element_type(), dims));
  }
  for (const ReplicaGroup& g : replica_groups) {
    if (g.replica_ids_size() != shard_count) {
      return builder->ReportError(InvalidArgument("ReduceScatter: shard count %d but a replica group has %d members",
                                                  shard_count, g.replica_ids_size()));
    }
  }
  HloInstructionProto attrs;
  SetGroups(replica_groups, &attrs);
  attrs.set_channel_id(channel_id);
  attrs.set_use_global_device_ids(use_global_device_ids);
  attrs.add_dimensions(scatter_dimension);
  const Shape declared = results.size() == 1 ? results[0] : ShapeUtil::MakeTupleShape(results);
  XlaOp r = builder->DistributedOp(HloOpcode::kReduceScatter, operands, std::move(attrs), &computation, declared);
  if (!shape->IsTuple() || operands.size() != 1) return r;
  return Tuple(builder, {r});  // a one-element tuple stays a tuple
}

namespace {

absl::Status CheckHandle(absl::string_view op, const ChannelHandle& handle, ChannelHandle::ChannelType want) {
  if (handle.type() != want) {
    return InvalidArgument("%s: needs a %s channel handle, got %s (handle %d)", op, ChannelHandle::ChannelType_Name(want),
                           ChannelHandle::ChannelType_Name(handle.type()), handle.handle());
  }
  if (handle.handle() <= 0) return InvalidArgument("%s: channel handle %d is not a valid handle", op, handle.handle());
  return absl::OkStatus();
}

HloInstructionProto TransferAttrs(const ChannelHandle& handle, bool host) {
  HloInstructionProto attrs;
  attrs.set_channel_id(handle.handle());
  attrs.set_is_host_transfer(host);
  return attrs;
}

XlaOp Send(absl::string_view op, XlaOp operand, XlaOp token, const ChannelHandle& handle, bool host,
           ChannelHandle::ChannelType want) {
  XlaBuilder* builder = operand.builder();
  if (builder == nullptr) return XlaOp();
  if (absl::Status s = CheckHandle(op, handle, want); !s.ok()) return builder->ReportError(s);
  XlaOp send = builder->DistributedOp(HloOpcode::kSend, {operand, token}, TransferAttrs(handle, host));
  return builder->DistributedOp(HloOpcode::kSendDone, {send}, TransferAttrs(handle, host));
}

XlaOp Recv(absl::string_view op, XlaOp token, const Shape& shape, const ChannelHandle& handle, bool host,
           ChannelHandle::ChannelType want) {
  XlaBuilder* builder = token.builder();
  if (builder == nullptr) return XlaOp();
  if (absl::Status s = CheckHandle(op, handle, want); !s.ok()) return builder->ReportError(s);
  XlaOp recv = builder->DistributedOp(
      HloOpcode::kRecv, {token}, TransferAttrs(handle, host), nullptr,
      ShapeUtil::MakeTupleShape({shape, ShapeUtil::MakeScalarShape(U32), ShapeUtil::MakeTokenShape()}));
  return builder->DistributedOp(HloOpcode::kRecvDone, {recv}, TransferAttrs(handle, host));
}

}  // namespace

XlaOp SendWithToken(XlaOp operand, XlaOp token, const ChannelHandle& handle) {
  return Send("SendWithToken", operand, token, handle, false, ChannelHandle::DEVICE_TO_DEVICE);
}

XlaOp RecvWithToken(XlaOp token, const Shape& shape, const ChannelHandle& handle) {
  return Recv("RecvWithToken", token, shape, handle, false, ChannelHandle::DEVICE_TO_DEVICE);
}

XlaOp SendToHost(XlaOp operand, XlaOp token, const Shape& shape_with_layout, const ChannelHandle& handle) {
  XlaBuilder* builder = operand.builder();
  if (builder == nullptr) return XlaOp();
  absl::StatusOr<Shape> shape = builder->GetShape(operand);
  if (!shape.ok()) return builder->ReportError(shape.status());
  if (!shape->Compatible(shape_with_layout)) {
    return builder->ReportError(InvalidArgument("SendToHost: shape_with_layout %s does not match the operand %s",
                                                shape_with_layout.ToString(), shape->ToString()));
  }
  return Send("SendToHost", operand, token, handle, true, ChannelHandle::DEVICE_TO_HOST);
}

XlaOp RecvFromHost(XlaOp token, const Shape& shape, const ChannelHandle& handle) {
  return Recv("RecvFromHost", token, shape, handle, true, ChannelHandle::HOST_TO_DEVICE);
}

}  // namespace xla
