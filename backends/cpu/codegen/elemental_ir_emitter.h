// ElementalIrEmitter: generates the value of an HLO instruction at a
// multi-index as LLVM IR, recursing into operands that are not materialized
// in a buffer. This is what fuses elementwise producers (unary/binary/
// compare/select/clamp/convert, broadcast, reshape, transpose, slice,
// reverse, iota, concatenate, pad, constant) into the loop of their
// consumer. Reduce and dot values are generated with inner loops.
//
// Scalar semantics match the reference evaluator (xla/evaluator/
// elementwise_kernels.h): wrapping integer arithmetic, x/0 = -1, x%0 = x,
// shift amounts >= the bit width give 0 or the sign fill, NaN-propagating
// float max/min with -0 < +0, saturating float->int converts with NaN -> 0.
// PRED values are i1 in registers and one byte in memory. F16/BF16 values
// are float in registers, rounded back to their type after every op.
// C64/C128 values are {re, im} structs (complex_ir_emitter.h).
//
// The definitions, by concept: elemental_ir_emitter.cc (element types,
// loads and stores, literal elements, and GenerateUnrounded's dispatch to
// one handler per opcode), elemental_ir_emitter_arithmetic.cc (elementwise
// ops, compare, convert, clamp, bitcast-convert),
// elemental_ir_emitter_data_movement.cc (broadcast, transpose, slice,
// reverse, reshape, iota, dynamic-slice, gather, concatenate, pad) and
// elemental_ir_emitter_reduction.cc (reduce, reduce-window, dot,
// convolution, scalar computations and map); helpers they share in
// elemental_ir_emitter_internal.h.
#ifndef BACKENDS_CPU_CODEGEN_ELEMENTAL_IR_EMITTER_H_
#define BACKENDS_CPU_CODEGEN_ELEMENTAL_IR_EMITTER_H_

#include <functional>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "backends/cpu/codegen/emit_context.h"
#include "backends/cpu/codegen/loop_emitter.h"
#include "backends/cpu/transforms/emission_kinds.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "xla/hlo/hlo_computation.h"
#include "xla/hlo/hlo_instruction.h"

namespace xla {
namespace cpu {

// Element types this backend emits code for; others are Unimplemented.
bool IsSupportedElementType(PrimitiveType type);
absl::Status CheckSupportedElementType(PrimitiveType type, const HloInstruction& context);
// Register type of an element (i1 for PRED) and memory type (i8 for PRED).
llvm::Type* IrValueType(PrimitiveType type, llvm::LLVMContext& ctx);
llvm::Type* IrStorageType(PrimitiveType type, llvm::LLVMContext& ctx);


// Reduce-window elements fold windows of up to this many positions in
// straight-line code (one copy of the reducer per position), larger ones in
// a loop over the window.
constexpr int64_t kMaxStraightLineWindowPositions = 64;

// For a concatenate, its operands' extents along its dimension as loop
// pieces (see EmitLoopNest); no split (dim -1) for any other instruction.
LoopPieces ConcatenatePieces(const HloInstruction& hlo);

class ElementalIrEmitter {
 public:
  // Address of the buffer holding `hlo` (already computed), or nullptr when
  // its elements are to be generated inline.
  using BufferLookup = std::function<llvm::Value*(const HloInstruction*)>;

  ElementalIrEmitter(EmitContext& ctx, BufferLookup buffers)
      : ctx_(&ctx), b_(ctx.b), module_(ctx.module), buffers_(std::move(buffers)) {}

  // `hlo`'s buffer holds only the current row: it is indexed as `row_shape`
  // (its shape with the row dimension of size 1).
  void SetRowBuffer(const HloInstruction* hlo, const Shape& row_shape) { row_buffer_shapes_[hlo] = row_shape; }

  // The element of `hlo` at `index`: a load if it is in a buffer, else
  // generated from its operands.
  absl::StatusOr<llvm::Value*> EmitElement(const HloInstruction* hlo, const IrIndex& index);
  // Generates the element from the operands even if `hlo` has a buffer (used
  // to fill that buffer).
  absl::StatusOr<llvm::Value*> GenerateElement(const HloInstruction* hlo, const IrIndex& index);
  // The concatenate by whose operands a loop over `hlo`'s elements can be
  // split (LoopPieces): `hlo` itself, or one it generates inline through
  // elementwise ops, which read it at the same index; null when none.
  const HloInstruction* SplittingConcatenate(const HloInstruction* hlo);
  // Inside loop piece `piece` of ConcatenatePieces(*concat), whose loop
  // variable is `iv`: `concat`'s elements at indices with `iv` along its
  // dimension are read from that operand directly, with no choice between
  // operands.
  void SetConcatenatePiece(const HloInstruction* concat, llvm::Value* iv, int64_t piece) {
    piece_concat_ = concat;
    piece_iv_ = iv;
    piece_ = piece;
  }

  // Linear position of `index` in `shape`'s layout.
  llvm::Value* LinearIndex(const Shape& shape, const IrIndex& index);
  llvm::Value* LoadElement(llvm::Value* base, const Shape& shape, const IrIndex& index);
  void StoreElement(llvm::Value* value, llvm::Value* base, const Shape& shape, const IrIndex& index);

  // Applies a scalar computation (a reducer) to register values. With
  // `reassociate`, float adds/multiplies may be reassociated so that LLVM can
  // vectorize the reduction loop around them.
  absl::StatusOr<llvm::Value*> EmitScalarComputation(const HloComputation& computation,
                                                     absl::Span<llvm::Value* const> args, bool reassociate);
  // The same for a computation whose root may be a tuple of scalars: one
  // value per root tuple element (one value for a scalar root).
  absl::StatusOr<std::vector<llvm::Value*>> EmitScalarComputationValues(const HloComputation& computation,
                                                                        absl::Span<llvm::Value* const> args,
                                                                        bool reassociate);
  // The N values of reduce `hlo` (N operands, N init values; a tuple result
  // when N > 1) at the result index `index`: the reduced elements folded in
  // row-major order of the reduced dimensions, acc = f(acc..., x...), as
  // xla/evaluator/reduce_op.cc does.
  absl::StatusOr<std::vector<llvm::Value*>> EmitVariadicReduceElement(const HloInstruction* hlo,
                                                                      const IrIndex& index);
  // The N values of reduce-window `hlo` at `index`: each window's positions
  // folded in row-major order, the init values where the window covers
  // padding or a base dilation hole (the document pads with init values), as
  // the evaluator does. Windows of at most kMaxStraightLineWindowPositions
  // positions are emitted position by position, larger ones as a loop nest.
  absl::StatusOr<std::vector<llvm::Value*>> EmitVariadicReduceWindowElement(const HloInstruction* hlo,
                                                                            const IrIndex& index);

  absl::StatusOr<llvm::Value*> EmitUnaryOp(const HloInstruction& hlo, PrimitiveType in_type, llvm::Value* x);
  absl::StatusOr<llvm::Value*> EmitBinaryOp(const HloInstruction& hlo, PrimitiveType type, llvm::Value* a,
                                            llvm::Value* b, bool reassociate = false);
  absl::StatusOr<llvm::Value*> EmitCompare(const HloInstruction& hlo, PrimitiveType type, llvm::Value* a,
                                           llvm::Value* b);
  // `d` (a double) as a float rounded to odd: truncated toward zero, last
  // bit set when inexact. A later round to nearest f16/bf16 then equals one
  // rounding of `d` (f32 has more than two bits beyond either).
  llvm::Value* RoundToOddFloat(llvm::Value* d);
  llvm::Value* EmitConvert(PrimitiveType from, PrimitiveType to, llvm::Value* x);
  // complex(re, im): f32 -> c64 or f64 -> c128.
  absl::StatusOr<llvm::Value*> EmitComplexFromParts(const HloInstruction& hlo, llvm::Value* re, llvm::Value* im);
  // Element `linear` of a literal, as a register value.
  llvm::Value* EmitLiteralElement(const Literal& literal, int64_t linear);
  // For F16/BF16 (held as float): `v` rounded to the type; else `v`.
  llvm::Value* RoundToType(PrimitiveType type, llvm::Value* v);
  // The scalar zero of a type.
  llvm::Value* Zero(PrimitiveType type);

  // Start indices of a dynamic(-update)-slice from operand `first` on, as
  // i64, clamped into [0, operand dim - size] as the evaluator does (u64
  // values above INT64_MAX read as INT64_MAX).
  absl::StatusOr<std::vector<llvm::Value*>> EmitClampedStarts(const HloInstruction& hlo, int64_t first,
                                                              const Shape& operand, absl::Span<const int64_t> sizes);
  // An integral index value of `type` as i64 clamped into [0, hi].
  llvm::Value* EmitClampedIndex(llvm::Value* v, PrimitiveType type, int64_t hi);

  llvm::IRBuilder<>* builder() { return b_; }

 private:
  // The element of `hlo` at `index` from its operands, before rounding to
  // a small float type: the handler of its opcode, Unimplemented for an
  // opcode without one.
  absl::StatusOr<llvm::Value*> GenerateUnrounded(const HloInstruction* hlo, const IrIndex& index);
  // Opcode handlers of GenerateUnrounded (those not declared elsewhere).
  absl::StatusOr<llvm::Value*> EmitClampElement(const HloInstruction* hlo, const IrIndex& index);
  absl::StatusOr<llvm::Value*> EmitBroadcastElement(const HloInstruction* hlo, const IrIndex& index);
  absl::StatusOr<llvm::Value*> EmitTransposeElement(const HloInstruction* hlo, const IrIndex& index);
  absl::StatusOr<llvm::Value*> EmitSliceElement(const HloInstruction* hlo, const IrIndex& index);
  absl::StatusOr<llvm::Value*> EmitReverseElement(const HloInstruction* hlo, const IrIndex& index);
  absl::StatusOr<llvm::Value*> EmitIotaElement(const HloInstruction* hlo, const IrIndex& index);
  absl::StatusOr<llvm::Value*> EmitDynamicSliceElement(const HloInstruction* hlo, const IrIndex& index);
  absl::StatusOr<llvm::Value*> EmitMapElement(const HloInstruction* hlo, const IrIndex& index);
  absl::StatusOr<llvm::Value*> EmitReduceElement(const HloInstruction* hlo, const IrIndex& index);
  // Reduce-window of one operand (EmitVariadicReduceWindowElement).
  absl::StatusOr<llvm::Value*> EmitReduceWindowElement(const HloInstruction* hlo, const IrIndex& index);
  // acc + l * r in `type` (pred: acc | (l & r)); integers wrap.
  llvm::Value* MultiplyAdd(PrimitiveType type, llvm::Value* acc, llvm::Value* l, llvm::Value* r);
  absl::StatusOr<llvm::Value*> EmitDotElement(const HloInstruction* hlo, const IrIndex& index);
  // Convolution: the sum over kernel positions (skipping padding and lhs
  // dilation holes) and the kernel's input features, as the evaluator does.
  absl::StatusOr<llvm::Value*> EmitConvolutionElement(const HloInstruction* hlo, const IrIndex& index);
  absl::StatusOr<llvm::Value*> EmitGatherElement(const HloInstruction* hlo, const IrIndex& index);
  absl::StatusOr<llvm::Value*> EmitConcatenateElement(const HloInstruction* hlo, const IrIndex& index);
  absl::StatusOr<llvm::Value*> EmitPadElement(const HloInstruction* hlo, const IrIndex& index);
  // Whether `hlo`'s elements are loads from a buffer through index-only
  // ops (slice, transpose, reshape, broadcast, reverse) and converts: cheap
  // and safe to read at any in-range index.
  bool ReadsOnlyBuffers(const HloInstruction* hlo);
  absl::StatusOr<llvm::Value*> EmitBitcastConvertElement(const HloInstruction* hlo, const IrIndex& index);
  absl::StatusOr<llvm::Value*> EmitReducePrecisionElement(const HloInstruction* hlo, const IrIndex& index);
  // A register value as the integer of its storage bits, and back.
  llvm::Value* ToBits(PrimitiveType type, llvm::Value* v);
  llvm::Value* FromBits(PrimitiveType type, llvm::Value* bits);
  absl::StatusOr<llvm::Value*> EmitReshapeElement(const HloInstruction* hlo, const IrIndex& index);
  // A scalar stack slot in the function's entry block (promoted by mem2reg).
  llvm::AllocaInst* EntryAlloca(llvm::Type* type, const std::string& name);
  // Declares (once) an external scalar function `name` of `type` -> `type`.
  llvm::FunctionCallee LibmFunction(const std::string& name, llvm::Type* type, int arity);
  absl::StatusOr<llvm::Value*> CallLibm(const HloInstruction& hlo, const char* f32_name, const char* f64_name,
                                        PrimitiveType type, std::vector<llvm::Value*> args);
  absl::StatusOr<llvm::Value*> Intrinsic1(llvm::Intrinsic::ID id, llvm::Value* x);

  EmitContext* ctx_;
  llvm::IRBuilder<>* b_;
  llvm::Module* module_;
  BufferLookup buffers_;
  // Buffers holding one row of their instruction (row_fusion.h scratch).
  absl::flat_hash_map<const HloInstruction*, Shape> row_buffer_shapes_;
  // SetConcatenatePiece's.
  const HloInstruction* piece_concat_ = nullptr;
  llvm::Value* piece_iv_ = nullptr;
  int64_t piece_ = -1;
};

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_CODEGEN_ELEMENTAL_IR_EMITTER_H_
