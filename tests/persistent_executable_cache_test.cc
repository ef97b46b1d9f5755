// The service's persistent executable cache (--xla_cache_dir) with the CPU
// backend: a restarted service (a new in-process service on the same
// directory, as a restarted daemon or a second xla_run) loads the saved
// object code instead of compiling; damaged entries and entries for another
// CPU are compiled again, never run.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "client/client_library.h"
#include "client/local_client.h"
#include "client/xla_builder.h"
#include "gtest/gtest.h"
#include "backends/cpu/saved_executable.h"
#include "service/persistent_cache.h"
#include "xla/build_id.h"
#include "xla/literal_comparison.h"
#include "xla/service_interface.h"
#include "xla/shape_util.h"

namespace xla {
namespace {

namespace fs = std::filesystem;

// tanh(x . w + b), summed over its rows: a dot, a fusion and a reduction.
XlaComputation Model() {
  XlaBuilder b("model");
  XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {8, 16}), "x");
  XlaOp w = Parameter(&b, 1, ShapeUtil::MakeShape(F32, {16, 4}), "w");
  XlaOp bias = Parameter(&b, 2, ShapeUtil::MakeShape(F32, {4}), "b");
  XlaBuilder add_builder("add");
  Add(Parameter(&add_builder, 0, ShapeUtil::MakeShape(F32, {}), "a"),
      Parameter(&add_builder, 1, ShapeUtil::MakeShape(F32, {}), "b"));
  XlaComputation add = add_builder.Build().value();
  XlaOp h = Tanh(Add(Dot(x, w), BroadcastInDim(bias, {8, 4}, {1})));
  Reduce(h, ConstantR0<float>(&b, 0.0f), add, {0});
  return b.Build().value();
}

// x . w with w a constant large enough to be kept out of the code
// (backends/cpu/codegen/external_constants.h): saved beside the object code
// and used in place from the cache file's mapping when loaded.
XlaComputation ModelWithWeights() {
  XlaBuilder b("model_with_weights");
  XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {8, 16}), "x");
  Parameter(&b, 1, ShapeUtil::MakeShape(F32, {16, 4}), "unused_w");
  Parameter(&b, 2, ShapeUtil::MakeShape(F32, {4}), "unused_b");
  Literal weights(ShapeUtil::MakeShape(F32, {16, 256}));
  for (int64_t i = 0; i < 16 * 256; ++i) weights.data<float>()[i] = static_cast<float>((i * 7) % 17 - 8) / 16.0f;
  Tanh(Dot(x, ConstantLiteral(&b, weights)));
  return b.Build().value();
}

Literal Values(const Shape& shape, float scale) {
  Literal literal(shape);
  for (int64_t i = 0; i < ShapeUtil::ElementsIn(shape); ++i) {
    literal.data<float>()[i] = scale * static_cast<float>((i * 7) % 13 - 6);
  }
  return literal;
}

class PersistentExecutableCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // .bazelrc links every binary with --build-id; without one the cache
    // would silently never save anything.
    ASSERT_FALSE(BuildId().empty()) << "this binary has no build id (linked without --build-id)";
    const char* tmp = std::getenv("TEST_TMPDIR");
    dir_ = absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/xla_cache_", getpid(), "_",
                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    args_.push_back(Values(ShapeUtil::MakeShape(F32, {8, 16}), 0.125f));
    args_.push_back(Values(ShapeUtil::MakeShape(F32, {16, 4}), 0.0625f));
    args_.push_back(Values(ShapeUtil::MakeShape(F32, {4}), 0.5f));
  }

  // One build of the model for every service of a test, as a restarted
  // program sends the same bytes again (two builds in one process differ in
  // their instruction ids, so they are different programs to the digest).
  const XlaComputation model_ = Model();

  // A new service on the cache directory: what a restarted daemon is.
  std::unique_ptr<Client> RestartedService() {
    ServiceOptions options;
    options.backend = "cpu";
    options.cache_dir = dir_;
    auto service = CreateInProcessService(options);
    EXPECT_TRUE(service.ok()) << service.status();
    return std::make_unique<LocalClient>(std::move(*service));
  }

  // The model's arguments on `client`'s service.
  struct Arguments {
    std::vector<std::unique_ptr<GlobalData>> data;
    std::vector<GlobalData*> pointers;
  };
  Arguments Transfer(Client& client) const {
    Arguments arguments;
    for (const Literal& arg : args_) {
      arguments.data.push_back(client.TransferToServer(arg).value());
      arguments.pointers.push_back(arguments.data.back().get());
    }
    return arguments;
  }

  // Compiles the model with `options`, runs it, and checks the result
  // against the interpreter.
  void CompileAndCheck(Client& client, const ExecutionOptions* options = nullptr,
                       const XlaComputation* model = nullptr) {
    if (model == nullptr) model = &model_;
    auto executable = client.Compile(*model, {}, options);
    ASSERT_TRUE(executable.ok()) << executable.status();
    Arguments on_cpu = Transfer(client);
    auto result = client.Execute(*executable, on_cpu.pointers);
    ASSERT_TRUE(result.ok()) << result.status();
    Literal got = client.TransferToClient(**result).value();
    LocalClient* interpreter = ClientLibrary::GetOrCreateLocalClient("interpreter").value();
    Arguments on_interpreter = Transfer(*interpreter);
    Literal want = interpreter->ExecuteAndTransfer(*model, on_interpreter.pointers).value();
    absl::Status near = literal_comparison::Near(want, got, ErrorSpec{1e-5, 1e-5});
    EXPECT_TRUE(near.ok()) << near;
  }

  // The saved executables' files, or (aliases=true) the files of the records
  // that lead a compile request's digest to them.
  std::vector<std::string> SavedFiles(bool aliases = false) const {
    std::vector<std::string> files;
    for (const auto& entry : fs::directory_iterator(dir_)) {
      if (entry.path().extension() != ".xlaexe") continue;
      auto saved = PersistentCache::ReadEntryFile(entry.path().string());
      EXPECT_TRUE(saved.ok()) << saved.status();
      if (saved.ok() && absl::StartsWith(saved->key, "compile-request-alias\n") == aliases) {
        files.push_back(entry.path().string());
      }
    }
    return files;
  }

  static GetServiceInfoResponse Info(Client& client) { return client.GetServiceInfo().value(); }

  std::string dir_;
  std::vector<Literal> args_;
};

TEST_F(PersistentExecutableCacheTest, ARestartedServiceLoadsTheSavedExecutableInsteadOfCompiling) {
  {
    auto first = RestartedService();
    CompileAndCheck(*first);
    const GetServiceInfoResponse info = Info(*first);
    EXPECT_EQ(info.compilations(), 1);
    EXPECT_EQ(info.persistent_cache_writes(), 1);
    EXPECT_EQ(info.persistent_cache_loads(), 0);
    EXPECT_EQ(info.persistent_cache_dir(), dir_);
  }
  ASSERT_EQ(SavedFiles().size(), 1u);
  // With it, the record that finds it by the request's program digest, so
  // that a restarted service loads without parsing or verifying the module.
  ASSERT_EQ(SavedFiles(/*aliases=*/true).size(), 1u);
  auto second = RestartedService();
  CompileAndCheck(*second);
  GetServiceInfoResponse info = Info(*second);
  EXPECT_EQ(info.compilations(), 0);
  EXPECT_EQ(info.persistent_cache_loads(), 1);
  EXPECT_EQ(info.persistent_cache_hits(), 1);
  EXPECT_EQ(info.persistent_cache_writes(), 0);
  // Once loaded, the in-memory cache serves it.
  CompileAndCheck(*second);
  info = Info(*second);
  EXPECT_EQ(info.persistent_cache_hits(), 1);
  EXPECT_EQ(info.cache_hits(), 1);
  // Another target is another key: compiled, and saved beside it.
  ExecutionOptions haswell;
  haswell.mutable_debug_options()->set_xla_cpu_target("haswell");
  CompileAndCheck(*second, &haswell);
  EXPECT_EQ(Info(*second).compilations(), 1);
  EXPECT_EQ(SavedFiles().size(), 2u);
}

TEST_F(PersistentExecutableCacheTest, ADamagedFileIsCompiledAgainNotRun) {
  CompileAndCheck(*RestartedService());
  ASSERT_EQ(SavedFiles().size(), 1u);
  const std::string path = SavedFiles()[0];
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  // A flipped bit in the middle of the object code.
  bytes[bytes.size() / 2] ^= 0x04;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;

  auto restarted = RestartedService();
  CompileAndCheck(*restarted);
  GetServiceInfoResponse info = Info(*restarted);
  EXPECT_EQ(info.persistent_cache_rejected(), 1);
  EXPECT_EQ(info.persistent_cache_loads(), 0);
  EXPECT_EQ(info.compilations(), 1);
  EXPECT_EQ(info.persistent_cache_writes(), 1);  // saved again, intact
  auto again = RestartedService();
  CompileAndCheck(*again);
  EXPECT_EQ(Info(*again).persistent_cache_loads(), 1);
}

TEST_F(PersistentExecutableCacheTest, WeightsAreLoadedInPlaceAndADamagedWeightIsCompiledAgain) {
  const XlaComputation model = ModelWithWeights();
  CompileAndCheck(*RestartedService(), nullptr, &model);
  ASSERT_EQ(SavedFiles().size(), 1u);
  auto entry = PersistentCache::ReadEntryFile(SavedFiles()[0]);
  ASSERT_TRUE(entry.ok()) << entry.status();
  auto decoded = cpu::DecodeSavedExecutable(entry->payload);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  ASSERT_EQ(decoded->constants.size(), 1u);
  EXPECT_EQ(decoded->constants[0].size(), 16 * 256 * 4);
  {
    auto restarted = RestartedService();
    CompileAndCheck(*restarted, nullptr, &model);
    EXPECT_EQ(Info(*restarted).persistent_cache_loads(), 1);
    EXPECT_EQ(Info(*restarted).compilations(), 0);
  }
  // The weights are the file's last bytes: one of them changed is damage
  // the checksum finds, not a wrong result.
  const std::string path = SavedFiles()[0];
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  bytes[bytes.size() - 100] ^= 0x10;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  auto restarted = RestartedService();
  CompileAndCheck(*restarted, nullptr, &model);
  GetServiceInfoResponse info = Info(*restarted);
  EXPECT_EQ(info.persistent_cache_rejected(), 1);
  EXPECT_EQ(info.persistent_cache_loads(), 0);
  EXPECT_EQ(info.compilations(), 1);
}

TEST_F(PersistentExecutableCacheTest, ADamagedAliasRecordFallsBackToTheModulesKey) {
  CompileAndCheck(*RestartedService());
  const std::vector<std::string> records = SavedFiles(/*aliases=*/true);
  ASSERT_EQ(records.size(), 1u);
  std::ofstream(records[0], std::ios::binary | std::ios::trunc) << "XLAEXE2\ntruncated";
  auto restarted = RestartedService();
  CompileAndCheck(*restarted);
  GetServiceInfoResponse info = Info(*restarted);
  EXPECT_EQ(info.persistent_cache_rejected(), 1);  // the record, removed
  EXPECT_EQ(info.persistent_cache_loads(), 1);     // the executable, by the module's key
  EXPECT_EQ(info.compilations(), 0);
  EXPECT_EQ(SavedFiles(/*aliases=*/true).size(), 1u);  // written again
}

TEST_F(PersistentExecutableCacheTest, AnEntryForOtherCpuFeaturesIsNotUsed) {
  CompileAndCheck(*RestartedService());
  ASSERT_EQ(SavedFiles().size(), 1u);
  // An intact entry under this key whose code was compiled for other
  // features (as if this host's CPU had changed under the same key).
  auto entry = PersistentCache::ReadEntryFile(SavedFiles()[0]);
  ASSERT_TRUE(entry.ok()) << entry.status();
  auto decoded = cpu::DecodeSavedExecutable(entry->payload);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  ASSERT_FALSE(decoded->proto.cpu_features().empty());
  decoded->proto.set_cpu_features(decoded->proto.cpu_features() + ",+avx512vp2intersect");
  auto cache = PersistentCache::Open(dir_, 1 << 30).value();
  ASSERT_TRUE(cache->Insert(entry->key, cpu::EncodeSavedExecutable(decoded->proto, decoded->constants).value()).ok());

  auto restarted = RestartedService();
  CompileAndCheck(*restarted);
  GetServiceInfoResponse info = Info(*restarted);
  EXPECT_EQ(info.persistent_cache_loads(), 0);
  EXPECT_EQ(info.persistent_cache_rejected(), 1);
  EXPECT_EQ(info.persistent_cache_hits(), 0);
  EXPECT_EQ(info.compilations(), 1);
  // Its recompile replaced the entry with one for this host.
  auto again = RestartedService();
  CompileAndCheck(*again);
  EXPECT_EQ(Info(*again).persistent_cache_loads(), 1);
}

TEST_F(PersistentExecutableCacheTest, AnEntryFromAnotherBuildIsNotUsed) {
  CompileAndCheck(*RestartedService());
  auto entry = PersistentCache::ReadEntryFile(SavedFiles()[0]);
  ASSERT_TRUE(entry.ok()) << entry.status();
  auto decoded = cpu::DecodeSavedExecutable(entry->payload);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  decoded->proto.set_build_id("00" + decoded->proto.build_id().substr(2));
  ASSERT_TRUE(PersistentCache::Open(dir_, 1 << 30)
                  .value()
                  ->Insert(entry->key, cpu::EncodeSavedExecutable(decoded->proto, decoded->constants).value())
                  .ok());
  auto restarted = RestartedService();
  CompileAndCheck(*restarted);
  EXPECT_EQ(Info(*restarted).persistent_cache_loads(), 0);
  EXPECT_EQ(Info(*restarted).compilations(), 1);
}

}  // namespace
}  // namespace xla
