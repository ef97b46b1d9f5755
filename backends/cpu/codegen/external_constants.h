// Large array constants kept out of the generated code: the code refers to
// each by a symbol, which the JIT defines at a 64-byte aligned copy of its
// bytes that lives as long as the code. LLVM then never optimizes, emits or
// links the data (a model's weights: megabytes of floats it would otherwise
// write into the object element by element), and the persistent cache
// stores them as plain bytes beside the object.
#ifndef BACKENDS_CPU_CODEGEN_EXTERNAL_CONSTANTS_H_
#define BACKENDS_CPU_CODEGEN_EXTERNAL_CONSTANTS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace xla {
namespace cpu {

// Constants of at least this many bytes are external in JIT compiles;
// smaller ones stay in the code, where their loads can fold.
inline constexpr int64_t kMinExternalConstantBytes = 4096;

// The bytes of the external constants of one executable, by symbol.
class ExternalConstants {
 public:
  struct Entry {
    std::string symbol;
    std::unique_ptr<char, void (*)(void*)> data;
    int64_t bytes;
  };

  // Copies `bytes` into aligned storage, to be defined as `symbol`.
  void Add(std::string symbol, absl::string_view bytes);
  // Defines `symbol` at `bytes` in place: they must be 64-byte aligned and
  // stay valid while `owner` lives, which these constants keep (a saved
  // executable's weights in the persistent cache's mapping of its file).
  void AddInPlace(std::string symbol, absl::string_view bytes, std::shared_ptr<const void> owner);
  const std::vector<Entry>& entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }
  int64_t total_bytes() const { return total_bytes_; }

 private:
  std::vector<Entry> entries_;
  int64_t total_bytes_ = 0;
  std::vector<std::shared_ptr<const void>> owners_;  // of the bytes added in place
};

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_CODEGEN_EXTERNAL_CONSTANTS_H_
