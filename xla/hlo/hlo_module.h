// HloModule: a set of computations with one entry. The unit that is
// verified, optimized, compiled, cached and executed.
#ifndef XLA_HLO_HLO_MODULE_H_
#define XLA_HLO_HLO_MODULE_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/hlo.pb.h"
#include "xla/hlo/hlo_computation.h"
#include "xla/hlo/input_output_alias.h"

namespace xla {

class HloModule {
 public:
  explicit HloModule(std::string name) : name_(std::move(name)) {}

  const std::string& name() const { return name_; }

  // Adds a computation; called computations must be added before callers.
  HloComputation* AddEmbeddedComputation(std::unique_ptr<HloComputation> computation);
  // Adds a computation just before `caller` (a computation of this module),
  // for passes that outline part of `caller` into a new callee.
  HloComputation* AddEmbeddedComputationBefore(std::unique_ptr<HloComputation> computation,
                                               const HloComputation* caller);
  HloComputation* AddEntryComputation(std::unique_ptr<HloComputation> computation);
  HloComputation* entry_computation() const { return entry_; }
  // In the order added (callees before callers).
  std::vector<HloComputation*> computations() const;
  HloComputation* GetComputationByName(absl::string_view name) const;

  // Fresh ids for new instructions and computations.
  int64_t NextUniqueId() { return next_id_++; }

  // Changes whenever an instruction with a side effect is added to or
  // removed from one of the module's computations, or an instruction's
  // callees change: HloComputation::HasSideEffect's answers are cached
  // against it.
  int64_t structure_version() const { return structure_version_; }
  void NoteStructureChange() { ++structure_version_; }

  // Extra module header attributes kept from text (e.g. entry_computation_layout).
  std::map<std::string, std::string>& attributes() { return attributes_; }
  const std::map<std::string, std::string>& attributes() const { return attributes_; }

  // The entry's input/output aliasing (input_output_alias.h), checked
  // against the entry's shapes by HloVerifier.
  const std::vector<InputOutputAlias>& input_output_aliases() const { return input_output_aliases_; }
  std::vector<InputOutputAlias>& mutable_input_output_aliases() { return input_output_aliases_; }

  // Builds the IR from a proto. Checks structure (ids resolve, operands are
  // defined before use in the same computation, callees precede callers,
  // parameter numbers are dense, arities, valid shapes, constants match their
  // shapes); shapes of ops are checked by HloVerifier.
  static absl::StatusOr<std::unique_ptr<HloModule>> CreateFromProto(const HloModuleProto& proto);
  HloModuleProto ToProto() const;
  std::string ToString() const;

  // Deep copy through the proto form.
  absl::StatusOr<std::unique_ptr<HloModule>> Clone() const;

 private:
  std::string name_;
  std::vector<std::unique_ptr<HloComputation>> computations_;
  HloComputation* entry_ = nullptr;
  int64_t next_id_ = 1;
  int64_t structure_version_ = 0;
  std::map<std::string, std::string> attributes_;
  std::vector<InputOutputAlias> input_output_aliases_;
};

}  // namespace xla

#endif  // XLA_HLO_HLO_MODULE_H_
