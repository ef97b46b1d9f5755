// Emitter: lowers a parsed module (ast.h) to HLO, one entry point at a
// time. The core (scopes, functions, regions, control flow, calls, checks)
// is in emitter.cc; one handler per StableHLO op in op_lowering.cc; the
// chlo decompositions in chlo_lowering.cc (larger function families in
// the files chlo_formulas.h lists). Internal to the importer.
#ifndef XLA_STABLEHLO_EMITTER_H_
#define XLA_STABLEHLO_EMITTER_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "proto/hlo.pb.h"
#include "xla/hlo/hlo_computation.h"
#include "xla/hlo/hlo_instruction.h"
#include "xla/hlo/hlo_module.h"
#include "xla/stablehlo/ast.h"
#include "xla/stablehlo/importer.h"
#include "xla/stablehlo/lexer.h"

namespace xla {
namespace stablehlo {

using Values = std::vector<HloInstruction*>;

// Names visible while lowering one block. A region's scope sees its
// parents' names: constants are cloned into the region's computation, and
// control-flow regions get their other captured values passed in (bound
// here before lowering); reducers cannot capture anything else.
struct Scope {
  Scope* parent = nullptr;
  HloComputation* comp = nullptr;
  absl::flat_hash_map<std::string, Values> values;
  // The entry function's top level, where checks become outputs.
  bool is_entry_body = false;
  // The last outfeed record of this block's computation (InstrumentSite):
  // the next one waits for it, so records keep program order.
  HloInstruction* record_token = nullptr;
  // A reducer, comparator or map body (no side effects there).
  bool in_reducer = false;
};

class Emitter {
 public:
  Emitter(const Module& module, const Lexer& lexer, const ImportOptions& options);

  absl::StatusOr<EntryPoint> ImportEntry(const Func& func);

  // --- used by the op handlers --------------------------------------------
  const Lexer& lexer() const { return lex_; }
  absl::Status Error(size_t loc, absl::string_view message) const { return lex_.Error(loc, message); }
  absl::Status OpError(const Op& op, absl::string_view message) const;

  absl::StatusOr<HloInstruction*> Operand(const Op& op, size_t i, Scope& scope);
  absl::StatusOr<Values> Operands(const Op& op, Scope& scope);
  // The values of operand i, row-major, which must be an integer constant
  // (the shape operands of the dynamic_* ops); `what` names it in errors.
  absl::StatusOr<std::vector<int64_t>> ConstantIntOperand(const Op& op, size_t i, Scope& scope,
                                                         absl::string_view what);
  absl::Status ExpectOperands(const Op& op, size_t n) const;
  // The declared type of result i as a shape (nullopt when not written).
  absl::StatusOr<std::optional<Shape>> ResultShape(const Op& op, size_t i) const;
  absl::StatusOr<Shape> RequiredResultShape(const Op& op, size_t i) const;

  // Adds an instruction whose shape comes from shape inference (checked
  // against `declared` when given); errors are located at `op`.
  absl::StatusOr<HloInstruction*> Emit(const Op& op, Scope& scope, HloOpcode opcode, const Values& operands,
                                       HloInstructionProto attrs = {}, const std::vector<HloComputation*>& called = {},
                                       const std::optional<Shape>& declared = std::nullopt);
  HloInstruction* AddConstant(Scope& scope, Literal literal);
  // Element i of a tuple-shaped instruction.
  HloInstruction* AddGetTupleElement(Scope& scope, HloInstruction* tuple, int64_t i);
  HloInstruction* AddTuple(Scope& scope, const Values& elements);
  // Every element of a tuple-shaped instruction.
  Values Untuple(Scope& scope, HloInstruction* tuple);

  // A region whose block arguments are scalars/arrays passed as parameters
  // (reducers, comparators, map and scatter bodies); returns its values as
  // the root (a tuple when there are several).
  absl::StatusOr<HloComputation*> LowerReducerRegion(const Op& op, const Region& region, Scope& outer,
                                                     const std::string& what);
  absl::StatusOr<Values> LowerWhile(const Op& op, Scope& scope);
  absl::StatusOr<Values> LowerScan(const Op& op, Scope& scope);        // chlo.scan (chlo_scan.cc)
  absl::StatusOr<Values> LowerRaggedDot(const Op& op, Scope& scope);  // chlo.ragged_dot (chlo_ragged_dot.cc)
  absl::StatusOr<Values> LowerConditional(const Op& op, Scope& scope, HloInstruction* index);
  absl::StatusOr<Values> LowerCall(const Op& op, Scope& scope, const std::string& callee);
  absl::StatusOr<Values> LowerCheck(const Op& op, Scope& scope);
  // Sends tuple(site, values...) to the outfeed when records are wanted
  // (check_lowering.cc; see InstrumentSite).
  absl::Status EmitRecord(const Op& op, Scope& scope, InstrumentSite site, const Values& values);
  // stablehlo.custom_call of a target other than check.* (custom_call_lowering.cc).
  absl::StatusOr<Values> LowerCustomCall(const Op& op, Scope& scope, const std::string& target);
  absl::StatusOr<std::vector<int64_t>> LayoutList(const Attr& layout) const;

  // The op handlers: StableHLO ops (op_lowering.cc) and chlo ops
  // (chlo_lowering.cc). Return the op's results.
  absl::StatusOr<Values> LowerStablehloOp(const Op& op, Scope& scope);
  absl::StatusOr<Values> LowerChloOp(const Op& op, Scope& scope);
  // Ops with `!quant.uniform` operand or result types (quant_lowering.cc).
  static bool HasQuantizedTypes(const Op& op);
  absl::StatusOr<Values> LowerQuantizedOp(const Op& op, Scope& scope);
  // Tokens, I/O and collectives (distributed_lowering.cc); `name` without
  // the "stablehlo." prefix.
  static bool IsDistributedOp(const std::string& name);
  absl::StatusOr<Values> LowerDistributedOp(const Op& op, Scope& scope, const std::string& name);

  // Attribute access (pretty and generic names; the first present wins).
  const Attr* FindAttr(const Op& op, std::initializer_list<const char*> names) const;
  absl::StatusOr<std::vector<int64_t>> IntList(const Attr& attr) const;
  absl::StatusOr<std::vector<int64_t>> IntListAttr(const Op& op, std::initializer_list<const char*> names,
                                                   bool required = true) const;
  absl::StatusOr<int64_t> IntAttr(const Op& op, std::initializer_list<const char*> names,
                                  std::optional<int64_t> default_value = std::nullopt) const;
  absl::StatusOr<bool> BoolAttr(const Op& op, const char* name, bool default_value) const;
  absl::StatusOr<std::string> EnumAttr(const Op& op, std::initializer_list<const char*> names,
                                       std::optional<std::string> default_value = std::nullopt) const;
  // A dense<...> attribute as rows of int64 (e.g. padding = dense<[[1, 2]]>).
  absl::StatusOr<std::vector<std::vector<int64_t>>> IntMatrix(const Attr& attr) const;

 private:
  // The entry's input_output_aliases from its arguments' tf.aliasing_output.
  absl::Status ImportAliasing(const Func& func);
  absl::StatusOr<HloComputation*> LowerFunction(const Func& func, bool is_entry);
  // interpreter.run_parallel at ops[i] of the entry body (run_parallel.cc):
  // ends the current module (its root: the run's operands, then the values
  // ops after i use), records a ParallelStage, and continues in a new module
  // whose parameters are the run's results and those values.
  absl::Status SplitAtRunParallel(const Block& block, size_t i, Scope& scope);
  // An instrumented module must not also use stablehlo.outfeed (the
  // records would be mixed with its values); `loc` locates the error.
  absl::Status CheckRecordsAlone(const HloModule& module, size_t loc) const;
  // Imports `name` as a module of its own whose entry returns a tuple.
  absl::StatusOr<std::unique_ptr<HloModule>> ImportProgram(const Op& op, const std::string& name);
  // `loc`: the region's, for a block without a return.
  absl::StatusOr<Values> LowerBlock(const Block& block, Scope& scope, size_t loc);
  absl::Status LowerOp(const Op& op, Scope& scope);
  absl::StatusOr<Values> Lookup(const ValueRef& ref, Scope& scope);
  std::unique_ptr<HloComputation> NewComputation(const std::string& base);
  // Names a region uses but does not define (nested regions included), in
  // first-use order.
  std::vector<std::string> FreeNames(const std::vector<const Region*>& regions) const;
  // Values of `names` from `scope` that a control-flow region must be passed
  // (constants are left out: they are cloned where used).
  absl::StatusOr<std::vector<std::pair<std::string, Values>>> Captures(const std::vector<std::string>& names,
                                                                       Scope& scope, size_t loc);

  const Module& module_;
  const Lexer& lex_;
  ImportOptions options_;
  absl::flat_hash_map<std::string, const Func*> funcs_;

  // Per entry point.
  std::unique_ptr<HloModule> hlo_;
  absl::flat_hash_map<std::string, HloComputation*> lowered_;
  absl::flat_hash_set<std::string> in_progress_;
  absl::flat_hash_set<std::string> computation_names_;
  Values extra_outputs_;
  EntryPoint* entry_ = nullptr;
  // Where sites are recorded: the entry point, also while its run_parallel
  // programs are imported (when entry_ is null).
  EntryPoint* records_ = nullptr;
  absl::flat_hash_set<const HloInstruction*> record_outfeeds_;
  int depth_ = 0;
  // The entry computation being built (LowerFunction's), replaced when
  // run_parallel starts a new module.
  std::unique_ptr<HloComputation>* entry_comp_ = nullptr;
  // Imports of run_parallel programs: the root is always a tuple.
  bool tuple_root_ = false;
};

}  // namespace stablehlo
}  // namespace xla

#endif  // XLA_STABLEHLO_EMITTER_H_
