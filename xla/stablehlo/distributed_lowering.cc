// StableHLO's tokens, I/O and collectives: after_all, create_token,
// replica_id, partition_id, infeed, outfeed, send, recv, all_reduce,
// all_gather, all_to_all, reduce_scatter, collective_permute,
// collective_broadcast. Replica groups padded with -1 (ragged groups) lose
// the padding; channel_handle<handle = N> becomes channel_id N (for the
// collectives it only selects the process-group mode, see
// xla/collectives/process_groups.h; for send/recv it names the channel).
#include "absl/strings/str_cat.h"
#include "xla/shape_util.h"
#include "xla/stablehlo/emitter.h"
#include "xla/status_macros.h"

namespace xla {
namespace stablehlo {
namespace {

absl::Status SetReplicaGroups(const Emitter& e, const Op& op, HloInstructionProto* attrs) {
  const Attr* a = e.FindAttr(op, {"replica_groups"});
  if (a == nullptr) return absl::OkStatus();
  ASSIGN_OR_RETURN(auto rows, e.IntMatrix(*a));
  for (const auto& row : rows) {
    ReplicaGroup* g = attrs->add_replica_groups();
    for (int64_t id : row) {
      if (id == -1) continue;  // padding of a ragged group
      g->add_replica_ids(id);
    }
  }
  return absl::OkStatus();
}

absl::Status SetChannel(const Emitter& e, const Op& op, HloInstructionProto* attrs) {
  if (const Attr* a = e.FindAttr(op, {"channel_handle"})) {
    if (a->kind != Attr::kStruct) return e.Error(a->loc, "expected #stablehlo.channel_handle<handle = N, type = T>");
    const Attr* handle = a->Find("handle");
    if (handle != nullptr) {
      ASSIGN_OR_RETURN(std::vector<int64_t> v, e.IntList(*handle));
      if (v.size() != 1) return e.Error(handle->loc, "expected one channel handle");
      attrs->set_channel_id(v[0]);
    }
  } else if (e.FindAttr(op, {"channel_id"}) != nullptr) {
    ASSIGN_OR_RETURN(int64_t id, e.IntAttr(op, {"channel_id"}));
    attrs->set_channel_id(id);
  }
  ASSIGN_OR_RETURN(bool global, e.BoolAttr(op, "use_global_device_ids", false));
  attrs->set_use_global_device_ids(global);
  return absl::OkStatus();
}

// send/recv's channel_type must agree with is_host_transfer (C1):
// DEVICE_TO_HOST (2) for a host send, HOST_TO_DEVICE (3) for a host recv,
// DEVICE_TO_DEVICE (1) otherwise.
absl::Status CheckChannelType(const Emitter& e, const Op& op, bool host, int64_t host_type) {
  const Attr* a = e.FindAttr(op, {"channel_handle"});
  if (a == nullptr || a->kind != Attr::kStruct) return absl::OkStatus();
  const Attr* type = a->Find("type");
  if (type == nullptr) return absl::OkStatus();
  ASSIGN_OR_RETURN(std::vector<int64_t> v, e.IntList(*type));
  const int64_t want = host ? host_type : 1;
  if (v.size() != 1 || v[0] != want) {
    return e.Error(type->loc, absl::StrCat("channel type must be ", want, " when is_host_transfer is ",
                                           host ? "true" : "false"));
  }
  return absl::OkStatus();
}

}  // namespace

bool Emitter::IsDistributedOp(const std::string& name) {
  return name == "after_all" || name == "create_token" || name == "replica_id" || name == "partition_id" ||
         name == "infeed" || name == "outfeed" || name == "all_reduce" || name == "all_gather" ||
         name == "collective_permute" || name == "collective_broadcast" || name == "all_to_all" ||
         name == "reduce_scatter" || name == "send" || name == "recv";
}

absl::StatusOr<Values> Emitter::LowerDistributedOp(const Op& op, Scope& scope, const std::string& name) {
  ASSIGN_OR_RETURN(Values operands, Operands(op, scope));
  if (name == "after_all" || name == "create_token") {
    ASSIGN_OR_RETURN(HloInstruction * t, Emit(op, scope, HloOpcode::kAfterAll, operands));
    return Values{t};
  }
  if (name == "replica_id" || name == "partition_id") {
    ASSIGN_OR_RETURN(HloInstruction * id, Emit(op, scope, name == "replica_id" ? HloOpcode::kReplicaId
                                                                                : HloOpcode::kPartitionId,
                                               operands));
    return Values{id};
  }
  if (name == "infeed") {
    // Results: the values, then a token; HLO: ((values) or value, token).
    const int64_t n = static_cast<int64_t>(op.result_types.size());
    if (n < 1) return OpError(op, "needs its result types written out (values..., token)");
    std::vector<Shape> values;
    for (int64_t i = 0; i + 1 < n; ++i) {
      ASSIGN_OR_RETURN(Shape s, RequiredResultShape(op, i));
      values.push_back(std::move(s));
    }
    if (values.empty()) return Unimplemented("stablehlo.infeed with no values");
    const Shape value = values.size() == 1 ? values[0] : ShapeUtil::MakeTupleShape(values);
    HloInstructionProto attrs;
    if (const Attr* c = FindAttr(op, {"infeed_config"}); c != nullptr && c->kind == Attr::kString) {
      attrs.set_infeed_config(c->text);
    }
    ASSIGN_OR_RETURN(HloInstruction * in,
                     Emit(op, scope, HloOpcode::kInfeed, operands, attrs, {},
                          ShapeUtil::MakeTupleShape({value, ShapeUtil::MakeTokenShape()})));
    HloInstruction* v = AddGetTupleElement(scope, in, 0);
    Values out = values.size() == 1 ? Values{v} : Untuple(scope, v);
    out.push_back(AddGetTupleElement(scope, in, 1));
    return out;
  }
  if (name == "outfeed") {
    if (operands.size() < 2) return OpError(op, "takes the values and a token");
    HloInstruction* token = operands.back();
    Values inputs(operands.begin(), operands.end() - 1);
    HloInstruction* value = inputs.size() == 1 ? inputs[0] : AddTuple(scope, inputs);
    HloInstructionProto attrs;
    if (const Attr* c = FindAttr(op, {"outfeed_config"}); c != nullptr && c->kind == Attr::kString) {
      attrs.set_outfeed_config(c->text);
    }
    ASSIGN_OR_RETURN(HloInstruction * t, Emit(op, scope, HloOpcode::kOutfeed, {value, token}, attrs));
    return Values{t};
  }
  if (name == "send" || name == "recv") {
    // XLA's pair: send (value, token) -> send-done -> token; recv token ->
    // recv-done -> (value, token). Several values travel as one tuple.
    HloInstructionProto attrs;
    RETURN_IF_ERROR(SetChannel(*this, op, &attrs));
    ASSIGN_OR_RETURN(bool host, BoolAttr(op, "is_host_transfer", false));
    attrs.set_is_host_transfer(host);
    RETURN_IF_ERROR(CheckChannelType(*this, op, host, name == "send" ? 2 : 3));
    if (name == "send") {
      if (operands.empty()) return OpError(op, "takes the values and a token");
      HloInstruction* token = operands.back();
      Values inputs(operands.begin(), operands.end() - 1);
      HloInstruction* value = inputs.size() == 1 ? inputs[0] : AddTuple(scope, inputs);
      ASSIGN_OR_RETURN(HloInstruction * send, Emit(op, scope, HloOpcode::kSend, {value, token}, attrs));
      ASSIGN_OR_RETURN(HloInstruction * done, Emit(op, scope, HloOpcode::kSendDone, {send}, attrs));
      return Values{done};
    }
    const int64_t n = static_cast<int64_t>(op.result_types.size());
    if (n < 1) return OpError(op, "needs its result types written out (values..., token)");
    std::vector<Shape> values;
    for (int64_t i = 0; i + 1 < n; ++i) {
      ASSIGN_OR_RETURN(Shape s, RequiredResultShape(op, i));
      values.push_back(std::move(s));
    }
    const Shape value = values.size() == 1 ? values[0] : ShapeUtil::MakeTupleShape(values);
    ASSIGN_OR_RETURN(HloInstruction * recv,
                     Emit(op, scope, HloOpcode::kRecv, operands, attrs, {},
                          ShapeUtil::MakeTupleShape({value, ShapeUtil::MakeScalarShape(U32),
                                                     ShapeUtil::MakeTokenShape()})));
    ASSIGN_OR_RETURN(HloInstruction * done, Emit(op, scope, HloOpcode::kRecvDone, {recv}, attrs));
    HloInstruction* v = AddGetTupleElement(scope, done, 0);
    Values out = values.size() == 1 ? Values{v} : Untuple(scope, v);
    out.push_back(AddGetTupleElement(scope, done, 1));
    return out;
  }
  HloInstructionProto attrs;
  RETURN_IF_ERROR(SetReplicaGroups(*this, op, &attrs));
  RETURN_IF_ERROR(SetChannel(*this, op, &attrs));
  auto results = [&](HloInstruction* r) { return r->shape().IsTuple() ? Untuple(scope, r) : Values{r}; };
  if (name == "all_reduce") {
    if (op.regions.size() != 1) return OpError(op, "needs one reducer region");
    ASSIGN_OR_RETURN(HloComputation * reducer, LowerReducerRegion(op, op.regions[0], scope, "all_reduce"));
    ASSIGN_OR_RETURN(HloInstruction * r, Emit(op, scope, HloOpcode::kAllReduce, operands, attrs, {reducer}));
    return results(r);
  }
  if (name == "all_gather") {
    ASSIGN_OR_RETURN(int64_t dim, IntAttr(op, {"all_gather_dim"}));
    attrs.add_dimensions(dim);
    std::vector<Shape> declared;
    for (size_t i = 0; i < op.result_types.size(); ++i) {
      ASSIGN_OR_RETURN(Shape s, RequiredResultShape(op, i));
      declared.push_back(std::move(s));
    }
    if (declared.size() != operands.size()) {
      return OpError(op, absl::StrCat("has ", operands.size(), " operands but ", declared.size(), " result types"));
    }
    const Shape shape = declared.size() == 1 ? declared[0] : ShapeUtil::MakeTupleShape(declared);
    ASSIGN_OR_RETURN(HloInstruction * r, Emit(op, scope, HloOpcode::kAllGather, operands, attrs, {}, shape));
    return results(r);
  }
  if (name == "reduce_scatter") {
    if (op.regions.size() != 1) return OpError(op, "needs one reducer region");
    ASSIGN_OR_RETURN(int64_t dim, IntAttr(op, {"scatter_dimension"}));
    attrs.add_dimensions(dim);
    ASSIGN_OR_RETURN(HloComputation * reducer, LowerReducerRegion(op, op.regions[0], scope, "reduce_scatter"));
    std::vector<Shape> declared;
    for (size_t i = 0; i < op.result_types.size(); ++i) {
      ASSIGN_OR_RETURN(Shape s, RequiredResultShape(op, i));
      declared.push_back(std::move(s));
    }
    if (declared.size() != operands.size()) {
      return OpError(op, absl::StrCat("has ", operands.size(), " operands but ", declared.size(), " result types"));
    }
    const Shape shape = declared.size() == 1 ? declared[0] : ShapeUtil::MakeTupleShape(declared);
    ASSIGN_OR_RETURN(HloInstruction * r,
                     Emit(op, scope, HloOpcode::kReduceScatter, operands, attrs, {reducer}, shape));
    return results(r);
  }
  if (name == "all_to_all") {
    // Each operand on its own, as XLA's builder lowers it: split == concat
    // is one all-to-all; otherwise the split dimension becomes (count,
    // size / count), the all-to-all exchanges along the count, and a
    // transpose and reshape concatenate the received parts in group order.
    ASSIGN_OR_RETURN(int64_t split, IntAttr(op, {"split_dimension"}));
    ASSIGN_OR_RETURN(int64_t concat, IntAttr(op, {"concat_dimension"}));
    ASSIGN_OR_RETURN(int64_t count, IntAttr(op, {"split_count"}));
    if (operands.empty()) return OpError(op, "needs at least one operand");
    Values out;
    for (size_t i = 0; i < operands.size(); ++i) {
      const Shape& in = operands[i]->shape();
      const int64_t rank = in.IsArray() ? in.rank() : 0;
      if (!in.IsArray() || split < 0 || split >= rank || concat < 0 || concat >= rank || count < 1 ||
          in.dimensions(split) % count != 0) {
        return OpError(op, absl::StrCat("split_dimension ", split, ", concat_dimension ", concat, " and split_count ",
                                        count, " do not fit operand ", in.ToString(),
                                        " (the split dimension must be divisible by split_count)"));
      }
      for (const ReplicaGroup& g : attrs.replica_groups()) {
        if (g.replica_ids_size() != count) {
          return OpError(op, absl::StrCat("split_count ", count, " but a replica group has ", g.replica_ids_size(),
                                          " members"));
        }
      }
      HloInstructionProto a2a = attrs;
      a2a.set_use_global_device_ids(false);
      a2a.add_dimensions(split);
      if (split == concat) {
        ASSIGN_OR_RETURN(HloInstruction * r, Emit(op, scope, HloOpcode::kAllToAll, {operands[i]}, a2a));
        out.push_back(r);
        continue;
      }
      std::vector<int64_t> split_dims;
      for (int64_t d = 0; d < rank; ++d) {
        if (d == split) {
          split_dims.push_back(count);
          split_dims.push_back(in.dimensions(d) / count);
        } else {
          split_dims.push_back(in.dimensions(d));
        }
      }
      ASSIGN_OR_RETURN(HloInstruction * parts, Emit(op, scope, HloOpcode::kReshape, {operands[i]}, {}, {},
                                                    ShapeUtil::MakeShape(in.element_type(), split_dims)));
      ASSIGN_OR_RETURN(HloInstruction * exchanged, Emit(op, scope, HloOpcode::kAllToAll, {parts}, a2a));
      const int64_t concat_in_split = concat < split ? concat : concat + 1;
      HloInstructionProto transpose;
      for (int64_t d = 0; d <= rank; ++d) {
        if (d == split) continue;
        if (d == concat_in_split) transpose.add_dimensions(split);
        transpose.add_dimensions(d);
      }
      ASSIGN_OR_RETURN(HloInstruction * moved, Emit(op, scope, HloOpcode::kTranspose, {exchanged}, transpose));
      std::vector<int64_t> out_dims(in.dimensions().begin(), in.dimensions().end());
      out_dims[split] /= count;
      out_dims[concat] *= count;
      ASSIGN_OR_RETURN(HloInstruction * r, Emit(op, scope, HloOpcode::kReshape, {moved}, {}, {},
                                                ShapeUtil::MakeShape(in.element_type(), out_dims)));
      out.push_back(r);
    }
    return out;
  }
  if (name == "collective_permute") {
    const Attr* pairs = FindAttr(op, {"source_target_pairs"});
    if (pairs == nullptr) return OpError(op, "needs source_target_pairs");
    ASSIGN_OR_RETURN(auto rows, IntMatrix(*pairs));
    for (const auto& row : rows) {
      if (row.size() != 2) return Error(pairs->loc, "each source-target pair needs two ids");
      SourceTarget* st = attrs.add_source_target_pairs();
      st->set_source(row[0]);
      st->set_target(row[1]);
    }
    ASSIGN_OR_RETURN(HloInstruction * r, Emit(op, scope, HloOpcode::kCollectivePermute, operands, attrs));
    return results(r);
  }
  // collective_broadcast
  ASSIGN_OR_RETURN(bool dynamic_root, BoolAttr(op, "has_dynamic_root", false));
  if (!dynamic_root) {
    ASSIGN_OR_RETURN(HloInstruction * r, Emit(op, scope, HloOpcode::kCollectiveBroadcast, operands, attrs));
    return results(r);
  }
  // has_dynamic_root: the last operand, root[i], picks which member of the
  // group sends operand i. Lowered as an all-gather of each operand over
  // the group and a dynamic slice at root[i]: exact for the cross-replica
  // mode (no channel), whose groups an all-gather forms the same way.
  if (attrs.channel_id() > 0) {
    return Unimplemented("stablehlo.collective_broadcast with has_dynamic_root and a channel (cross-partition groups)");
  }
  if (operands.size() < 2) return OpError(op, "has_dynamic_root needs the data operands and a root operand");
  HloInstruction* root = operands.back();
  Values data(operands.begin(), operands.end() - 1);
  if (!root->shape().IsArray() || root->shape().rank() != 1 ||
      root->shape().dimensions(0) != static_cast<int64_t>(data.size()) ||
      !primitive_util::IsIntegralType(root->shape().element_type())) {
    return OpError(op, absl::StrCat("the root operand must be an integer vector of ", data.size(), " elements, got ",
                                    root->shape().ToString()));
  }
  if (attrs.replica_groups_size() == 0) return OpError(op, "has_dynamic_root needs replica_groups");
  const int64_t group_size = attrs.replica_groups(0).replica_ids_size();
  Values out;
  for (size_t i = 0; i < data.size(); ++i) {
    const Shape& s = data[i]->shape();
    if (!s.IsArray()) return OpError(op, "data operands must be arrays");
    std::vector<int64_t> one(s.dimensions().begin(), s.dimensions().end());
    one.insert(one.begin(), 1);
    std::vector<int64_t> all = one;
    all[0] = group_size;
    ASSIGN_OR_RETURN(HloInstruction * lifted,
                     Emit(op, scope, HloOpcode::kReshape, {data[i]}, {}, {},
                          ShapeUtil::MakeShape(s.element_type(), one)));
    HloInstructionProto gather = attrs;
    gather.add_dimensions(0);
    ASSIGN_OR_RETURN(HloInstruction * gathered, Emit(op, scope, HloOpcode::kAllGather, {lifted}, gather, {},
                                                     ShapeUtil::MakeShape(s.element_type(), all)));
    HloInstructionProto slice;
    slice.add_slice_dimensions()->set_start(static_cast<int64_t>(i));
    slice.mutable_slice_dimensions(0)->set_limit(static_cast<int64_t>(i) + 1);
    slice.mutable_slice_dimensions(0)->set_stride(1);
    ASSIGN_OR_RETURN(HloInstruction * r1, Emit(op, scope, HloOpcode::kSlice, {root}, slice));
    ASSIGN_OR_RETURN(HloInstruction * index,
                     Emit(op, scope, HloOpcode::kReshape, {r1}, {}, {},
                          ShapeUtil::MakeScalarShape(root->shape().element_type())));
    Values starts = {gathered, index};
    HloInstruction* zero = AddConstant(scope, Literal::CreateR0<int32_t>(0));
    if (root->shape().element_type() != S32) {
      ASSIGN_OR_RETURN(zero, Emit(op, scope, HloOpcode::kConvert, {zero}, {}, {},
                                  ShapeUtil::MakeScalarShape(root->shape().element_type())));
    }
    for (int64_t d = 0; d < s.rank(); ++d) starts.push_back(zero);
    HloInstructionProto ds;
    for (int64_t v : one) ds.add_dynamic_slice_sizes(v);
    ASSIGN_OR_RETURN(HloInstruction * picked, Emit(op, scope, HloOpcode::kDynamicSlice, starts, ds));
    ASSIGN_OR_RETURN(HloInstruction * back, Emit(op, scope, HloOpcode::kReshape, {picked}, {}, {}, s));
    out.push_back(back);
  }
  return out;
}

}  // namespace stablehlo
}  // namespace xla
