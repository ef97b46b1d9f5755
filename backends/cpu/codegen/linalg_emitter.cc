#include "backends/cpu/codegen/linalg_emitter.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "llvm/IR/Constants.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"

namespace xla {
namespace cpu {
namespace {

// Every shape row-major and of a type the runtime takes.
absl::Status CheckRuntimeShapes(const HloInstruction& hlo) {
  std::vector<const Shape*> shapes = {&hlo.shape()};
  for (const HloInstruction* o : hlo.operands()) shapes.push_back(&o->shape());
  for (const Shape* s : shapes) {
    const PrimitiveType t = s->element_type();
    if (!s->IsArray() || !ShapeUtil::HasDefaultLayout(*s) || (t != F32 && t != F64 && t != C64 && t != C128)) {
      return absl::InternalError(absl::StrCat("CPU backend: ", hlo.name(), ": the runtime takes row-major ",
                                              "f32/f64/c64/c128 arrays, got ", s->ToString(true),
                                              " (linalg-canonicalization did not run?)"));
    }
  }
  return absl::OkStatus();
}

// The product of the dimensions before the innermost `minor` of `shape`.
int64_t Batch(const Shape& shape, int64_t minor) {
  int64_t batch = 1;
  for (int64_t d = 0; d + minor < shape.rank(); ++d) batch *= shape.dimensions(d);
  return batch;
}

// "F32", "F64", "C64" or "C128": the runtime function's suffix.
std::string TypeSuffix(PrimitiveType type) {
  switch (type) {
    case F32: return "F32";
    case F64: return "F64";
    case C64: return "C64";
    default: return "C128";
  }
}

}  // namespace

absl::Status LinalgEmitter::EmitFft(const HloInstruction& fft) {
  RETURN_IF_ERROR(CheckRuntimeShapes(fft));
  const HloInstructionProto& attrs = fft.attributes();
  const int64_t fft_rank = attrs.fft_length_size();
  if (fft_rank < 1 || fft_rank > 3) return absl::InternalError(absl::StrCat("CPU backend: ", fft.name(), ": fft rank"));
  const PrimitiveType type = fft.shape().element_type();
  const bool double_precision = type == F64 || type == C128;
  llvm::Type* ptr = b_.getPtrTy();
  llvm::Type* i64 = b_.getInt64Ty();
  llvm::Type* i32 = b_.getInt32Ty();
  llvm::FunctionCallee fn = module_->getOrInsertFunction(
      "__xla_cpu_runtime_Fft",
      llvm::FunctionType::get(b_.getVoidTy(), {ptr, ptr, ptr, i32, i32, i32, i64, i64, i64, i64, ptr}, false));
  llvm::Value* device = ctx_.device != nullptr ? ctx_.device : llvm::ConstantPointerNull::get(b_.getPtrTy());
  ASSIGN_OR_RETURN(llvm::Value * out, buffers_.AddressOf(&fft));
  ASSIGN_OR_RETURN(llvm::Value * in, buffers_.AddressOf(fft.operand(0)));
  int64_t lengths[3] = {1, 1, 1};
  for (int64_t i = 0; i < fft_rank; ++i) lengths[i] = attrs.fft_length(i);
  b_.CreateCall(fn, {device, out, in, b_.getInt32(attrs.fft_type()), b_.getInt32(double_precision ? 1 : 0),
                     b_.getInt32(static_cast<int32_t>(fft_rank)), b_.getInt64(Batch(fft.shape(), fft_rank)),
                     b_.getInt64(lengths[0]), b_.getInt64(lengths[1]), b_.getInt64(lengths[2]),
                     ctx_.StopFlagArgument()});
  return absl::OkStatus();
}

absl::Status LinalgEmitter::EmitTriangularSolve(const HloInstruction& solve) {
  RETURN_IF_ERROR(CheckRuntimeShapes(solve));
  const TriangularSolveOptions& options = solve.attributes().triangular_solve_options();
  const Shape& b_shape = solve.operand(1)->shape();
  const int64_t rank = b_shape.rank();
  const int64_t m = solve.operand(0)->shape().dimensions(rank - 1);
  const int64_t n = options.left_side() ? b_shape.dimensions(rank - 1) : b_shape.dimensions(rank - 2);
  int32_t transpose = 0;
  if (options.transpose_a() == TriangularSolveOptions::TRANSPOSE) transpose = 1;
  if (options.transpose_a() == TriangularSolveOptions::ADJOINT) transpose = 2;
  llvm::Type* ptr = b_.getPtrTy();
  llvm::Type* i64 = b_.getInt64Ty();
  llvm::Type* i32 = b_.getInt32Ty();
  llvm::FunctionCallee fn = module_->getOrInsertFunction(
      "__xla_cpu_runtime_TriangularSolve" + TypeSuffix(solve.shape().element_type()),
      llvm::FunctionType::get(b_.getVoidTy(), {ptr, ptr, ptr, ptr, i64, i64, i64, i32, i32, i32, i32, ptr}, false));
  llvm::Value* device = ctx_.device != nullptr ? ctx_.device : llvm::ConstantPointerNull::get(b_.getPtrTy());
  ASSIGN_OR_RETURN(llvm::Value * out, buffers_.AddressOf(&solve));
  ASSIGN_OR_RETURN(llvm::Value * a, buffers_.AddressOf(solve.operand(0)));
  ASSIGN_OR_RETURN(llvm::Value * b, buffers_.AddressOf(solve.operand(1)));
  b_.CreateCall(fn, {device, out, a, b, b_.getInt64(Batch(b_shape, 2)), b_.getInt64(m), b_.getInt64(n),
                     b_.getInt32(options.left_side()), b_.getInt32(options.lower()),
                     b_.getInt32(options.unit_diagonal()), b_.getInt32(transpose), ctx_.StopFlagArgument()});
  return absl::OkStatus();
}

absl::Status LinalgEmitter::EmitCholesky(const HloInstruction& cholesky) {
  RETURN_IF_ERROR(CheckRuntimeShapes(cholesky));
  const Shape& shape = cholesky.shape();
  llvm::Type* ptr = b_.getPtrTy();
  llvm::Type* i64 = b_.getInt64Ty();
  llvm::Type* i32 = b_.getInt32Ty();
  llvm::FunctionCallee fn = module_->getOrInsertFunction(
      "__xla_cpu_runtime_Cholesky" + TypeSuffix(shape.element_type()),
      llvm::FunctionType::get(b_.getVoidTy(), {ptr, ptr, ptr, i64, i64, i32, ptr}, false));
  llvm::Value* device = ctx_.device != nullptr ? ctx_.device : llvm::ConstantPointerNull::get(b_.getPtrTy());
  ASSIGN_OR_RETURN(llvm::Value * out, buffers_.AddressOf(&cholesky));
  ASSIGN_OR_RETURN(llvm::Value * a, buffers_.AddressOf(cholesky.operand(0)));
  b_.CreateCall(fn, {device, out, a, b_.getInt64(Batch(shape, 2)), b_.getInt64(shape.dimensions(shape.rank() - 1)),
                     b_.getInt32(cholesky.attributes().cholesky_options().lower()), ctx_.StopFlagArgument()});
  return absl::OkStatus();
}

}  // namespace cpu
}  // namespace xla
