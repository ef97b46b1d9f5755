#include "backends/cpu/cpu_compiler.h"

#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_executable.h"
#include "backends/cpu/transforms/cpu_pipeline.h"
#include "backends/cpu/runtime/cpu_thread_pool.h"
#include "backends/cpu/codegen/buffer_assignment.h"
#include "backends/cpu/codegen/ir_emitter.h"
#include "backends/cpu/codegen/jit.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"
#include "xla/custom_call/custom_call_invocation.h"
#include "xla/status_macros.h"

namespace xla {
namespace cpu {

namespace {
constexpr char kEntryName[] = "xla_cpu_entry";
}

absl::StatusOr<std::unique_ptr<Executable>> CpuCompiler::Compile(std::unique_ptr<HloModule> module,
                                                                 const DebugOptions& options,
                                                                 const ExecutionControl* control) {
  if (module == nullptr || module->entry_computation() == nullptr) {
    return InvalidArgument("CPU backend: module has no entry computation");
  }
  // An unregistered custom-call target fails before any pass or code.
  RETURN_IF_ERROR(CheckCustomCallTargets(*module));
  // The compile's checks: between HLO passes, between emitted
  // instructions, before every LLVM pass, and before code generation.
  auto check_stop = [control]() { return control == nullptr ? absl::OkStatus() : control->CheckStop(); };
  RETURN_IF_ERROR(check_stop());
  RETURN_IF_ERROR(RunCpuHloPasses(module.get(), options, kVerifyEachCpuPass, check_stop));
  ASSIGN_OR_RETURN(const CpuTarget target, ResolveCpuTarget(options.xla_cpu_target()));
  ASSIGN_OR_RETURN(std::unique_ptr<CpuJit> jit, CpuJit::Create(target));
  auto context = std::make_unique<llvm::LLVMContext>();
  auto llvm_module = std::make_unique<llvm::Module>(module->name(), *context);
  llvm_module->setTargetTriple(jit->triple());
  llvm_module->setDataLayout(jit->data_layout());

  const int threads = ResolveCpuThreadCount(options.xla_cpu_threads());
  ASSIGN_OR_RETURN(std::unique_ptr<BufferAssignment> assignment, BufferAssignment::Run(*module));
  RETURN_IF_ERROR(DumpToFile(options, module->name() + ".buffer-assignment.txt", assignment->ToString()));
  RETURN_IF_ERROR(check_stop());
  IrEmitter emitter(llvm_module.get(), threads, *assignment);
  emitter.set_stop_check(check_stop);
  RETURN_IF_ERROR(emitter.EmitEntryFunction(*module->entry_computation(), kEntryName));
  for (llvm::Function& f : *llvm_module) {
    if (f.isDeclaration()) continue;
    f.addFnAttr("target-cpu", jit->cpu_name());
    f.addFnAttr("target-features", jit->cpu_features());
  }
  const int64_t arena_bytes = assignment->arena_bytes();
  if (!options.xla_dump_to().empty()) {
    std::string ir;
    llvm::raw_string_ostream os(ir);
    llvm_module->print(os, nullptr);
    RETURN_IF_ERROR(DumpToFile(options, module->name() + ".ir-no-opt.ll", ir));
  }
  std::string optimized_ir, assembly, pass_timings;
  const bool dump = !options.xla_dump_to().empty();
  ASSIGN_OR_RETURN(void* entry, jit->AddModule(std::move(context), std::move(llvm_module), kEntryName, &optimized_ir,
                                               dump ? &assembly : nullptr, control, dump ? &pass_timings : nullptr));
  RETURN_IF_ERROR(DumpToFile(options, module->name() + ".ir-opt.ll", optimized_ir));
  RETURN_IF_ERROR(DumpToFile(options, module->name() + ".s", assembly));
  // Where the LLVM part of the compile went, pass by pass.
  RETURN_IF_ERROR(DumpToFile(options, module->name() + ".llvm-pass-timings.txt", pass_timings));
  return std::make_unique<CpuExecutable>(std::move(module), std::move(jit),
                                         reinterpret_cast<CpuExecutable::EntryFunction>(entry), arena_bytes,
                                         std::move(optimized_ir), threads, FeaturesMissingOnHost(target),
                                         emitter.TakeCustomCalls());
}

}  // namespace cpu
}  // namespace xla
