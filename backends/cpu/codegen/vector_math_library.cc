#include "backends/cpu/codegen/vector_math_library.h"

#include <dlfcn.h>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/VFABIDemangler.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

namespace xla {
namespace cpu {

namespace {

// libmvec functions used, by their f64 names (f32: name + "f").
struct Function {
  const char* name;
  int arity;
};
constexpr Function kFunctions[] = {{"sin", 1},   {"cos", 1}, {"tan", 1}, {"cbrt", 1},  {"expm1", 1},
                                   {"log1p", 1}, {"erf", 1}, {"pow", 2}, {"atan2", 2}};

}  // namespace

VectorMathIsa VectorMathIsa::ForTarget(absl::string_view triple, absl::string_view features) {
  VectorMathIsa isa;
  if (!absl::StartsWith(triple, "x86_64")) return isa;
  isa.sse2 = true;  // baseline of x86-64
  for (absl::string_view f : absl::StrSplit(features, ',')) {
    if (f == "+avx") isa.avx = true;
    if (f == "+avx2") isa.avx2 = true;
    if (f == "+avx512f") isa.avx512f = true;
  }
  return isa;
}

std::vector<VectorMathVariant> VectorMathVariants(const VectorMathIsa& isa) {
  // Best ISA letter per register width; 0: none.
  struct Width {
    int bits;
    char letter;
  };
  const Width widths[] = {{128, isa.sse2 ? 'b' : '\0'},
                          {256, isa.avx2 ? 'd' : isa.avx ? 'c' : '\0'},
                          {512, isa.avx512f ? 'e' : '\0'}};
  std::vector<VectorMathVariant> out;
  for (const Function& fn : kFunctions) {
    for (bool f64 : {false, true}) {
      const std::string scalar = f64 ? fn.name : absl::StrCat(fn.name, "f");
      for (const Width& w : widths) {
        if (w.letter == '\0') continue;
        const int lanes = w.bits / (f64 ? 64 : 32);
        out.push_back({scalar, absl::StrCat("_ZGV", std::string(1, w.letter), "N", lanes, std::string(fn.arity, 'v'),
                                            "_", scalar),
                       lanes, fn.arity, f64});
      }
    }
  }
  return out;
}

void AddVectorMathVariants(llvm::Module& module, const VectorMathIsa& isa) {
  absl::flat_hash_map<std::string, std::vector<VectorMathVariant>> by_scalar;
  for (VectorMathVariant& v : VectorMathVariants(isa)) by_scalar[v.scalar_name].push_back(std::move(v));
  if (by_scalar.empty()) return;
  llvm::LLVMContext& ctx = module.getContext();
  std::vector<llvm::GlobalValue*> declared;
  std::vector<llvm::Function*> scalars;
  for (llvm::Function& f : module) {
    if (f.isDeclaration() && by_scalar.contains(f.getName().str())) scalars.push_back(&f);
  }
  for (llvm::Function* scalar : scalars) {
    const std::vector<VectorMathVariant>& variants = by_scalar.at(scalar->getName().str());
    llvm::Type* element = variants[0].f64 ? llvm::Type::getDoubleTy(ctx) : llvm::Type::getFloatTy(ctx);
    llvm::FunctionType* type = scalar->getFunctionType();
    // Only the libm signature (a same-named function of another type is not it).
    bool matches = type->getReturnType() == element && type->getNumParams() == unsigned(variants[0].arity);
    for (llvm::Type* p : type->params()) matches = matches && p == element;
    if (!matches) continue;
    std::vector<std::string> mappings;
    for (const VectorMathVariant& v : variants) {
      // _ZGV<isa>N<lanes><params>_<scalar>(<vector name>): here the vector
      // name is the ABI name itself.
      mappings.push_back(absl::StrCat(v.vector_name, "(", v.vector_name, ")"));
      if (module.getFunction(v.vector_name) != nullptr) continue;
      llvm::Type* vec = llvm::FixedVectorType::get(element, v.lanes);
      std::vector<llvm::Type*> params(v.arity, vec);
      llvm::Function* decl = llvm::Function::Create(llvm::FunctionType::get(vec, params, false),
                                                    llvm::GlobalValue::ExternalLinkage, v.vector_name, module);
      decl->setDoesNotThrow();
      decl->setWillReturn();
      decl->setDoesNotAccessMemory();
      declared.push_back(decl);
    }
    for (llvm::User* user : scalar->users()) {
      auto* call = llvm::dyn_cast<llvm::CallInst>(user);
      if (call != nullptr && call->getCalledFunction() == scalar) llvm::VFABI::setVectorVariantNames(call, mappings);
    }
  }
  // The vectorizer only uses variants declared in the module; unused
  // declarations would be dropped before it runs.
  if (!declared.empty()) llvm::appendToCompilerUsed(module, declared);
}

absl::StatusOr<std::vector<ResolvedVectorFunction>> ResolveVectorMathVariants(const VectorMathIsa& isa) {
  const std::vector<VectorMathVariant> variants = VectorMathVariants(isa);
  std::vector<ResolvedVectorFunction> out;
  if (variants.empty()) return out;
  // Opened once and kept for the life of the process (JIT code points into it).
  struct Library {
    void* handle = nullptr;
    std::string error;
  };
  static const Library* const library = [] {
    auto* lib = new Library;
    lib->handle = dlopen("libmvec.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib->handle == nullptr) {
      const char* error = dlerror();
      lib->error = error != nullptr ? error : "unknown error";
    }
    return lib;
  }();
  if (library->handle == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("CPU backend: glibc's vector math library libmvec.so.1 (vectorized sin, cos, tan, cbrt, expm1, "
                     "log1p, erf, pow, atan2) could not be loaded: ",
                     library->error));
  }
  for (const VectorMathVariant& v : variants) {
    void* address = dlsym(library->handle, v.vector_name.c_str());
    if (address == nullptr) {
      return absl::FailedPreconditionError(
          absl::StrCat("CPU backend: libmvec.so.1 has no ", v.vector_name, " (glibc 2.35 or newer is needed)"));
    }
    out.push_back({v.vector_name, address});
  }
  return out;
}

}  // namespace cpu
}  // namespace xla
