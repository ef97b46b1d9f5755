// The builder's AllToAll, ReduceScatter and Send/Recv, run replicated on
// every backend (backends/replicated_execution.h): the documents' examples
// by hand, and bad arguments rejected when the op is built.
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "backends/replicated_execution.h"
#include "client/xla_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xla/hlo/hlo_module.h"
#include "xla/literal.h"
#include "xla/shape_util.h"

namespace xla {
namespace {

using ::testing::HasSubstr;

ReplicaGroup Group(std::vector<int64_t> ids) {
  ReplicaGroup g;
  for (int64_t id : ids) g.add_replica_ids(id);
  return g;
}

XlaComputation SumF32() {
  XlaBuilder b("sum");
  Add(Parameter(&b, 0, ShapeUtil::MakeShape(F32, {}), "a"), Parameter(&b, 1, ShapeUtil::MakeShape(F32, {}), "b"));
  return *b.Build();
}

class CollectivesBuilderTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<Backend>> b = BackendRegistry::Create(GetParam());
    ASSERT_TRUE(b.ok()) << b.status();
    backend_ = std::move(*b);
  }

  std::unique_ptr<Executable> Compile(XlaBuilder& builder) {
    absl::StatusOr<XlaComputation> computation = builder.Build();
    EXPECT_TRUE(computation.ok()) << computation.status();
    if (!computation.ok()) return nullptr;
    absl::StatusOr<std::unique_ptr<HloModule>> module = HloModule::CreateFromProto(computation->proto());
    EXPECT_TRUE(module.ok()) << module.status();
    if (!module.ok()) return nullptr;
    auto e = backend_->compiler()->Compile(std::move(*module), DebugOptions());
    EXPECT_TRUE(e.ok()) << e.status();
    return e.ok() ? std::move(*e) : nullptr;
  }

  // Runs `e` on `n` replicas, replica r with args[r] as its one argument.
  std::vector<Literal> Run(const Executable* e, std::vector<Literal> args) {
    std::vector<ProcessRun> runs(args.size());
    for (size_t r = 0; r < args.size(); ++r) {
      runs[r].executable = e;
      runs[r].arguments.push_back(std::move(args[r]));
    }
    ReplicatedRunOptions options;
    options.num_replicas = static_cast<int64_t>(runs.size());
    auto results = ExecuteReplicated(*backend_, std::move(runs), options);
    EXPECT_TRUE(results.ok()) << results.status();
    std::vector<Literal> out;
    if (results.ok()) {
      for (ProcessResult& p : *results) out.push_back(std::move(p.result));
    }
    return out;
  }

  std::unique_ptr<Backend> backend_;
};

// The StableHLO specification's all_to_all example: split dimension 1,
// concat dimension 0, 2 replicas.
TEST_P(CollectivesBuilderTest, AllToAllSpecExample) {
  XlaBuilder b("a2a");
  XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {2, 4}), "x");
  AllToAll(x, /*split_dimension=*/1, /*concat_dimension=*/0, /*split_count=*/2, {Group({0, 1})});
  std::unique_ptr<Executable> e = Compile(b);
  ASSERT_NE(e, nullptr);
  std::vector<Literal> args;
  args.push_back(Literal::CreateR2<float>({{1, 2, 3, 4}, {5, 6, 7, 8}}));
  args.push_back(Literal::CreateR2<float>({{9, 10, 11, 12}, {13, 14, 15, 16}}));
  std::vector<Literal> out = Run(e.get(), std::move(args));
  ASSERT_EQ(out.size(), 2);
  EXPECT_EQ(out[0], Literal::CreateR2<float>({{1, 2}, {5, 6}, {9, 10}, {13, 14}}));
  EXPECT_EQ(out[1], Literal::CreateR2<float>({{3, 4}, {7, 8}, {11, 12}, {15, 16}}));
}

// operation-semantics.md's example: f32[4,16] split along 1 into 4 parts,
// concatenated along 0 on 4 cores: f32[16,4]; core r's rows 4g..4g+3 are
// core g's columns 4r..4r+3. And the reverse direction (split 0, concat 1).
TEST_P(CollectivesBuilderTest, AllToAllOperationSemanticsExample) {
  auto value = [](int core, int64_t i, int64_t j) { return static_cast<float>(1000 * core + 16 * i + j); };
  std::vector<Literal> args;
  for (int core = 0; core < 4; ++core) {
    Literal l(ShapeUtil::MakeShape(F32, {4, 16}));
    for (int64_t i = 0; i < 4; ++i) {
      for (int64_t j = 0; j < 16; ++j) l.Set<float>({i, j}, value(core, i, j));
    }
    args.push_back(std::move(l));
  }
  {
    XlaBuilder b("a2a");
    AllToAll(Parameter(&b, 0, ShapeUtil::MakeShape(F32, {4, 16}), "x"), 1, 0, 4);
    std::unique_ptr<Executable> e = Compile(b);
    ASSERT_NE(e, nullptr);
    std::vector<Literal> out = Run(e.get(), args);
    ASSERT_EQ(out.size(), 4);
    for (int r = 0; r < 4; ++r) {
      ASSERT_EQ(out[r].shape().ToString(), "f32[16,4]");
      for (int64_t row = 0; row < 16; ++row) {
        for (int64_t col = 0; col < 4; ++col) {
          ASSERT_EQ(out[r].Get<float>({row, col}), value(static_cast<int>(row / 4), row % 4, 4 * r + col))
              << "core " << r << " [" << row << "," << col << "]";
        }
      }
    }
  }
  {
    XlaBuilder b("a2a");
    AllToAll(Parameter(&b, 0, ShapeUtil::MakeShape(F32, {4, 16}), "x"), 0, 1, 4);
    std::unique_ptr<Executable> e = Compile(b);
    ASSERT_NE(e, nullptr);
    std::vector<Literal> out = Run(e.get(), args);
    ASSERT_EQ(out.size(), 4);
    // Core r gets row r of every core, side by side in core order.
    for (int r = 0; r < 4; ++r) {
      ASSERT_EQ(out[r].shape().ToString(), "f32[1,64]");
      for (int64_t col = 0; col < 64; ++col) {
        ASSERT_EQ(out[r].Get<float>({0, col}), value(static_cast<int>(col / 16), r, col % 16)) << r << " " << col;
      }
    }
  }
}

// operation-semantics.md: [1.0, 2.25] and [3.0, 5.25] on two replicas give
// [4.0] and [7.5]; a tuple operand reduce-scatters each element.
TEST_P(CollectivesBuilderTest, ReduceScatterOperationSemanticsExample) {
  XlaBuilder b("rs");
  XlaOp x = Parameter(&b, 0, ShapeUtil::MakeShape(F32, {2}), "x");
  XlaOp doubled = Add(x, x);
  XlaOp r = ReduceScatter(Tuple(&b, {x, doubled}), SumF32(), 0, 2);
  Tuple(&b, {GetTupleElement(r, 0), GetTupleElement(r, 1)});
  std::unique_ptr<Executable> e = Compile(b);
  ASSERT_NE(e, nullptr);
  std::vector<Literal> args;
  args.push_back(Literal::CreateR1<float>({1.0f, 2.25f}));
  args.push_back(Literal::CreateR1<float>({3.0f, 5.25f}));
  std::vector<Literal> out = Run(e.get(), std::move(args));
  ASSERT_EQ(out.size(), 2);
  std::vector<Literal> r0 = std::move(out[0]).DecomposeTuple();
  std::vector<Literal> r1 = std::move(out[1]).DecomposeTuple();
  EXPECT_EQ(r0[0], Literal::CreateR1<float>({4.0f}));
  EXPECT_EQ(r1[0], Literal::CreateR1<float>({7.5f}));
  EXPECT_EQ(r0[1], Literal::CreateR1<float>({8.0f}));
  EXPECT_EQ(r1[1], Literal::CreateR1<float>({15.0f}));
}

TEST_P(CollectivesBuilderTest, SendWithTokenToRecvWithToken) {
  ChannelHandle handle;
  handle.set_handle(2);
  handle.set_type(ChannelHandle::DEVICE_TO_DEVICE);
  XlaBuilder sb("send");
  XlaOp x = Parameter(&sb, 0, ShapeUtil::MakeShape(S32, {3}), "x");
  SendWithToken(x, CreateToken(&sb), handle);
  Neg(x);
  XlaBuilder rb("recv");
  Parameter(&rb, 0, ShapeUtil::MakeShape(S32, {3}), "unused");
  XlaOp got = RecvWithToken(CreateToken(&rb), ShapeUtil::MakeShape(S32, {3}), handle);
  GetTupleElement(got, 0);
  std::unique_ptr<Executable> sender = Compile(sb);
  std::unique_ptr<Executable> receiver = Compile(rb);
  ASSERT_NE(sender, nullptr);
  ASSERT_NE(receiver, nullptr);
  std::vector<ProcessRun> runs(2);
  runs[0].executable = sender.get();
  runs[0].arguments.push_back(Literal::CreateR1<int32_t>({7, 8, 9}));
  runs[1].executable = receiver.get();
  runs[1].arguments.push_back(Literal::CreateR1<int32_t>({0, 0, 0}));
  ReplicatedRunOptions options;
  options.num_replicas = 2;
  auto results = ExecuteReplicated(*backend_, std::move(runs), options);
  ASSERT_TRUE(results.ok()) << results.status();
  EXPECT_EQ((*results)[0].result, Literal::CreateR1<int32_t>({-7, -8, -9}));
  EXPECT_EQ((*results)[1].result, Literal::CreateR1<int32_t>({7, 8, 9}));
}

TEST_P(CollectivesBuilderTest, BadArgumentsAreBuildErrors) {
  auto build_error = [](const std::function<void(XlaBuilder&)>& body) {
    XlaBuilder b("bad");
    body(b);
    absl::StatusOr<XlaComputation> c = b.Build();
    return c.ok() ? std::string("built") : std::string(c.status().message());
  };
  const Shape f32_2x3 = ShapeUtil::MakeShape(F32, {2, 3});
  EXPECT_THAT(build_error([&](XlaBuilder& b) { AllToAll(Parameter(&b, 0, f32_2x3, "x"), 1, 0, 2); }),
              HasSubstr("divisible by the split count"));
  EXPECT_THAT(build_error([&](XlaBuilder& b) { AllToAll(Parameter(&b, 0, f32_2x3, "x"), 0, 2, 2); }),
              HasSubstr("concat dimension 2"));
  EXPECT_THAT(build_error([&](XlaBuilder& b) { AllToAll(Parameter(&b, 0, f32_2x3, "x"), 0, 0, 2, {Group({0, 1, 2})}); }),
              HasSubstr("a replica group has 3 members"));
  EXPECT_THAT(build_error([&](XlaBuilder& b) {
                AllToAllTuple({Parameter(&b, 0, f32_2x3, "x"), Parameter(&b, 1, ShapeUtil::MakeShape(F32, {3}), "y")});
              }),
              HasSubstr("operands must have one shape"));
  EXPECT_THAT(build_error([&](XlaBuilder& b) { ReduceScatter(Parameter(&b, 0, f32_2x3, "x"), SumF32(), 1, 2); }),
              HasSubstr("divisible by the shard count"));
  EXPECT_THAT(build_error([&](XlaBuilder& b) {
                ReduceScatter(Parameter(&b, 0, ShapeUtil::MakeShape(S32, {4}), "x"), SumF32(), 0, 2);
              }),
              HasSubstr("reducer must be"));
  ChannelHandle to_host;
  to_host.set_handle(1);
  to_host.set_type(ChannelHandle::DEVICE_TO_HOST);
  EXPECT_THAT(build_error([&](XlaBuilder& b) { SendWithToken(Parameter(&b, 0, f32_2x3, "x"), CreateToken(&b), to_host); }),
              HasSubstr("needs a DEVICE_TO_DEVICE channel handle, got DEVICE_TO_HOST"));
  EXPECT_THAT(build_error([&](XlaBuilder& b) { RecvFromHost(CreateToken(&b), f32_2x3, to_host); }),
              HasSubstr("needs a HOST_TO_DEVICE channel handle"));
  EXPECT_THAT(build_error([&](XlaBuilder& b) {
                SendToHost(Parameter(&b, 0, f32_2x3, "x"), CreateToken(&b), ShapeUtil::MakeShape(F32, {3}), to_host);
              }),
              HasSubstr("does not match the operand"));
  EXPECT_THAT(build_error([&](XlaBuilder& b) {
                SendToHost(Parameter(&b, 0, f32_2x3, "x"), Parameter(&b, 1, f32_2x3, "not_a_token"), f32_2x3, to_host);
              }),
              HasSubstr("must be a token"));
  EXPECT_EQ(build_error([&](XlaBuilder& b) { SendToHost(Parameter(&b, 0, f32_2x3, "x"), CreateToken(&b), f32_2x3, to_host); }),
            "built");
}

INSTANTIATE_TEST_SUITE_P(Backends, CollectivesBuilderTest, ::testing::Values("interpreter", "cpu"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace xla
