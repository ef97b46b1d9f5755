// Error cases through the client API and straight to the service: each must
// give a status with the right code and a message naming the problem, and
// nothing may crash. Covers builder errors (deferred to Build()), bad
// handles, bad execution arguments, and malformed protos on the wire.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/strip.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "tests/client_test_base.h"

namespace xla {
namespace {

using test::AddParam;
using test::ClientTest;

Shape F32Shape(std::vector<int64_t> dims) { return ShapeUtil::MakeShape(F32, dims); }
Shape Scalar(PrimitiveType t) { return ShapeUtil::MakeScalarShape(t); }

// Checks `status` has `code` and every one of `substrings` in its message.
void ExpectError(const absl::Status& status, absl::StatusCode code, const std::vector<std::string>& substrings) {
  ASSERT_FALSE(status.ok()) << "expected an error containing '" << absl::StrJoin(substrings, "', '") << "'";
  EXPECT_EQ(status.code(), code) << status;
  for (const std::string& s : substrings) {
    EXPECT_NE(status.message().find(s), absl::string_view::npos)
        << "message '" << status.message() << "' does not contain '" << s << "'";
  }
}

class ClientErrorsTest : public ClientTest {
 protected:
  // Build() must fail with InvalidArgument naming every substring.
  void ExpectBuildFails(XlaBuilder* b, const std::vector<std::string>& substrings) {
    absl::StatusOr<XlaComputation> c = b->Build();
    ExpectError(c.status(), absl::StatusCode::kInvalidArgument, substrings);
  }

  // A valid module: (p0: f32[2]) -> add(p0, constant {1, 2}).
  HloModuleProto ValidModule() {
    XlaBuilder b("valid_module");
    XlaOp p = Parameter(&b, 0, F32Shape({2}), "p0");
    Add(p, ConstantR1<float>(&b, {1, 2}));
    absl::StatusOr<XlaComputation> c = b.Build();
    EXPECT_TRUE(c.ok()) << c.status();
    return c->proto();
  }
  // The entry computation's instruction with `opcode` (first one).
  static HloInstructionProto* Find(HloModuleProto* module, const std::string& opcode) {
    for (HloComputationProto& c : *module->mutable_computations()) {
      if (c.id() != module->entry_computation_id()) continue;
      for (HloInstructionProto& i : *c.mutable_instructions()) {
        if (i.opcode() == opcode) return &i;
      }
    }
    ADD_FAILURE() << "no " << opcode << " in the module";
    static HloInstructionProto dummy;
    return &dummy;
  }
  static HloComputationProto* Entry(HloModuleProto* module) {
    for (HloComputationProto& c : *module->mutable_computations()) {
      if (c.id() == module->entry_computation_id()) return &c;
    }
    return module->mutable_computations(0);
  }

  // Sends a module straight to the service (Compile and ExecuteGraph); both
  // must reject it the same way. Releases anything that was created.
  absl::Status CompileOnService(const HloModuleProto& module) {
    CompileRequest request;
    *request.mutable_computation() = module;
    CompileResponse response;
    absl::Status status = client()->service()->Compile(request, &response);
    if (status.ok()) EXPECT_OK(client()->UnregisterExecutable(response.handle()));
    return status;
  }
  absl::Status ExecuteGraphOnService(const HloModuleProto& module, std::vector<GlobalData*> args) {
    ExecuteGraphRequest request;
    *request.mutable_computation() = module;
    for (GlobalData* a : args) *request.add_arguments() = a->handle();
    ExecuteResponse response;
    absl::Status status = client()->service()->ExecuteGraph(request, &response);
    if (status.ok()) GlobalData(client()->service(), response.output());  // released right away
    return status;
  }
  void ExpectModuleRejected(const HloModuleProto& module, const std::vector<std::string>& substrings) {
    ExpectError(CompileOnService(module), absl::StatusCode::kInvalidArgument, substrings);
    absl::StatusOr<std::unique_ptr<GlobalData>> arg = client()->TransferToServer(Literal::CreateR1<float>({1, 2}));
    ASSERT_TRUE(arg.ok()) << arg.status();
    ExpectError(ExecuteGraphOnService(module, {arg->get()}), absl::StatusCode::kInvalidArgument, substrings);
  }

  absl::Status TransferProto(const LiteralProto& literal) {
    TransferToServerRequest request;
    *request.mutable_literal() = literal;
    TransferToServerResponse response;
    absl::Status status = client()->service()->TransferToServer(request, &response);
    if (status.ok()) GlobalData(client()->service(), response.data());
    return status;
  }
};

// --- Builder errors: shapes and element types ---------------------------------------

TEST_P(ClientErrorsTest, AddMismatchedShapes) {
  XlaBuilder b(TestName());
  Add(Parameter(&b, 0, F32Shape({2}), "x"), Parameter(&b, 1, F32Shape({3}), "y"));
  ExpectBuildFails(&b, {"f32[2]", "f32[3]"});
}

TEST_P(ClientErrorsTest, WrongElementTypes) {
  {
    XlaBuilder b(TestName() + "_add_f32_s32");
    Add(Parameter(&b, 0, F32Shape({2}), "x"), Parameter(&b, 1, ShapeUtil::MakeShape(S32, {2}), "y"));
    ExpectBuildFails(&b, {"element types differ", "f32[2]", "s32[2]"});
  }
  {
    XlaBuilder b(TestName() + "_and_f32");
    And(Parameter(&b, 0, F32Shape({2}), "x"), Parameter(&b, 1, F32Shape({2}), "y"));
    ExpectBuildFails(&b, {"pred or integral", "f32"});
  }
  {
    XlaBuilder b(TestName() + "_shift_f32");
    ShiftLeft(ConstantR0<float>(&b, 1), ConstantR0<float>(&b, 1));
    ExpectBuildFails(&b, {"integral"});
  }
  {
    XlaBuilder b(TestName() + "_atan2_s32");
    Atan2(ConstantR0<int32_t>(&b, 1), ConstantR0<int32_t>(&b, 1));
    ExpectBuildFails(&b, {"floating-point"});
  }
  {
    // Add and Mul on pred are or/and (StableHLO); Sub is not defined.
    XlaBuilder b(TestName() + "_sub_pred");
    Sub(ConstantR0<bool>(&b, true), ConstantR0<bool>(&b, true));
    ExpectBuildFails(&b, {"pred"});
  }
  {
    XlaBuilder b(TestName() + "_sign_u8");
    Sign(ConstantR0<uint8_t>(&b, 1));
    ExpectBuildFails(&b, {"Sign", "u8"});
  }
  {
    XlaBuilder b(TestName() + "_not_f32");
    Not(ConstantR0<float>(&b, 1));
    ExpectBuildFails(&b, {"f32"});
  }
  {
    XlaBuilder b(TestName() + "_exp_s32");
    Exp(ConstantR0<int32_t>(&b, 1));
    ExpectBuildFails(&b, {"s32"});
  }
  {
    XlaBuilder b(TestName() + "_compare_type");
    Compare(ConstantR0<int32_t>(&b, 1), ConstantR0<int32_t>(&b, 2), {}, ComparisonDirection::kLt,
            ComparisonType::kFloat);
    ExpectBuildFails(&b, {"FLOAT", "s32"});
  }
  {
    XlaBuilder b(TestName() + "_complex_s32");
    Complex(ConstantR0<int32_t>(&b, 1), ConstantR0<int32_t>(&b, 2));
    ExpectBuildFails(&b, {"f32 or f64"});
  }
}

TEST_P(ClientErrorsTest, BroadcastingErrors) {
  {
    XlaBuilder b(TestName() + "_degenerate");
    Add(Parameter(&b, 0, F32Shape({2, 3}), "x"), Parameter(&b, 1, F32Shape({3, 3}), "y"));
    ExpectBuildFails(&b, {"f32[2,3]", "f32[3,3]"});
  }
  {
    XlaBuilder b(TestName() + "_rank_without_dims");
    Add(Parameter(&b, 0, F32Shape({2, 3}), "x"), Parameter(&b, 1, F32Shape({2}), "y"));
    ExpectBuildFails(&b, {"f32[2,3]", "f32[2]"});
  }
  {
    XlaBuilder b(TestName() + "_dim_out_of_range");
    Add(Parameter(&b, 0, F32Shape({2, 3}), "x"), Parameter(&b, 1, F32Shape({3}), "y"), {2});
    ExpectBuildFails(&b, {"out of range"});
  }
  {
    XlaBuilder b(TestName() + "_dim_size_mismatch");
    Add(Parameter(&b, 0, F32Shape({2, 3}), "x"), Parameter(&b, 1, F32Shape({3}), "y"), {0});
    ExpectBuildFails(&b, {"f32[2,3]", "f32[3]"});
  }
}

// --- Builder errors: dimension numbers -------------------------------------------------

TEST_P(ClientErrorsTest, DotContractingSizeMismatch) {
  XlaBuilder b(TestName());
  Dot(Parameter(&b, 0, F32Shape({2, 3}), "lhs"), Parameter(&b, 1, F32Shape({4, 5}), "rhs"));
  // The design's example message.
  ExpectBuildFails(&b, {"lhs contracting dimension 1 has size 3 but rhs contracting dimension 0 has size 4",
                        "f32[2,3]", "f32[4,5]"});
}

TEST_P(ClientErrorsTest, DotGeneralBadDimensionNumbers) {
  {
    XlaBuilder b(TestName() + "_out_of_range");
    DotDimensionNumbers d;
    d.add_lhs_contracting_dimensions(2);
    d.add_rhs_contracting_dimensions(0);
    DotGeneral(Parameter(&b, 0, F32Shape({2, 3}), "l"), Parameter(&b, 1, F32Shape({3, 4}), "r"), d);
    ExpectBuildFails(&b, {"out of range"});
  }
  {
    XlaBuilder b(TestName() + "_batch_size");
    DotDimensionNumbers d;
    d.add_lhs_batch_dimensions(0);
    d.add_rhs_batch_dimensions(0);
    d.add_lhs_contracting_dimensions(2);
    d.add_rhs_contracting_dimensions(1);
    DotGeneral(Parameter(&b, 0, F32Shape({2, 3, 4}), "l"), Parameter(&b, 1, F32Shape({5, 4, 6}), "r"), d);
    ExpectBuildFails(&b, {"batch dimension", "size 2", "size 5"});
  }
  {
    XlaBuilder b(TestName() + "_count");
    DotDimensionNumbers d;
    d.add_lhs_contracting_dimensions(1);
    DotGeneral(Parameter(&b, 0, F32Shape({2, 3}), "l"), Parameter(&b, 1, F32Shape({3, 4}), "r"), d);
    ExpectBuildFails(&b, {"contracting"});
  }
  {
    XlaBuilder b(TestName() + "_reused");
    DotDimensionNumbers d;
    d.add_lhs_batch_dimensions(0);
    d.add_rhs_batch_dimensions(0);
    d.add_lhs_contracting_dimensions(0);
    d.add_rhs_contracting_dimensions(1);
    DotGeneral(Parameter(&b, 0, F32Shape({3, 3}), "l"), Parameter(&b, 1, F32Shape({3, 3}), "r"), d);
    ExpectBuildFails(&b, {"more than once"});
  }
  {
    XlaBuilder b(TestName() + "_types");
    Dot(Parameter(&b, 0, F32Shape({3}), "l"), Parameter(&b, 1, ShapeUtil::MakeShape(S32, {3}), "r"));
    ExpectBuildFails(&b, {"element types differ"});
  }
  {
    XlaBuilder b(TestName() + "_dot_rank3");
    Dot(Parameter(&b, 0, F32Shape({2, 2, 2}), "l"), Parameter(&b, 1, F32Shape({2, 2}), "r"));
    ExpectBuildFails(&b, {"rank"});
  }
}

TEST_P(ClientErrorsTest, TransposeAndRevBadDimensions) {
  {
    XlaBuilder b(TestName() + "_not_permutation");
    Transpose(Parameter(&b, 0, F32Shape({2, 3}), "x"), {0, 0});
    ExpectBuildFails(&b, {"permutation"});
  }
  {
    XlaBuilder b(TestName() + "_wrong_length");
    Transpose(Parameter(&b, 0, F32Shape({2, 3}), "x"), {1});
    ExpectBuildFails(&b, {"f32[2,3]"});
  }
  {
    XlaBuilder b(TestName() + "_rev");
    Rev(Parameter(&b, 0, F32Shape({2, 3}), "x"), {2});
    ExpectBuildFails(&b, {"out of range"});
  }
}

TEST_P(ClientErrorsTest, ReduceBadDimensionsAndReducers) {
  auto add = [](XlaBuilder* b, PrimitiveType t) {
    std::unique_ptr<XlaBuilder> sb = b->CreateSubBuilder("add");
    Add(Parameter(sb.get(), 0, Scalar(t), "a"), Parameter(sb.get(), 1, Scalar(t), "b"));
    return *sb->Build();
  };
  {
    XlaBuilder b(TestName() + "_out_of_range");
    Reduce(Parameter(&b, 0, F32Shape({2, 3}), "x"), ConstantR0<float>(&b, 0), add(&b, F32), {2});
    ExpectBuildFails(&b, {"dimension 2 is out of range", "f32[2,3]"});
  }
  {
    XlaBuilder b(TestName() + "_duplicate");
    Reduce(Parameter(&b, 0, F32Shape({2, 3}), "x"), ConstantR0<float>(&b, 0), add(&b, F32), {0, 0});
    ExpectBuildFails(&b, {"more than once"});
  }
  {
    XlaBuilder b(TestName() + "_reducer_type");
    Reduce(Parameter(&b, 0, F32Shape({2, 3}), "x"), ConstantR0<float>(&b, 0), add(&b, S32), {0});
    ExpectBuildFails(&b, {"reducer"});
  }
  {
    XlaBuilder b(TestName() + "_init_not_scalar");
    Reduce(Parameter(&b, 0, F32Shape({2, 3}), "x"), ConstantR1<float>(&b, {0, 0}), add(&b, F32), {0});
    ExpectBuildFails(&b, {"init"});
  }
  {
    XlaBuilder b(TestName() + "_variadic_count");
    Reduce(&b, {Parameter(&b, 0, F32Shape({2}), "x"), Parameter(&b, 1, F32Shape({2}), "y")},
           {ConstantR0<float>(&b, 0)}, add(&b, F32), {0});
    ExpectBuildFails(&b, {"init"});
  }
  {
    XlaBuilder b(TestName() + "_variadic_reducer_arity");
    Reduce(&b, {Parameter(&b, 0, F32Shape({2}), "x"), Parameter(&b, 1, F32Shape({2}), "y")},
           {ConstantR0<float>(&b, 0), ConstantR0<float>(&b, 0)}, add(&b, F32), {0});
    ExpectBuildFails(&b, {"reducer must take 4 parameters"});
  }
}

TEST_P(ClientErrorsTest, SliceErrors) {
  {
    XlaBuilder b(TestName() + "_limit_out_of_bounds");
    Slice(Parameter(&b, 0, F32Shape({4}), "x"), {1}, {5}, {1});
    ExpectBuildFails(&b, {"f32[4]"});
  }
  {
    XlaBuilder b(TestName() + "_start_after_limit");
    Slice(Parameter(&b, 0, F32Shape({4}), "x"), {3}, {2}, {1});
    ExpectBuildFails(&b, {"f32[4]"});
  }
  {
    XlaBuilder b(TestName() + "_negative_start");
    Slice(Parameter(&b, 0, F32Shape({4}), "x"), {-1}, {2}, {1});
    ExpectBuildFails(&b, {"f32[4]"});
  }
  {
    XlaBuilder b(TestName() + "_zero_stride");
    Slice(Parameter(&b, 0, F32Shape({4}), "x"), {0}, {2}, {0});
    ExpectBuildFails(&b, {"stride"});
  }
  {
    XlaBuilder b(TestName() + "_rank");
    Slice(Parameter(&b, 0, F32Shape({4, 4}), "x"), {0}, {2}, {1});
    ExpectBuildFails(&b, {"f32[4,4]"});
  }
  {
    XlaBuilder b(TestName() + "_in_dim");
    SliceInDim(Parameter(&b, 0, F32Shape({4}), "x"), 0, 1, 1, 3);
    ExpectBuildFails(&b, {"dimension 3 out of range"});
  }
  {
    XlaBuilder b(TestName() + "_dynamic_size");
    DynamicSlice(Parameter(&b, 0, F32Shape({4}), "x"), {ConstantR0<int32_t>(&b, 0)}, {5});
    ExpectBuildFails(&b, {"slice size 5"});
  }
  {
    XlaBuilder b(TestName() + "_dynamic_index_count");
    DynamicSlice(Parameter(&b, 0, F32Shape({4, 4}), "x"), {ConstantR0<int32_t>(&b, 0)}, {1, 1});
    ExpectBuildFails(&b, {"start indices"});
  }
  {
    XlaBuilder b(TestName() + "_dynamic_float_index");
    DynamicSlice(Parameter(&b, 0, F32Shape({4}), "x"), {ConstantR0<float>(&b, 0)}, {1});
    ExpectBuildFails(&b, {"integral scalar"});
  }
  {
    XlaBuilder b(TestName() + "_dus_too_big");
    DynamicUpdateSlice(Parameter(&b, 0, F32Shape({2}), "x"), Parameter(&b, 1, F32Shape({3}), "u"),
                       {ConstantR0<int32_t>(&b, 0)});
    ExpectBuildFails(&b, {"larger than the operand"});
  }
  {
    XlaBuilder b(TestName() + "_dus_type");
    DynamicUpdateSlice(Parameter(&b, 0, F32Shape({2}), "x"), Parameter(&b, 1, ShapeUtil::MakeShape(S32, {1}), "u"),
                       {ConstantR0<int32_t>(&b, 0)});
    ExpectBuildFails(&b, {"element types differ"});
  }
}

TEST_P(ClientErrorsTest, ShapeOpErrors) {
  {
    XlaBuilder b(TestName() + "_reshape_count");
    Reshape(Parameter(&b, 0, F32Shape({2, 3}), "x"), {4});
    ExpectBuildFails(&b, {"cannot reshape", "f32[2,3]"});
  }
  {
    XlaBuilder b(TestName() + "_broadcast_negative");
    Broadcast(ConstantR0<float>(&b, 1), {-2});
    ExpectBuildFails(&b, {"non-negative"});
  }
  {
    XlaBuilder b(TestName() + "_broadcast_in_dim_size");
    BroadcastInDim(Parameter(&b, 0, F32Shape({3}), "x"), {2, 4}, {1});
    ExpectBuildFails(&b, {"f32[3]"});
  }
  {
    XlaBuilder b(TestName() + "_broadcast_in_dim_out_of_range");
    BroadcastInDim(Parameter(&b, 0, F32Shape({2}), "x"), {2, 2}, {2});
    ExpectBuildFails(&b, {"out of range"});
  }
  {
    XlaBuilder b(TestName() + "_concat_rank");
    ConcatInDim(&b, {Parameter(&b, 0, F32Shape({2}), "x"), Parameter(&b, 1, F32Shape({2, 1}), "y")}, 0);
    ExpectBuildFails(&b, {"ranks differ"});
  }
  {
    XlaBuilder b(TestName() + "_concat_other_dims");
    ConcatInDim(&b, {Parameter(&b, 0, F32Shape({2, 2}), "x"), Parameter(&b, 1, F32Shape({2, 3}), "y")}, 0);
    ExpectBuildFails(&b, {"f32[2,2]", "f32[2,3]"});
  }
  {
    XlaBuilder b(TestName() + "_concat_scalars");
    ConcatInDim(&b, {ConstantR0<float>(&b, 1), ConstantR0<float>(&b, 2)}, 0);
    ExpectBuildFails(&b, {"scalars"});
  }
  {
    XlaBuilder b(TestName() + "_concat_empty");
    ConcatInDim(&b, {}, 0);
    ExpectBuildFails(&b, {"at least one operand"});
  }
  {
    XlaBuilder b(TestName() + "_pad_negative_interior");
    PaddingConfig config;
    config.add_dimensions()->set_interior_padding(-1);
    Pad(Parameter(&b, 0, F32Shape({3}), "x"), ConstantR0<float>(&b, 0), config);
    ExpectBuildFails(&b, {"negative interior padding"});
  }
  {
    XlaBuilder b(TestName() + "_pad_too_negative");
    PadInDim(Parameter(&b, 0, F32Shape({2}), "x"), ConstantR0<float>(&b, 0), 0, -2, -1);
    ExpectBuildFails(&b, {"f32[2]"});
  }
  {
    XlaBuilder b(TestName() + "_pad_value");
    PadInDim(Parameter(&b, 0, F32Shape({2}), "x"), ConstantR0<int32_t>(&b, 0), 0, 1, 1);
    ExpectBuildFails(&b, {"padding value"});
  }
  {
    XlaBuilder b(TestName() + "_gte_index");
    GetTupleElement(Tuple(&b, {ConstantR0<float>(&b, 1)}), 1);
    ExpectBuildFails(&b, {"tuple index 1 is out of range"});
  }
  {
    XlaBuilder b(TestName() + "_gte_not_tuple");
    GetTupleElement(ConstantR0<float>(&b, 1), 0);
    ExpectBuildFails(&b, {"must be a tuple"});
  }
  {
    XlaBuilder b(TestName() + "_collapse");
    Collapse(Parameter(&b, 0, F32Shape({2, 3, 4}), "x"), {0, 2});
    ExpectBuildFails(&b, {"consecutive"});
  }
  {
    XlaBuilder b(TestName() + "_iota_dim");
    Iota(&b, ShapeUtil::MakeShape(S32, {2, 3}), 2);
    ExpectBuildFails(&b, {"iota dimension 2 is out of range"});
  }
  {
    XlaBuilder b(TestName() + "_iota_pred");
    Iota(&b, ShapeUtil::MakeShape(PRED, {2}), 0);
    ExpectBuildFails(&b, {"pred"});
  }
}

TEST_P(ClientErrorsTest, SelectClampConvertErrors) {
  {
    XlaBuilder b(TestName() + "_select_shapes");
    Select(ConstantR0<bool>(&b, true), Parameter(&b, 0, F32Shape({2}), "x"), Parameter(&b, 1, F32Shape({3}), "y"));
    ExpectBuildFails(&b, {"on_true", "f32[2]", "f32[3]"});
  }
  {
    XlaBuilder b(TestName() + "_select_pred_type");
    Select(ConstantR1<int32_t>(&b, {1, 0}), Parameter(&b, 0, F32Shape({2}), "x"), Parameter(&b, 1, F32Shape({2}), "y"));
    ExpectBuildFails(&b, {"pred"});
  }
  {
    XlaBuilder b(TestName() + "_select_pred_dims");
    Select(ConstantR1<bool>(&b, {true, false, true}), Parameter(&b, 0, F32Shape({2}), "x"),
           Parameter(&b, 1, F32Shape({2}), "y"));
    ExpectBuildFails(&b, {"pred[3]"});
  }
  {
    XlaBuilder b(TestName() + "_clamp_type");
    Clamp(ConstantR0<int32_t>(&b, 0), Parameter(&b, 0, F32Shape({2}), "x"), ConstantR0<float>(&b, 1));
    ExpectBuildFails(&b, {"element types differ"});
  }
  {
    XlaBuilder b(TestName() + "_clamp_shape");
    Clamp(ConstantR1<float>(&b, {0, 0, 0}), Parameter(&b, 0, F32Shape({2}), "x"), ConstantR0<float>(&b, 1));
    ExpectBuildFails(&b, {"f32[3]"});
  }
  {
    XlaBuilder b(TestName() + "_convert_tuple");
    ConvertElementType(Parameter(&b, 0, F32Shape({2}), "x"), TUPLE);
    ExpectBuildFails(&b, {"not an array element type"});
  }
  {
    XlaBuilder b(TestName() + "_bitcast_pred");
    // pred is one bit (StableHLO's i1): s8 needs a minor dimension of 8.
    BitcastConvertType(ConstantR0<bool>(&b, true), S8);
    ExpectBuildFails(&b, {"pred[]", "size 8"});
  }
  {
    XlaBuilder b(TestName() + "_bitcast_width");
    // f16[3] -> f32 needs a minor dimension of 2.
    BitcastConvertType(Parameter(&b, 0, ShapeUtil::MakeShape(F16, {3}), "x"), F32);
    ExpectBuildFails(&b, {"f16[3]"});
  }
}

TEST_P(ClientErrorsTest, ComputationArgumentErrors) {
  XlaBuilder b(TestName());
  std::unique_ptr<XlaBuilder> sb = b.CreateSubBuilder("binary");
  Add(Parameter(sb.get(), 0, Scalar(F32), "a"), Parameter(sb.get(), 1, Scalar(F32), "b"));
  ASSERT_OK_AND_ASSIGN(XlaComputation binary, sb->Build());
  std::unique_ptr<XlaBuilder> cb = b.CreateSubBuilder("int_cond");
  Parameter(cb.get(), 0, Scalar(S32), "x");
  ASSERT_OK_AND_ASSIGN(XlaComputation int_cond, cb->Build());
  std::unique_ptr<XlaBuilder> nb = b.CreateSubBuilder("negate");
  Neg(Parameter(nb.get(), 0, Scalar(F32), "x"));
  ASSERT_OK_AND_ASSIGN(XlaComputation negate, nb->Build());
  std::unique_ptr<XlaBuilder> ib = b.CreateSubBuilder("to_int");
  ConvertElementType(Parameter(ib.get(), 0, Scalar(F32), "x"), S32);
  ASSERT_OK_AND_ASSIGN(XlaComputation to_int, ib->Build());
  {
    XlaBuilder c(TestName() + "_map_arity");
    Map(&c, {Parameter(&c, 0, F32Shape({2}), "x")}, binary, {0});
    ExpectBuildFails(&c, {"computation must take 1 parameters"});
  }
  {
    XlaBuilder c(TestName() + "_call_count");
    Call(&c, binary, {ConstantR0<float>(&c, 1)});
    ExpectBuildFails(&c, {"takes 2 parameters but 1 arguments"});
  }
  {
    XlaBuilder c(TestName() + "_call_shape");
    Call(&c, binary, {ConstantR0<float>(&c, 1), ConstantR0<int32_t>(&c, 1)});
    ExpectBuildFails(&c, {"argument 1 has shape s32[]"});
  }
  {
    XlaBuilder c(TestName() + "_while_cond_not_pred");
    While(int_cond, int_cond, ConstantR0<int32_t>(&c, 0));
    ExpectBuildFails(&c, {"condition must return pred[]"});
  }
  {
    XlaBuilder c(TestName() + "_while_body_shape");
    std::unique_ptr<XlaBuilder> lb = c.CreateSubBuilder("less");
    Lt(Parameter(lb.get(), 0, Scalar(S32), "x"), ConstantR0<int32_t>(lb.get(), 10));
    ASSERT_OK_AND_ASSIGN(XlaComputation less, lb->Build());
    While(less, negate, ConstantR0<int32_t>(&c, 0));
    ExpectBuildFails(&c, {"body parameter f32[] does not match the init value s32[]"});
  }
  {
    XlaBuilder c(TestName() + "_conditional_results_differ");
    Conditional(ConstantR0<bool>(&c, true), ConstantR0<float>(&c, 1), negate, ConstantR0<float>(&c, 1), to_int);
    ExpectBuildFails(&c, {"branch 1 returns s32[] but branch 0 returns f32[]"});
  }
  {
    XlaBuilder c(TestName() + "_conditional_operand");
    Conditional(ConstantR0<bool>(&c, true), ConstantR0<int32_t>(&c, 1), negate, ConstantR0<float>(&c, 1), negate);
    ExpectBuildFails(&c, {"branch 0 takes f32[] but its operand is s32[]"});
  }
  {
    XlaBuilder c(TestName() + "_conditional_index_type");
    const XlaComputation* branches[] = {&negate};
    Conditional(ConstantR0<float>(&c, 0), branches, {ConstantR0<float>(&c, 1)});
    ExpectBuildFails(&c, {"branch index must be pred[] or s32[]"});
  }
  {
    XlaBuilder c(TestName() + "_conditional_pred_three_branches");
    const XlaComputation* branches[] = {&negate, &negate, &negate};
    XlaOp one = ConstantR0<float>(&c, 1);
    Conditional(ConstantR0<bool>(&c, true), branches, {one, one, one});
    ExpectBuildFails(&c, {"exactly 2 branches"});
  }
  {
    XlaBuilder c(TestName() + "_empty_computation");
    Reduce(Parameter(&c, 0, F32Shape({2}), "x"), ConstantR0<float>(&c, 0), XlaComputation(), {0});
    ExpectBuildFails(&c, {"called computation is empty"});
  }
}

// --- Builder errors: parameters and error propagation ---------------------------------

TEST_P(ClientErrorsTest, ParameterNumberErrors) {
  {
    XlaBuilder b(TestName() + "_duplicate");
    XlaOp x = Parameter(&b, 0, F32Shape({2}), "x");
    XlaOp y = Parameter(&b, 0, F32Shape({2}), "y");
    Add(x, y);
    ExpectBuildFails(&b, {"number 0 is already used by 'x"});
  }
  {
    XlaBuilder b(TestName() + "_missing");
    XlaOp x = Parameter(&b, 0, F32Shape({2}), "x");
    XlaOp z = Parameter(&b, 2, F32Shape({2}), "z");
    Add(x, z);
    ExpectBuildFails(&b, {"1 is missing"});
  }
  {
    XlaBuilder b(TestName() + "_only_high");
    Parameter(&b, 5, F32Shape({2}), "p5");
    ExpectBuildFails(&b, {"0 is missing"});
  }
  {
    XlaBuilder b(TestName() + "_negative");
    Parameter(&b, -1, F32Shape({2}), "neg");
    ExpectBuildFails(&b, {"negative"});
  }
  {
    XlaBuilder b(TestName() + "_bad_shape");
    Parameter(&b, 0, F32Shape({-3}), "x");
    ExpectBuildFails(&b, {"negative dimension"});
  }
}

TEST_P(ClientErrorsTest, FirstErrorIsWhatBuildReturns) {
  XlaBuilder b(TestName());
  XlaOp x = Parameter(&b, 0, F32Shape({2}), "x");
  XlaOp bad = Add(x, Parameter(&b, 1, F32Shape({3}), "y"));  // first error
  EXPECT_FALSE(bad.valid());
  // Later ops: using the invalid op, another invalid op, and valid ops.
  XlaOp later = Neg(bad);
  EXPECT_FALSE(later.valid());
  Transpose(x, {0, 0});
  Mul(x, x);
  Reshape(bad, {2});
  Tuple(&b, {bad, x});
  ReduceAll(bad, bad, XlaComputation());
  ExpectBuildFails(&b, {"f32[2]", "f32[3]"});
  // Building again still reports the same first error.
  ExpectBuildFails(&b, {"f32[2]", "f32[3]"});
  // GetShape of the invalid op is an error, not a crash.
  EXPECT_FALSE(b.GetShape(bad).ok());
}

TEST_P(ClientErrorsTest, OperandFromAnotherBuilder) {
  XlaBuilder a(TestName() + "_a");
  XlaBuilder b(TestName() + "_b");
  XlaOp x = ConstantR0<float>(&a, 1);
  XlaOp y = ConstantR0<float>(&b, 2);
  Add(y, x);
  ExpectBuildFails(&b, {"belongs to builder"});
}

TEST_P(ClientErrorsTest, BuildTwiceAndEmptyBuilder) {
  XlaBuilder b(TestName());
  ConstantR0<float>(&b, 1);
  ASSERT_OK(b.Build().status());
  absl::StatusOr<XlaComputation> again = b.Build();
  ExpectError(again.status(), absl::StatusCode::kFailedPrecondition, {"already built"});

  XlaBuilder empty(TestName() + "_empty");
  ExpectBuildFails(&empty, {"no instructions"});
}

// --- Handles -------------------------------------------------------------------------------

TEST_P(ClientErrorsTest, ForgedHandlesAreNotFound) {
  GlobalDataHandle forged_handle;
  forged_handle.set_handle(987654321);
  GlobalData forged(client()->service(), forged_handle);
  ExpectError(client()->TransferToClient(forged).status(), absl::StatusCode::kNotFound, {"987654321"});
  ExpectError(client()->GetShape(forged).status(), absl::StatusCode::kNotFound, {"987654321"});
  ExpectError(client()->DeconstructTuple(forged).status(), absl::StatusCode::kNotFound, {"987654321"});
  ExpectError(client()->Unregister(forged), absl::StatusCode::kNotFound, {"987654321"});
  XlaBuilder b(TestName());
  Neg(Parameter(&b, 0, F32Shape({2}), "x"));
  ASSERT_OK_AND_ASSIGN(XlaComputation c, b.Build());
  ExpectError(client()->Execute(c, {&forged}).status(), absl::StatusCode::kNotFound, {"987654321"});
  forged.Release();

  // Handle 0 and negative handles too.
  for (int64_t h : {int64_t{0}, int64_t{-1}, std::numeric_limits<int64_t>::min()}) {
    GlobalDataHandle gh;
    gh.set_handle(h);
    GlobalData g(client()->service(), gh);
    ExpectError(client()->TransferToClient(g).status(), absl::StatusCode::kNotFound, {});
    g.Release();
  }
}

TEST_P(ClientErrorsTest, UnregisterTwiceIsNotFound) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GlobalData> data, client()->TransferToServer(Literal::CreateR0<float>(1)));
  EXPECT_OK(client()->Unregister(*data));
  ExpectError(client()->Unregister(*data), absl::StatusCode::kNotFound, {absl::StrCat(data->handle().handle())});
  // Using the released handle fails the same way.
  ExpectError(client()->TransferToClient(*data).status(), absl::StatusCode::kNotFound, {});
  data->Release();
}

TEST_P(ClientErrorsTest, ExecutableHandleErrors) {
  ExecutionHandle bogus;
  bogus.set_handle(55555555);
  ExpectError(client()->Execute(bogus, {}).status(), absl::StatusCode::kNotFound, {"55555555"});
  XlaBuilder b(TestName());
  ConstantR0<float>(&b, 1);
  ASSERT_OK_AND_ASSIGN(XlaComputation c, b.Build());
  ASSERT_OK_AND_ASSIGN(ExecutionHandle h, client()->Compile(c));
  EXPECT_OK(client()->UnregisterExecutable(h));
  ExpectError(client()->UnregisterExecutable(h), absl::StatusCode::kNotFound, {});
  ExpectError(client()->Execute(h, {}).status(), absl::StatusCode::kNotFound, {});
}

// --- Execution arguments ---------------------------------------------------------------------

TEST_P(ClientErrorsTest, ExecuteWithWrongArgumentCountAndShapes) {
  XlaBuilder b(TestName());
  Add(Parameter(&b, 0, F32Shape({2}), "x"), Parameter(&b, 1, F32Shape({2}), "y"));
  ASSERT_OK_AND_ASSIGN(XlaComputation c, b.Build());
  ASSERT_OK_AND_ASSIGN(ExecutionHandle h, client()->Compile(c));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GlobalData> good, client()->TransferToServer(Literal::CreateR1<float>({1, 2})));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GlobalData> f3, client()->TransferToServer(Literal::CreateR1<float>({1, 2, 3})));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GlobalData> s2, client()->TransferToServer(Literal::CreateR1<int32_t>({1, 2})));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GlobalData> tuple,
                       client()->TransferToServer(Literal::MakeTuple({})));

  ExpectError(client()->Execute(h, {good.get()}).status(), absl::StatusCode::kInvalidArgument,
              {"takes 2 arguments but 1 were given"});
  ExpectError(client()->Execute(h, {good.get(), good.get(), good.get()}).status(),
              absl::StatusCode::kInvalidArgument, {"takes 2 arguments but 3 were given"});
  ExpectError(client()->Execute(h, {good.get(), f3.get()}).status(), absl::StatusCode::kInvalidArgument,
              {"argument 1", "f32[3]", "f32[2]"});
  ExpectError(client()->Execute(h, {s2.get(), good.get()}).status(), absl::StatusCode::kInvalidArgument,
              {"argument 0", "s32[2]", "f32[2]"});
  ExpectError(client()->Execute(h, {good.get(), tuple.get()}).status(), absl::StatusCode::kInvalidArgument,
              {"argument 1"});
  ExpectError(client()->Execute(h, {good.get(), nullptr}).status(), absl::StatusCode::kInvalidArgument,
              {"null"});
  // The same through ExecuteAndTransfer (compile-and-run).
  ExpectError(client()->ExecuteAndTransfer(c, {f3.get(), good.get()}).status(), absl::StatusCode::kInvalidArgument,
              {"argument 0", "f32[3]"});
  // Compile with argument shapes that do not match.
  Shape wrong = F32Shape({3});
  ExpectError(client()->Compile(c, {wrong, wrong}).status(), absl::StatusCode::kInvalidArgument,
              {"argument 0 has shape f32[3]"});
  ExpectError(client()->Compile(c, {F32Shape({2})}).status(), absl::StatusCode::kInvalidArgument, {"1 argument"});
  // The executable still works with correct arguments afterwards.
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GlobalData> r, client()->Execute(h, {good.get(), good.get()}));
  ASSERT_OK_AND_ASSIGN(Literal rv, client()->TransferToClient(*r));
  EXPECT_OK(test::ExactlyEqual(Literal::CreateR1<float>({2, 4}), rv));
  EXPECT_OK(client()->UnregisterExecutable(h));
}

TEST_P(ClientErrorsTest, ExecutionOptionsNamingAnotherBackend) {
  XlaBuilder b(TestName());
  ConstantR0<float>(&b, 1);
  ASSERT_OK_AND_ASSIGN(XlaComputation c, b.Build());
  ExecutionOptions options;
  options.set_backend("no-such-backend");
  ExpectError(client()->ExecuteAndTransfer(c, {}, &options).status(), absl::StatusCode::kInvalidArgument,
              {"no-such-backend"});
  ExpectError(client()->Compile(c, {}, &options).status(), absl::StatusCode::kInvalidArgument, {"no-such-backend"});
  // Asking for the backend itself is fine.
  options.set_backend(std::string(absl::StripPrefix(backend(), "grpc:")));  // the service's own name
  ASSERT_OK_AND_ASSIGN(Literal one, client()->ExecuteAndTransfer(c, {}, &options));
  EXPECT_OK(test::ExactlyEqual(Literal::CreateR0<float>(1), one));
}

TEST_P(ClientErrorsTest, RequestedOutputLayoutOfTheWrongShape) {
  XlaBuilder b(TestName());
  ConstantR1<float>(&b, {1, 2});
  ASSERT_OK_AND_ASSIGN(XlaComputation c, b.Build());
  ExecutionOptions options;
  *options.mutable_shape_with_output_layout() = ShapeUtil::MakeShape(S32, {3}).ToProto();
  absl::StatusOr<Literal> r = client()->ExecuteAndTransfer(c, {}, &options);
  ExpectError(r.status(), absl::StatusCode::kInvalidArgument, {"s32[3]", "f32[2]"});
}

TEST_P(ClientErrorsTest, GetComputationShapeOfMalformedModule) {
  HloModuleProto m = ValidModule();
  Find(&m, "add")->set_opcode("frobnicate");
  ExpectError(client()->GetComputationShape(XlaComputation(m)).status(), absl::StatusCode::kInvalidArgument,
              {"frobnicate"});
  ExpectError(client()->ComputeConstant(XlaComputation(m)).status(), absl::StatusCode::kInvalidArgument,
              {"frobnicate"});
}

TEST_P(ClientErrorsTest, ComputeConstantWithParameterIsRejected) {
  XlaBuilder b(TestName());
  Neg(Parameter(&b, 0, F32Shape({2}), "x"));
  ASSERT_OK_AND_ASSIGN(XlaComputation c, b.Build());
  ExpectError(client()->ComputeConstant(c).status(), absl::StatusCode::kInvalidArgument, {"parameter"});
}

TEST_P(ClientErrorsTest, TransferToClientWithIncompatibleShape) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GlobalData> data, client()->TransferToServer(Literal::CreateR1<float>({1, 2})));
  Shape wrong = ShapeUtil::MakeShape(S32, {2});
  ExpectError(client()->TransferToClient(*data, &wrong).status(), absl::StatusCode::kInvalidArgument,
              {"s32[2]", "f32[2]"});
}

// --- Malformed protos sent straight to the service -----------------------------------------

TEST_P(ClientErrorsTest, MalformedModuleUnknownOperandId) {
  HloModuleProto m = ValidModule();
  Find(&m, "add")->set_operand_ids(1, 999999999);
  ExpectModuleRejected(m, {"999999999", "add"});
}

TEST_P(ClientErrorsTest, MalformedModuleUnknownOpcode) {
  HloModuleProto m = ValidModule();
  Find(&m, "add")->set_opcode("frobnicate");
  ExpectModuleRejected(m, {"frobnicate"});
}

TEST_P(ClientErrorsTest, MalformedModuleLiteralByteCount) {
  HloModuleProto m = ValidModule();
  Find(&m, "constant")->mutable_literal()->add_f32s(3);  // 3 values for f32[2]
  ExpectModuleRejected(m, {"constant", "needs 2 elements but the proto holds 3"});

  // Byte-packed types: 3 bytes for f16[2].
  XlaBuilder b(TestName());
  ConstantLiteral(&b, Literal::CreateR1<half>({half(1.0f), half(2.0f)}));
  ASSERT_OK_AND_ASSIGN(XlaComputation c, b.Build());
  HloModuleProto m2 = c.proto();
  Find(&m2, "constant")->mutable_literal()->set_f16s(std::string(3, '\0'));
  ExpectError(CompileOnService(m2), absl::StatusCode::kInvalidArgument, {"needs 4 bytes but the proto holds 3"});

  // A literal whose shape differs from the instruction's.
  HloModuleProto m3 = ValidModule();
  HloInstructionProto* k = Find(&m3, "constant");
  *k->mutable_literal() = Literal::CreateR1<float>({1, 2, 3}).ToProto();
  ExpectModuleRejected(m3, {"constant", "f32[3]", "f32[2]"});

  // A constant without a literal.
  HloModuleProto m4 = ValidModule();
  Find(&m4, "constant")->clear_literal();
  ExpectModuleRejected(m4, {"no literal"});
}

TEST_P(ClientErrorsTest, MalformedModuleShapes) {
  // Declared shape that is not the inferred one.
  HloModuleProto m = ValidModule();
  *Find(&m, "add")->mutable_shape() = F32Shape({3}).ToProto();
  ExpectModuleRejected(m, {"f32[3]", "f32[2]"});

  // A negative dimension.
  HloModuleProto m2 = ValidModule();
  Find(&m2, "add")->mutable_shape()->set_dimensions(0, -5);
  ExpectModuleRejected(m2, {"negative dimension"});

  // An invalid element type number.
  HloModuleProto m3 = ValidModule();
  Find(&m3, "add")->mutable_shape()->set_element_type(static_cast<PrimitiveType>(1000));
  ExpectModuleRejected(m3, {"element type"});

  // A layout that is not a permutation.
  HloModuleProto m4 = ValidModule();
  Find(&m4, "add")->mutable_shape()->mutable_layout()->add_minor_to_major(5);
  ExpectModuleRejected(m4, {"layout"});

  // Wrong operand count.
  HloModuleProto m5 = ValidModule();
  Find(&m5, "add")->mutable_operand_ids()->RemoveLast();
  ExpectModuleRejected(m5, {"add", "takes 2 operands but has 1"});

  // Compare with an invalid direction.
  XlaBuilder b(TestName());
  Lt(Parameter(&b, 0, F32Shape({2}), "x"), ConstantR1<float>(&b, {0, 0}));
  ASSERT_OK_AND_ASSIGN(XlaComputation c, b.Build());
  HloModuleProto m6 = c.proto();
  Find(&m6, "compare")->set_comparison_direction("SIDEWAYS");
  ExpectModuleRejected(m6, {"SIDEWAYS"});
}

TEST_P(ClientErrorsTest, MalformedModuleStructure) {
  {
    HloModuleProto m = ValidModule();
    Entry(&m)->set_root_id(424242424);
    ExpectModuleRejected(m, {"root id 424242424"});
  }
  {
    HloModuleProto m = ValidModule();
    m.set_entry_computation_id(434343434);
    ExpectModuleRejected(m, {"entry computation"});
  }
  {
    HloModuleProto m;
    m.set_name("empty");
    ExpectModuleRejected(m, {"no computations"});
  }
  {
    HloModuleProto m = ValidModule();
    Find(&m, "constant")->set_id(Find(&m, "parameter")->id());
    ExpectModuleRejected(m, {"duplicate instruction id"});
  }
  {
    // Use before definition: the add's operand moved after it.
    HloModuleProto m = ValidModule();
    HloComputationProto* e = Entry(&m);
    ASSERT_EQ(e->instructions_size(), 3);
    e->mutable_instructions()->SwapElements(1, 2);  // add before constant
    ExpectModuleRejected(m, {"not an earlier instruction"});
  }
  {
    // An instruction that is its own operand.
    HloModuleProto m = ValidModule();
    HloInstructionProto* add = Find(&m, "add");
    add->set_operand_ids(0, add->id());
    ExpectModuleRejected(m, {"add"});
  }
}

TEST_P(ClientErrorsTest, MalformedModuleParameters) {
  {
    HloModuleProto m = ValidModule();
    HloComputationProto* e = Entry(&m);
    HloInstructionProto dup = *Find(&m, "parameter");
    dup.set_id(dup.id() + 1000000);
    dup.set_name("p0_again");
    *e->add_instructions() = dup;  // moved to just after the first parameter
    for (int i = e->instructions_size() - 1; i > 1; --i) e->mutable_instructions()->SwapElements(i, i - 1);
    ExpectModuleRejected(m, {"duplicate parameter number 0"});
  }
  {
    HloModuleProto m = ValidModule();
    Find(&m, "parameter")->set_parameter_number(1);
    ExpectModuleRejected(m, {"parameter 0 is missing"});
  }
  {
    HloModuleProto m = ValidModule();
    Find(&m, "parameter")->set_parameter_number(-1);
    ExpectModuleRejected(m, {"parameter number -1"});
  }
  {
    HloModuleProto m = ValidModule();
    Find(&m, "parameter")->set_parameter_number(int64_t{1} << 40);
    ExpectModuleRejected(m, {"parameter number"});
  }
}

TEST_P(ClientErrorsTest, MalformedModuleCalledComputations) {
  XlaBuilder b(TestName());
  std::unique_ptr<XlaBuilder> sb = b.CreateSubBuilder("add");
  Add(Parameter(sb.get(), 0, Scalar(F32), "a"), Parameter(sb.get(), 1, Scalar(F32), "b"));
  ASSERT_OK_AND_ASSIGN(XlaComputation add, sb->Build());
  ReduceAll(Parameter(&b, 0, F32Shape({2}), "x"), ConstantR0<float>(&b, 0), add);
  ASSERT_OK_AND_ASSIGN(XlaComputation c, b.Build());
  {
    HloModuleProto m = c.proto();
    Find(&m, "reduce")->set_called_computation_ids(0, 7777777);
    ExpectModuleRejected(m, {"called computation id 7777777"});
  }
  {
    HloModuleProto m = c.proto();
    Find(&m, "reduce")->clear_called_computation_ids();
    ExpectModuleRejected(m, {"reduce"});
  }
  {
    // The reducer changed to take s32: its signature no longer fits.
    HloModuleProto m = c.proto();
    for (HloComputationProto& comp : *m.mutable_computations()) {
      if (comp.id() == m.entry_computation_id()) continue;
      for (HloInstructionProto& i : *comp.mutable_instructions()) i.mutable_shape()->set_element_type(S32);
    }
    ExpectModuleRejected(m, {"reduce"});
  }
  {
    // The entry computation calling itself.
    HloModuleProto m = c.proto();
    Find(&m, "reduce")->set_called_computation_ids(0, m.entry_computation_id());
    ExpectModuleRejected(m, {"reduce"});
  }
}

TEST_P(ClientErrorsTest, MalformedHloText) {
  ExpectError(client()->CompileHloText("HloModule broken\nENTRY e { ROOT x = f32[2] frobnicate() }").status(),
              absl::StatusCode::kInvalidArgument, {"frobnicate"});
  ExpectError(client()->CompileHloText("this is not HLO").status(), absl::StatusCode::kInvalidArgument, {});
  // Both a proto and text in one request.
  CompileRequest request;
  *request.mutable_computation() = ValidModule();
  request.set_hlo_text("HloModule m\nENTRY e { ROOT c = f32[] constant(1) }");
  CompileResponse response;
  ExpectError(client()->service()->Compile(request, &response), absl::StatusCode::kInvalidArgument,
              {"carries 2 programs", "set exactly one of computation, hlo_text and stablehlo_text"});
  ExpectError(client()->service()->Compile(CompileRequest(), &response), absl::StatusCode::kInvalidArgument,
              {"carries 0 programs"});
}

TEST_P(ClientErrorsTest, StableHloText) {
  // A well-formed module compiles and runs (so the errors below are about
  // the text, not the path).
  absl::StatusOr<ExecutionHandle> executable = client()->CompileStableHlo(
      "func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {\n"
      "  %r = stablehlo.multiply %x, %x : tensor<3xf32>\n"
      "  return %r : tensor<3xf32>\n}\n");
  ASSERT_TRUE(executable.ok()) << executable.status();
  std::unique_ptr<GlobalData> x = client()->TransferToServer(Literal::CreateR1<float>({1, -2, 3})).value();
  absl::StatusOr<std::unique_ptr<GlobalData>> result = client()->Execute(*executable, {x.get()});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(client()->TransferToClient(**result).value(), Literal::CreateR1<float>({1, 4, 9}));
  EXPECT_TRUE(client()->UnregisterExecutable(*executable).ok());

  ExpectError(client()->CompileStableHlo("func.func @main() {\n  %0 = stablehlo.nope : tensor<f32>\n  return\n}\n").status(),
              absl::StatusCode::kInvalidArgument, {"stablehlo_text:2:8: stablehlo.nope: unknown op"});
  ExpectError(client()->CompileStableHlo("func.func @main(").status(), absl::StatusCode::kInvalidArgument,
              {"stablehlo_text:1:"});
  // HLO text is not StableHLO.
  ExpectError(client()->CompileStableHlo("HloModule m\nENTRY e { ROOT c = f32[] constant(1) }").status(),
              absl::StatusCode::kInvalidArgument, {"stablehlo_text:1:1: "});
  // Without @main every function is an entry point: two are ambiguous.
  ExpectError(client()->CompileStableHlo("func.func private @f(%x: tensor<f32>) -> tensor<f32> {\n"
                                         "  return %x : tensor<f32>\n}\n"
                                         "func.func private @g(%x: tensor<f32>) -> tensor<f32> {\n"
                                         "  return %x : tensor<f32>\n}\n")
                  .status(),
              absl::StatusCode::kInvalidArgument, {"expected one entry point"});
}

// Padded layouts (the 2017 overview's padded_dimensions/padding_value) are
// validated wherever a shape arrives, and refused in computation shapes.
TEST_P(ClientErrorsTest, MalformedPaddedLayouts) {
  LiteralProto base = Literal::CreateR2<float>({{1, 2, 3}, {4, 5, 6}}).ToProto();
  base.mutable_shape()->mutable_layout()->add_minor_to_major(1);
  base.mutable_shape()->mutable_layout()->add_minor_to_major(0);
  {
    LiteralProto p = base;
    p.mutable_shape()->mutable_layout()->add_padded_dimensions(3);
    ExpectError(TransferProto(p), absl::StatusCode::kInvalidArgument, {"padded_dimensions needs 2 entries"});
  }
  {
    LiteralProto p = base;
    p.mutable_shape()->mutable_layout()->add_padded_dimensions(1);
    p.mutable_shape()->mutable_layout()->add_padded_dimensions(3);
    ExpectError(TransferProto(p), absl::StatusCode::kInvalidArgument, {"dimension 0 is padded to 1, less than its size 2"});
  }
  {
    LiteralProto p = base;
    p.mutable_shape()->mutable_layout()->set_padding_value(ONE_PAD);
    ExpectError(TransferProto(p), absl::StatusCode::kInvalidArgument, {"padding_value 2 without padded_dimensions"});
  }
  {
    LiteralProto p = base;
    p.mutable_shape()->mutable_layout()->add_padded_dimensions(2);
    p.mutable_shape()->mutable_layout()->add_padded_dimensions(4);
    p.mutable_shape()->mutable_layout()->set_padding_value(static_cast<PaddingValue>(77));
    ExpectError(TransferProto(p), absl::StatusCode::kInvalidArgument, {"invalid padding_value 77"});
  }
  {
    // Valid padding, but the data is the unpadded 6 elements, not 8.
    LiteralProto p = base;
    p.mutable_shape()->mutable_layout()->add_padded_dimensions(2);
    p.mutable_shape()->mutable_layout()->add_padded_dimensions(4);
    ExpectError(TransferProto(p), absl::StatusCode::kInvalidArgument, {"needs 8 elements but the proto holds 6"});
  }
  {
    // A requested layout too large for any memory is refused, not allocated.
    absl::StatusOr<std::unique_ptr<GlobalData>> data = client()->TransferToServer(Literal::CreateR1<float>({1, 2}));
    ASSERT_TRUE(data.ok()) << data.status();
    Shape huge = ShapeUtil::MakeShape(F32, {2});
    huge.set_layout(Layout({0}, {int64_t{1} << 50}, ZERO_PAD));
    absl::StatusOr<Literal> back = client()->TransferToClient(**data, &huge);
    EXPECT_FALSE(back.ok());
    EXPECT_TRUE(back.status().code() == absl::StatusCode::kResourceExhausted ||
                back.status().code() == absl::StatusCode::kInvalidArgument)
        << back.status();
  }
  Shape padded = ShapeUtil::MakeShape(F32, {2});
  padded.set_layout(Layout({0}, {4}, ZERO_PAD));
  {
    XlaBuilder b(TestName());
    Parameter(&b, 0, padded, "p");
    ExpectBuildFails(&b, {"Parameter", "padded layout"});
  }
  {
    // A module whose parameter shape is padded, sent as a proto.
    HloModuleProto module = ValidModule();
    *Find(&module, "parameter")->mutable_shape() = padded.ToProto();
    ExpectModuleRejected(module, {"padded layout"});
  }
  {
    absl::StatusOr<XlaComputation> c = [&] {
      XlaBuilder b(TestName());
      Neg(Parameter(&b, 0, F32Shape({2}), "p"));
      return b.Build();
    }();
    ASSERT_TRUE(c.ok()) << c.status();
    ExpectError(client()->Compile(*c, {padded}).status(), absl::StatusCode::kInvalidArgument,
                {"Compile: argument 0", "padded layout"});
  }
}

TEST_P(ClientErrorsTest, MalformedLiteralsOnTransfer) {
  {
    LiteralProto p = Literal::CreateR1<float>({1, 2}).ToProto();
    p.add_f32s(3);
    ExpectError(TransferProto(p), absl::StatusCode::kInvalidArgument, {"needs 2 elements but the proto holds 3"});
  }
  {
    LiteralProto p = Literal::CreateR1<int8_t>({1, 2, 3, 4}).ToProto();
    p.set_s8s(std::string(3, '\1'));
    ExpectError(TransferProto(p), absl::StatusCode::kInvalidArgument, {"needs 4 bytes but the proto holds 3"});
  }
  {
    LiteralProto p = Literal::CreateR1<float>({1, 2}).ToProto();
    p.mutable_shape()->set_dimensions(0, -2);
    ExpectError(TransferProto(p), absl::StatusCode::kInvalidArgument, {"negative dimension"});
  }
  {
    std::vector<Literal> elements;
    elements.push_back(Literal::CreateR0<float>(1));
    elements.push_back(Literal::CreateR0<int32_t>(2));
    LiteralProto p = Literal::MakeTuple(std::move(elements)).ToProto();
    p.mutable_tuple_literals()->RemoveLast();
    ExpectError(TransferProto(p), absl::StatusCode::kInvalidArgument, {"tuple literal has 1 elements"});
  }
  {
    // A huge shape with no data: rejected without allocating.
    LiteralProto p;
    *p.mutable_shape() = ShapeUtil::MakeShape(F32, {int64_t{1} << 40, int64_t{1} << 20}).ToProto();
    // A service with a memory quota refuses it on size (RESOURCE_EXHAUSTED)
    // before looking at the data; an unlimited one finds the data missing.
    absl::Status s = TransferProto(p);
    EXPECT_TRUE(s.code() == absl::StatusCode::kResourceExhausted || s.code() == absl::StatusCode::kInvalidArgument)
        << s;
  }
  {
    LiteralProto p;
    p.mutable_shape()->set_element_type(static_cast<PrimitiveType>(999));
    ExpectError(TransferProto(p), absl::StatusCode::kInvalidArgument, {});
  }
}

// --- Resource exhaustion must be a status, not a crash -------------------------------------

TEST_P(ClientErrorsTest, HugeResultIsAnErrorNotACrash) {
  // f32[2^30, 2^30] is a valid shape (4 EiB) that no host can allocate; the
  // service must answer with a status. Runs in a child process so a crash
  // fails this test only.
  if (absl::StartsWith(backend(), "grpc:")) {
    // The service is another process already; a crash there shows as an
    // error here. (A child test process would also leave gRPC threads
    // running at exit.)
    XlaBuilder b("huge");
    Broadcast(ConstantR0<float>(&b, 1), {int64_t{1} << 30, int64_t{1} << 30});
    ASSERT_OK_AND_ASSIGN(XlaComputation c, b.Build());
    absl::StatusOr<std::unique_ptr<GlobalData>> r = client()->Execute(c, {});
    EXPECT_EQ(r.status().code(), absl::StatusCode::kResourceExhausted) << r.status();
    return;
  }
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        XlaBuilder b("huge");
        Broadcast(ConstantR0<float>(&b, 1), {int64_t{1} << 30, int64_t{1} << 30});
        absl::StatusOr<XlaComputation> c = b.Build();
        if (!c.ok()) {
          std::fprintf(stderr, "status: %s\n", c.status().ToString().c_str());
          std::exit(0);
        }
        absl::StatusOr<std::unique_ptr<GlobalData>> r = client()->Execute(*c, {});
        std::fprintf(stderr, "status: %s\n", r.status().ToString().c_str());
        std::exit(r.ok() ? 1 : 0);
      },
      ::testing::ExitedWithCode(0), "status: ");
}

XLA_CLIENT_TEST_P(ClientErrorsTest);

}  // namespace
}  // namespace xla
