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

}  // namespace xla
