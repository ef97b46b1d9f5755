#include "backends/cpu/codegen/jit.h"

#include <cmath>
#include <cstring>
#include <algorithm>
#include <mutex>
#include <optional>
#include <thread>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "backends/cpu/codegen/invariant_select_versioning.h"
#include "backends/cpu/codegen/module_partition.h"
#include "backends/cpu/codegen/perf_map.h"
#include "backends/cpu/runtime/runtime_complex.h"
#include "backends/cpu/runtime/runtime_fft.h"
#include "backends/cpu/runtime/runtime_linalg.h"
#include "backends/cpu/runtime/runtime_math.h"
#include "backends/cpu/runtime/runtime_matmul.h"
#include "backends/cpu/codegen/streaming_stores.h"
#include "backends/cpu/runtime/runtime_parallel.h"
#include "backends/cpu/runtime/runtime_collectives.h"
#include "backends/cpu/runtime/runtime_custom_call.h"
#include "backends/cpu/runtime/runtime_random.h"
#include "backends/cpu/runtime/runtime_sort.h"
#include "backends/execution_control.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/ExecutionEngine/Orc/IRCompileLayer.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/PassTimingInfo.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "xla/status_macros.h"

namespace xla {
namespace cpu {

namespace {

void InitializeLlvmOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
    // Loops with constant trip counts above this are left to the vectorizer
    // and partial unrolling instead of being unrolled fully: the O3 full
    // unroller would turn e.g. a materialized 32x128 broadcast into 4096
    // straight-line stores, on which DSE then spends most of a compile
    // (chain of 100 ops: 0.73 s of 0.75 s in opt), for no run-time gain.
    // The full unroller's cost analysis, which simulates up to 10 iterations
    // of each candidate loop to see what would fold away, took 0.2 s of the
    // 0.9 s of opt on a 1000-instruction module (chain_1000 of the bench) and
    // changed no decision there or on GELU: our loop bodies are vector
    // arithmetic on loaded values, which nothing folds. Off, the unroller
    // decides by size alone. LLVM has no pipeline option for these limits;
    // these are its cl::opts, set once.
    llvm::StringMap<llvm::cl::Option*>& options = llvm::cl::getRegisteredOptions();
    auto set = [&](const char* name, const char* value) {
      auto it = options.find(name);
      // Position 1, as if first on a command line: some options (the post-RA
      // scheduler's) count only when given a position.
      if (it != options.end()) it->second->addOccurrence(1, name, value);
    };
    set("unroll-full-max-count", "16");
    set("unroll-max-iteration-count-to-analyze", "0");
    // Loops whose trip count is known only at run time get a vectorized
    // remainder loop (LLVM's default wants 16 lanes, which f32 on AVX2 never
    // has): with 8 lanes interleaved 8 times, a loop runs its vector body
    // only from 64 iterations on, and shorter ones (a dot epilogue's 48 or
    // 16 columns of an Eigen block) ran all scalar.
    set("epilogue-vectorization-minimum-VF", "8");
    // The post-register-allocation list scheduler reorders each block once
    // more for the latencies of an in-order pipeline; out-of-order x86 cores
    // reorder at run time anyway. It was 12-15% of code generation on the
    // bench's chain modules (fully unrolled vector rows).
    set("post-RA-scheduler", "false");
    // Loop strength reduction stays on although it took 38% of SSD-MobileNet's
    // code generation (the many addresses of interleaved depthwise windows),
    // and so does loop load elimination (17% of its optimization): without
    // them column sums ran 15-20% slower (their accumulators are stored and
    // loaded again each row), and LSR limited to small loops saved nothing.
  });
}

std::string ErrorString(llvm::Error error) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << error;
  return s;
}

// The functions JIT code may call: the runtime, and what LLVM lowers
// intrinsics and libm calls to.
llvm::orc::SymbolMap RuntimeSymbols(llvm::orc::LLJIT& jit) {
  llvm::orc::SymbolMap map;
  auto add = [&](const char* name, auto* fn) {
    map[jit.mangleAndIntern(name)] = {llvm::orc::ExecutorAddr::fromPtr(reinterpret_cast<void*>(fn)),
                                      llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
  };
  add("__xla_cpu_runtime_MatMulF32", &__xla_cpu_runtime_MatMulF32);
  add("__xla_cpu_runtime_MatMulF64", &__xla_cpu_runtime_MatMulF64);
  add("__xla_cpu_runtime_ParallelFor", &__xla_cpu_runtime_ParallelFor);
  add("__xla_cpu_runtime_Fft", &__xla_cpu_runtime_Fft);
#define XLA_CPU_ADD_LINALG(T)                                                         \
  add("__xla_cpu_runtime_TriangularSolve" #T, &__xla_cpu_runtime_TriangularSolve##T); \
  add("__xla_cpu_runtime_Cholesky" #T, &__xla_cpu_runtime_Cholesky##T);
  XLA_CPU_ADD_LINALG(F32) XLA_CPU_ADD_LINALG(F64) XLA_CPU_ADD_LINALG(C64) XLA_CPU_ADD_LINALG(C128)
#undef XLA_CPU_ADD_LINALG
  add("__xla_runtime_ShouldStop", &__xla_runtime_ShouldStop);
  add("__xla_runtime_StopFlag", &__xla_runtime_StopFlag);
  add("__xla_cpu_runtime_PowS64", &__xla_cpu_runtime_PowS64);
  add("__xla_cpu_runtime_PowU64", &__xla_cpu_runtime_PowU64);
  add("__xla_cpu_runtime_RngBitGenerator", &__xla_cpu_runtime_RngBitGenerator);
  add("__xla_cpu_runtime_SortSlice", &__xla_cpu_runtime_SortSlice);
  add("__xla_cpu_runtime_ProcessId", &__xla_cpu_runtime_ProcessId);
  add("__xla_cpu_runtime_Collective", &__xla_cpu_runtime_Collective);
  add("__xla_cpu_runtime_Infeed", &__xla_cpu_runtime_Infeed);
  add("__xla_cpu_runtime_Outfeed", &__xla_cpu_runtime_Outfeed);
  add("__xla_cpu_runtime_CustomCall", &__xla_cpu_runtime_CustomCall);
  add("__xla_cpu_runtime_Transfer", &__xla_cpu_runtime_Transfer);
  for (const RuntimeSymbol& s : ComplexRuntimeSymbols()) add(s.name, s.address);
  add("memcpy", static_cast<void* (*)(void*, const void*, size_t)>(&std::memcpy));
  add("memmove", static_cast<void* (*)(void*, const void*, size_t)>(&std::memmove));
  add("memset", static_cast<void* (*)(void*, int, size_t)>(&std::memset));
#define XLA_CPU_LIBM1(name)                                            \
  add(#name "f", static_cast<float (*)(float)>(&::name##f));           \
  add(#name, static_cast<double (*)(double)>(&::name));
#define XLA_CPU_LIBM2(name)                                            \
  add(#name "f", static_cast<float (*)(float, float)>(&::name##f));    \
  add(#name, static_cast<double (*)(double, double)>(&::name));
  XLA_CPU_LIBM1(exp) XLA_CPU_LIBM1(exp2) XLA_CPU_LIBM1(expm1) XLA_CPU_LIBM1(log) XLA_CPU_LIBM1(log2)
  XLA_CPU_LIBM1(log10) XLA_CPU_LIBM1(log1p) XLA_CPU_LIBM1(sin) XLA_CPU_LIBM1(cos) XLA_CPU_LIBM1(tan)
  XLA_CPU_LIBM1(tanh) XLA_CPU_LIBM1(erf) XLA_CPU_LIBM1(cbrt) XLA_CPU_LIBM1(sqrt) XLA_CPU_LIBM1(floor)
  XLA_CPU_LIBM1(ceil) XLA_CPU_LIBM1(round) XLA_CPU_LIBM1(roundeven) XLA_CPU_LIBM1(trunc) XLA_CPU_LIBM1(rint)
  XLA_CPU_LIBM1(nearbyint) XLA_CPU_LIBM1(fabs)
  XLA_CPU_LIBM2(pow) XLA_CPU_LIBM2(fmod) XLA_CPU_LIBM2(atan2) XLA_CPU_LIBM2(fmin) XLA_CPU_LIBM2(fmax)
  XLA_CPU_LIBM2(fminimum) XLA_CPU_LIBM2(fmaximum)
  // LLVM rewrites pow(2.0, sitofp(n)) into ldexp(1.0, n).
  add("ldexpf", static_cast<float (*)(float, int)>(&::ldexpf));
  add("ldexp", static_cast<double (*)(double, int)>(&::ldexp));
#undef XLA_CPU_LIBM1
#undef XLA_CPU_LIBM2
  return map;
}

// The IR compiler of a JIT that is only ever given objects (CpuJit adds
// what it compiled itself, in parts).
class ObjectsOnlyCompiler : public llvm::orc::IRCompileLayer::IRCompiler {
 public:
  ObjectsOnlyCompiler() : IRCompiler(llvm::orc::IRSymbolMapper::ManglingOptions()) {}
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> operator()(llvm::Module&) override {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "CpuJit links objects; it compiles no IR itself");
  }
};

// The data layout of a target, made once per target and features (asking
// LLVM makes a target machine).
absl::StatusOr<llvm::DataLayout> DataLayoutFor(llvm::orc::JITTargetMachineBuilder& builder) {
  static absl::Mutex mutex(absl::kConstInit);
  static auto* layouts = new absl::flat_hash_map<std::string, std::string>();
  const std::string key = absl::StrCat(builder.getTargetTriple().str(), "/", builder.getCPU(), "/",
                                       builder.getFeatures().getString());
  absl::MutexLock lock(&mutex);
  if (auto it = layouts->find(key); it != layouts->end()) return llvm::DataLayout(it->second);
  auto layout = builder.getDefaultDataLayoutForTarget();
  if (!layout) return absl::InternalError("CPU backend: data layout: " + ErrorString(layout.takeError()));
  (*layouts)[key] = layout->getStringRepresentation();
  return *layout;
}

}  // namespace

absl::StatusOr<std::unique_ptr<CpuJit>> CpuJit::Create(const CpuTarget& target) {
  InitializeLlvmOnce();
  auto jit = std::unique_ptr<CpuJit>(new CpuJit());
  // The process's triple; the CPU and its features are the target's
  // (detectHost would ask the host for both again, on every compile).
  llvm::orc::JITTargetMachineBuilder jtmb{llvm::Triple(llvm::sys::getProcessTriple())};
  jit->target_ = target;
  jit->cpu_name_ = target.cpu_name;
  jit->cpu_features_ = target.features;
  jtmb.setCPU(jit->cpu_name_);
  jtmb.getFeatures() = llvm::SubtargetFeatures(target.features);
  jtmb.setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  // What LLJIT picks for its JITLink linker, set before our own target
  // machine is made from the same builder: the dumped assembly is then the
  // code that runs (a JIT target machine otherwise defaults to the large
  // code model, whose constant loads need a register each).
  jtmb.setCodeModel(llvm::CodeModel::Small);
  jtmb.setRelocationModel(llvm::Reloc::PIC_);
  jit->triple_ = jtmb.getTargetTriple().str();
  jit->machine_builder_ = jtmb;
  ASSIGN_OR_RETURN(jit->data_layout_, DataLayoutFor(jtmb));

  // The JIT is given objects only, and its data layout: it makes no target
  // machine of its own (each costs a compile about as much as a small
  // module's instruction selection).
  auto lljit = llvm::orc::LLJITBuilder()
                   .setJITTargetMachineBuilder(std::move(jtmb))
                   .setDataLayout(jit->data_layout_)
                   .setCompileFunctionCreator([](llvm::orc::JITTargetMachineBuilder)
                                                  -> llvm::Expected<std::unique_ptr<llvm::orc::IRCompileLayer::IRCompiler>> {
                     return std::make_unique<ObjectsOnlyCompiler>();
                   })
                   .setLinkProcessSymbolsByDefault(false)
                   .setPlatformSetUp(llvm::orc::setUpInactivePlatform)
                   .create();
  if (!lljit) return absl::InternalError("CPU backend: creating LLJIT: " + ErrorString(lljit.takeError()));
  jit->jit_ = std::move(*lljit);
  if (PerfMapRequested()) {
    if (auto* linker = llvm::dyn_cast<llvm::orc::ObjectLinkingLayer>(&jit->jit_->getObjLinkingLayer())) {
      linker->addPlugin(MakePerfMapPlugin());
    }
  }
  llvm::orc::JITDylib& main = jit->jit_->getMainJITDylib();
  if (llvm::Error e = main.define(llvm::orc::absoluteSymbols(RuntimeSymbols(*jit->jit_)))) {
    return absl::InternalError("CPU backend: registering runtime symbols: " + ErrorString(std::move(e)));
  }
  // libmvec's vector variants for the ISA compiled for (vector_math_library.h).
  jit->vector_math_isa_ = VectorMathIsa::ForTarget(jit->triple_, jit->cpu_features_);
  auto vector_functions = ResolveVectorMathVariants(jit->vector_math_isa_);
  if (!vector_functions.ok()) return vector_functions.status();
  llvm::orc::SymbolMap vector_symbols;
  for (const ResolvedVectorFunction& f : *vector_functions) {
    vector_symbols[jit->jit_->mangleAndIntern(f.name)] = {
        llvm::orc::ExecutorAddr::fromPtr(f.address), llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
  }
  if (llvm::Error e = main.define(llvm::orc::absoluteSymbols(std::move(vector_symbols)))) {
    return absl::InternalError("CPU backend: registering libmvec symbols: " + ErrorString(std::move(e)));
  }
  return jit;
}

namespace {

// Idle target machines by target and level. A compile takes one for each
// thread it generates code on and gives it back, so that a machine and the
// subtarget it makes on first use outlive the compile: making both was 4% of
// a small module's compile. A machine is used by one thread at a time.
struct TargetMachinePool {
  static constexpr size_t kMaxIdlePerKey = 8;
  absl::Mutex mutex;
  absl::flat_hash_map<std::string, std::vector<std::unique_ptr<llvm::TargetMachine>>> idle ABSL_GUARDED_BY(mutex);
};

TargetMachinePool& Pool() {
  static TargetMachinePool* const pool = new TargetMachinePool;
  return *pool;
}

}  // namespace

void CpuJit::ReturnToPool::operator()(llvm::TargetMachine* machine) const {
  std::unique_ptr<llvm::TargetMachine> owned(machine);  // freed after the lock when the pool is full
  TargetMachinePool& pool = Pool();
  absl::MutexLock lock(&pool.mutex);
  std::vector<std::unique_ptr<llvm::TargetMachine>>& idle = pool.idle[key];
  if (idle.size() < TargetMachinePool::kMaxIdlePerKey) idle.push_back(std::move(owned));
}

absl::StatusOr<CpuJit::PooledTargetMachine> CpuJit::MakeTargetMachine(int optimization_level) const {
  const int level = std::clamp(optimization_level, 0, 3);
  std::string key = absl::StrCat(triple_, "/", cpu_name_, "/", cpu_features_, "/O", level);
  {
    TargetMachinePool& pool = Pool();
    absl::MutexLock lock(&pool.mutex);
    auto it = pool.idle.find(key);
    if (it != pool.idle.end() && !it->second.empty()) {
      llvm::TargetMachine* machine = it->second.back().release();
      it->second.pop_back();
      return PooledTargetMachine(machine, ReturnToPool{std::move(key)});
    }
  }
  llvm::orc::JITTargetMachineBuilder builder = *machine_builder_;
  static constexpr llvm::CodeGenOptLevel kLevels[] = {llvm::CodeGenOptLevel::None, llvm::CodeGenOptLevel::Less,
                                                      llvm::CodeGenOptLevel::Default,
                                                      llvm::CodeGenOptLevel::Aggressive};
  builder.setCodeGenOptLevel(kLevels[level]);
  auto machine = builder.createTargetMachine();
  if (!machine) return absl::InternalError("CPU backend: target machine: " + ErrorString(machine.takeError()));
  return PooledTargetMachine(machine->release(), ReturnToPool{std::move(key)});
}

absl::Status CpuJit::Optimize(llvm::Module& module, llvm::TargetMachine& machine, int optimization_level,
                              const ExecutionControl* control, std::string* pass_timings) const {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions pto;
  pto.LoopVectorization = optimization_level >= 2;
  pto.SLPVectorization = optimization_level >= 2;
  pto.LoopUnrolling = optimization_level >= 2;
  // Once the compile should stop, every optional pass left is skipped (LLVM
  // cannot abandon a pipeline midway; the required ones are few and fast).
  llvm::PassInstrumentationCallbacks instrumentation;
  if (control != nullptr) {
    instrumentation.registerShouldRunOptionalPassCallback(
        [control](llvm::StringRef, llvm::Any) { return !control->ShouldStop(); });
  }
  // The report's stream outlives the handler, which prints once more when
  // destroyed (nothing, its timers having been reset by the first print).
  std::optional<llvm::raw_string_ostream> timings_stream;
  std::optional<llvm::TimePassesHandler> timer;
  if (pass_timings != nullptr) {
    timings_stream.emplace(*pass_timings);
    timer.emplace(/*Enabled=*/true);
    timer->setOutStream(*timings_stream);
    timer->registerCallbacks(instrumentation);
  }
  llvm::PassBuilder pb(&machine, pto, std::nullopt, &instrumentation);
  pb.registerVectorizerStartEPCallback([](llvm::FunctionPassManager& fpm, llvm::OptimizationLevel) {
    fpm.addPass(InvariantSelectVersioningPass());
  });
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  static const llvm::OptimizationLevel kLevels[] = {llvm::OptimizationLevel::O0, llvm::OptimizationLevel::O1,
                                                    llvm::OptimizationLevel::O2, llvm::OptimizationLevel::O3};
  const llvm::OptimizationLevel level = kLevels[std::clamp(optimization_level, 0, 3)];
  llvm::ModulePassManager mpm =
      level == llvm::OptimizationLevel::O0 ? pb.buildO0DefaultPipeline(level) : pb.buildPerModuleDefaultPipeline(level);
  mpm.run(module, mam);
  if (timer.has_value()) {
    timer->print();
    timings_stream->flush();
  }
  if (control != nullptr) return control->CheckStop();
  return absl::OkStatus();
}

absl::StatusOr<std::string> CpuJit::CompileOnePart(llvm::Module& module, llvm::TargetMachine& machine,
                                                   const CodegenRequest& request, std::string* optimized_ir,
                                                   std::string* assembly, std::string* pass_timings) const {
  AddVectorMathVariants(module, vector_math_isa_);
  const absl::Time start = absl::Now();
  RETURN_IF_ERROR(Optimize(module, machine, request.optimization_level, request.control, pass_timings));
  const absl::Time optimized = absl::Now();
  MakeStreamingStoresNonTemporal(module);
  if (optimized_ir != nullptr) {
    llvm::raw_string_ostream os(*optimized_ir);
    module.print(os, nullptr);
  }
  if (assembly != nullptr) {
    // Code generation rewrites the IR it runs on: a copy is emitted.
    std::unique_ptr<llvm::Module> copy = llvm::CloneModule(module);
    ASSIGN_OR_RETURN(*assembly, EmitFile(*copy, machine, llvm::CodeGenFileType::AssemblyFile));
  }
  const absl::Time codegen_start = absl::Now();
  absl::StatusOr<std::string> object = EmitFile(module, machine, llvm::CodeGenFileType::ObjectFile);
  if (pass_timings != nullptr) {
    absl::StrAppendFormat(pass_timings,
                          "IR pipeline %.3f ms; code generation of the object (no per-pass times) %.3f ms\n",
                          absl::ToDoubleMilliseconds(optimized - start),
                          absl::ToDoubleMilliseconds(absl::Now() - codegen_start));
  }
  return object;
}

namespace {

absl::Status VerifyEmittedModule(const llvm::Module& module) {
  std::string errors;
  llvm::raw_string_ostream os(errors);
  if (llvm::verifyModule(module, &os)) return absl::InternalError("CPU backend: invalid LLVM IR: " + errors);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> CpuJit::OptimizeToObject(llvm::Module& module, const CodegenRequest& request) {
  RETURN_IF_ERROR(VerifyEmittedModule(module));
  ASSIGN_OR_RETURN(PooledTargetMachine machine, MakeTargetMachine(request.optimization_level));
  return CompileOnePart(module, *machine, request, request.optimized_ir, request.assembly, request.pass_timings);
}

absl::StatusOr<std::vector<std::string>> CpuJit::OptimizeToObjects(std::unique_ptr<llvm::LLVMContext> context,
                                                                   std::unique_ptr<llvm::Module> module,
                                                                   const CodegenRequest& request) {
  RETURN_IF_ERROR(VerifyEmittedModule(*module));
  struct PartOutput {
    absl::StatusOr<std::string> object = absl::UnknownError("not compiled");
    std::string optimized_ir, assembly, pass_timings;
  };
  const size_t max_parts = static_cast<size_t>(std::max(request.max_parts, 1));
  // Sized once: the threads write their own elements while parts are made.
  std::vector<PartOutput> outputs(max_parts);
  std::vector<std::string> bitcode(max_parts);
  auto compile = [&](llvm::Module& part, PartOutput& out) {
    absl::StatusOr<PooledTargetMachine> machine = MakeTargetMachine(request.optimization_level);
    if (!machine.ok()) {
      out.object = machine.status();
      return;
    }
    out.object = CompileOnePart(part, **machine, request, request.optimized_ir ? &out.optimized_ir : nullptr,
                                request.assembly ? &out.assembly : nullptr,
                                request.pass_timings ? &out.pass_timings : nullptr);
  };
  // Each part in a context and on a target machine of its own (neither is
  // thread-safe), on a thread started as soon as its bitcode is written;
  // the last is the module itself, compiled on this thread.
  auto compile_bitcode = [&](size_t p) {
    llvm::LLVMContext part_context;
    llvm::Expected<std::unique_ptr<llvm::Module>> part = llvm::parseBitcodeFile(
        llvm::MemoryBufferRef(bitcode[p], absl::StrCat("part", p)), part_context);
    if (!part) {
      outputs[p].object = absl::InternalError("CPU backend: reading a module part: " + ErrorString(part.takeError()));
      return;
    }
    compile(**part, outputs[p]);
  };
  std::vector<std::thread> threads;
  const int parts = PartitionModule(*module, request.max_parts, [&](int p, std::string part_bitcode) {
    bitcode[p] = std::move(part_bitcode);
    threads.emplace_back(compile_bitcode, static_cast<size_t>(p));
  });
  if (parts == 0) {
    absl::StatusOr<std::string> object = OptimizeToObject(*module, request);
    module.reset();  // before its context
    context.reset();
    if (!object.ok()) return object.status();
    return std::vector<std::string>{std::move(*object)};
  }
  compile(*module, outputs[parts - 1]);
  module.reset();  // before its context
  context.reset();
  for (std::thread& thread : threads) thread.join();
  outputs.resize(parts);

  std::vector<std::string> objects;
  for (size_t p = 0; p < outputs.size(); ++p) {
    PartOutput& out = outputs[p];
    if (!out.object.ok()) return out.object.status();
    objects.push_back(std::move(*out.object));
    const std::string header = absl::StrCat("; ---- part ", p + 1, " of ", outputs.size(), "\n");
    if (request.optimized_ir != nullptr) absl::StrAppend(request.optimized_ir, header, out.optimized_ir);
    if (request.assembly != nullptr) absl::StrAppend(request.assembly, header, out.assembly);
    if (request.pass_timings != nullptr) absl::StrAppend(request.pass_timings, header, out.pass_timings);
  }
  return objects;
}

absl::StatusOr<void*> CpuJit::AddObjects(const std::vector<std::string>& objects, const ExternalConstants& constants,
                                         const std::string& function, const std::string& name) {
  if (!constants.empty()) {
    llvm::orc::SymbolMap symbols;
    for (const ExternalConstants::Entry& constant : constants.entries()) {
      symbols[jit_->mangleAndIntern(constant.symbol)] = {llvm::orc::ExecutorAddr::fromPtr(constant.data.get()),
                                                         llvm::JITSymbolFlags::Exported};
    }
    if (llvm::Error e = jit_->getMainJITDylib().define(llvm::orc::absoluteSymbols(std::move(symbols)))) {
      return absl::InternalError("CPU backend: defining the constants: " + ErrorString(std::move(e)));
    }
  }
  for (size_t i = 0; i < objects.size(); ++i) {
    // ORC keeps the buffer alive while it links; the bytes are copied into it.
    std::unique_ptr<llvm::MemoryBuffer> buffer = llvm::MemoryBuffer::getMemBufferCopy(
        llvm::StringRef(objects[i].data(), objects[i].size()),
        objects.size() == 1 ? name : absl::StrCat(name, ".part", i + 1));
    if (llvm::Error e = jit_->addObjectFile(std::move(buffer))) {
      return absl::InternalError("CPU backend: adding the object file: " + ErrorString(std::move(e)));
    }
  }
  auto symbol = jit_->lookup(function);
  if (!symbol) return absl::InternalError("CPU backend: looking up " + function + ": " + ErrorString(symbol.takeError()));
  return symbol->toPtr<void*>();
}

absl::StatusOr<std::string> CpuJit::EmitFile(llvm::Module& module, llvm::TargetMachine& machine,
                                             llvm::CodeGenFileType type) {
  llvm::SmallString<0> out;
  llvm::raw_svector_ostream os(out);
  llvm::legacy::PassManager pm;
  if (machine.addPassesToEmitFile(pm, os, nullptr, type)) {
    return absl::InternalError(absl::StrCat("CPU backend: the target cannot emit ",
                                            type == llvm::CodeGenFileType::ObjectFile ? "object files" : "assembly"));
  }
  pm.run(module);
  return std::string(out.str());
}

}  // namespace cpu
}  // namespace xla
