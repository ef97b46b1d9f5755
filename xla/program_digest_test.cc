// ProgramDigest hashes the module's serialization as it is produced; it must
// equal SHA-256 over the tag and the whole serialization (what older builds
// computed, and what the service's alias records hold), for modules small
// and spanning many of its buffers.
#include "xla/program_digest.h"

#include <string>

#include "absl/strings/escaping.h"
#include "gtest/gtest.h"
#include "xla/sha256.h"

namespace xla {
namespace {

TEST(Sha256Test, KnownVectorsAndPieces) {
  EXPECT_EQ(absl::BytesToHexString(Sha256({"abc"})),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(absl::BytesToHexString(Sha256({""})),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  Sha256Hasher hasher;
  hasher.Update("a");
  hasher.Update("");
  hasher.Update("bc");
  EXPECT_EQ(hasher.Finish(), Sha256({"abc"}));
}

HloModuleProto ModuleWithConstantBytes(size_t bytes, char fill) {
  HloModuleProto module;
  module.set_name("digest_test");
  HloComputationProto* computation = module.add_computations();
  computation->set_name("main");
  computation->set_id(1);
  module.set_entry_computation_id(1);
  HloInstructionProto* constant = computation->add_instructions();
  constant->set_name("c");
  constant->set_opcode("constant");
  constant->set_id(1);
  constant->mutable_literal()->set_u8s(std::string(bytes, fill));
  computation->set_root_id(1);
  return module;
}

TEST(ProgramDigestTest, StreamedDigestEqualsTheDigestOfTheWholeSerialization) {
  // Empty, a few bytes, and across many 64 KiB buffers (not a multiple).
  for (size_t bytes : {size_t{0}, size_t{10}, size_t{65536}, size_t{3} * 1024 * 1024 + 7}) {
    SCOPED_TRACE(bytes);
    const HloModuleProto module = ModuleWithConstantBytes(bytes, 'x');
    EXPECT_EQ(ProgramDigest(module), Sha256({"HloModuleProto\n", DeterministicBytes(module)}));
    EXPECT_EQ(ProgramDigest(module).size(), kProgramDigestBytes);
  }
  EXPECT_EQ(ProgramDigest(HloModuleProto()), Sha256({"HloModuleProto\n", ""}));
}

TEST(ProgramDigestTest, OneByteOfAConstantChangesTheDigest) {
  HloModuleProto a = ModuleWithConstantBytes(200000, 'x');
  HloModuleProto b = a;
  std::string* data = b.mutable_computations(0)->mutable_instructions(0)->mutable_literal()->mutable_u8s();
  (*data)[123456] = 'y';
  EXPECT_NE(ProgramDigest(a), ProgramDigest(b));
  EXPECT_EQ(ProgramDigest(a), ProgramDigest(ModuleWithConstantBytes(200000, 'x')));
}

}  // namespace
}  // namespace xla
