#include "xla/hlo/hlo_opcode.h"

#include "absl/container/flat_hash_map.h"
#include "xla/status_macros.h"

namespace xla {

absl::string_view HloOpcodeString(HloOpcode opcode) {
  switch (opcode) {
#define CASE_STRING(enum_name, text, arity) \
  case HloOpcode::enum_name:                \
    return text;
    HLO_OPCODE_LIST(CASE_STRING)
#undef CASE_STRING
  }
  return "<unknown>";
}

absl::StatusOr<HloOpcode> StringToHloOpcode(absl::string_view name) {
  static const auto* kMap = [] {
    auto* m = new absl::flat_hash_map<absl::string_view, HloOpcode>();
#define INSERT(enum_name, text, arity) (*m)[text] = HloOpcode::enum_name;
    HLO_OPCODE_LIST(INSERT)
#undef INSERT
    return m;
  }();
  auto it = kMap->find(name);
  if (it == kMap->end()) return InvalidArgument("unknown HLO opcode '%s'", name);
  return it->second;
}

int HloOpcodeArity(HloOpcode opcode) {
  switch (opcode) {
#define CASE_ARITY(enum_name, text, arity) \
  case HloOpcode::enum_name:               \
    return arity;
    HLO_OPCODE_LIST(CASE_ARITY)
#undef CASE_ARITY
  }
  return kHloOpcodeVariadic;
}

bool HasSideEffect(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kSend:
    case HloOpcode::kSendDone:
    case HloOpcode::kRecv:
    case HloOpcode::kRecvDone:
    case HloOpcode::kInfeed:
    case HloOpcode::kOutfeed:
    case HloOpcode::kRng:
    case HloOpcode::kCustomCall:
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllGather:
    case HloOpcode::kAllToAll:
    case HloOpcode::kCollectiveBroadcast:
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kReduceScatter:
      return true;
    default:
      return false;
  }
}

bool IsElementwiseUnary(HloOpcode op) {
  switch (op) {
    case HloOpcode::kAbs: case HloOpcode::kCbrt: case HloOpcode::kCeil: case HloOpcode::kClz:
    case HloOpcode::kCos: case HloOpcode::kErf: case HloOpcode::kExp: case HloOpcode::kExpm1:
    case HloOpcode::kFloor: case HloOpcode::kImag: case HloOpcode::kIsFinite: case HloOpcode::kLog:
    case HloOpcode::kLog1p: case HloOpcode::kLogistic: case HloOpcode::kNegate: case HloOpcode::kNot:
    case HloOpcode::kPopulationCount: case HloOpcode::kReal: case HloOpcode::kRoundNearestAfz:
    case HloOpcode::kRoundNearestEven: case HloOpcode::kRsqrt: case HloOpcode::kSign:
    case HloOpcode::kSin: case HloOpcode::kSqrt: case HloOpcode::kTan: case HloOpcode::kTanh:
      return true;
    default:
      return false;
  }
}

bool IsElementwiseBinary(HloOpcode op) {
  switch (op) {
    case HloOpcode::kAdd: case HloOpcode::kAnd: case HloOpcode::kAtan2: case HloOpcode::kCompare:
    case HloOpcode::kComplex: case HloOpcode::kDivide: case HloOpcode::kMaximum:
    case HloOpcode::kMinimum: case HloOpcode::kMultiply: case HloOpcode::kOr: case HloOpcode::kPower:
    case HloOpcode::kRemainder: case HloOpcode::kShiftLeft: case HloOpcode::kShiftRightArithmetic:
    case HloOpcode::kShiftRightLogical: case HloOpcode::kSubtract: case HloOpcode::kXor:
      return true;
    default:
      return false;
  }
}

bool IsElementwise(HloOpcode op) {
  return IsElementwiseUnary(op) || IsElementwiseBinary(op) || op == HloOpcode::kSelect ||
         op == HloOpcode::kClamp || op == HloOpcode::kConvert || op == HloOpcode::kCopy ||
         op == HloOpcode::kReducePrecision;
}

bool IsDistributedOpcode(HloOpcode op) {
  switch (op) {
    case HloOpcode::kAfterAll:
    case HloOpcode::kReplicaId:
    case HloOpcode::kPartitionId:
    case HloOpcode::kInfeed:
    case HloOpcode::kOutfeed:
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllGather:
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectiveBroadcast:
    case HloOpcode::kAllToAll:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kSend:
    case HloOpcode::kSendDone:
    case HloOpcode::kRecv:
    case HloOpcode::kRecvDone:
      return true;
    default:
      return false;
  }
}

}  // namespace xla
