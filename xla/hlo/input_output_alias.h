// Input/output aliasing of an entry computation (XLA's input_output_alias):
// a result leaf that may be written into the buffer of a parameter leaf of
// the same shape. It only takes effect when the caller donates that argument
// (ExecuteRequest.donated_arguments): the argument's handle is then consumed
// by the run, and a backend that can compute the leaf in place writes it into
// the donated buffer instead of a fresh one. Without a donation the run is
// an ordinary one (for MUST_ALIAS the service refuses it).
//
// Text form, a module header attribute:
//   input_output_alias={ {0}: (1, {}, may-alias), {1}: (0, {}, must-alias) }
// output index: (parameter number, parameter index, kind); the kind may be
// left out (may-alias).
#ifndef XLA_HLO_INPUT_OUTPUT_ALIAS_H_
#define XLA_HLO_INPUT_OUTPUT_ALIAS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "proto/hlo.pb.h"
#include "xla/shape.h"

namespace xla {

struct InputOutputAlias {
  std::vector<int64_t> output_index;  // tuple index path into the result
  int64_t parameter = 0;
  std::vector<int64_t> parameter_index;  // tuple index path into the parameter
  bool must_alias = false;

  bool operator==(const InputOutputAlias& other) const {
    return output_index == other.output_index && parameter == other.parameter &&
           parameter_index == other.parameter_index && must_alias == other.must_alias;
  }
};

InputOutputAliasProto InputOutputAliasToProto(const InputOutputAlias& alias);
InputOutputAlias InputOutputAliasFromProto(const InputOutputAliasProto& proto);

// "{ {0}: (1, {}, may-alias) }"; "{}" for none.
std::string InputOutputAliasesToText(absl::Span<const InputOutputAlias> aliases);
absl::StatusOr<std::vector<InputOutputAlias>> ParseInputOutputAliases(absl::string_view text);

// Every alias names an array leaf of the result and of a parameter, of the
// same element type and dimensions (layouts may differ: a backend then does
// not write in place), and no result leaf or parameter leaf appears twice.
absl::Status CheckInputOutputAliases(absl::Span<const InputOutputAlias> aliases, const ProgramShape& entry);

// The number of the leaf at `index` of `shape` among its non-tuple leaves in
// depth-first order (how backends number parameter and result leaves);
// `index` must name a leaf (CheckInputOutputAliases).
int64_t LeafNumber(const Shape& shape, absl::Span<const int64_t> index);

}  // namespace xla

#endif  // XLA_HLO_INPUT_OUTPUT_ALIAS_H_
