// How the CPU emitter treats each kind of instruction: the classes the
// fusion pass (cpu_fusion.h) decides by and the emitter emits by, so that
// the two agree on what is generated inline, what gets a buffer and what
// writes its result leaf by leaf.
#ifndef BACKENDS_CPU_TRANSFORMS_EMISSION_KINDS_H_
#define BACKENDS_CPU_TRANSFORMS_EMISSION_KINDS_H_

#include "xla/hlo/hlo_instruction.h"
#include "xla/hlo/hlo_opcode.h"

namespace xla {
namespace cpu {

// Parameters and constants: their values are in place before the code runs.
inline bool HasStorageOfItsOwn(const HloInstruction& hlo) {
  return hlo.opcode() == HloOpcode::kParameter || hlo.opcode() == HloOpcode::kConstant;
}

// Tuples and their elements: names for other values' buffers.
inline bool IsPlumbing(const HloInstruction& hlo) {
  return hlo.opcode() == HloOpcode::kTuple || hlo.opcode() == HloOpcode::kGetTupleElement;
}

// A select of whole tuples by a scalar pred is a branch between copies; a
// copy of a tuple (XLA's optimized while bodies end in one, to change the
// state's layouts) copies leaf by leaf. Both go with control flow, which
// writes tuple results leaf by leaf.
inline bool IsControlFlow(const HloInstruction& hlo) {
  return hlo.opcode() == HloOpcode::kWhile || hlo.opcode() == HloOpcode::kConditional ||
         hlo.opcode() == HloOpcode::kCall ||
         ((hlo.opcode() == HloOpcode::kSelect || hlo.opcode() == HloOpcode::kCopy) && hlo.shape().IsTuple());
}

// A variadic reduce, reduce-window, scatter or sort: its result is a tuple
// with one array per operand.
inline bool IsTupleReduce(const HloInstruction& hlo) {
  return (hlo.opcode() == HloOpcode::kReduce || hlo.opcode() == HloOpcode::kReduceWindow ||
          hlo.opcode() == HloOpcode::kScatter || hlo.opcode() == HloOpcode::kSort) &&
         hlo.shape().IsTuple();
}

// An op with an emitter of its own that writes a tuple of arrays, one
// buffer per leaf: a tuple reduce, rng-bit-generator's (state, bits), a
// collective of several operands, or a custom-call with a tuple result.
inline bool WritesTupleOfArrays(const HloInstruction& hlo) {
  return IsTupleReduce(hlo) || hlo.opcode() == HloOpcode::kRngBitGenerator ||
         (hlo.opcode() == HloOpcode::kCustomCall && hlo.shape().IsTuple()) ||
         ((hlo.opcode() == HloOpcode::kAllReduce || hlo.opcode() == HloOpcode::kAllGather ||
           hlo.opcode() == HloOpcode::kCollectiveBroadcast || hlo.opcode() == HloOpcode::kAllToAll ||
           hlo.opcode() == HloOpcode::kReduceScatter) &&
          hlo.shape().IsTuple());
}

// Fft, triangular-solve and cholesky: one call into the runtime
// (linalg_emitter.h) that reads its operands' buffers and writes its own;
// never fused, never part of a loop.
inline bool IsLinalgRuntimeCall(const HloInstruction& hlo) {
  return hlo.opcode() == HloOpcode::kFft || hlo.opcode() == HloOpcode::kTriangularSolve ||
         hlo.opcode() == HloOpcode::kCholesky;
}

// Ops whose element at an index can be generated inline in a consumer's
// loop (ElementalIrEmitter).
bool IsFusibleOpcode(HloOpcode opcode);

// A single-operand array reduce whose operand's minor-most layout dimension
// is not reduced (column sums): emitted as a loop over the reduced indices
// updating the whole output (reduction_emitter.h), never inline.
bool KeepsMinorDimension(const HloInstruction& hlo);

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_TRANSFORMS_EMISSION_KINDS_H_
