#include "backends/cpu/runtime/runtime_collectives.h"

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/execution_control.h"
#include "xla/collectives/collective_ops.h"
#include "xla/literal.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"

namespace xla {
namespace cpu {
namespace {

const ExecutionControl* Control(const void* control) { return static_cast<const ExecutionControl*>(control); }

collectives::ReplicaContext* Context(const void* control) {
  return control == nullptr ? nullptr : Control(control)->replica_context();
}

// The run's deadline and cancel end its waits on queues and channels.
std::function<absl::Status()> RunStopped(const void* control) {
  return [control] { return Control(control)->CheckStop(); };
}

bool Report(const void* control, const absl::Status& status) {
  if (status.ok()) return true;
  if (control != nullptr) Control(control)->SetError(status);
  return false;
}

absl::StatusOr<HloInstructionProto> ParseDesc(const char* desc, int64_t size) {
  HloInstructionProto proto;
  if (!proto.ParseFromArray(desc, static_cast<int>(size))) {
    return Internal("CPU runtime: a collective's description does not parse");
  }
  return proto;
}

// The array leaves of `shape` in order (tuples flattened).
void ArrayLeaves(const Shape& shape, std::vector<Shape>* out) {
  if (shape.IsTuple()) {
    for (const Shape& s : shape.tuple_shapes()) ArrayLeaves(s, out);
  } else if (shape.IsArray()) {
    out->push_back(ShapeUtil::WithDefaultLayout(shape));
  }
}

void CopyIntoLeaves(const Literal& value, void* const* leaves, size_t* next) {
  if (value.shape().IsTuple()) {
    for (const Literal& e : value.tuple_elements()) CopyIntoLeaves(e, leaves, next);
    return;
  }
  std::memcpy(leaves[(*next)++], value.untyped_data(), value.size_bytes());
}

Literal LiteralFromLeaves(const Shape& shape, const void* const* leaves, size_t* next) {
  if (shape.IsTuple()) {
    std::vector<Literal> elements;
    for (const Shape& s : shape.tuple_shapes()) elements.push_back(LiteralFromLeaves(s, leaves, next));
    return Literal::MakeTuple(std::move(elements));
  }
  Literal out(ShapeUtil::WithDefaultLayout(shape));
  std::memcpy(out.untyped_data(), leaves[(*next)++], out.size_bytes());
  return out;
}

absl::Status Infeed(const void* control, const char* desc, int64_t size, void* const* leaves) {
  ASSIGN_OR_RETURN(HloInstructionProto proto, ParseDesc(desc, size));
  ASSIGN_OR_RETURN(Shape shape, ShapeUtil::FromProto(proto.shape()));
  const std::string label = absl::StrCat("infeed '", proto.name(), "'");
  collectives::ReplicaContext* context = Context(control);
  if (context == nullptr) return FailedPrecondition("%s: this run has no infeed queue", label);
  const Shape& value_shape = shape.tuple_shapes(0);
  ASSIGN_OR_RETURN(Literal value, context->PopInfeed(label, RunStopped(control)));
  if (!value.shape().Compatible(value_shape)) {
    return InvalidArgument("%s expects %s but the infeed queue held %s", label, value_shape.ToString(),
                           value.shape().ToString());
  }
  std::vector<Shape> want;
  ArrayLeaves(value_shape, &want);
  // The emitted code's leaves are row-major (checked at compile time).
  Literal row_major = value.RelayoutTo(ShapeUtil::WithDefaultLayout(value.shape()));
  size_t next = 0;
  CopyIntoLeaves(row_major, leaves, &next);
  return absl::OkStatus();
}

absl::Status Outfeed(const void* control, const char* desc, int64_t size, const void* const* leaves) {
  ASSIGN_OR_RETURN(HloInstructionProto proto, ParseDesc(desc, size));
  if (proto.operand_shapes_with_layout_size() != 2) return Internal("CPU runtime: outfeed needs two operand shapes");
  ASSIGN_OR_RETURN(Shape shape, ShapeUtil::FromProto(proto.operand_shapes_with_layout(0)));
  collectives::ReplicaContext* context = Context(control);
  if (context == nullptr) return FailedPrecondition("outfeed '%s': this run has no outfeed queue", proto.name());
  size_t next = 0;
  context->outfeed().Push(LiteralFromLeaves(shape, leaves, &next));
  return absl::OkStatus();
}

absl::Status Collective(const void* control, const char* desc, int64_t size, const void* const* operands,
                        void* const* results, void (*combine)(int64_t, void*, const void*, int64_t)) {
  ASSIGN_OR_RETURN(HloInstructionProto proto, ParseDesc(desc, size));
  ASSIGN_OR_RETURN(collectives::CollectiveOp op, collectives::CollectiveOp::FromProto(proto));
  collectives::Combiner combiner = [combine](int64_t i, void* acc, const void* other, int64_t count) -> absl::Status {
    if (combine == nullptr) return Internal("CPU runtime: all-reduce without a reducer function");
    combine(i, acc, other, count);
    return absl::OkStatus();
  };
  return collectives::RunCollective(Context(control), op, absl::MakeConstSpan(operands, op.operands.size()),
                                    absl::MakeConstSpan(results, op.results.size()), combiner);
}

absl::Status Transfer(const void* control, const char* desc, int64_t size, const void* const* in, void* const* out) {
  ASSIGN_OR_RETURN(HloInstructionProto proto, ParseDesc(desc, size));
  ASSIGN_OR_RETURN(HloOpcode opcode, StringToHloOpcode(proto.opcode()));
  ASSIGN_OR_RETURN(Shape shape, ShapeUtil::FromProto(proto.shape()));
  const std::string label = absl::StrCat(proto.opcode(), " '", proto.name(), "'");
  collectives::ReplicaContext* context = Context(control);
  if (context == nullptr || context->channels() == nullptr) {
    return FailedPrecondition("%s: this run has no channel table", label);
  }
  const Shape& value_shape = shape.tuple_shapes(0);
  size_t next = 0;
  switch (opcode) {
    case HloOpcode::kSend: {
      Literal value = LiteralFromLeaves(value_shape, in, &next);
      next = 0;
      CopyIntoLeaves(value, out, &next);
      context->channels()->Send(proto.channel_id(), std::move(value));
      break;
    }
    case HloOpcode::kRecv:
      CopyIntoLeaves(Literal(ShapeUtil::WithDefaultLayout(value_shape)), out, &next);
      break;
    case HloOpcode::kRecvDone: {
      ASSIGN_OR_RETURN(Literal value, context->Recv(proto.channel_id(), label, RunStopped(control)));
      if (!value.shape().Compatible(value_shape)) {
        return InvalidArgument("%s expects %s but the channel held %s", label, value_shape.ToString(),
                               value.shape().ToString());
      }
      // The emitted code's leaves are row-major (checked at compile time).
      CopyIntoLeaves(value.RelayoutTo(ShapeUtil::WithDefaultLayout(value.shape())), out, &next);
      return absl::OkStatus();
    }
    default:
      return Internal("CPU runtime: %s is not a send or recv", label);
  }
  // send and recv: the u32[] context after the value.
  const uint32_t zero = 0;
  std::memcpy(out[next], &zero, sizeof(zero));
  return absl::OkStatus();
}

}  // namespace
}  // namespace cpu
}  // namespace xla

extern "C" {

uint32_t __xla_cpu_runtime_ProcessId(const void* control, int32_t which) {
  xla::collectives::ReplicaContext* context = xla::cpu::Context(control);
  if (context == nullptr) return 0;
  return static_cast<uint32_t>(which == 0 ? context->self().replica : context->self().partition);
}

bool __xla_cpu_runtime_Collective(const void* control, const char* desc, int64_t desc_size,
                                  const void* const* operands, void* const* results,
                                  void (*combine)(int64_t, void*, const void*, int64_t)) {
  return xla::cpu::Report(control, xla::cpu::Collective(control, desc, desc_size, operands, results, combine));
}

bool __xla_cpu_runtime_Infeed(const void* control, const char* desc, int64_t desc_size, void* const* leaves) {
  return xla::cpu::Report(control, xla::cpu::Infeed(control, desc, desc_size, leaves));
}

bool __xla_cpu_runtime_Outfeed(const void* control, const char* desc, int64_t desc_size, const void* const* leaves) {
  return xla::cpu::Report(control, xla::cpu::Outfeed(control, desc, desc_size, leaves));
}

bool __xla_cpu_runtime_Transfer(const void* control, const char* desc, int64_t desc_size, const void* const* in,
                                void* const* out) {
  return xla::cpu::Report(control, xla::cpu::Transfer(control, desc, desc_size, in, out));
}

}  // extern "C"
