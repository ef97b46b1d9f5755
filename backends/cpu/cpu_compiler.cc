#include "backends/cpu/cpu_compiler.h"

#include <algorithm>
#include <climits>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "backends/cpu/cpu_executable.h"
#include "backends/cpu/transforms/cpu_pipeline.h"
#include "backends/cpu/runtime/cpu_thread_pool.h"
#include "backends/cpu/codegen/buffer_assignment.h"
#include "backends/cpu/codegen/ir_emitter.h"
#include "backends/cpu/codegen/jit.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"
#include "backends/cpu/saved_executable.h"
#include "backends/host_memory_pool.h"
#include "proto/cpu_executable.pb.h"
#include "xla/build_id.h"
#include "xla/custom_call/custom_call_invocation.h"
#include "xla/shape_util.h"
#include "xla/status_macros.h"

namespace xla {
namespace cpu {

namespace {
constexpr char kEntryName[] = "xla_cpu_entry";

// The entries of comma-separated feature list `a` that `b` lacks (for
// messages: two complete lists differ in a few of their hundred entries).
std::string FeaturesNotIn(absl::string_view a, absl::string_view b) {
  const std::vector<absl::string_view> b_entries = absl::StrSplit(b, ',');
  const absl::flat_hash_set<absl::string_view> in_b(b_entries.begin(), b_entries.end());
  std::vector<absl::string_view> missing;
  for (absl::string_view feature : absl::StrSplit(a, ',')) {
    if (!in_b.contains(feature)) missing.push_back(feature);
  }
  return absl::StrJoin(missing, ",");
}
}  // namespace

namespace {

// A module through the HLO passes, buffer assignment and IR emission, with
// the JIT that owns its target: what a JIT compile and an ahead-of-time
// compile share.
struct EmittedModule {
  std::unique_ptr<CpuJit> jit;
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> llvm_module;
  int64_t arena_bytes = 0;
  std::vector<InPlaceResult> in_place_results;
  int threads = 1;
  CpuTarget target;
  std::vector<std::unique_ptr<CustomCallInvocation>> custom_calls;
  // The large constants left out of the code (JIT compiles only).
  std::unique_ptr<ExternalConstants> constants;
  // Where the compile's time went so far, for the dump.
  double hlo_passes_ms = 0;
  double emission_ms = 0;  // the JIT's setup, buffer assignment and IR emission
  int64_t shared_kernels = 0;  // kernels emitted once for several fusions
};

absl::StatusOr<EmittedModule> EmitModule(HloModule* module, const DebugOptions& options,
                                         const ExecutionControl* control, const std::string& entry_symbol,
                                         bool external_constants) {
  if (module == nullptr || module->entry_computation() == nullptr) {
    return InvalidArgument("CPU backend: module has no entry computation");
  }
  if (options.has_xla_backend_optimization_level() &&
      (options.xla_backend_optimization_level() < 0 || options.xla_backend_optimization_level() > 3)) {
    return InvalidArgument("CPU backend: xla_backend_optimization_level must be 0 to 3, not %d",
                           options.xla_backend_optimization_level());
  }
  // An unregistered custom-call target fails before any pass or code.
  RETURN_IF_ERROR(CheckCustomCallTargets(*module));
  // The compile's checks: between HLO passes, between emitted
  // instructions, before every LLVM pass, and before code generation.
  auto check_stop = [control]() { return control == nullptr ? absl::OkStatus() : control->CheckStop(); };
  RETURN_IF_ERROR(check_stop());
  absl::Time start = absl::Now();
  RETURN_IF_ERROR(RunCpuHloPasses(module, options, kVerifyEachCpuPass, check_stop));
  EmittedModule emitted;
  emitted.hlo_passes_ms = absl::ToDoubleMilliseconds(absl::Now() - start);
  start = absl::Now();
  ASSIGN_OR_RETURN(emitted.target, ResolveCpuTarget(options.xla_cpu_target()));
  ASSIGN_OR_RETURN(emitted.jit, CpuJit::Create(emitted.target));
  CpuJit& jit = *emitted.jit;
  emitted.context = std::make_unique<llvm::LLVMContext>();
  emitted.llvm_module = std::make_unique<llvm::Module>(module->name(), *emitted.context);
  emitted.llvm_module->setTargetTriple(jit.triple());
  emitted.llvm_module->setDataLayout(jit.data_layout());

  emitted.threads = ResolveCpuThreadCount(options.xla_cpu_threads());
  ASSIGN_OR_RETURN(std::unique_ptr<BufferAssignment> assignment, BufferAssignment::Run(*module));
  RETURN_IF_ERROR(DumpToFile(options, module->name() + ".buffer-assignment.txt", assignment->ToString()));
  RETURN_IF_ERROR(check_stop());
  IrEmitter emitter(emitted.llvm_module.get(), emitted.threads, *assignment);
  emitter.set_stop_check(check_stop);
  if (external_constants) emitter.set_external_constant_min_bytes(kMinExternalConstantBytes);
  RETURN_IF_ERROR(emitter.EmitEntryFunction(*module->entry_computation(), entry_symbol));
  for (llvm::Function& f : *emitted.llvm_module) {
    if (f.isDeclaration()) continue;
    f.addFnAttr("target-cpu", jit.cpu_name());
    f.addFnAttr("target-features", jit.cpu_features());
  }
  emitted.shared_kernels = emitter.shared_kernels();
  emitted.arena_bytes = assignment->arena_bytes();
  emitted.in_place_results = assignment->in_place_results();
  emitted.custom_calls = emitter.TakeCustomCalls();
  emitted.constants = std::make_unique<ExternalConstants>();
  for (const IrEmitter::ExternalConstant& constant : emitter.TakeExternalConstants()) {
    emitted.constants->Add(constant.symbol,
                           absl::string_view(static_cast<const char*>(constant.literal->untyped_data()),
                                             constant.literal->size_bytes()));
  }
  emitted.emission_ms = absl::ToDoubleMilliseconds(absl::Now() - start);
  if (!options.xla_dump_to().empty()) {
    std::string ir;
    llvm::raw_string_ostream os(ir);
    emitted.llvm_module->print(os, nullptr);
    RETURN_IF_ERROR(DumpToFile(options, module->name() + ".ir-no-opt.ll", ir));
  }
  return emitted;
}

// The optimization level asked for, and how many parts a large module is
// compiled in: as many as the threads each run may use (which bound what a
// compile takes of a shared machine too; the service caps them).
CpuJit::CodegenRequest CodegenRequestFor(const DebugOptions& options, int threads) {
  CpuJit::CodegenRequest request;
  if (options.has_xla_backend_optimization_level()) {
    request.optimization_level = options.xla_backend_optimization_level();
  }
  request.max_parts = threads;
  return request;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Executable>> CpuCompiler::Compile(std::unique_ptr<HloModule> module,
                                                                 const DebugOptions& options,
                                                                 const ExecutionControl* control) {
  ASSIGN_OR_RETURN(EmittedModule emitted,
                   EmitModule(module.get(), options, control, kEntryName, /*external_constants=*/true));
  std::string optimized_ir, assembly, pass_timings;
  const bool dump = !options.xla_dump_to().empty();
  CpuJit::CodegenRequest request = CodegenRequestFor(options, emitted.threads);
  request.control = control;
  if (dump || options.xla_cpu_keep_optimized_ir()) request.optimized_ir = &optimized_ir;
  if (dump) {
    request.assembly = &assembly;
    request.pass_timings = &pass_timings;
  }
  absl::Time start = absl::Now();
  ASSIGN_OR_RETURN(std::vector<std::string> objects,
                   emitted.jit->OptimizeToObjects(std::move(emitted.context), std::move(emitted.llvm_module), request));
  const double llvm_ms = absl::ToDoubleMilliseconds(absl::Now() - start);
  start = absl::Now();
  ASSIGN_OR_RETURN(void* entry, emitted.jit->AddObjects(objects, *emitted.constants, kEntryName, module->name()));
  const double link_ms = absl::ToDoubleMilliseconds(absl::Now() - start);
  if (dump) {
    // The split of the LLVM time, part by part, ends each part's section of
    // NAME.llvm-pass-timings.txt.
    RETURN_IF_ERROR(DumpToFile(
        options, module->name() + ".compile-phases.txt",
        absl::StrFormat("HLO passes %.3f ms\nJIT setup, buffer assignment and IR emission %.3f ms "
                        "(%d kernel(s) shared with an identical one)\n"
                        "LLVM (IR pipeline and code generation, %d part(s)) %.3f ms\nlinking %.3f ms\n"
                        "(while dumping, which adds its own time)\n",
                        emitted.hlo_passes_ms, emitted.emission_ms, static_cast<int>(emitted.shared_kernels),
                        static_cast<int>(objects.size()), llvm_ms,
                        link_ms)));
  }
  RETURN_IF_ERROR(DumpToFile(options, module->name() + ".ir-opt.ll", optimized_ir));
  RETURN_IF_ERROR(DumpToFile(options, module->name() + ".s", assembly));
  // Where the LLVM part of the compile went, pass by pass.
  RETURN_IF_ERROR(DumpToFile(options, module->name() + ".llvm-pass-timings.txt", pass_timings));
  if (!options.xla_cpu_keep_optimized_ir()) optimized_ir.clear();
  auto executable = std::make_unique<CpuExecutable>(
      std::move(module), std::move(emitted.jit), reinterpret_cast<CpuExecutable::EntryFunction>(entry),
      emitted.arena_bytes, std::move(optimized_ir), emitted.threads, FeaturesMissingOnHost(emitted.target),
      std::move(emitted.custom_calls), std::move(objects), std::move(emitted.constants));
  executable->set_in_place_results(std::move(emitted.in_place_results));
  return executable;
}

absl::StatusOr<AotCompilation> CompileAheadOfTime(std::unique_ptr<HloModule> module, const DebugOptions& options,
                                                  const std::string& symbol) {
  // The object carries its constants: nothing defines symbols for it.
  ASSIGN_OR_RETURN(EmittedModule emitted,
                   EmitModule(module.get(), options, nullptr, symbol, /*external_constants=*/false));
  llvm::Module& llvm_module = *emitted.llvm_module;
  // What only a service provides has no ahead-of-time runtime.
  if (!emitted.custom_calls.empty()) {
    return Unimplemented("ahead-of-time compilation of '%s': custom calls are bound by a service",
                         module->name());
  }
  // The runtime functions the ahead-of-time runtime links in by name (the
  // complex helpers are registered with the JIT by address only).
  static const absl::flat_hash_set<std::string>* const kLinkable = new absl::flat_hash_set<std::string>{
      "__xla_cpu_runtime_MatMulF32", "__xla_cpu_runtime_MatMulF64", "__xla_cpu_runtime_ParallelFor",
      "__xla_cpu_runtime_Fft", "__xla_cpu_runtime_TriangularSolveF32", "__xla_cpu_runtime_TriangularSolveF64",
      "__xla_cpu_runtime_TriangularSolveC64", "__xla_cpu_runtime_TriangularSolveC128",
      "__xla_cpu_runtime_CholeskyF32", "__xla_cpu_runtime_CholeskyF64", "__xla_cpu_runtime_CholeskyC64",
      "__xla_cpu_runtime_CholeskyC128", "__xla_cpu_runtime_PowS64", "__xla_cpu_runtime_PowU64",
      "__xla_cpu_runtime_RngBitGenerator", "__xla_cpu_runtime_SortSlice", "__xla_runtime_ShouldStop",
      "__xla_runtime_StopFlag"};
  for (const llvm::Function& f : llvm_module) {
    const std::string name = f.getName().str();
    if (f.isDeclaration() && absl::StartsWith(name, "__xla_") && !kLinkable->contains(name)) {
      return Unimplemented(
          "ahead-of-time compilation of '%s': the code calls %s, which only the service's runtime has "
          "(collectives, infeed/outfeed, custom calls, host transfers, replica ids, complex math helpers)",
          module->name(), name);
    }
  }
  // Code linked into another program: only the entry is visible, so that
  // several compiled modules link into one binary.
  for (llvm::Function& f : llvm_module) {
    if (!f.isDeclaration() && f.getName() != symbol) f.setLinkage(llvm::GlobalValue::InternalLinkage);
  }
  for (llvm::GlobalVariable& g : llvm_module.globals()) {
    if (!g.isDeclaration()) g.setLinkage(llvm::GlobalValue::InternalLinkage);
  }
  // Nothing stops an ahead-of-time run (its control is null): its stop
  // checks call the runtime's never-stopping ones, not the service's.
  for (auto [from, to] : {std::pair{"__xla_runtime_ShouldStop", "__xla_aot_runtime_ShouldStop"},
                          std::pair{"__xla_runtime_StopFlag", "__xla_aot_runtime_StopFlag"}}) {
    if (llvm::Function* f = llvm_module.getFunction(from)) f->setName(to);
  }
  AotCompilation result;
  ASSIGN_OR_RETURN(result.object_code,
                   emitted.jit->OptimizeToObject(llvm_module, CodegenRequestFor(options, /*threads=*/1)));
  result.program_shape = module->entry_computation()->ComputeProgramShape();
  result.arena_bytes = emitted.arena_bytes;
  result.threads = emitted.threads;
  result.target = emitted.target.Describe();
  return result;
}

absl::StatusOr<std::string> CpuCompiler::PersistentKey(const DebugOptions& options) {
  // Without a build id nothing tells this build's code from another's.
  if (BuildId().empty()) return std::string();
  ASSIGN_OR_RETURN(const CpuTarget target, ResolveCpuTarget(options.xla_cpu_target()));
  return absl::StrCat("cpu executable v2\nbuild ", BuildId(), "\nllvm ", LLVM_VERSION_STRING, "\ncpu ",
                      target.cpu_name, "\nfeatures ", target.features, "\nthreads ",
                      ResolveCpuThreadCount(options.xla_cpu_threads()));
}

absl::StatusOr<std::string> CpuCompiler::SerializeExecutable(const Executable& executable) {
  const auto* cpu = dynamic_cast<const CpuExecutable*>(&executable);
  if (cpu == nullptr) return InvalidArgument("CPU backend: not a CPU executable");
  if (cpu->holds_process_addresses()) {
    return FailedPrecondition("CPU backend: the code holds this process's addresses of bound custom calls");
  }
  if (cpu->objects().empty() || BuildId().empty()) {
    return FailedPrecondition("CPU backend: no object code or no build id to save");
  }
  CpuExecutableProto proto;
  proto.set_module_name(cpu->module_name());
  proto.set_entry_name(cpu->entry_name());
  *proto.mutable_program_shape() = cpu->program_shape().ToProto();
  for (const std::string& object : cpu->objects()) proto.add_object_code(object);
  std::vector<absl::string_view> constants;
  if (cpu->constants() != nullptr) {
    for (const ExternalConstants::Entry& constant : cpu->constants()->entries()) {
      proto.add_external_constants()->set_symbol(constant.symbol);
      constants.emplace_back(constant.data.get(), constant.bytes);
    }
  }
  proto.set_entry_symbol(kEntryName);
  proto.set_arena_bytes(cpu->arena_bytes());
  for (const InputOutputAlias& alias : cpu->input_output_aliases()) {
    *proto.add_input_output_alias() = InputOutputAliasToProto(alias);
  }
  for (const InPlaceResult& in_place : cpu->in_place_results()) {
    CpuInPlaceResultProto* r = proto.add_in_place_results();
    r->set_result_leaf(in_place.result_leaf);
    r->set_parameter(in_place.parameter);
  }
  proto.set_threads(cpu->threads());
  proto.set_cpu_name(cpu->target().cpu_name);
  proto.set_cpu_features(cpu->target().features);
  proto.set_build_id(BuildId());
  return EncodeSavedExecutable(std::move(proto), constants);
}

absl::StatusOr<std::unique_ptr<Executable>> CpuCompiler::LoadExecutable(absl::string_view bytes,
                                                                        std::shared_ptr<const void> bytes_owner,
                                                                        const DebugOptions& options) {
  ASSIGN_OR_RETURN(DecodedSavedExecutable decoded, DecodeSavedExecutable(bytes));
  CpuExecutableProto& proto = decoded.proto;
  if (proto.build_id() != BuildId()) {
    return FailedPrecondition("CPU backend: the saved executable is from build %s, this is %s", proto.build_id(),
                              BuildId());
  }
  ASSIGN_OR_RETURN(const CpuTarget target, ResolveCpuTarget(options.xla_cpu_target()));
  if (proto.cpu_name() != target.cpu_name || proto.cpu_features() != target.features) {
    return FailedPrecondition("CPU backend: the saved executable is for %s with features {%s}, the compile asks for "
                              "%s with {%s}",
                              proto.cpu_name(), FeaturesNotIn(proto.cpu_features(), target.features),
                              target.Describe(), FeaturesNotIn(target.features, proto.cpu_features()));
  }
  if (!FeaturesMissingOnHost(target).empty()) {
    return FailedPrecondition("CPU backend: the saved executable's target %s is not this host's",
                              target.Describe());
  }
  const int threads = ResolveCpuThreadCount(options.xla_cpu_threads());
  if (proto.threads() != threads || proto.arena_bytes() < 0 || proto.object_code().empty() ||
      proto.entry_symbol() != kEntryName) {
    return FailedPrecondition("CPU backend: the saved executable is for %d threads (this compile: %d) or malformed",
                              proto.threads(), threads);
  }
  ASSIGN_OR_RETURN(ProgramShape program_shape, ShapeUtil::ProgramShapeFromProto(proto.program_shape()));
  ASSIGN_OR_RETURN(std::unique_ptr<CpuJit> jit, CpuJit::Create(target));
  std::vector<std::string> objects(std::make_move_iterator(proto.mutable_object_code()->begin()),
                                   std::make_move_iterator(proto.mutable_object_code()->end()));
  auto constants = std::make_unique<ExternalConstants>();
  for (int i = 0; i < proto.external_constants_size(); ++i) {
    const std::string& symbol = proto.external_constants(i).symbol();
    if (!absl::StartsWith(symbol, "__xla_constant.")) {
      return FailedPrecondition("CPU backend: the saved executable has a malformed constant");
    }
    // In place when the bytes stay (the persistent cache's mapping) and are
    // aligned as the code expects; copied otherwise.
    const absl::string_view data = decoded.constants[i];
    if (bytes_owner != nullptr && reinterpret_cast<uintptr_t>(data.data()) % HostMemoryPool::kAlignment == 0) {
      constants->AddInPlace(symbol, data, bytes_owner);
    } else {
      constants->Add(symbol, data);
    }
  }
  ASSIGN_OR_RETURN(void* entry, jit->AddObjects(objects, *constants, proto.entry_symbol(), proto.module_name()));
  std::vector<InputOutputAlias> aliases;
  for (const InputOutputAliasProto& alias : proto.input_output_alias()) {
    aliases.push_back(InputOutputAliasFromProto(alias));
  }
  // The saved aliases are checked like a module's: a damaged entry must not
  // make a run write where it should not.
  RETURN_IF_ERROR(CheckInputOutputAliases(aliases, program_shape));
  std::vector<InPlaceResult> in_place;
  for (const CpuInPlaceResultProto& r : proto.in_place_results()) {
    const bool aliased = std::any_of(aliases.begin(), aliases.end(), [&](const InputOutputAlias& a) {
      return a.parameter == r.parameter() && a.parameter_index.empty() &&
             LeafNumber(program_shape.result(), a.output_index) == r.result_leaf();
    });
    if (!aliased) return FailedPrecondition("CPU backend: the saved executable has a malformed in-place result");
    in_place.push_back({r.result_leaf(), r.parameter()});
  }
  auto executable = std::make_unique<CpuExecutable>(
      proto.module_name(), proto.entry_name(), std::move(program_shape), std::move(jit),
      reinterpret_cast<CpuExecutable::EntryFunction>(entry), proto.arena_bytes(), threads, std::move(objects),
      std::move(constants));
  executable->set_input_output_aliases(std::move(aliases));
  executable->set_in_place_results(std::move(in_place));
  return executable;
}

}  // namespace cpu
}  // namespace xla
