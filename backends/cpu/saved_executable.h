// The bytes of a saved CPU executable (CpuCompiler::SerializeExecutable, the
// persistent cache's payload):
//
//   "XLACPU2\n", the proto's size (8 bytes, little-endian), the
//   CpuExecutableProto, zeros, then the external constants' bytes, each at
//   a multiple of 64 bytes from the start (CpuExternalConstantProto.offset).
//
// A model's weights are most of the bytes. Kept out of the proto, they are
// neither parsed nor copied on a load: a loader given 64-byte aligned bytes
// (the persistent cache maps its files so) defines the constants' symbols
// at them in place.
#ifndef BACKENDS_CPU_SAVED_EXECUTABLE_H_
#define BACKENDS_CPU_SAVED_EXECUTABLE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "proto/cpu_executable.pb.h"

namespace xla {
namespace cpu {

// The saved form of `proto` whose external_constants(i) has the bytes
// `constants[i]` (their offsets and sizes are set here); InvalidArgument
// when the counts differ.
absl::StatusOr<std::string> EncodeSavedExecutable(CpuExecutableProto proto,
                                                  absl::Span<const absl::string_view> constants);

struct DecodedSavedExecutable {
  CpuExecutableProto proto;
  // proto.external_constants(i)'s bytes: views into the decoded bytes.
  std::vector<absl::string_view> constants;
};
// InvalidArgument for bytes that are not a saved executable or whose
// constants lie outside them or off the 64-byte grid.
absl::StatusOr<DecodedSavedExecutable> DecodeSavedExecutable(absl::string_view bytes);

}  // namespace cpu
}  // namespace xla

#endif  // BACKENDS_CPU_SAVED_EXECUTABLE_H_
