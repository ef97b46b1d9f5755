// Every HLO opcode, with its HLO-text spelling and its operand arity
// (kVariadic when the count varies). One X-macro list is the single source.
#ifndef XLA_HLO_HLO_OPCODE_H_
#define XLA_HLO_HLO_OPCODE_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace xla {

inline constexpr int kHloOpcodeVariadic = -1;

// V(enum, text name, arity)
#define HLO_OPCODE_LIST(V)                                          \
  V(kAbs, "abs", 1)                                                 \
  V(kAdd, "add", 2)                                                 \
  V(kAddDependency, "add-dependency", 2)                            \
  V(kAfterAll, "after-all", kHloOpcodeVariadic)                     \
  V(kAllGather, "all-gather", kHloOpcodeVariadic)                   \
  V(kAllReduce, "all-reduce", kHloOpcodeVariadic)                   \
  V(kAllToAll, "all-to-all", kHloOpcodeVariadic)                    \
  V(kAnd, "and", 2)                                                 \
  V(kAtan2, "atan2", 2)                                             \
  V(kBatchNormGrad, "batch-norm-grad", 5)                           \
  V(kBatchNormInference, "batch-norm-inference", 5)                 \
  V(kBatchNormTraining, "batch-norm-training", 3)                   \
  V(kBitcast, "bitcast", 1)                                         \
  V(kBitcastConvert, "bitcast-convert", 1)                          \
  V(kBroadcast, "broadcast", 1)                                     \
  V(kCall, "call", kHloOpcodeVariadic)                              \
  V(kCbrt, "cbrt", 1)                                               \
  V(kCeil, "ceil", 1)                                               \
  V(kCholesky, "cholesky", 1)                                       \
  V(kClamp, "clamp", 3)                                             \
  V(kClz, "count-leading-zeros", 1)                                 \
  V(kCollectiveBroadcast, "collective-broadcast", kHloOpcodeVariadic) \
  V(kCollectivePermute, "collective-permute", kHloOpcodeVariadic)   \
  V(kCompare, "compare", 2)                                         \
  V(kComplex, "complex", 2)                                         \
  V(kConcatenate, "concatenate", kHloOpcodeVariadic)                \
  V(kConditional, "conditional", kHloOpcodeVariadic)                \
  V(kConstant, "constant", 0)                                       \
  V(kConvert, "convert", 1)                                         \
  V(kConvolution, "convolution", 2)                                 \
  V(kCopy, "copy", 1)                                               \
  V(kCos, "cosine", 1)                                              \
  V(kCustomCall, "custom-call", kHloOpcodeVariadic)                 \
  V(kDivide, "divide", 2)                                           \
  V(kDot, "dot", 2)                                                 \
  V(kDynamicSlice, "dynamic-slice", kHloOpcodeVariadic)             \
  V(kDynamicUpdateSlice, "dynamic-update-slice", kHloOpcodeVariadic) \
  V(kErf, "erf", 1)                                                 \
  V(kExp, "exponential", 1)                                         \
  V(kExpm1, "exponential-minus-one", 1)                             \
  V(kFft, "fft", 1)                                                 \
  V(kFloor, "floor", 1)                                             \
  V(kFusion, "fusion", kHloOpcodeVariadic)                          \
  V(kGather, "gather", 2)                                           \
  V(kGetDimensionSize, "get-dimension-size", 1)                     \
  V(kGetTupleElement, "get-tuple-element", 1)                       \
  V(kImag, "imag", 1)                                               \
  V(kInfeed, "infeed", 1)                                           \
  V(kIota, "iota", 0)                                               \
  V(kIsFinite, "is-finite", 1)                                      \
  V(kLog, "log", 1)                                                 \
  V(kLog1p, "log-plus-one", 1)                                      \
  V(kLogistic, "logistic", 1)                                       \
  V(kMap, "map", kHloOpcodeVariadic)                                \
  V(kMaximum, "maximum", 2)                                         \
  V(kMinimum, "minimum", 2)                                         \
  V(kMultiply, "multiply", 2)                                       \
  V(kNegate, "negate", 1)                                           \
  V(kNot, "not", 1)                                                 \
  V(kOptimizationBarrier, "opt-barrier", 1)                         \
  V(kOr, "or", 2)                                                   \
  V(kOutfeed, "outfeed", 2)                                         \
  V(kPad, "pad", 2)                                                 \
  V(kParameter, "parameter", 0)                                     \
  V(kPartitionId, "partition-id", 0)                                \
  V(kPopulationCount, "popcnt", 1)                                  \
  V(kPower, "power", 2)                                             \
  V(kReal, "real", 1)                                               \
  V(kRecv, "recv", 1)                                               \
  V(kRecvDone, "recv-done", 1)                                      \
  V(kReduce, "reduce", kHloOpcodeVariadic)                          \
  V(kReducePrecision, "reduce-precision", 1)                        \
  V(kReduceScatter, "reduce-scatter", kHloOpcodeVariadic)           \
  V(kReduceWindow, "reduce-window", kHloOpcodeVariadic)             \
  V(kRemainder, "remainder", 2)                                     \
  V(kReplicaId, "replica-id", 0)                                    \
  V(kReshape, "reshape", 1)                                         \
  V(kReverse, "reverse", 1)                                         \
  V(kRng, "rng", kHloOpcodeVariadic)                                \
  V(kRngBitGenerator, "rng-bit-generator", 1)                       \
  V(kRoundNearestAfz, "round-nearest-afz", 1)                       \
  V(kRoundNearestEven, "round-nearest-even", 1)                     \
  V(kRsqrt, "rsqrt", 1)                                             \
  V(kScatter, "scatter", kHloOpcodeVariadic)                        \
  V(kSelect, "select", 3)                                           \
  V(kSelectAndScatter, "select-and-scatter", 3)                     \
  V(kSend, "send", 2)                                               \
  V(kSendDone, "send-done", 1)                                      \
  V(kSetDimensionSize, "set-dimension-size", 2)                     \
  V(kShiftLeft, "shift-left", 2)                                    \
  V(kShiftRightArithmetic, "shift-right-arithmetic", 2)             \
  V(kShiftRightLogical, "shift-right-logical", 2)                   \
  V(kSign, "sign", 1)                                               \
  V(kSin, "sine", 1)                                                \
  V(kSlice, "slice", 1)                                             \
  V(kSort, "sort", kHloOpcodeVariadic)                              \
  V(kSqrt, "sqrt", 1)                                               \
  V(kSubtract, "subtract", 2)                                       \
  V(kTan, "tan", 1)                                                 \
  V(kTanh, "tanh", 1)                                               \
  V(kTopK, "topk", 1)                                               \
  V(kTranspose, "transpose", 1)                                     \
  V(kTriangularSolve, "triangular-solve", 2)                        \
  V(kTuple, "tuple", kHloOpcodeVariadic)                            \
  V(kWhile, "while", 1)                                             \
  V(kXor, "xor", 2)

enum class HloOpcode {
#define DECLARE_ENUM(enum_name, text, arity) enum_name,
  HLO_OPCODE_LIST(DECLARE_ENUM)
#undef DECLARE_ENUM
};

absl::string_view HloOpcodeString(HloOpcode opcode);
absl::StatusOr<HloOpcode> StringToHloOpcode(absl::string_view name);
// Fixed operand count, or kHloOpcodeVariadic.
int HloOpcodeArity(HloOpcode opcode);

bool IsElementwiseUnary(HloOpcode opcode);   // abs ... tanh, convert not included
bool IsElementwiseBinary(HloOpcode opcode);  // add ... xor, compare, complex, atan2
// Ops whose result depends only on the matching operand elements.
bool IsElementwise(HloOpcode opcode);
// Tokens, per-process values and the collectives: after-all, replica-id,
// partition-id, infeed, outfeed, all-reduce, all-gather, collective-permute,
// collective-broadcast, all-to-all, reduce-scatter, send/send-done and
// recv/recv-done (xla/collectives).
bool IsDistributedOpcode(HloOpcode opcode);
// Ops with effects beyond their result: I/O (infeed, outfeed, send, recv),
// collectives (they exchange data with the other processes of a run, which
// must all execute the same collectives in the same order), random numbers
// and opaque custom calls. Passes never remove, merge, hoist or fold them,
// and a computation runs them in definition order (MakeInstructionPostOrder).
bool HasSideEffect(HloOpcode opcode);

}  // namespace xla

#endif  // XLA_HLO_HLO_OPCODE_H_
