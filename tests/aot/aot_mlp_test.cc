// An MLP compiled ahead of time (tools/xla_aot, by the genrule in BUILD.bazel)
// and linked into this test: its results match the interpreter's on the
// same HLO file, for random inputs; the smallest program around it
// (aot_mlp_main) runs, prints the interpreter's numbers, and links no
// service, LLVM or protobuf.
#include <sys/stat.h>

#include <array>
#include <cstring>
#include <functional>
#include <memory>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "client/client_library.h"
#include "client/local_client.h"
#include "gtest/gtest.h"
#include "tests/aot/aot_mlp.h"
#include "xla/literal_comparison.h"
#include "xla/shape_util.h"

namespace xla {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The MLP on the interpreter (a service in this process).
Literal Interpret(const std::vector<Literal>& args) {
  LocalClient* client = ClientLibrary::GetOrCreateLocalClient("interpreter").value();
  ExecutionHandle exe = client->CompileHloText(ReadFile("tests/aot/mlp.hlo")).value();
  std::vector<std::unique_ptr<GlobalData>> data;
  std::vector<GlobalData*> pointers;
  for (const Literal& arg : args) {
    data.push_back(client->TransferToServer(arg).value());
    pointers.push_back(data.back().get());
  }
  return client->TransferToClient(*client->Execute(exe, pointers).value()).value();
}

// The argument literals, shaped as the header says.
std::vector<Literal> Arguments(const std::function<float(int, int64_t)>& value) {
  const std::vector<Shape> shapes = {ShapeUtil::MakeShape(F32, {32, 64}), ShapeUtil::MakeShape(F32, {64, 128}),
                                     ShapeUtil::MakeShape(F32, {128}), ShapeUtil::MakeShape(F32, {128, 10}),
                                     ShapeUtil::MakeShape(F32, {10})};
  std::vector<Literal> args;
  for (int a = 0; a < 5; ++a) {
    Literal literal(shapes[a]);
    EXPECT_EQ(ShapeUtil::ByteSizeOfStorage(shapes[a]), aot_mlp::kArgumentBytes[a]);
    for (int64_t i = 0; i < ShapeUtil::ElementsIn(shapes[a]); ++i) literal.data<float>()[i] = value(a, i);
    args.push_back(std::move(literal));
  }
  return args;
}

// The compiled code on `args`.
Literal RunAot(const std::vector<Literal>& args) {
  std::vector<std::unique_ptr<aot::AlignedBuffer>> buffers;
  std::array<const void*, aot_mlp::kArgumentCount> arg_data;
  for (int a = 0; a < aot_mlp::kArgumentCount; ++a) {
    buffers.push_back(std::make_unique<aot::AlignedBuffer>(aot_mlp::kArgumentBytes[a]));
    std::memcpy(buffers.back()->data(), args[a].untyped_data(), aot_mlp::kArgumentBytes[a]);
    arg_data[a] = buffers.back()->data();
  }
  aot::AlignedBuffer out(aot_mlp::kResultBytes[0]);
  void* results[] = {out.data()};
  aot_mlp mlp;
  EXPECT_TRUE(mlp.Run(arg_data.data(), results));
  Literal result(ShapeUtil::MakeShape(F32, {32, 10}));
  std::memcpy(result.untyped_data(), out.data(), aot_mlp::kResultBytes[0]);
  return result;
}

TEST(AotMlpTest, TheHeaderDescribesTheProgram) {
  EXPECT_EQ(aot_mlp::kArgumentCount, 5);
  EXPECT_EQ(aot_mlp::kResultCount, 1);
  EXPECT_STREQ(aot_mlp::kArgumentShapes[0], "f32[32,64]{1,0}");
  EXPECT_STREQ(aot_mlp::kResultShapes[0], "f32[32,10]{1,0}");
  EXPECT_EQ(aot_mlp::kResultBytes[0], 32 * 10 * 4);
}

TEST(AotMlpTest, MatchesTheInterpreterOnRandomInputs) {
  std::mt19937 rng(2017);
  for (int round = 0; round < 5; ++round) {
    std::normal_distribution<float> normal(0.0f, round == 0 ? 0.1f : 1.0f);
    std::vector<Literal> args = Arguments([&](int, int64_t) { return normal(rng); });
    Literal want = Interpret(args);
    Literal got = RunAot(args);
    absl::Status near = literal_comparison::Near(want, got, ErrorSpec{1e-5, 1e-4});
    EXPECT_TRUE(near.ok()) << "round " << round << ": " << near;
  }
}

TEST(AotMlpTest, MisalignedBuffersAreRefused) {
  aot::AlignedBuffer block(aot_mlp::kArgumentBytes[1] + 64);
  std::array<const void*, aot_mlp::kArgumentCount> args;
  args.fill(block.data());
  args[2] = block.data() + 4;
  aot::AlignedBuffer out(aot_mlp::kResultBytes[0]);
  void* results[] = {out.data()};
  aot_mlp mlp;
  EXPECT_FALSE(mlp.Run(args.data(), results));
}

TEST(AotMlpTest, TheStandaloneBinaryRunsAndLinksNoServiceLlvmOrProtobuf) {
  const std::string binary = "tests/aot/aot_mlp_main";
  FILE* child = popen(binary.c_str(), "r");
  ASSERT_NE(child, nullptr);
  char line[4096] = {0};
  ASSERT_NE(std::fgets(line, sizeof(line), child), nullptr);
  ASSERT_EQ(pclose(child), 0);
  // Its fixed inputs, through the interpreter.
  const float scales[] = {0.25f, 0.03125f, 0.125f, 0.0625f, 0.5f};
  Literal want =
      Interpret(Arguments([&](int a, int64_t i) { return scales[a] * static_cast<float>((i * 7) % 13 - 6); }));
  std::istringstream printed(line);
  for (int j = 0; j < 10; ++j) {
    float p = -1;
    printed >> p;
    EXPECT_NEAR(p, want.data<float>()[j], 1e-5) << "class " << j << " of: " << line;
  }
  // What it links: the dynamic section names its libraries.
  const std::string bytes = ReadFile(binary);
  for (const char* library : {"libprotobuf", "libLLVM", "libgrpc"}) {
    EXPECT_EQ(bytes.find(library), std::string::npos) << binary << " links " << library;
  }
  struct stat st;
  ASSERT_EQ(stat(binary.c_str(), &st), 0);
  std::printf("aot_mlp_main: %lld bytes\n", static_cast<long long>(st.st_size));
  EXPECT_LT(st.st_size, 64 << 20);
}

}  // namespace
}  // namespace xla
