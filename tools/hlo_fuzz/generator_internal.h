// The generator's machinery, shared by its parts: generator_core.cc (values,
// shapes, constants, operands), generator_elementwise.cc,
// generator_shape_ops.cc, generator_compute_ops.cc and
// generator_control_flow.cc (one op family each), module_generator.cc (the
// module and its op schedule).
#ifndef TOOLS_HLO_FUZZ_GENERATOR_INTERNAL_H_
#define TOOLS_HLO_FUZZ_GENERATOR_INTERNAL_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "tools/hlo_fuzz/module_generator.h"
#include "tools/hlo_fuzz/precision.h"
#include "xla/hlo/hlo_opcode.h"
#include "xla/shape.h"

namespace xla {
namespace hlo_fuzz {

// What the generator assumes of a float parameter's finite values (the
// arguments mostly stay within [-4, 4]); the runner's analysis uses the
// actual arguments instead.
inline constexpr double kAssumedParameterMagnitude = 4;

// The element bound of arrays in a large module (GeneratorOptions::large_fraction).
inline constexpr int64_t kLargeElements = int64_t{1} << 17;

struct Value {
  std::string name;
  Shape shape;  // an array, with its layout
  Precision precision;
  int uses = 0;
  bool is_leaf = false;  // a parameter or constant (not worth returning)
  int line = -1;         // its line in the scope
};

// One computation being built.
struct Scope {
  std::string name;
  std::vector<std::string> lines;
  std::deque<Value> values;  // stable addresses
  bool is_entry = false;
  int parameters = 0;
  int depth = 0;  // 0 for the entry; called computations are deeper
};

class Generator {
 public:
  Generator(uint64_t seed, const GeneratorOptions& options);
  GeneratedModule Generate();

  // ---- Randomness --------------------------------------------------------
  int Uniform(int n);  // [0, n)
  int Range(int lo, int hi);  // [lo, hi]
  bool Chance(double p);
  // An index drawn with the given weights.
  int Weighted(const std::vector<int>& weights);

  // ---- Text and bookkeeping ------------------------------------------------
  std::string Fresh(absl::string_view stem);
  static std::string ShapeText(const Shape& shape);
  static std::string TypeName(PrimitiveType type);
  // Appends "name = <shape> <rhs>" to the current scope and pools the value.
  Value* Emit(const Shape& shape, const std::string& rhs, const Precision& precision, absl::string_view op);
  // A tuple-shaped instruction (not pooled); returns its name.
  std::string EmitTuple(const std::vector<Shape>& shapes, const std::string& rhs, absl::string_view op);
  // The operand's name, counting the use.
  std::string Use(Value* v);
  void Count(const std::string& what) { ++counts_[what]; }
  // Adds a finished called computation (text) to the module.
  void AddComputation(const std::string& text) { computations_.push_back(text); }

  // ---- Types, shapes, layouts -----------------------------------------------
  PrimitiveType RandomFloatType();
  PrimitiveType RandomIntType();
  PrimitiveType RandomArrayType();  // floats, ints or pred
  std::vector<int64_t> RandomDims(int rank);
  Shape RandomShape(PrimitiveType type, int rank);
  // `dims` of `type` with a random (sometimes non-default) layout.
  Shape MakeShape(PrimitiveType type, const std::vector<int64_t>& dims);
  int64_t max_elements() const { return large_ ? kLargeElements : options_.max_elements; }

  // ---- Operands ---------------------------------------------------------------
  // A random pooled value satisfying `filter` (recent and unused ones
  // preferred), or null.
  Value* Pick(const std::function<bool(const Value&)>& filter);
  // A value of `type` and `dims`: a pooled one, or a new parameter, constant,
  // iota, broadcast constant or convert. `exact`: only exact values.
  Value* FindOrMake(PrimitiveType type, const std::vector<int64_t>& dims, bool exact);
  Value* NewParameter(const Shape& shape);
  // A scalar constant of `type`: an edge value (NaN, -0, INT_MIN...) or an
  // ordinary one.
  Value* ScalarConstant(PrimitiveType type);
  Value* ScalarConstant(PrimitiveType type, const std::string& literal_text);
  std::string ScalarLiteralText(PrimitiveType type);
  // The identity of a reducer op for `type` ("0", "-inf", ...).
  static std::string IdentityText(HloOpcode op, PrimitiveType type);
  // A scalar index of `type` for dynamic slicing of a dimension of size `dim`:
  // often out of range or negative.
  Value* IndexScalar(PrimitiveType type, int64_t dim);
  // A constant s32 array `dims` with values in [lo, hi].
  Value* IndexArray(const std::vector<int64_t>& dims, int64_t lo, int64_t hi);

  // A scalar computation (T, T) -> T applying `op` ("assign" when op is
  // kParameter: returns the second argument); cached per (op, type).
  std::string ScalarReducer(HloOpcode op, PrimitiveType type);
  // A variadic reducer over (value of `type`, s32 index) pairs keeping the
  // largest value (smaller index on ties).
  std::string ArgmaxReducer(PrimitiveType type);

  // ---- Op families (each returns false when it found nothing to do) -------------
  bool UnaryFloatOp();
  bool UnaryIntOp();
  bool BinaryOp(bool floats);
  bool CompareOp();
  bool SelectOp();
  bool ClampOp();
  bool ConvertOp();
  bool BroadcastOp();
  bool ReshapeOp();
  bool TransposeOp();
  bool SliceOp();
  bool ReverseOp();
  bool ConcatenateOp();
  bool PadOp();
  bool IotaOp();
  bool DynamicSliceOp();
  bool DynamicUpdateSliceOp();
  bool GatherOp();
  bool ScatterOp();
  bool ReduceOp();
  bool ReduceWindowOp();
  bool DotOp();
  bool ConvolutionOp();
  bool WhileOp();
  bool ConditionalOp();
  bool CallOp();

  // Draws `n` ops into the current scope (control flow only at depth 0).
  void GenerateOps(int n);

  // Called computations are built in a scope of their own, one deeper;
  // PopScope returns to the caller's scope and gives back the finished one.
  Scope* current() { return scope_; }
  void PushScope(const std::string& name);
  std::unique_ptr<Scope> PopScope();
  // Marks the line of `v` (in the current scope) as the ROOT.
  void MarkRoot(Value* v);
  // "name {\n<lines>\n}\n"
  static std::string ComputationText(const Scope& scope);

 private:
  std::mt19937_64 rng_;
  GeneratorOptions options_;
  bool large_ = false;  // this module's arrays are large
  int next_name_ = 0;
  Scope* scope_ = nullptr;
  std::vector<std::unique_ptr<Scope>> scopes_;  // the entry first
  std::vector<std::string> computations_;
  std::map<std::string, std::string> reducers_;  // key -> computation name
  std::map<std::string, int> counts_;
};

// A ProgramShape of `n` parameters of `shape` and a `result`.
ProgramShape MakeProgramShape(const std::vector<Shape>& parameters, const Shape& result);

// Dimensions without the ones listed in `removed` (sorted).
std::vector<int64_t> RemoveDims(const std::vector<int64_t>& dims, const std::vector<int64_t>& removed);

// "{1,2,3}"
std::string ListText(const std::vector<int64_t>& values);

}  // namespace hlo_fuzz
}  // namespace xla

#endif  // TOOLS_HLO_FUZZ_GENERATOR_INTERNAL_H_
