// ProgramDigest hashes the module's serialization as it is produced, on two
// threads beyond one block; it must equal its definition (ExpectedDigest
// below, over the whole serialization) for modules small, of one block,
// and spanning many blocks, whole or not.
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

constexpr size_t kBlock = size_t{1} << 20;

// The digest's definition: flat up to one block, else a tree of blocks.
std::string ExpectedDigest(const std::string& bytes) {
  if (bytes.size() <= kBlock) return Sha256({"HloModuleProto\n", bytes});
  std::string leaves;
  for (size_t i = 0; i < bytes.size(); i += kBlock) leaves += Sha256({absl::string_view(bytes).substr(i, kBlock)});
  return Sha256({"HloModuleProto tree\n", leaves});
}

TEST(ProgramDigestTest, StreamedDigestEqualsItsDefinition) {
  // Empty, a few bytes, under one block, and across several and many
  // blocks (more than the stream's buffers), not a multiple of one.
  for (size_t bytes : {size_t{0}, size_t{10}, size_t{65536}, kBlock - 100, kBlock + 5000, 3 * kBlock + 7,
                       11 * kBlock + 3}) {
    SCOPED_TRACE(bytes);
    const HloModuleProto module = ModuleWithConstantBytes(bytes, 'x');
    EXPECT_EQ(ProgramDigest(module), ExpectedDigest(DeterministicBytes(module)));
    EXPECT_EQ(ProgramDigest(module).size(), kProgramDigestBytes);
  }
  EXPECT_EQ(ProgramDigest(HloModuleProto()), Sha256({"HloModuleProto\n", ""}));
  // Serializations of exactly one and exactly two blocks.
  for (size_t blocks : {1, 2}) {
    const size_t overhead = DeterministicBytes(ModuleWithConstantBytes(blocks * kBlock - 1000, 'x')).size() -
                            (blocks * kBlock - 1000);
    const HloModuleProto module = ModuleWithConstantBytes(blocks * kBlock - overhead, 'y');
    ASSERT_EQ(DeterministicBytes(module).size(), blocks * kBlock);
    EXPECT_EQ(ProgramDigest(module), ExpectedDigest(DeterministicBytes(module)));
  }
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
