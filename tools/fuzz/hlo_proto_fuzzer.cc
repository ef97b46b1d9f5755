// Fuzz target: an HloModuleProto from outside (what Compile receives):
// import, verification, and the proto round trip of a module that verifies.
#include <cstdint>
#include <cstdlib>

#include "proto/hlo.pb.h"
#include "xla/hlo/hlo_module.h"
#include "xla/hlo/hlo_verifier.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  xla::HloModuleProto proto;
  if (!proto.ParseFromArray(data, static_cast<int>(size))) return 0;
  absl::StatusOr<std::unique_ptr<xla::HloModule>> module = xla::HloModule::CreateFromProto(proto);
  if (!module.ok()) return 0;
  if (!xla::VerifyHloModule(**module).ok()) return 0;
  (void)(*module)->ToString();
  if (!xla::HloModule::CreateFromProto((*module)->ToProto()).ok()) std::abort();  // a verified module round-trips
  return 0;
}
