#include "backends/cpu/codegen/random_bits_emitter.h"

#include <cstdint>
#include <vector>

#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "xla/primitive_util.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"

namespace xla {
namespace cpu {

absl::Status RandomBitsEmitter::EmitRngBitGenerator(const HloInstruction& hlo) {
  const Shape& shape = hlo.shape();
  if (!shape.IsTuple() || shape.tuple_shapes().size() != 2 || !shape.tuple_shapes()[1].IsArray() ||
      !hlo.operand(0)->shape().IsArray()) {
    return Internal("CPU backend: %s: rng-bit-generator needs a (state, bits) result", hlo.name());
  }
  const Shape& data = shape.tuple_shapes()[1];
  // The generator writes row-major elements.
  if (!ShapeUtil::HasDefaultLayout(data)) {
    return Unimplemented("CPU backend: %s: rng-bit-generator into a non-row-major layout %s", hlo.name(),
                         data.ToString());
  }
  ASSIGN_OR_RETURN(std::vector<llvm::Value*> leaves, buffers_.LeafAddressesOf(&hlo));
  if (leaves.size() != 2) return Internal("CPU backend: %s: bad rng-bit-generator leaves", hlo.name());
  ASSIGN_OR_RETURN(llvm::Value * state, buffers_.AddressOf(hlo.operand(0)));

  std::vector<uint64_t> dims(data.dimensions().begin(), data.dimensions().end());
  if (dims.empty()) dims.push_back(1);  // a non-empty array for the global; rank 0 is passed below
  auto* dims_init = llvm::ConstantDataArray::get(module_->getContext(), dims);
  auto* dims_global = new llvm::GlobalVariable(*module_, dims_init->getType(), /*isConstant=*/true,
                                               llvm::GlobalValue::PrivateLinkage, dims_init, hlo.name() + ".dims");
  llvm::Type* ptr = b_.getPtrTy();
  llvm::Type* i64 = b_.getInt64Ty();
  llvm::Type* i32 = b_.getInt32Ty();
  llvm::FunctionCallee generator = module_->getOrInsertFunction(
      "__xla_cpu_runtime_RngBitGenerator",
      llvm::FunctionType::get(b_.getVoidTy(), {i32, ptr, i64, ptr, i64, i32, ptr, ptr}, false));
  b_.CreateCall(generator, {b_.getInt32(hlo.attributes().rng_algorithm()), state,
                            b_.getInt64(hlo.operand(0)->shape().dimensions(0)), dims_global,
                            b_.getInt64(data.rank()), b_.getInt32(primitive_util::BitWidth(data.element_type())),
                            leaves[1], leaves[0]});
  return absl::OkStatus();
}

}  // namespace cpu
}  // namespace xla
