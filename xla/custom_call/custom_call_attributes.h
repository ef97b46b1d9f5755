// The attributes a custom-call handler receives, read from the
// instruction's backend_config:
//   - API_VERSION_TYPED_FFI: backend_config is an MLIR-style dictionary of
//     typed values, as XLA's typed FFI writes it and StableHLO's
//     `backend_config = {...}` spells it:
//       {scale = 2.5 : f32, count = 3 : i64, name = "x", exact = true}
//     (integers and floats may omit the `: type`). Read with Get*().
//   - every other api_version: backend_config is an opaque string that the
//     handler parses itself (opaque()); there are no typed attributes.
// Parsing happens when a module is compiled, so a malformed dictionary is
// a compile-time error naming the instruction.
#ifndef XLA_CUSTOM_CALL_CUSTOM_CALL_ATTRIBUTES_H_
#define XLA_CUSTOM_CALL_CUSTOM_CALL_ATTRIBUTES_H_

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/xla_data.pb.h"

namespace xla {

class CustomCallAttributes {
 public:
  using Value = std::variant<int64_t, double, bool, std::string>;

  CustomCallAttributes() = default;
  // `backend_config` read as `api_version` says (see above).
  static absl::StatusOr<CustomCallAttributes> Parse(absl::string_view backend_config,
                                                    CustomCallApiVersion api_version);

  // backend_config exactly as the instruction holds it.
  const std::string& opaque() const { return opaque_; }
  bool Has(absl::string_view name) const { return values_.contains(name); }
  // Errors (InvalidArgument) name the attribute and say what it holds.
  absl::StatusOr<int64_t> GetInt(absl::string_view name) const;
  absl::StatusOr<double> GetFloat(absl::string_view name) const;  // a float, or an integer
  absl::StatusOr<bool> GetBool(absl::string_view name) const;
  absl::StatusOr<std::string> GetString(absl::string_view name) const;
  // The typed attributes' names, sorted.
  std::vector<std::string> Names() const;

 private:
  absl::StatusOr<const Value*> Find(absl::string_view name) const;

  std::string opaque_;
  absl::flat_hash_map<std::string, Value> values_;
};

}  // namespace xla

#endif  // XLA_CUSTOM_CALL_CUSTOM_CALL_ATTRIBUTES_H_
