#include "xla/collectives/collective_ops.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "xla/hlo/scalar_reducer.h"
#include "xla/primitive_util.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"

namespace xla {
namespace collectives {
namespace {

int64_t Bytes(const Shape& shape) { return ShapeUtil::ByteSizeOfElements(shape); }

std::string Label(const CollectiveOp& op) { return absl::StrCat(HloOpcodeString(op.opcode), " '", op.name, "'"); }

absl::Status CheckCanMeet(ReplicaContext* context, const CollectiveOp& op, const std::vector<ProcessId>& group) {
  if (group.size() > 1 && (context == nullptr || context->communicator() == nullptr)) {
    return FailedPrecondition("%s: a group of %d processes, but this run has no other processes to meet", Label(op),
                              group.size());
  }
  return absl::OkStatus();
}

// The key of this process's current execution of `op`: its name and how
// often the process ran it before.
std::string ExchangeKey(ReplicaContext* context, const CollectiveOp& op) {
  return absl::StrCat(op.name, "#", context->NextOccurrence(op.name));
}

// The contributions of `group` (which holds `self`) to the op's next
// execution: every operand's bytes, concatenated.
absl::StatusOr<std::vector<Communicator::Blob>> Exchange(ReplicaContext* context, const CollectiveOp& op,
                                                       const std::vector<ProcessId>& group, std::string contribution) {
  if (group.size() == 1) return std::vector<Communicator::Blob>{std::make_shared<const std::string>(std::move(contribution))};
  RETURN_IF_ERROR(CheckCanMeet(context, op, group));
  return context->communicator()->Exchange(ExchangeKey(context, op), group, context->self(), std::move(contribution),
                                           Label(op));
}

std::string Concatenated(const CollectiveOp& op, absl::Span<const void* const> operands) {
  std::string out;
  for (size_t i = 0; i < op.operands.size(); ++i) {
    out.append(static_cast<const char*>(operands[i]), Bytes(op.operands[i]));
  }
  return out;
}

absl::Status CheckBlob(const CollectiveOp& op, const std::string& blob, int64_t expected) {
  if (static_cast<int64_t>(blob.size()) != expected) {
    return InvalidArgument("%s: a process sent %d bytes where %d were expected (do all processes run the same program?)",
                           Label(op), blob.size(), expected);
  }
  return absl::OkStatus();
}

// The group `self` belongs to for the replica-group ops; being in none is an
// error.
absl::StatusOr<std::vector<ProcessId>> MemberGroup(const CollectiveOp& op, GroupMode mode, int64_t num_replicas,
                                                   int64_t num_partitions, ProcessId self) {
  ASSIGN_OR_RETURN(auto groups, ProcessGroups(Label(op), mode, op.replica_groups, num_replicas, num_partitions));
  std::vector<ProcessId> group = GroupOf(groups, self);
  if (group.empty()) return InvalidArgument("%s: process %s is in no replica group", Label(op), self.ToString());
  return group;
}

absl::Status AllReduce(ReplicaContext* context, const CollectiveOp& op, ProcessId self, int64_t nr, int64_t np,
                       absl::Span<const void* const> operands, absl::Span<void* const> results,
                       const Combiner& combine) {
  ASSIGN_OR_RETURN(GroupMode mode, ReplicaGroupMode(Label(op), op.channel_id, op.use_global_device_ids));
  ASSIGN_OR_RETURN(std::vector<ProcessId> group, MemberGroup(op, mode, nr, np, self));
  // A reduction the communicator runs natively (across hosts): in place on
  // the results, a large operand on its own, the small ones together in one
  // buffer (a cross-host exchange costs its round trips whatever its size).
  // (ToProto gives a reduction only when every operand has the first one's
  // type.)
  if (op.reduction != ReductionKind::kNone && group.size() > 1 && context != nullptr &&
      context->communicator() != nullptr &&
      context->communicator()->ReducesNatively(group, op.reduction, op.operands[0].element_type())) {
    for (const Shape& operand : op.operands) {
      if (operand.element_type() != op.operands[0].element_type()) {
        return Internal("%s: a native reduction over operands of different types", Label(op));
      }
    }
    const std::string key = ExchangeKey(context, op);
    const PrimitiveType type = op.operands[0].element_type();
    constexpr int64_t kPackedBelowBytes = int64_t{1} << 20;
    std::vector<size_t> packed;
    int64_t packed_bytes = 0;
    for (size_t i = 0; i < op.operands.size(); ++i) {
      if (Bytes(op.operands[i]) < kPackedBelowBytes) packed.push_back(i);
    }
    if (packed.size() < 2) packed.clear();  // one alone needs no packing
    for (size_t i = 0; i < op.operands.size(); ++i) {
      const int64_t bytes = Bytes(op.operands[i]);
      if (std::find(packed.begin(), packed.end(), i) != packed.end()) {
        packed_bytes += bytes;
        continue;
      }
      RETURN_IF_ERROR(context->communicator()->AllReduce(absl::StrCat(key, "/", i), group, self, op.reduction, type,
                                                         operands[i], results[i],
                                                         ShapeUtil::ElementsIn(op.operands[i]), Label(op)));
    }
    if (packed_bytes == 0) return absl::OkStatus();  // none packed, or empty arrays only
    std::string buffer(packed_bytes, '\0');
    int64_t offset = 0;
    for (size_t i : packed) {
      std::memcpy(buffer.data() + offset, operands[i], Bytes(op.operands[i]));
      offset += Bytes(op.operands[i]);
    }
    RETURN_IF_ERROR(context->communicator()->AllReduce(absl::StrCat(key, "/packed"), group, self, op.reduction, type,
                                                       buffer.data(), buffer.data(),
                                                       packed_bytes / primitive_util::ByteWidth(type),
                                                       Label(op)));
    offset = 0;
    for (size_t i : packed) {
      std::memcpy(results[i], buffer.data() + offset, Bytes(op.operands[i]));
      offset += Bytes(op.operands[i]);
    }
    return absl::OkStatus();
  }
  int64_t total = 0;
  for (const Shape& s : op.operands) total += Bytes(s);
  ASSIGN_OR_RETURN(auto blobs, Exchange(context, op, group, Concatenated(op, operands)));
  for (const auto& b : blobs) RETURN_IF_ERROR(CheckBlob(op, *b, total));
  int64_t offset = 0;
  for (size_t i = 0; i < op.operands.size(); ++i) {
    const int64_t bytes = Bytes(op.operands[i]);
    std::memcpy(results[i], blobs[0]->data() + offset, bytes);
    for (size_t g = 1; g < blobs.size(); ++g) {
      RETURN_IF_ERROR(combine(static_cast<int64_t>(i), results[i], blobs[g]->data() + offset,
                              ShapeUtil::ElementsIn(op.operands[i])));
    }
    offset += bytes;
  }
  return absl::OkStatus();
}

absl::Status AllGather(ReplicaContext* context, const CollectiveOp& op, ProcessId self, int64_t nr, int64_t np,
                       absl::Span<const void* const> operands, absl::Span<void* const> results) {
  ASSIGN_OR_RETURN(GroupMode mode, ReplicaGroupMode(Label(op), op.channel_id, op.use_global_device_ids));
  ASSIGN_OR_RETURN(std::vector<ProcessId> group, MemberGroup(op, mode, nr, np, self));
  const int64_t g_count = static_cast<int64_t>(group.size());
  int64_t total = 0;
  for (size_t i = 0; i < op.operands.size(); ++i) {
    const Shape& in = op.operands[i];
    const Shape& out = op.results[i];
    if (op.dimension < 0 || op.dimension >= in.rank() ||
        out.dimensions(op.dimension) != in.dimensions(op.dimension) * g_count) {
      return InvalidArgument("%s: operand %s gathered over a group of %d processes %s along dimension %d cannot give %s",
                             Label(op), in.ToString(), g_count, GroupToString(group), op.dimension, out.ToString());
    }
    total += Bytes(in);
  }
  ASSIGN_OR_RETURN(auto blobs, Exchange(context, op, group, Concatenated(op, operands)));
  for (const auto& b : blobs) RETURN_IF_ERROR(CheckBlob(op, *b, total));
  int64_t offset = 0;
  for (size_t i = 0; i < op.operands.size(); ++i) {
    const Shape& in = op.operands[i];
    // Row-major: `outer` rows of `inner` bytes per process.
    int64_t outer = 1;
    for (int64_t d = 0; d < op.dimension; ++d) outer *= in.dimensions(d);
    const int64_t inner = outer == 0 ? 0 : Bytes(in) / outer;
    char* dst = static_cast<char*>(results[i]);
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t g = 0; g < g_count; ++g) {
        std::memcpy(dst + (o * g_count + g) * inner, blobs[g]->data() + offset + o * inner, inner);
      }
    }
    offset += Bytes(in);
  }
  return absl::OkStatus();
}

// A row-major array split along `dim` into `parts` equal parts: part j is
// `outer` runs of `run` bytes, run o at byte (o * parts + j) * run.
struct Split {
  int64_t outer = 1;
  int64_t run = 0;
};

absl::StatusOr<Split> SplitOf(const CollectiveOp& op, const Shape& shape, int64_t dim, int64_t parts,
                              absl::Span<const ProcessId> group) {
  if (dim < 0 || dim >= shape.rank() || shape.dimensions(dim) % parts != 0) {
    return InvalidArgument("%s: %s cannot be split along dimension %d into %d parts, one per member of the group %s",
                           Label(op), shape.ToString(), dim, parts, GroupToString(group));
  }
  Split split;
  for (int64_t d = 0; d < dim; ++d) split.outer *= shape.dimensions(d);
  split.run = split.outer == 0 ? 0 : Bytes(shape) / split.outer / parts;
  return split;
}

int64_t IndexIn(absl::Span<const ProcessId> group, ProcessId self) {
  for (size_t i = 0; i < group.size(); ++i) {
    if (group[i] == self) return static_cast<int64_t>(i);
  }
  return -1;
}

// Copies part `part` of a split array at `src` to `dst`, contiguous.
void CopyPart(const Split& split, int64_t parts, int64_t part, const char* src, char* dst) {
  for (int64_t o = 0; o < split.outer; ++o) {
    std::memcpy(dst + o * split.run, src + (o * parts + part) * split.run, split.run);
  }
}

absl::Status ReduceScatter(ReplicaContext* context, const CollectiveOp& op, ProcessId self, int64_t nr, int64_t np,
                           absl::Span<const void* const> operands, absl::Span<void* const> results,
                           const Combiner& combine) {
  ASSIGN_OR_RETURN(GroupMode mode, ReplicaGroupMode(Label(op), op.channel_id, op.use_global_device_ids));
  ASSIGN_OR_RETURN(std::vector<ProcessId> group, MemberGroup(op, mode, nr, np, self));
  const int64_t k = static_cast<int64_t>(group.size());
  const int64_t me = IndexIn(group, self);
  std::vector<Split> splits;
  int64_t total = 0;
  for (size_t i = 0; i < op.operands.size(); ++i) {
    ASSIGN_OR_RETURN(Split split, SplitOf(op, op.operands[i], op.dimension, k, group));
    if (Bytes(op.results[i]) * k != Bytes(op.operands[i])) {
      return InvalidArgument("%s: operand %s scattered over a group of %d processes %s cannot give %s", Label(op),
                             op.operands[i].ToString(), k, GroupToString(group), op.results[i].ToString());
    }
    splits.push_back(split);
    total += Bytes(op.operands[i]);
  }
  ASSIGN_OR_RETURN(auto blobs, Exchange(context, op, group, Concatenated(op, operands)));
  for (const auto& b : blobs) RETURN_IF_ERROR(CheckBlob(op, *b, total));
  int64_t offset = 0;
  for (size_t i = 0; i < op.operands.size(); ++i) {
    // Fold member g's part `me` into the result, in group order.
    char* acc = static_cast<char*>(results[i]);
    CopyPart(splits[i], k, me, blobs[0]->data() + offset, acc);
    std::string other(Bytes(op.results[i]), '\0');
    for (int64_t g = 1; g < k; ++g) {
      CopyPart(splits[i], k, me, blobs[g]->data() + offset, other.data());
      RETURN_IF_ERROR(combine(static_cast<int64_t>(i), acc, other.data(), ShapeUtil::ElementsIn(op.results[i])));
    }
    offset += Bytes(op.operands[i]);
  }
  return absl::OkStatus();
}

absl::Status AllToAll(ReplicaContext* context, const CollectiveOp& op, ProcessId self, int64_t nr, int64_t np,
                      absl::Span<const void* const> operands, absl::Span<void* const> results) {
  ASSIGN_OR_RETURN(auto groups, ProcessGroups(Label(op), ReplicaOrPartitionMode(op.channel_id), op.replica_groups, nr,
                                              np));
  std::vector<ProcessId> group = GroupOf(groups, self);
  if (group.empty()) return InvalidArgument("%s: process %s is in no replica group", Label(op), self.ToString());
  const int64_t k = static_cast<int64_t>(group.size());
  const int64_t me = IndexIn(group, self);
  int64_t total = 0;
  for (size_t i = 0; i < op.operands.size(); ++i) {
    if (Bytes(op.operands[i]) != Bytes(op.results[i])) {
      return InvalidArgument("%s: operand %s and result %s differ in size", Label(op), op.operands[i].ToString(),
                             op.results[i].ToString());
    }
    total += Bytes(op.operands[i]);
  }
  if (!op.has_dimension) {
    // Tuple form: operand j goes to member j, all of one size.
    if (static_cast<int64_t>(op.operands.size()) != k) {
      return InvalidArgument("%s: the tuple form has %d operands but the group %s has %d members", Label(op),
                             op.operands.size(), GroupToString(group), k);
    }
    const int64_t bytes = Bytes(op.operands[0]);
    for (const Shape& s : op.operands) {
      if (Bytes(s) != bytes) return InvalidArgument("%s: the tuple form needs operands of one size", Label(op));
    }
    ASSIGN_OR_RETURN(auto blobs, Exchange(context, op, group, Concatenated(op, operands)));
    for (const auto& b : blobs) RETURN_IF_ERROR(CheckBlob(op, *b, total));
    for (int64_t j = 0; j < k; ++j) std::memcpy(results[j], blobs[j]->data() + me * bytes, bytes);
    return absl::OkStatus();
  }
  std::vector<Split> splits;
  for (const Shape& s : op.operands) {
    ASSIGN_OR_RETURN(Split split, SplitOf(op, s, op.dimension, k, group));
    splits.push_back(split);
  }
  ASSIGN_OR_RETURN(auto blobs, Exchange(context, op, group, Concatenated(op, operands)));
  for (const auto& b : blobs) RETURN_IF_ERROR(CheckBlob(op, *b, total));
  int64_t offset = 0;
  for (size_t i = 0; i < op.operands.size(); ++i) {
    // Result part g is member g's part `me`.
    const Split& split = splits[i];
    char* dst = static_cast<char*>(results[i]);
    for (int64_t o = 0; o < split.outer; ++o) {
      for (int64_t g = 0; g < k; ++g) {
        std::memcpy(dst + (o * k + g) * split.run, blobs[g]->data() + offset + (o * k + me) * split.run, split.run);
      }
    }
    offset += Bytes(op.operands[i]);
  }
  return absl::OkStatus();
}

absl::Status CollectivePermute(ReplicaContext* context, const CollectiveOp& op, ProcessId self, int64_t nr,
                               int64_t np, absl::Span<const void* const> operands, absl::Span<void* const> results) {
  const GroupMode mode = ReplicaOrPartitionMode(op.channel_id);
  const int64_t id_count = mode == GroupMode::kCrossReplica ? nr : np;
  const int64_t self_id = mode == GroupMode::kCrossReplica ? self.replica : self.partition;
  std::vector<int64_t> source_of(id_count, -1);
  std::vector<bool> is_source(id_count, false);
  for (const auto& [source, target] : op.source_target_pairs) {
    if (source < 0 || source >= id_count || target < 0 || target >= id_count) {
      return InvalidArgument("%s: pair {%d, %d} is out of range [0, %d)", Label(op), source, target, id_count);
    }
    if (is_source[source]) return InvalidArgument("%s: %d is the source of two pairs", Label(op), source);
    if (source_of[target] >= 0) return InvalidArgument("%s: %d is the target of two pairs", Label(op), target);
    is_source[source] = true;
    source_of[target] = source;
  }
  // Every process of the domain (same partition, or same replica) meets:
  // the pairs are known to all, so each takes its source's part.
  ASSIGN_OR_RETURN(auto domains, ProcessGroups(Label(op), mode, {}, nr, np));
  std::vector<ProcessId> domain = GroupOf(domains, self);
  const int64_t bytes = Bytes(op.operands[0]);
  std::string contribution;
  if (is_source[self_id]) contribution = Concatenated(op, operands);
  ASSIGN_OR_RETURN(auto blobs, Exchange(context, op, domain, std::move(contribution)));
  const int64_t source = source_of[self_id];
  if (source < 0) {
    std::memset(results[0], 0, bytes);
    return absl::OkStatus();
  }
  RETURN_IF_ERROR(CheckBlob(op, *blobs[source], bytes));
  std::memcpy(results[0], blobs[source]->data(), bytes);
  return absl::OkStatus();
}

absl::Status CollectiveBroadcast(ReplicaContext* context, const CollectiveOp& op, ProcessId self, int64_t nr,
                                 int64_t np, absl::Span<const void* const> operands, absl::Span<void* const> results) {
  const GroupMode mode = ReplicaOrPartitionMode(op.channel_id);
  ASSIGN_OR_RETURN(auto groups, ProcessGroups(Label(op), mode, op.replica_groups, nr, np));
  std::vector<ProcessId> group = GroupOf(groups, self);
  int64_t total = 0;
  for (const Shape& s : op.operands) total += Bytes(s);
  if (group.empty()) {
    for (size_t i = 0; i < op.operands.size(); ++i) std::memset(results[i], 0, Bytes(op.operands[i]));
    return absl::OkStatus();
  }
  std::string contribution;
  if (group[0] == self) contribution = Concatenated(op, operands);
  ASSIGN_OR_RETURN(auto blobs, Exchange(context, op, group, std::move(contribution)));
  RETURN_IF_ERROR(CheckBlob(op, *blobs[0], total));
  int64_t offset = 0;
  for (size_t i = 0; i < op.operands.size(); ++i) {
    std::memcpy(results[i], blobs[0]->data() + offset, Bytes(op.operands[i]));
    offset += Bytes(op.operands[i]);
  }
  return absl::OkStatus();
}

}  // namespace

HloInstructionProto CollectiveOp::ToProto(const HloInstruction& instruction) {
  HloInstructionProto proto = instruction.attributes();
  proto.set_name(instruction.name());
  proto.set_opcode(std::string(HloOpcodeString(instruction.opcode())));
  *proto.mutable_shape() = instruction.shape().ToProto();
  proto.clear_operand_shapes_with_layout();
  for (const HloInstruction* operand : instruction.operands()) {
    *proto.add_operand_shapes_with_layout() = operand->shape().ToProto();
  }
  proto.clear_collective_reduction();
  if ((instruction.opcode() == HloOpcode::kAllReduce || instruction.opcode() == HloOpcode::kReduceScatter) &&
      instruction.to_apply() != nullptr && instruction.operand_count() > 0 &&
      instruction.operand(0)->shape().IsArray()) {
    const std::optional<ScalarBinaryReducer> reducer =
        MatchScalarBinaryReducer(*instruction.to_apply(), instruction.operand(0)->shape().element_type());
    bool same_types = true;
    for (const HloInstruction* operand : instruction.operands()) {
      same_types &= operand->shape().IsArray() &&
                    operand->shape().element_type() == instruction.operand(0)->shape().element_type();
    }
    if (reducer.has_value() && same_types) {
      switch (reducer->opcode) {
        case HloOpcode::kAdd:
        case HloOpcode::kMultiply:
        case HloOpcode::kMinimum:
        case HloOpcode::kMaximum:
          proto.set_collective_reduction(std::string(HloOpcodeString(reducer->opcode)));
          break;
        default:
          break;
      }
    }
  }
  return proto;
}

absl::StatusOr<CollectiveOp> CollectiveOp::FromProto(const HloInstructionProto& proto) {
  CollectiveOp op;
  ASSIGN_OR_RETURN(op.opcode, StringToHloOpcode(proto.opcode()));
  op.name = proto.name();
  const std::string label = absl::StrCat(proto.opcode(), " '", op.name, "'");
  auto row_major_array = [&](const ShapeProto& p, const char* what) -> absl::StatusOr<Shape> {
    ASSIGN_OR_RETURN(Shape s, ShapeUtil::FromProto(p));
    if (!s.IsArray()) return InvalidArgument("%s: the %s %s is not an array", label, what, s.ToString());
    if (!ShapeUtil::HasDefaultLayout(s)) {
      return Unimplemented("%s: the %s %s is not in row-major layout", label, what, s.ToString(true));
    }
    return s;
  };
  for (const ShapeProto& p : proto.operand_shapes_with_layout()) {
    ASSIGN_OR_RETURN(Shape s, row_major_array(p, "operand"));
    op.operands.push_back(std::move(s));
  }
  ASSIGN_OR_RETURN(Shape result, ShapeUtil::FromProto(proto.shape()));
  if (result.IsTuple()) {
    for (const Shape& leaf : result.tuple_shapes()) {
      ASSIGN_OR_RETURN(Shape s, row_major_array(leaf.ToProto(), "result"));
      op.results.push_back(std::move(s));
    }
  } else {
    ASSIGN_OR_RETURN(Shape s, row_major_array(proto.shape(), "result"));
    op.results.push_back(std::move(s));
  }
  if (op.operands.size() != op.results.size() || op.operands.empty()) {
    return InvalidArgument("%s: %d operands but %d results", label, op.operands.size(), op.results.size());
  }
  for (const ReplicaGroup& g : proto.replica_groups()) {
    op.replica_groups.emplace_back(g.replica_ids().begin(), g.replica_ids().end());
  }
  for (const SourceTarget& st : proto.source_target_pairs()) op.source_target_pairs.emplace_back(st.source(), st.target());
  op.channel_id = proto.channel_id();
  op.use_global_device_ids = proto.use_global_device_ids();
  if (!proto.collective_reduction().empty()) {
    if (proto.collective_reduction() == "add") {
      op.reduction = ReductionKind::kSum;
    } else if (proto.collective_reduction() == "multiply") {
      op.reduction = ReductionKind::kProduct;
    } else if (proto.collective_reduction() == "minimum") {
      op.reduction = ReductionKind::kMin;
    } else if (proto.collective_reduction() == "maximum") {
      op.reduction = ReductionKind::kMax;
    } else {
      return InvalidArgument("%s: unknown collective reduction '%s'", label, proto.collective_reduction());
    }
  }
  if (op.opcode == HloOpcode::kAllGather || op.opcode == HloOpcode::kReduceScatter) {
    if (proto.dimensions_size() != 1) return InvalidArgument("%s: needs one dimension", label);
    op.dimension = proto.dimensions(0);
  }
  if (op.opcode == HloOpcode::kAllToAll) {
    if (proto.dimensions_size() > 1) return InvalidArgument("%s: needs at most one split dimension", label);
    op.has_dimension = proto.dimensions_size() == 1;
    if (op.has_dimension) op.dimension = proto.dimensions(0);
  }
  return op;
}

int64_t TransferChannel(const HloInstruction& instruction) {
  const int64_t own = instruction.attributes().channel_id();
  if (own != 0 || instruction.operand_count() != 1) return own;
  const HloInstruction* start = instruction.operand(0);
  if (start->opcode() != HloOpcode::kSend && start->opcode() != HloOpcode::kRecv) return own;
  return start->attributes().channel_id();
}

absl::StatusOr<CollectiveOp> CollectiveOp::FromInstruction(const HloInstruction& instruction) {
  return FromProto(ToProto(instruction));
}

absl::Status RunCollective(ReplicaContext* context, const CollectiveOp& op, absl::Span<const void* const> operands,
                           absl::Span<void* const> results, const Combiner& combine) {
  if (operands.size() != op.operands.size() || results.size() != op.results.size()) {
    return Internal("%s: %d operand and %d result buffers for %d operands and %d results", Label(op), operands.size(),
                    results.size(), op.operands.size(), op.results.size());
  }
  const ProcessId self = context != nullptr ? context->self() : ProcessId{};
  const int64_t nr = context != nullptr ? context->num_replicas() : 1;
  const int64_t np = context != nullptr ? context->num_partitions() : 1;
  absl::Status status;
  switch (op.opcode) {
    case HloOpcode::kAllReduce:
      status = AllReduce(context, op, self, nr, np, operands, results, combine);
      break;
    case HloOpcode::kAllGather:
      status = AllGather(context, op, self, nr, np, operands, results);
      break;
    case HloOpcode::kReduceScatter:
      status = ReduceScatter(context, op, self, nr, np, operands, results, combine);
      break;
    case HloOpcode::kAllToAll:
      status = AllToAll(context, op, self, nr, np, operands, results);
      break;
    case HloOpcode::kCollectivePermute:
      status = CollectivePermute(context, op, self, nr, np, operands, results);
      break;
    case HloOpcode::kCollectiveBroadcast:
      status = CollectiveBroadcast(context, op, self, nr, np, operands, results);
      break;
    default:
      return Unimplemented("%s: not a collective this runtime runs", Label(op));
  }
  // A process that fails lets the others of its run fail now instead of at
  // their deadline.
  if (!status.ok() && context != nullptr && context->communicator() != nullptr) context->communicator()->Abort(status);
  return status;
}

}  // namespace collectives
}  // namespace xla
