// Tests of the HLO text printer and parser: round trips of hand-written
// modules covering every typed attribute, the real-model benchmark modules in
// ../shared/benchmarks/hlo, error messages with line numbers, and robustness
// against truncated or mangled input.
#include <dirent.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "proto/hlo.pb.h"
#include "xla/hlo/hlo_computation.h"
#include "xla/hlo/hlo_instruction.h"
#include "xla/hlo/hlo_module.h"
#include "xla/hlo/hlo_parser.h"
#include "xla/hlo/hlo_printer.h"
#include "xla/literal.h"
#include "xla/shape_util.h"

namespace xla {
namespace {

// Clears every id, so protos of two parses compare on content (structure is
// covered by the printed text being equal).
void ClearIds(HloModuleProto* module) {
  module->clear_id();
  module->clear_entry_computation_id();
  for (HloComputationProto& c : *module->mutable_computations()) {
    c.clear_id();
    c.clear_root_id();
    for (HloInstructionProto& i : *c.mutable_instructions()) {
      i.clear_id();
      i.clear_operand_ids();
      i.clear_called_computation_ids();
      i.clear_control_predecessor_ids();
    }
  }
}

void ExpectProtosEqualIgnoringIds(HloModuleProto a, HloModuleProto b) {
  ClearIds(&a);
  ClearIds(&b);
  google::protobuf::util::MessageDifferencer differ;
  std::string report;
  differ.ReportDifferencesToString(&report);
  EXPECT_TRUE(differ.Compare(a, b)) << report;
}

const HloInstructionProto* FindInstruction(const HloModuleProto& module, const std::string& name) {
  for (const HloComputationProto& c : module.computations()) {
    for (const HloInstructionProto& i : c.instructions()) {
      if (i.name() == name) return &i;
    }
  }
  return nullptr;
}

int64_t InstructionCount(const HloModuleProto& module) {
  int64_t n = 0;
  for (const HloComputationProto& c : module.computations()) n += c.instructions_size();
  return n;
}

// parse -> print -> parse -> print: equal texts, equal protos (ids aside),
// and the IR's own ToProto agrees with the parser's proto. Returns the first
// parse's proto and stores the printed text.
HloModuleProto CheckRoundTrip(const std::string& text, std::string* printed = nullptr) {
  auto proto1 = ParseHloModuleToProto(text);
  EXPECT_TRUE(proto1.ok()) << proto1.status();
  if (!proto1.ok()) return {};
  auto module1 = HloModule::CreateFromProto(*proto1);
  EXPECT_TRUE(module1.ok()) << module1.status();
  if (!module1.ok()) return {};
  std::string text1 = (*module1)->ToString();

  auto proto2 = ParseHloModuleToProto(text1);
  EXPECT_TRUE(proto2.ok()) << proto2.status() << "\nwhile parsing the printed text:\n" << text1;
  if (!proto2.ok()) return {};
  auto module2 = HloModule::CreateFromProto(*proto2);
  EXPECT_TRUE(module2.ok()) << module2.status();
  if (!module2.ok()) return {};
  std::string text2 = (*module2)->ToString();

  EXPECT_EQ(text1, text2);
  ExpectProtosEqualIgnoringIds(*proto1, *proto2);
  ExpectProtosEqualIgnoringIds(*proto1, (*module1)->ToProto());
  if (printed != nullptr) *printed = text1;
  return *proto1;
}

std::vector<int64_t> Ints(const google::protobuf::RepeatedField<int64_t>& field) {
  return std::vector<int64_t>(field.begin(), field.end());
}

// ---------------------------------------------------------------------------
// Round trips of hand-written modules.

constexpr char kShapesAndConstants[] = R"(
HloModule shapes_and_constants, alias_passthrough_params=true, entry_computation_layout={(f32[2,3]{1,0}, s32[4]{0})->(f32[3,2]{0,1}, s32[2]{0})}

// Constants of many types, shape ops and their attributes.
ENTRY %main (p0: f32[2,3], p1: s32[4]) -> (f32[3,2], s32[2]) {
  %p0 = f32[2,3]{1,0} parameter(0)
  %p1 = s32[4]{0} parameter(1)
  %c.f32 = f32[2,2]{1,0} constant({{1, 2.5}, {-3, 4}})
  %c.s32 = s32[3]{0} constant({1, -2, 3})
  %c.pred = pred[2]{0} constant({true, false})
  %c.bf16 = bf16[2]{0} constant({0.5, -inf})
  %c.f16 = f16[] constant(1.5)
  %c.c64 = c64[] constant((1, -2))
  %c.u64 = u64[] constant(18446744073709551615)
  %c.tuple = (f32[], s32[2]{0}) constant((1, {2, 3}))
  %c.elided = f32[4,4]{1,0} constant({...})
  %c.layout = f32[2,2]{0,1} constant({{1, 2}, {3, 4}})
  %c.scalar = f32[] constant(42)
  %t = f32[3,2]{0,1} transpose(%p0), dimensions={1,0}
  %rev = f32[2,3]{1,0} reverse(%p0), dimensions={0}
  %b = f32[2,3,4]{2,1,0} broadcast(%p0), dimensions={0,1}
  %r = f32[6]{0} reshape(f32[2,3]{1,0} %p0)
  %s = f32[2,2]{1,0} slice(f32[2,3]{1,0} %p0), slice={[0:2], [0:3:2]}
  %ds_start = s32[] constant(0)
  %ds = s32[2]{0} dynamic-slice(%p1, %ds_start), dynamic_slice_sizes={2}
  %pv = f32[] constant(0)
  %pad = f32[3,8]{1,0} pad(%p0, %pv), padding=0_1x1_2_1
  %iota = s32[2,3]{1,0} iota(), iota_dimension=1
  %cat = f32[4,3]{1,0} concatenate(%p0, /*index=1*/%p0), dimensions={0}
  %cmp = pred[2,3]{1,0} compare(%p0, %p0), direction=LT, type=TOTALORDER
  %cmp2 = pred[2,3]{1,0} compare(%p0, %p0), direction=EQ
  %sel = f32[2,3]{1,0} select(%cmp, %p0, %rev)
  %cvt = s32[2,3]{1,0} convert(%sel)
  %rp = f32[2,3]{1,0} reduce-precision(%p0), exponent_bits=5, mantissa_bits=10
  %tup = (f32[3,2]{0,1}, s32[2]{0}) tuple(%t, %ds)
  %gte = s32[2]{0} get-tuple-element(%tup), index=1
  ROOT %out = (f32[3,2]{0,1}, s32[2]{0}) tuple(%t, %gte)
}
)";

TEST(HloTextTest, RoundTripShapesAndConstants) {
  std::string printed;
  HloModuleProto proto = CheckRoundTrip(kShapesAndConstants, &printed);
  ASSERT_EQ(proto.computations_size(), 1);
  EXPECT_EQ(proto.name(), "shapes_and_constants");
  EXPECT_EQ(proto.attributes().at("alias_passthrough_params"), "true");
  EXPECT_EQ(proto.attributes().at("entry_computation_layout"),
            "{(f32[2,3]{1,0}, s32[4]{0})->(f32[3,2]{0,1}, s32[2]{0})}");
  EXPECT_EQ(proto.entry_computation_name(), "main");
  EXPECT_EQ(proto.host_program_shape().parameters_size(), 2);

  EXPECT_EQ(Ints(FindInstruction(proto, "t")->dimensions()), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(Ints(FindInstruction(proto, "t")->shape().layout().minor_to_major()), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(Ints(FindInstruction(proto, "b")->dimensions()), (std::vector<int64_t>{0, 1}));
  const HloInstructionProto* s = FindInstruction(proto, "s");
  ASSERT_EQ(s->slice_dimensions_size(), 2);
  EXPECT_EQ(s->slice_dimensions(0).stride(), 1);
  EXPECT_EQ(s->slice_dimensions(1).start(), 0);
  EXPECT_EQ(s->slice_dimensions(1).limit(), 3);
  EXPECT_EQ(s->slice_dimensions(1).stride(), 2);
  EXPECT_EQ(Ints(FindInstruction(proto, "ds")->dynamic_slice_sizes()), (std::vector<int64_t>{2}));
  const PaddingConfig& pad = FindInstruction(proto, "pad")->padding_config();
  ASSERT_EQ(pad.dimensions_size(), 2);
  EXPECT_EQ(pad.dimensions(0).edge_padding_high(), 1);
  EXPECT_EQ(pad.dimensions(1).edge_padding_low(), 1);
  EXPECT_EQ(pad.dimensions(1).edge_padding_high(), 2);
  EXPECT_EQ(pad.dimensions(1).interior_padding(), 1);
  EXPECT_EQ(Ints(FindInstruction(proto, "iota")->dimensions()), (std::vector<int64_t>{1}));
  EXPECT_EQ(FindInstruction(proto, "cmp")->comparison_direction(), "LT");
  EXPECT_EQ(FindInstruction(proto, "cmp")->comparison_type(), "TOTALORDER");
  EXPECT_EQ(FindInstruction(proto, "cmp2")->comparison_type(), "");
  EXPECT_EQ(FindInstruction(proto, "rp")->exponent_bits(), 5);
  EXPECT_EQ(FindInstruction(proto, "rp")->mantissa_bits(), 10);
  EXPECT_EQ(FindInstruction(proto, "gte")->tuple_index(), 1);

  // Constant values survive.
  auto lit = [&](const std::string& name) { return *Literal::FromProto(FindInstruction(proto, name)->literal()); };
  EXPECT_EQ(lit("c.f32"), Literal::CreateR2<float>({{1, 2.5}, {-3, 4}}));
  EXPECT_EQ(lit("c.s32"), Literal::CreateR1<int32_t>({1, -2, 3}));
  EXPECT_EQ(lit("c.pred"), Literal::CreateR1<bool>({true, false}));
  EXPECT_EQ(lit("c.u64"), Literal::CreateR0<uint64_t>(18446744073709551615ull));
  EXPECT_EQ(lit("c.c64").ToStringWithoutShape(), "(1, -2)");
  EXPECT_EQ(lit("c.bf16").ToStringWithoutShape(), "{0.5, -inf}");
  EXPECT_EQ(lit("c.f16").ToStringWithoutShape(), "1.5");
  EXPECT_EQ(lit("c.layout"), Literal::CreateR2<float>({{1, 2}, {3, 4}}));
  EXPECT_EQ(lit("c.elided"), Literal(ShapeUtil::MakeShape(F32, {4, 4})));
  EXPECT_EQ(FindInstruction(proto, "c.elided")->unknown_attributes().at("elided"), "true");
  Literal tuple = lit("c.tuple");
  ASSERT_EQ(tuple.tuple_elements().size(), 2u);
  EXPECT_EQ(tuple.tuple_elements()[1], Literal::CreateR1<int32_t>({2, 3}));

  // Printed form: layouts on arrays, short operands, ROOT, the fixed attribute spellings.
  EXPECT_TRUE(absl::StartsWith(printed,
                               "HloModule shapes_and_constants, alias_passthrough_params=true, "
                               "entry_computation_layout={(f32[2,3]{1,0}, s32[4]{0})->(f32[3,2]{0,1}, s32[2]{0})}\n\n"
                               "ENTRY %main (p0: f32[2,3], p1: s32[4]) -> (f32[3,2], s32[2]) {\n"))
      << printed;
  for (const char* line : {
           "  %c.f32 = f32[2,2]{1,0} constant({{1, 2.5}, {-3, 4}})\n",
           "  %c.tuple = (f32[], s32[2]{0}) constant((1, {2, 3}))\n",
           "  %c.elided = f32[4,4]{1,0} constant({...})\n",
           "  %c.c64 = c64[] constant((1, -2))\n",
           "  %c.u64 = u64[] constant(18446744073709551615)\n",
           "  %r = f32[6]{0} reshape(%p0)\n",
           "  %s = f32[2,2]{1,0} slice(%p0), slice={[0:2], [0:3:2]}\n",
           "  %pad = f32[3,8]{1,0} pad(%p0, %pv), padding=0_1x1_2_1\n",
           "  %iota = s32[2,3]{1,0} iota(), iota_dimension=1\n",
           "  %cmp = pred[2,3]{1,0} compare(%p0, %p0), direction=LT, type=TOTALORDER\n",
           "  %cat = f32[4,3]{1,0} concatenate(%p0, %p0), dimensions={0}\n",
           "  ROOT %out = (f32[3,2]{0,1}, s32[2]{0}) tuple(%t, %gte)\n",
       }) {
    EXPECT_TRUE(absl::StrContains(printed, line)) << "missing: " << line << "\nin:\n" << printed;
  }
}

constexpr char kControlFlow[] = R"(
HloModule control_flow

%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %sum = f32[] add(%x, %y)
}

%ge (a: f32[], b: f32[]) -> pred[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %r = pred[] compare(%a, %b), direction=GE
}

%less (a: f32[], b: f32[]) -> pred[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %r = pred[] compare(f32[] %a, f32[] %b), direction=LT
}

%cond (s: (s32[], f32[4])) -> pred[] {
  %s = (s32[], f32[4]{0}) parameter(0)
  %i = s32[] get-tuple-element((s32[], f32[4]{0}) %s), index=0
  %n = s32[] constant(10)
  ROOT %lt = pred[] compare(%i, %n), direction=LT
}

%body (s: (s32[], f32[4])) -> (s32[], f32[4]) {
  %s = (s32[], f32[4]{0}) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %v = f32[4]{0} get-tuple-element(%s), index=1
  %one = s32[] constant(1)
  %next = s32[] add(%i, %one)
  %v2 = f32[4]{0} add(%v, %v)
  ROOT %t = (s32[], f32[4]{0}) tuple(%next, %v2)
}

%on_true (x: f32[4]) -> f32[4] {
  %x = f32[4]{0} parameter(0)
  ROOT %n = f32[4]{0} negate(%x)
}

%on_false (x: f32[4]) -> f32[4] {
  %x = f32[4]{0} parameter(0)
  ROOT %a = f32[4]{0} abs(%x)
}

%fused (p: f32[4]) -> f32[4] {
  %p = f32[4]{0} parameter(0)
  ROOT %e = f32[4]{0} exponential(%p)
}

ENTRY %main (v: f32[4], m: f32[4,6], k: s32[]) -> (f32[4], f32[4], f32[4,6]) {
  %v = f32[4]{0} parameter(0)
  %m = f32[4,6]{1,0} parameter(1)
  %k = s32[] parameter(2)
  %zero = f32[] constant(0)
  %reduce = f32[4]{0} reduce(%m, %zero), dimensions={1}, to_apply=%add
  %i0 = s32[] constant(0)
  %init = (s32[], f32[4]{0}) tuple(%i0, %v)
  %loop = (s32[], f32[4]{0}) while(%init), condition=%cond, body=%body
  %lv = f32[4]{0} get-tuple-element(%loop), index=1
  %p = pred[] constant(true)
  %cond1 = f32[4]{0} conditional(%p, %lv, %v), true_computation=%on_true, false_computation=%on_false
  %cond2 = f32[4]{0} conditional(%k, %lv, %v), branch_computations={%on_true, %on_false}
  %call = f32[4]{0} call(%cond1), to_apply=%fused
  %fusion = f32[4]{0} fusion(%cond2), kind=kLoop, calls=%fused
  %map = f32[4]{0} map(%call, %fusion), dimensions={0}, to_apply=%add
  %sort = f32[4]{0} sort(%map), dimensions={0}, is_stable=true, to_apply=%less
  %rw = f32[2,3]{1,0} reduce-window(%m, %zero), window={size=2x2 stride=2x2}, to_apply=%add
  %sas = f32[4,6]{1,0} select-and-scatter(%m, %rw, %zero), window={size=2x2 stride=2x2}, select=%ge, scatter=%add
  %ar = f32[4]{0} all-reduce(%sort), replica_groups={{0,1},{2,3}}, channel_id=1, to_apply=%add
  ROOT %out = (f32[4]{0}, f32[4]{0}, f32[4,6]{1,0}) tuple(%reduce, %ar, %sas)
}
)";

TEST(HloTextTest, RoundTripNarrowAndSmallFloatTypes) {
  const char* text = R"(
HloModule narrow

ENTRY main {
  p = s4[3] parameter(0)
  c.s2 = s2[4] constant({-2, -1, 0, 1})
  c.u4 = u4[3] constant({0, 8, 15})
  c.e4m3fn = f8e4m3fn[3] constant({448, -0.5, nan})
  c.e5m2 = f8e5m2[2] constant({-inf, 57344})
  c.e8m0 = f8e8m0fnu[] constant(0.125)
  c.f4 = f4e2m1fn[2] constant({6, -0})
  c.f6 = f6e3m2fn[1] constant({28})
  ROOT r = s4[3] add(p, p)
})";
  std::string printed;
  HloModuleProto proto = CheckRoundTrip(text, &printed);
  auto lit = [&](const std::string& name) { return *Literal::FromProto(FindInstruction(proto, name)->literal()); };
  EXPECT_EQ(lit("c.s2").ToString(), "s2[4] {-2, -1, 0, 1}");
  EXPECT_EQ(lit("c.u4").ToString(), "u4[3] {0, 8, 15}");
  EXPECT_EQ(lit("c.e4m3fn").ToString(), "f8e4m3fn[3] {448, -0.5, nan}");
  EXPECT_EQ(lit("c.e5m2").ToString(), "f8e5m2[2] {-inf, 57344}");
  // The shortest text that reads back to the same e8m0 value (0.125).
  EXPECT_EQ(lit("c.e8m0").ToString(), "f8e8m0fnu[] 0.1");
  EXPECT_EQ(lit("c.e8m0").GetAsDouble(0), 0.125);
  EXPECT_EQ(lit("c.f4").ToString(), "f4e2m1fn[2] {6, -0}");
  EXPECT_EQ(lit("c.f6").ToString(), "f6e3m2fn[1] {28}");
  EXPECT_NE(printed.find("f8e4m3fn[3]{0} constant({448, -0.5, nan})"), std::string::npos) << printed;
  EXPECT_NE(printed.find("s4[3]{0} parameter(0)"), std::string::npos) << printed;
}

TEST(HloTextTest, RoundTripControlFlowAndCalledComputations) {
  std::string printed;
  HloModuleProto proto = CheckRoundTrip(kControlFlow, &printed);
  ASSERT_EQ(proto.computations_size(), 9);
  EXPECT_EQ(proto.computations(8).name(), "main");
  EXPECT_EQ(proto.entry_computation_id(), proto.computations(8).id());
  auto comp_id = [&](const std::string& name) {
    for (const auto& c : proto.computations()) {
      if (c.name() == name) return c.id();
    }
    return int64_t{-1};
  };
  auto callees = [&](const std::string& name) { return Ints(FindInstruction(proto, name)->called_computation_ids()); };
  EXPECT_EQ(callees("reduce"), (std::vector<int64_t>{comp_id("add")}));
  EXPECT_EQ(callees("loop"), (std::vector<int64_t>{comp_id("cond"), comp_id("body")}));
  EXPECT_EQ(callees("cond1"), (std::vector<int64_t>{comp_id("on_true"), comp_id("on_false")}));
  EXPECT_EQ(callees("cond2"), (std::vector<int64_t>{comp_id("on_true"), comp_id("on_false")}));
  EXPECT_EQ(callees("sas"), (std::vector<int64_t>{comp_id("ge"), comp_id("add")}));
  EXPECT_EQ(callees("fusion"), (std::vector<int64_t>{comp_id("fused")}));
  EXPECT_EQ(FindInstruction(proto, "fusion")->fusion_kind(), "kLoop");
  EXPECT_TRUE(FindInstruction(proto, "sort")->is_stable());
  const Window& w = FindInstruction(proto, "rw")->window();
  ASSERT_EQ(w.dimensions_size(), 2);
  EXPECT_EQ(w.dimensions(1).size(), 2);
  EXPECT_EQ(w.dimensions(1).stride(), 2);
  EXPECT_EQ(w.dimensions(1).window_dilation(), 1);
  EXPECT_EQ(w.dimensions(1).base_dilation(), 1);
  const HloInstructionProto* ar = FindInstruction(proto, "ar");
  ASSERT_EQ(ar->replica_groups_size(), 2);
  EXPECT_EQ(Ints(ar->replica_groups(1).replica_ids()), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(ar->channel_id(), 1);

  for (const char* line : {
           "  %loop = (s32[], f32[4]{0}) while(%init), condition=%cond, body=%body\n",
           "  %cond1 = f32[4]{0} conditional(%p, %lv, %v), true_computation=%on_true, false_computation=%on_false\n",
           "  %cond2 = f32[4]{0} conditional(%k, %lv, %v), branch_computations={%on_true, %on_false}\n",
           "  %call = f32[4]{0} call(%cond1), to_apply=%fused\n",
           "  %fusion = f32[4]{0} fusion(%cond2), kind=kLoop, calls=%fused\n",
           "  %rw = f32[2,3]{1,0} reduce-window(%m, %zero), window={size=2x2 stride=2x2}, to_apply=%add\n",
           "  %sas = f32[4,6]{1,0} select-and-scatter(%m, %rw, %zero), window={size=2x2 stride=2x2}, select=%ge, "
           "scatter=%add\n",
           "  %ar = f32[4]{0} all-reduce(%sort), replica_groups={{0,1},{2,3}}, channel_id=1, to_apply=%add\n",
           "\nENTRY %main (v: f32[4], m: f32[4,6], k: s32[]) -> (f32[4], f32[4], f32[4,6]) {\n",
           "%add (x: f32[], y: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n  %y = f32[] parameter(1)\n"
           "  ROOT %sum = f32[] add(%x, %y)\n}\n",
       }) {
    EXPECT_TRUE(absl::StrContains(printed, line)) << "missing: " << line << "\nin:\n" << printed;
  }
}

constexpr char kLinalgAndMisc[] = R"(
HloModule linalg_and_misc

%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %sum = f32[] add(%x, %y)
}

ENTRY %main {
  %a = f32[2,3,4]{2,1,0} parameter(0)
  %b = f32[2,4,5]{2,1,0} parameter(1)
  %dot = f32[2,3,5]{2,1,0} dot(%a, %b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}, operand_precision={high,highest}
  %img = f32[1,8,8,3]{3,2,1,0} parameter(2)
  %w = f32[3,3,3,16]{3,2,1,0} parameter(3)
  %conv = f32[1,4,4,16]{3,2,1,0} convolution(%img, %w), window={size=3x3 stride=2x2 pad=1_1x0_-1 lhs_dilate=1x1 rhs_dilate=2x2 rhs_reversal=0x1}, dim_labels=b01f_01io->b01f, feature_group_count=1, batch_group_count=1
  %w1 = f32[3,3,1,3]{3,2,1,0} parameter(4)
  %dw = f32[1,8,8,3]{3,2,1,0} convolution(%img, %w1), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->01bf, feature_group_count=3
  %tbl = f32[100,8]{1,0} parameter(5)
  %idx = s32[5,1]{1,0} parameter(6)
  %gather = f32[5,8]{1,0} gather(%tbl, %idx), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,8}, indices_are_sorted=true
  %upd = f32[5,8]{1,0} parameter(7)
  %scatter = f32[100,8]{1,0} scatter(%tbl, %idx, %upd), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, indices_are_sorted=true, unique_indices=true, to_apply=%add
  %lo = f32[] constant(0)
  %hi = f32[] constant(1)
  %rng = f32[4]{0} rng(%lo, %hi), distribution=rng_uniform
  %cx = c64[8]{0} parameter(8)
  %fft = c64[8]{0} fft(%cx), fft_type=IFFT, fft_length={8}
  %x = f32[4]{0} parameter(9)
  %cc = f32[4]{0} custom-call(%x), custom_call_target="my_target", operand_layout_constraints={f32[4]{0}}, backend_config="cfg \"quoted\", with comma"
  %cc2 = f32[4]{0} custom-call(%x), custom_call_target="t2", backend_config={"k": [1, 2], "s": "a,b"}
  %cc3 = (f32[4]{0}, s32[]) custom-call(%x, %x), custom_call_target="t3", custom_call_has_side_effect=true, api_version=API_VERSION_TYPED_FFI, backend_config={scale = 2.5 : f32, name = "a,b"}
  %scale = f32[3]{0} parameter(10)
  %bn = (f32[1,8,8,3]{3,2,1,0}, f32[3]{0}, f32[3]{0}) batch-norm-training(%img, %scale, %scale), epsilon=0.001, feature_index=3
  %topk = (f32[2]{0}, s32[2]{0}) topk(%x), k=2, largest=false
  %topk2 = (f32[2]{0}, s32[2]{0}) topk(%x), k=2
  %sh1 = f32[4]{0} copy(%x), sharding={replicated}
  %sh2 = f32[4]{0} copy(%x), sharding={maximal device=1}
  %sh3 = f32[4]{0} copy(%x), sharding={devices=[2,1]0,1}
  %sh4 = f32[4]{0} copy(%x), sharding={{replicated}, {maximal device=0}}
  %meta = f32[4]{0} negate(%x), metadata={op_type="Relu" op_name="x/y" source_file="f.py" source_line=10}, frontend_attributes={grad_y="true",grad_x="false"}
  %meta2 = f32[4]{0} negate(%x), metadata={op_name="a" deduplicated_name="b"}
  %unk = f32[4]{0} negate(%x), some_new_attr={a, {b, "c,}"}}, parameter_replication={false}
  %cp = f32[4]{0} collective-permute(%x), source_target_pairs={{0,1},{1,0}}, channel_id=2
  %ag = f32[8]{0} all-gather(%x), dimensions={0}, replica_groups={{0,1}}, constrain_layout=true, use_global_device_ids=true
  %a2a = f32[4]{0} all-to-all(%x), replica_groups=[2,2]<=[4]
  %sq = f32[4,4]{1,0} parameter(11)
  %ts = f32[4,4]{1,0} triangular-solve(%sq, %sq), left_side=true, lower=true, unit_diagonal=true, transpose_a=TRANSPOSE
  %chol = f32[4,4]{1,0} cholesky(%sq), lower=true
  %state = u64[2]{0} parameter(12)
  %rbg = (u64[2]{0}, u32[4]{0}) rng-bit-generator(%state), algorithm=rng_three_fry
  %tok = token[] after-all()
  %inf = ((f32[4]{0}), token[]) infeed(%tok), infeed_config="cfg"
  %outf = token[] outfeed(%x, %tok), outfeed_config="o", outfeed_shape=f32[4]{0}
  %snd = (f32[4]{0}, u32[], token[]) send(%x, %tok), channel_id=5, is_host_transfer=true
  %sdone = token[] send-done(%snd), channel_id=5, is_host_transfer=true
  %rcv = (f32[4]{0}, u32[], token[]) recv(%tok), channel_id=6
  %rdone = (f32[4]{0}, token[]) recv-done(%rcv), channel_id=6
  %a2a1 = f32[4]{0} all-to-all(%x), dimensions={0}, replica_groups={{0,1}}, channel_id=3
  %rs = f32[2]{0} reduce-scatter(%x), dimensions={0}, replica_groups={{0,1}}, channel_id=4, use_global_device_ids=true, to_apply=%add
  %gds = s32[] get-dimension-size(%x), dimensions={0}
  %dot2 = f32[2,3,5]{2,1,0} dot(%a, %b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}, algorithm=dot_bf16_bf16_f32
  %neg = f32[4]{0} negate(%x), index=3, control-predecessors={%gds}
  ROOT %root = (f32[2,3,5]{2,1,0}, f32[1,4,4,16]{3,2,1,0}) tuple(%dot, %conv)
}
)";

TEST(HloTextTest, RoundTripLinalgAndMiscAttributes) {
  std::string printed;
  HloModuleProto proto = CheckRoundTrip(kLinalgAndMisc, &printed);
  ASSERT_EQ(proto.computations_size(), 2);
  EXPECT_EQ(proto.entry_computation_name(), "main");  // no ENTRY: the last computation

  const DotDimensionNumbers& dot = FindInstruction(proto, "dot")->dot_dimension_numbers();
  EXPECT_EQ(Ints(dot.lhs_batch_dimensions()), (std::vector<int64_t>{0}));
  EXPECT_EQ(Ints(dot.lhs_contracting_dimensions()), (std::vector<int64_t>{2}));
  EXPECT_EQ(Ints(dot.rhs_batch_dimensions()), (std::vector<int64_t>{0}));
  EXPECT_EQ(Ints(dot.rhs_contracting_dimensions()), (std::vector<int64_t>{1}));
  const PrecisionConfig& pc = FindInstruction(proto, "dot")->precision_config();
  ASSERT_EQ(pc.operand_precision_size(), 2);
  EXPECT_EQ(pc.operand_precision(0), PrecisionConfig::HIGH);
  EXPECT_EQ(pc.operand_precision(1), PrecisionConfig::HIGHEST);

  const HloInstructionProto* conv = FindInstruction(proto, "conv");
  ASSERT_EQ(conv->window().dimensions_size(), 2);
  EXPECT_EQ(conv->window().dimensions(0).padding_low(), 1);
  EXPECT_EQ(conv->window().dimensions(1).padding_low(), 0);
  EXPECT_EQ(conv->window().dimensions(1).padding_high(), -1);
  EXPECT_EQ(conv->window().dimensions(0).window_dilation(), 2);
  EXPECT_FALSE(conv->window().dimensions(0).window_reversal());
  EXPECT_TRUE(conv->window().dimensions(1).window_reversal());
  const ConvolutionDimensionNumbers& cdn = conv->convolution_dimension_numbers();
  EXPECT_EQ(cdn.input_batch_dimension(), 0);
  EXPECT_EQ(cdn.input_feature_dimension(), 3);
  EXPECT_EQ(Ints(cdn.input_spatial_dimensions()), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(cdn.kernel_input_feature_dimension(), 2);
  EXPECT_EQ(cdn.kernel_output_feature_dimension(), 3);
  EXPECT_EQ(Ints(cdn.kernel_spatial_dimensions()), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(conv->feature_group_count(), 1);
  const HloInstructionProto* dw = FindInstruction(proto, "dw");
  EXPECT_EQ(dw->feature_group_count(), 3);
  EXPECT_EQ(dw->batch_group_count(), 1);
  EXPECT_EQ(dw->convolution_dimension_numbers().input_feature_dimension(), 1);
  EXPECT_EQ(dw->convolution_dimension_numbers().kernel_output_feature_dimension(), 0);
  EXPECT_EQ(Ints(dw->convolution_dimension_numbers().output_spatial_dimensions()), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(dw->convolution_dimension_numbers().output_batch_dimension(), 2);

  const HloInstructionProto* gather = FindInstruction(proto, "gather");
  EXPECT_EQ(Ints(gather->gather_dimension_numbers().offset_dims()), (std::vector<int64_t>{1}));
  EXPECT_EQ(Ints(gather->gather_dimension_numbers().start_index_map()), (std::vector<int64_t>{0}));
  EXPECT_EQ(gather->gather_dimension_numbers().index_vector_dim(), 1);
  EXPECT_EQ(Ints(gather->gather_slice_sizes()), (std::vector<int64_t>{1, 8}));
  EXPECT_TRUE(gather->indices_are_sorted());
  const HloInstructionProto* scatter = FindInstruction(proto, "scatter");
  EXPECT_EQ(Ints(scatter->scatter_dimension_numbers().update_window_dims()), (std::vector<int64_t>{1}));
  EXPECT_EQ(Ints(scatter->scatter_dimension_numbers().scatter_dims_to_operand_dims()), (std::vector<int64_t>{0}));
  EXPECT_EQ(scatter->scatter_dimension_numbers().index_vector_dim(), 1);
  EXPECT_FALSE(scatter->has_gather_dimension_numbers());
  EXPECT_TRUE(scatter->unique_indices());

  EXPECT_EQ(FindInstruction(proto, "rng")->distribution(), RNG_UNIFORM);
  EXPECT_EQ(FindInstruction(proto, "fft")->fft_type(), IFFT);
  EXPECT_EQ(Ints(FindInstruction(proto, "fft")->fft_length()), (std::vector<int64_t>{8}));
  EXPECT_EQ(FindInstruction(proto, "cc")->custom_call_target(), "my_target");
  EXPECT_EQ(FindInstruction(proto, "cc")->backend_config(), "cfg \"quoted\", with comma");
  EXPECT_EQ(FindInstruction(proto, "cc")->operand_shapes_with_layout_size(), 1);
  EXPECT_EQ(FindInstruction(proto, "cc2")->backend_config(), "{\"k\": [1, 2], \"s\": \"a,b\"}");
  EXPECT_EQ(FindInstruction(proto, "cc2")->custom_call_api_version(), API_VERSION_UNSPECIFIED);
  EXPECT_TRUE(FindInstruction(proto, "cc3")->custom_call_has_side_effect());
  EXPECT_EQ(FindInstruction(proto, "cc3")->custom_call_api_version(), API_VERSION_TYPED_FFI);
  EXPECT_EQ(FindInstruction(proto, "cc3")->backend_config(), "{scale = 2.5 : f32, name = \"a,b\"}");
  EXPECT_FLOAT_EQ(FindInstruction(proto, "bn")->epsilon(), 0.001f);
  EXPECT_EQ(FindInstruction(proto, "bn")->feature_index(), 3);
  EXPECT_EQ(FindInstruction(proto, "topk")->k(), 2);
  EXPECT_FALSE(FindInstruction(proto, "topk")->largest());
  EXPECT_TRUE(FindInstruction(proto, "topk2")->largest());  // XLA's default

  EXPECT_EQ(FindInstruction(proto, "sh1")->sharding().type(), OpSharding::REPLICATED);
  EXPECT_TRUE(FindInstruction(proto, "sh1")->has_sharding());
  EXPECT_EQ(FindInstruction(proto, "sh2")->sharding().type(), OpSharding::MAXIMAL);
  EXPECT_EQ(Ints(FindInstruction(proto, "sh2")->sharding().tile_assignment_devices()), (std::vector<int64_t>{1}));
  EXPECT_EQ(Ints(FindInstruction(proto, "sh3")->sharding().tile_assignment_dimensions()),
            (std::vector<int64_t>{2, 1}));
  EXPECT_FALSE(FindInstruction(proto, "sh4")->has_sharding());
  EXPECT_EQ(FindInstruction(proto, "sh4")->unknown_attributes().at("sharding"), "{{replicated}, {maximal device=0}}");

  const OpMetadata& md = FindInstruction(proto, "meta")->metadata();
  EXPECT_EQ(md.op_type(), "Relu");
  EXPECT_EQ(md.op_name(), "x/y");
  EXPECT_EQ(md.source_file(), "f.py");
  EXPECT_EQ(md.source_line(), 10);
  EXPECT_EQ(FindInstruction(proto, "meta")->frontend_attributes().map().at("grad_y"), "true");
  EXPECT_EQ(FindInstruction(proto, "meta2")->unknown_attributes().at("metadata"),
            "{op_name=\"a\" deduplicated_name=\"b\"}");
  const HloInstructionProto* unk = FindInstruction(proto, "unk");
  EXPECT_EQ(unk->unknown_attributes().at("some_new_attr"), "{a, {b, \"c,}\"}}");
  EXPECT_EQ(unk->unknown_attributes().at("parameter_replication"), "{false}");

  const HloInstructionProto* cp = FindInstruction(proto, "cp");
  ASSERT_EQ(cp->source_target_pairs_size(), 2);
  EXPECT_EQ(cp->source_target_pairs(1).source(), 1);
  EXPECT_EQ(cp->source_target_pairs(1).target(), 0);
  EXPECT_EQ(cp->channel_id(), 2);
  EXPECT_TRUE(FindInstruction(proto, "ag")->constrain_layout());
  EXPECT_TRUE(FindInstruction(proto, "ag")->use_global_device_ids());
  EXPECT_EQ(FindInstruction(proto, "a2a")->unknown_attributes().at("replica_groups"), "[2,2]<=[4]");
  const TriangularSolveOptions& ts = FindInstruction(proto, "ts")->triangular_solve_options();
  EXPECT_TRUE(ts.left_side());
  EXPECT_TRUE(ts.lower());
  EXPECT_TRUE(ts.unit_diagonal());
  EXPECT_EQ(ts.transpose_a(), TriangularSolveOptions::TRANSPOSE);
  EXPECT_TRUE(FindInstruction(proto, "chol")->cholesky_options().lower());
  EXPECT_EQ(FindInstruction(proto, "rbg")->rng_algorithm(), RNG_THREE_FRY);
  EXPECT_EQ(FindInstruction(proto, "inf")->infeed_config(), "cfg");
  EXPECT_EQ(FindInstruction(proto, "outf")->outfeed_config(), "o");
  EXPECT_EQ(FindInstruction(proto, "outf")->outfeed_shape().dimensions(0), 4);
  // Keys typed only on their own opcodes are someone else's attribute elsewhere.
  EXPECT_EQ(FindInstruction(proto, "dot2")->unknown_attributes().at("algorithm"), "dot_bf16_bf16_f32");
  EXPECT_EQ(FindInstruction(proto, "dot2")->rng_algorithm(), RNG_DEFAULT);
  EXPECT_EQ(FindInstruction(proto, "neg")->unknown_attributes().at("index"), "3");
  EXPECT_EQ(FindInstruction(proto, "neg")->unknown_attributes().at("control-predecessors"), "{%gds}");
  EXPECT_TRUE(FindInstruction(proto, "snd")->is_host_transfer());
  EXPECT_EQ(FindInstruction(proto, "snd")->channel_id(), 5);

  for (const char* line : {
           "dot(%a, %b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}, "
           "operand_precision={high,highest}\n",
           "convolution(%img, %w), window={size=3x3 stride=2x2 pad=1_1x0_-1 rhs_dilate=2x2 rhs_reversal=0x1}, "
           "dim_labels=b01f_01io->b01f\n",
           "convolution(%img, %w1), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->01bf, "
           "feature_group_count=3\n",
           "gather(%tbl, %idx), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, "
           "slice_sizes={1,8}, indices_are_sorted=true\n",
           "scatter(%tbl, %idx, %upd), update_window_dims={1}, inserted_window_dims={0}, "
           "scatter_dims_to_operand_dims={0}, index_vector_dim=1, indices_are_sorted=true, unique_indices=true, "
           "to_apply=%add\n",
           "custom-call(%x), custom_call_target=\"my_target\", operand_layout_constraints={f32[4]{0}}, "
           "backend_config=\"cfg \\\"quoted\\\", with comma\"\n",
           "backend_config={\"k\": [1, 2], \"s\": \"a,b\"}\n",
           "custom-call(%x, %x), custom_call_target=\"t3\", custom_call_has_side_effect=true, "
           "api_version=API_VERSION_TYPED_FFI, backend_config={scale = 2.5 : f32, name = \"a,b\"}\n",
           "batch-norm-training(%img, %scale, %scale), epsilon=0.001, feature_index=3\n",
           "topk(%x), k=2, largest=false\n",
           "sharding={devices=[2,1]0,1}\n",
           "sharding={{replicated}, {maximal device=0}}\n",
           "negate(%x), frontend_attributes={grad_x=\"false\",grad_y=\"true\"}, "
           "metadata={op_type=\"Relu\" op_name=\"x/y\" source_file=\"f.py\" source_line=10}\n",
           "negate(%x), parameter_replication={false}, some_new_attr={a, {b, \"c,}\"}}\n",
           "triangular-solve(%sq, %sq), left_side=true, lower=true, unit_diagonal=true, transpose_a=TRANSPOSE\n",
           "rng-bit-generator(%state), algorithm=rng_three_fry\n",
           "fft(%cx), fft_type=IFFT, fft_length={8}\n",
           "all-to-all(%x), replica_groups=[2,2]<=[4]\n",
       }) {
    EXPECT_TRUE(absl::StrContains(printed, line)) << "missing: " << line << "\nin:\n" << printed;
  }
}

// Callees after callers, operands after users, no ROOT, bare names.
TEST(HloTextTest, ForwardReferencesAreReordered) {
  constexpr char kText[] = R"(HloModule fwd
ENTRY main {
  sum = f32[4] reduce(m, z), dimensions={0,1}, to_apply=add
  m = f32[2,4,3] parameter(0)
  z = f32[] constant(0)
  out = f32[4] negate(sum)
}
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT r = f32[] add(x, y)
})";
  HloModuleProto proto = CheckRoundTrip(kText);
  ASSERT_EQ(proto.computations_size(), 2);
  EXPECT_EQ(proto.computations(0).name(), "add");
  EXPECT_EQ(proto.computations(1).name(), "main");
  EXPECT_EQ(proto.entry_computation_name(), "main");
  std::vector<std::string> order;
  for (const auto& i : proto.computations(1).instructions()) order.push_back(i.name());
  EXPECT_EQ(order, (std::vector<std::string>{"m", "z", "sum", "out"}));
  EXPECT_EQ(proto.computations(1).root_id(), proto.computations(1).instructions(3).id());
  // Layouts are filled in with the row-major default.
  EXPECT_EQ(Ints(proto.computations(1).instructions(0).shape().layout().minor_to_major()),
            (std::vector<int64_t>{2, 1, 0}));
}

// XLA accepts modules without the `HloModule name` header (named here after
// the entry computation) and without ENTRY (the last computation is the entry).
TEST(HloTextTest, ModuleWithoutHeader) {
  constexpr char kText[] = R"(
ENTRY %main (p: f32[4]) -> f32[4] {
  %p = f32[4] parameter(0)
  ROOT %n = f32[4] negate(%p)
})";
  std::string printed;
  HloModuleProto proto = CheckRoundTrip(kText, &printed);
  EXPECT_EQ(proto.name(), "main");
  EXPECT_EQ(proto.entry_computation_name(), "main");
  EXPECT_TRUE(proto.attributes().empty());
  EXPECT_TRUE(absl::StartsWith(printed, "HloModule main\n")) << printed;
}

TEST(HloTextTest, ModuleWithoutHeaderOrEntryKeyword) {
  // Several computations, the entry last and unmarked, the others called by
  // it (a reduce's to_apply, a call's to_apply).
  constexpr char kText[] = R"(%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %r = f32[] add(%x, %y)
}

twice {
  a = f32[] parameter(0)
  ROOT m = f32[] multiply(a, a)
}

%sum_all (p: f32[2,3]) -> f32[] {
  %p = f32[2,3] parameter(0)
  %zero = f32[] constant(0)
  %s = f32[] reduce(%p, %zero), dimensions={0,1}, to_apply=%add
  ROOT %t = f32[] call(%s), to_apply=twice
}
)";
  HloModuleProto proto = CheckRoundTrip(kText);
  EXPECT_EQ(proto.name(), "sum_all");
  EXPECT_EQ(proto.entry_computation_name(), "sum_all");
  ASSERT_EQ(proto.computations_size(), 3);
  EXPECT_EQ(proto.computations(2).name(), "sum_all");
  EXPECT_EQ(proto.entry_computation_id(), proto.computations(2).id());
  EXPECT_EQ(proto.host_program_shape().parameters_size(), 1);
  EXPECT_EQ(ShapeUtil::FromProto(proto.host_program_shape().result())->ToString(), "f32[]");
  // The callees resolve to the other two computations.
  auto id_of = [&](const std::string& name) {
    for (const HloComputationProto& c : proto.computations()) {
      if (c.name() == name) return c.id();
    }
    return int64_t{-1};
  };
  ASSERT_EQ(FindInstruction(proto, "s")->called_computation_ids_size(), 1);
  EXPECT_EQ(FindInstruction(proto, "s")->called_computation_ids(0), id_of("add"));
  ASSERT_EQ(FindInstruction(proto, "t")->called_computation_ids_size(), 1);
  EXPECT_EQ(FindInstruction(proto, "t")->called_computation_ids(0), id_of("twice"));
  auto module = ParseHloModule(kText);
  ASSERT_TRUE(module.ok()) << module.status();
  EXPECT_EQ((*module)->name(), "sum_all");
  EXPECT_EQ((*module)->entry_computation()->name(), "sum_all");
  EXPECT_EQ((*module)->entry_computation()->root_instruction()->name(), "t");
}

TEST(HloTextTest, ModuleHeaderWithoutEntryKeyword) {
  constexpr char kText[] = R"(HloModule named
%add {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %r = f32[] add(%x, %y)
}
%main {
  %p = f32[3] parameter(0)
  %zero = f32[] constant(0)
  ROOT %s = f32[] reduce(%p, %zero), dimensions={0}, to_apply=%add
}
)";
  HloModuleProto proto = CheckRoundTrip(kText);
  EXPECT_EQ(proto.name(), "named");
  EXPECT_EQ(proto.entry_computation_name(), "main");
}

// Header attributes after the name are kept verbatim.
TEST(HloTextTest, ModuleHeaderAttributes) {
  constexpr char kText[] =
      "HloModule attrs, is_scheduled=true, entry_computation_layout={(f32[4]{0})->f32[4]{0}}\n"
      "ENTRY %e {\n  %p = f32[4] parameter(0)\n  ROOT %n = f32[4] negate(%p)\n}\n";
  std::string printed;
  HloModuleProto proto = CheckRoundTrip(kText, &printed);
  EXPECT_EQ(proto.name(), "attrs");
  EXPECT_EQ(proto.attributes().at("is_scheduled"), "true");
  EXPECT_EQ(proto.attributes().at("entry_computation_layout"), "{(f32[4]{0})->f32[4]{0}}");
  EXPECT_TRUE(absl::StrContains(printed, "is_scheduled=true")) << printed;
}

constexpr char kFusion[] = R"(HloModule fusion_module

%fused_computation (p0: f32[2,3], p1: f32[2,3]) -> f32[2,3] {
  %p0 = f32[2,3]{1,0} parameter(0)
  %p1 = f32[2,3]{1,0} parameter(1)
  %sum = f32[2,3]{1,0} add(%p0, %p1)
  ROOT %prod = f32[2,3]{1,0} multiply(%sum, %p0)
}

ENTRY %main (x: f32[2,3], y: f32[2,3]) -> (s32[6], f32[2,3]) {
  %x = f32[2,3]{1,0} parameter(0)
  %y = f32[2,3]{1,0} parameter(1)
  %fusion = f32[2,3]{1,0} fusion(%x, %y), kind=kLoop, calls=%fused_computation
  %bc = s32[6]{0} bitcast(%fusion)
  %t = (s32[6]{0}, f32[2,3]{1,0}) tuple(%bc, %y)
  ROOT %barrier = (s32[6]{0}, f32[2,3]{1,0}) opt-barrier(%t)
}
)";

TEST(HloTextTest, RoundTripFusionBitcastAndOptBarrier) {
  std::string printed;
  HloModuleProto proto = CheckRoundTrip(kFusion, &printed);
  ASSERT_EQ(proto.computations_size(), 2);
  EXPECT_EQ(proto.computations(0).name(), "fused_computation");
  const HloInstructionProto* fusion = FindInstruction(proto, "fusion");
  ASSERT_NE(fusion, nullptr);
  EXPECT_EQ(fusion->opcode(), "fusion");
  EXPECT_EQ(fusion->fusion_kind(), "kLoop");
  ASSERT_EQ(fusion->called_computation_ids_size(), 1);
  EXPECT_EQ(fusion->called_computation_ids(0), proto.computations(0).id());
  EXPECT_EQ(FindInstruction(proto, "bc")->opcode(), "bitcast");
  EXPECT_EQ(FindInstruction(proto, "barrier")->opcode(), "opt-barrier");
  for (const std::string line :
       {"  %fusion = f32[2,3]{1,0} fusion(%x, %y), kind=kLoop, calls=%fused_computation\n",
        "  %bc = s32[6]{0} bitcast(%fusion)\n",
        "  ROOT %barrier = (s32[6]{0}, f32[2,3]{1,0}) opt-barrier(%t)\n"}) {
    EXPECT_TRUE(absl::StrContains(printed, line)) << "missing: " << line << "\nin:\n" << printed;
  }
  // Every kind the parser accepts is kept, through the proto and the text.
  for (const std::string kind : {"kInput", "kOutput", "kCustom", "kMyKind"}) {
    std::string text = kFusion;
    text.replace(text.find("kind=kLoop"), 10, "kind=" + kind);
    HloModuleProto p = CheckRoundTrip(text, &printed);
    EXPECT_EQ(FindInstruction(p, "fusion")->fusion_kind(), kind);
    EXPECT_TRUE(absl::StrContains(printed, "kind=" + kind)) << printed;
  }
  // A fusion without a kind prints without one (not an empty `kind=`).
  std::string text = kFusion;
  text.replace(text.find(", kind=kLoop"), 12, "");
  HloModuleProto no_kind = CheckRoundTrip(text, &printed);
  EXPECT_EQ(FindInstruction(no_kind, "fusion")->fusion_kind(), "");
  EXPECT_TRUE(absl::StrContains(printed, "fusion(%x, %y), calls=%fused_computation\n")) << printed;
}

TEST(HloTextTest, CommentsAndLineEndings) {
  constexpr char kText[] =
      "HloModule comments  // trailing comment\n"
      "/* block\n   comment */\n"
      "ENTRY %e (p: (f32[], /*index=1*/s32[])) -> f32[] {\n"
      "  %p = (f32[], /*index=1*/s32[]) parameter(0)  // the input\n"
      "  %a = f32[] get-tuple-element(%p), index=0 /* c */\n"
      "  ROOT %n = f32[] negate(/*x*/ %a), metadata={op_name=\"a//b\"} // done\n"
      "}\n";
  std::string printed;
  HloModuleProto proto = CheckRoundTrip(kText, &printed);
  EXPECT_EQ(FindInstruction(proto, "a")->tuple_index(), 0);
  EXPECT_EQ(FindInstruction(proto, "n")->metadata().op_name(), "a//b");
  EXPECT_EQ(printed,
            "HloModule comments\n\n"
            "ENTRY %e (p: (f32[], s32[])) -> f32[] {\n"
            "  %p = (f32[], s32[]) parameter(0)\n"
            "  %a = f32[] get-tuple-element(%p), index=0\n"
            "  ROOT %n = f32[] negate(%a), metadata={op_name=\"a//b\"}\n"
            "}\n");

  // Windows line endings parse to the same module.
  std::string crlf;
  for (char c : std::string(kControlFlow)) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  auto a = ParseHloModuleToProto(kControlFlow);
  auto b = ParseHloModuleToProto(crlf);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  ExpectProtosEqualIgnoringIds(*a, *b);
}

// The printer on IR built through the C++ API (what passes and tools use).
TEST(HloTextTest, PrintsModuleBuiltInCode) {
  HloModule module("built");
  auto comp = std::make_unique<HloComputation>("entry");
  Shape v4 = ShapeUtil::MakeShape(F32, {4});
  HloInstruction* p = comp->AddInstruction(HloInstruction::CreateParameter(0, v4, "p"));
  HloInstruction* c = comp->AddInstruction(HloInstruction::CreateConstant(Literal::CreateR0<float>(2)));
  c->set_name("two");
  HloInstruction* b = comp->AddInstruction(HloInstruction::CreateBroadcast(v4, c, {}));
  b->set_name("b");
  HloInstruction* m = comp->AddInstruction(HloInstruction::CreateBinary(HloOpcode::kMultiply, v4, p, b));
  m->set_name("m");
  comp->set_root_instruction(m);
  module.AddEntryComputation(std::move(comp));
  EXPECT_EQ(HloInstructionToString(*m), "%m = f32[4]{0} multiply(%p, %b)");
  EXPECT_EQ(b->ToString(), "%b = f32[4]{0} broadcast(%two), dimensions={}");
  EXPECT_EQ(module.ToString(),
            "HloModule built\n\n"
            "ENTRY %entry (p: f32[4]) -> f32[4] {\n"
            "  %p = f32[4]{0} parameter(0)\n"
            "  %two = f32[] constant(2)\n"
            "  %b = f32[4]{0} broadcast(%two), dimensions={}\n"
            "  ROOT %m = f32[4]{0} multiply(%p, %b)\n"
            "}\n");
  CheckRoundTrip(module.ToString());

  // Fields a builder may leave at proto defaults print in a form that parses
  // back to the same text (group count 0 on convolution, unset transpose_a).
  HloModule module2("defaults");
  auto comp2 = std::make_unique<HloComputation>("entry");
  Shape m44 = ShapeUtil::MakeShape(F32, {1, 4, 4, 1});
  HloInstruction* x = comp2->AddInstruction(HloInstruction::CreateParameter(0, m44, "x"));
  HloInstructionProto conv_attrs;
  conv_attrs.mutable_window()->add_dimensions()->set_size(1);
  ConvolutionDimensionNumbers* dn = conv_attrs.mutable_convolution_dimension_numbers();
  dn->set_input_feature_dimension(3);
  dn->add_input_spatial_dimensions(1);
  dn->add_input_spatial_dimensions(2);
  dn->set_kernel_input_feature_dimension(2);
  dn->set_kernel_output_feature_dimension(3);
  dn->add_kernel_spatial_dimensions(0);
  dn->add_kernel_spatial_dimensions(1);
  dn->set_output_feature_dimension(3);
  dn->add_output_spatial_dimensions(1);
  dn->add_output_spatial_dimensions(2);
  HloInstruction* conv =
      comp2->AddInstruction(HloInstruction::Create(HloOpcode::kConvolution, m44, {x, x}, {}, conv_attrs));
  conv->set_name("conv");
  HloInstructionProto ts_attrs;
  ts_attrs.mutable_triangular_solve_options()->set_left_side(true);
  HloInstruction* ts =
      comp2->AddInstruction(HloInstruction::Create(HloOpcode::kTriangularSolve, m44, {conv, conv}, {}, ts_attrs));
  ts->set_name("ts");
  comp2->set_root_instruction(ts);
  module2.AddEntryComputation(std::move(comp2));
  EXPECT_EQ(conv->ToString(),
            "%conv = f32[1,4,4,1]{3,2,1,0} convolution(%x, %x), window={size=1 stride=0 lhs_dilate=0 rhs_dilate=0}, "
            "dim_labels=b01f_01io->b01f");
  EXPECT_EQ(ts->ToString(), "%ts = f32[1,4,4,1]{3,2,1,0} triangular-solve(%conv, %conv), left_side=true, "
                            "transpose_a=NO_TRANSPOSE");
  std::string printed2 = module2.ToString();
  auto reparsed = ParseHloModule(printed2);
  ASSERT_TRUE(reparsed.ok()) << reparsed.status();
  EXPECT_EQ((*reparsed)->ToString(), printed2);
}

// ---------------------------------------------------------------------------
// Real-model modules from ../shared/benchmarks/hlo.

std::string SharedDir() {
  const char* env = std::getenv("XLA_SHARED_DIR");
  return env != nullptr && env[0] != '\0' ? env : "/work/shared";
}

TEST(HloTextTest, BenchmarkModulesParseAndRoundTrip) {
  const std::string dir = SharedDir() + "/benchmarks/hlo";
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) GTEST_SKIP() << "benchmark folder " << dir << " not found (set XLA_SHARED_DIR)";
  std::vector<std::string> files;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name.size() > 4 && name.substr(name.size() - 4) == ".hlo") files.push_back(name);
  }
  closedir(d);
  std::sort(files.begin(), files.end());
  if (files.empty()) GTEST_SKIP() << "no .hlo files in " << dir;

  // Counts documented in benchmarks/hlo/SOURCE.md: {instructions, computations, elided constants}.
  const std::map<std::string, std::vector<int64_t>> expected = {
      {"graphsage_tf.hlo", {138, 5, 11}},
      {"ssd_mobilenet_tf.hlo", {508, 1, 100}},
  };
  for (const std::string& file : files) {
    SCOPED_TRACE(file);
    std::ifstream in(dir + "/" + file);
    std::stringstream buffer;
    buffer << in.rdbuf();
    std::string printed;
    HloModuleProto proto = CheckRoundTrip(buffer.str(), &printed);
    EXPECT_GT(InstructionCount(proto), 0);
    auto it = expected.find(file);
    if (it == expected.end()) continue;
    EXPECT_EQ(InstructionCount(proto), it->second[0]);
    EXPECT_EQ(proto.computations_size(), it->second[1]);
    int64_t elided = 0;
    for (const auto& c : proto.computations()) {
      for (const auto& i : c.instructions()) elided += i.unknown_attributes().count("elided");
    }
    EXPECT_EQ(elided, it->second[2]);
    EXPECT_TRUE(proto.attributes().count("entry_computation_layout"));
    EXPECT_EQ(proto.attributes().at("alias_passthrough_params"), "true");
  }
}

TEST(HloTextTest, GraphsageDetails) {
  std::ifstream in(SharedDir() + "/benchmarks/hlo/graphsage_tf.hlo");
  if (!in) GTEST_SKIP() << "graphsage_tf.hlo not found under " << SharedDir();
  std::stringstream buffer;
  buffer << in.rdbuf();
  auto module = ParseHloModule(buffer.str());
  ASSERT_TRUE(module.ok()) << module.status();
  EXPECT_EQ((*module)->entry_computation()->num_parameters(), 3);
  const HloInstruction* root = (*module)->entry_computation()->root_instruction();
  EXPECT_EQ(root->name(), "XLA_Retvals.5");
  EXPECT_EQ(root->opcode(), HloOpcode::kGetTupleElement);
  EXPECT_EQ(root->operand(0)->opcode(), HloOpcode::kTuple);
  EXPECT_EQ(root->shape(), ShapeUtil::MakeShape(F32, {1, 121}));
  auto proto = (*module)->ToProto();
  const HloInstructionProto* table = FindInstruction(proto, "embedding_lookup.2");
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(Ints(table->shape().dimensions()), (std::vector<int64_t>{56945, 50}));
  EXPECT_EQ(table->shape().element_type(), BF16);
  const HloInstructionProto* gather = FindInstruction(proto, "embedding_lookup.3");
  ASSERT_NE(gather, nullptr);
  EXPECT_EQ(Ints(gather->gather_slice_sizes()), (std::vector<int64_t>{1, 50}));
  EXPECT_EQ(gather->metadata().op_type(), "GatherV2");
  const HloInstructionProto* dot = FindInstruction(proto, "MatMul_1.10");
  ASSERT_NE(dot, nullptr);
  EXPECT_EQ(dot->frontend_attributes().map().at("grad_x"), "false");
}

// ---------------------------------------------------------------------------
// Errors: non-OK with the line (and what was expected).

void ExpectError(const std::string& text, const std::vector<std::string>& fragments) {
  auto result = ParseHloModule(text);
  ASSERT_FALSE(result.ok()) << "parsed unexpectedly:\n" << text;
  std::string message(result.status().message());
  for (const std::string& f : fragments) {
    EXPECT_TRUE(absl::StrContains(message, f)) << "message '" << message << "' lacks '" << f << "'";
  }
}

constexpr char kHeader[] = "HloModule m\n\nENTRY %e {\n  %p = f32[2]{0} parameter(0)\n";

TEST(HloTextTest, ErrorUnknownOpcode) {
  ExpectError(absl::StrCat(kHeader, "  ROOT %x = f32[2]{0} foo(%p)\n}\n"),
              {"line 5, column 23", "unknown opcode 'foo'", "'x'"});
}

TEST(HloTextTest, ErrorMissingParen) {
  ExpectError(absl::StrCat(kHeader, "  ROOT %add.3 = f32[2]{0} add(%p, %p\n}\n"),
              {"line 5, column 37", "expected ')' after operands of 'add.3'"});
  ExpectError(absl::StrCat(kHeader, "  ROOT %x = f32[2]{0} negate %p\n}\n"), {"line 5", "expected '('"});
}

TEST(HloTextTest, ErrorUndefinedOperand) {
  ExpectError(absl::StrCat(kHeader, "  ROOT %y = f32[2]{0} add(%p, %x)\n}\n"),
              {"line 5, column 31", "undefined operand '%x' in instruction 'y'"});
}

TEST(HloTextTest, ErrorUndefinedComputation) {
  ExpectError(absl::StrCat(kHeader, "  %z = f32[] constant(0)\n  ROOT %r = f32[] reduce(%p, %z), dimensions={0}, "
                                    "to_apply=%nope\n}\n"),
              {"line 6", "undefined computation '%nope'"});
}

TEST(HloTextTest, ErrorDuplicateNames) {
  ExpectError(absl::StrCat(kHeader, "  %p = f32[2]{0} negate(%p)\n}\n"),
              {"line 5, column 3", "duplicate instruction name 'p'", "line 4"});
  ExpectError("HloModule m\n%c {\n  ROOT %p = f32[] parameter(0)\n}\n%c {\n  ROOT %q = f32[] parameter(0)\n}\n",
              {"line 5", "duplicate computation name 'c'"});
}

TEST(HloTextTest, ErrorBadShape) {
  ExpectError("HloModule m\n\nENTRY %e {\n  ROOT %p = f32[2,x]{0} parameter(0)\n}\n",
              {"line 4, column 13", "invalid shape 'f32[2,x]{0}'"});
  ExpectError("HloModule m\n\nENTRY %e {\n  ROOT %p = f32[2,3]{0} parameter(0)\n}\n", {"line 4", "invalid shape"});
  ExpectError("HloModule m\n\nENTRY %e {\n  ROOT %p = f99[2] parameter(0)\n}\n", {"line 4", "invalid shape"});
}

TEST(HloTextTest, ErrorBadAttributeValue) {
  ExpectError(absl::StrCat(kHeader, "  ROOT %b = f32[2,2]{1,0} broadcast(%p), dimensions={a}\n}\n"),
              {"line 5, column 54", "expected an integer"});
  ExpectError(absl::StrCat(kHeader, "  ROOT %c = pred[2]{0} compare(%p, %p), direction=XX\n}\n"),
              {"line 5", "unknown comparison direction 'XX'"});
  ExpectError(absl::StrCat(kHeader, "  ROOT %c = pred[2]{0} compare(%p, %p)\n}\n"), {"line 5", "direction="});
  ExpectError(absl::StrCat(kHeader, "  ROOT %c = f32[2]{0} convolution(%p, %p), dim_labels=b0f_0io->bx\n}\n"),
              {"line 5", "bad dim_labels"});
  ExpectError(absl::StrCat(kHeader, "  ROOT %c = f32[2]{0} negate(%p), window={size=2 stride=1x1}\n}\n"),
              {"line 5", "window field 'stride' has 2 dimensions but size has 1"});
  ExpectError(absl::StrCat(kHeader, "  ROOT %c = f32[2]{0} negate(%p), metadata={op_name=\"x}\n}\n"),
              {"line 5", "unterminated"});
  ExpectError(absl::StrCat(kHeader, "  ROOT %c = f32[2]{0} negate(%p), dimensions={0}, dimensions={0}\n}\n"),
              {"line 5", "duplicate attribute 'dimensions'"});
  ExpectError(absl::StrCat(kHeader, "  ROOT %c = f32[2]{0} constant({1, 2, 3})\n}\n"),
              {"line 5", "bad value for constant 'c'"});
  ExpectError(absl::StrCat(kHeader, "  ROOT %c = f32[2]{0} add(%p)\n}\n"),
              {"line 5", "'add' takes 2 operands but 'c' has 1"});
}

TEST(HloTextTest, ErrorEmptyAndTruncatedInput) {
  ExpectError("", {"line 1", "empty input"});
  ExpectError("  \n // just a comment\n /* and another */\n", {"line 4", "empty input"});
  ExpectError("HloModule m\n", {"line 2", "has no computations"});
  ExpectError("HloModule m\nENTRY %e {\n  ROOT %p = f32[] parameter(0)\n",
              {"line 4", "expected '}' to close computation 'e'"});
  ExpectError("HloModel m\n", {"line 1", "expected 'HloModule'"});
}

TEST(HloTextTest, ErrorNeitherHeaderNorComputation) {
  ExpectError("HloModel m\n", {"line 1, column 1", "expected 'HloModule' or a computation", "'HloModel'"});
  ExpectError("\n  ROOT %p = f32[] parameter(0)\n", {"line 2, column 3", "expected 'HloModule' or a computation"});
  ExpectError("%e {\n  ROOT %p = f32[] parameter(0)\n", {"line 3", "expected '}' to close computation 'e'"});
}

// Bounded dynamic shapes are refused with the dimension named, wherever a
// shape is written (never read as the static bound).
TEST(HloTextTest, ErrorDynamicDimensions) {
  ExpectError("HloModule m\nENTRY %e {\n  ROOT %p = f32[<=4] parameter(0)\n}\n",
              {"line 3, column 13", "invalid shape 'f32[<=4]'", "bounded dynamic dimension '<=4' is not supported",
               "dimension 0"});
  ExpectError("HloModule m\nENTRY %e {\n  %p = f32[2,8] parameter(0)\n  ROOT %n = f32[2,<=8]{1,0} negate(%p)\n}\n",
              {"line 4", "bounded dynamic dimension '<=8' is not supported", "dimension 1"});
  ExpectError("HloModule m\nENTRY %e (p: f32[<=3]) -> f32[3] {\n  %p = f32[3] parameter(0)\n  ROOT %n = f32[3] "
              "negate(%p)\n}\n",
              {"line 2", "bounded dynamic dimension '<=3'"});
  ExpectError("HloModule m\nENTRY %e {\n  %p = f32[3] parameter(0)\n  ROOT %n = f32[3] negate(f32[<=3] %p)\n}\n",
              {"line 4", "bounded dynamic dimension '<=3'"});
  ExpectError("HloModule m\nENTRY %e {\n  ROOT %p = (s32[], f32[2,<=8]) parameter(0)\n}\n",
              {"line 3", "bounded dynamic dimension '<=8'"});
  ExpectError("HloModule m\nENTRY %e {\n  ROOT %p = f32[?] parameter(0)\n}\n",
              {"line 3", "unbounded dynamic dimension '?' is not supported"});
}

// The same for protos from outside: instruction shapes, shapes kept as
// attributes, literals and program shapes.
TEST(HloTextTest, DynamicDimensionsInModuleProtosAreRefused) {
  auto proto = ParseHloModuleToProto(
      "HloModule m\nENTRY %e {\n  %p = f32[4] parameter(0)\n  %c = f32[4] constant({1, 2, 3, 4})\n"
      "  ROOT %a = f32[4] add(%p, %c)\n}\n");
  ASSERT_TRUE(proto.ok()) << proto.status();
  ASSERT_TRUE(HloModule::CreateFromProto(*proto).ok());
  auto expect_refused = [](const HloModuleProto& bad, const std::string& where) {
    auto module = HloModule::CreateFromProto(bad);
    ASSERT_FALSE(module.ok()) << where;
    EXPECT_EQ(module.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(absl::StrContains(module.status().message(), where)) << module.status();
    EXPECT_TRUE(absl::StrContains(module.status().message(), "dimension 0 is dynamic")) << module.status();
  };
  auto instruction = [](HloModuleProto* m, const std::string& name) {
    for (HloInstructionProto& i : *m->mutable_computations(0)->mutable_instructions()) {
      if (i.name() == name) return &i;
    }
    return static_cast<HloInstructionProto*>(nullptr);
  };
  {
    HloModuleProto bad = *proto;
    instruction(&bad, "p")->mutable_shape()->add_is_dynamic_dimension(true);
    expect_refused(bad, "instruction 'p'");
  }
  {
    HloModuleProto bad = *proto;
    instruction(&bad, "c")->mutable_literal()->mutable_shape()->add_is_dynamic_dimension(true);
    expect_refused(bad, "instruction 'c'");
  }
  {
    HloModuleProto bad = *proto;
    ShapeProto* s = instruction(&bad, "a")->add_operand_shapes_with_layout();
    *s = ShapeUtil::MakeShape(F32, {4}).ToProto();
    ASSERT_TRUE(HloModule::CreateFromProto(bad).ok());
    s->add_is_dynamic_dimension(true);
    expect_refused(bad, "instruction 'a': operand_shapes_with_layout");
  }
  {
    HloModuleProto bad = *proto;
    bad.mutable_host_program_shape()->mutable_parameters(0)->add_is_dynamic_dimension(true);
    expect_refused(bad, "host_program_shape");
  }
  {
    HloModuleProto bad = *proto;
    bad.mutable_computations(0)->mutable_program_shape()->mutable_result()->add_is_dynamic_dimension(true);
    expect_refused(bad, "computation 'e': program_shape");
  }
}

TEST(HloTextTest, ErrorStructural) {
  ExpectError("HloModule m\nENTRY %e {\n  %a = f32[] negate(%b)\n  ROOT %b = f32[] negate(%a)\n}\n",
              {"line 3", "depends on itself"});
  ExpectError("HloModule m\n%c {\n  %p = f32[] parameter(0)\n  ROOT %r = f32[] call(%p), to_apply=%c\n}\n"
              "ENTRY %e {\n  %p = f32[] parameter(0)\n  ROOT %r = f32[] call(%p), to_apply=%c\n}\n",
              {"line 2", "calls itself"});
  ExpectError("HloModule m\nENTRY %e {\n  %p = f32[] parameter(1)\n  ROOT %r = f32[] negate(%p)\n}\n",
              {"line 2", "has no parameter 0"});
  ExpectError("HloModule m\nENTRY %e {\n  ROOT %p = f32[] parameter(0)\n}\nENTRY %f {\n  ROOT %q = f32[] "
              "parameter(0)\n}\n",
              {"line 5", "second ENTRY"});
  ExpectError("HloModule m\nENTRY %e {\n  %p = f32[] parameter(0)\n  ROOT %r = f32[2] negate(f32[3] %p)\n}\n",
              {"line 4", "written with shape f32[3]"});
  ExpectError("HloModule m\nENTRY %e {\n  ROOT %p = f32[] parameter(0)\n  ROOT %q = f32[] parameter(1)\n}\n",
              {"line 4", "second ROOT"});
  ExpectError("HloModule m\nENTRY %e {\n  ROOT %w = f32[] while(%w), condition=%c\n}\n",
              {"line 3", "has condition= but no body="});
  ExpectError("HloModule m\nENTRY %e {\n  ROOT %c = f32[1000000000] constant({...})\n}\n",
              {"line 3", "too large to materialize"});
  ExpectError("HloModule m\nENTRY %e {\n  ROOT %c = f32[100000000] constant(1)\n}\n", {"line 3", "too short"});
  // Hostile nesting is refused before the recursive shape/literal parsers see it.
  ExpectError(absl::StrCat("HloModule m\nENTRY %e {\n  ROOT %p = ", std::string(100000, '('), "f32[]",
                           std::string(100000, ')'), " parameter(0)\n}\n"),
              {"line 3", "nests deeper"});
  std::string rank100 = "f32[1";
  for (int i = 1; i < 100; ++i) rank100 += ",1";
  ExpectError(absl::StrCat("HloModule m\nENTRY %e {\n  ROOT %p = ", rank100, "] parameter(0)\n}\n"),
              {"line 3", "rank 100 exceeds 64"});
  ExpectError(absl::StrCat("HloModule m\nENTRY %e {\n  ROOT %c = (f32[]) constant(", std::string(100000, '('),
                           "1", std::string(100000, ')'), ")\n}\n"),
              {"line 3", "bad value for constant"});
}

// No input may crash the parser: every prefix of a module, and random
// single-byte corruptions, must give a status (ok or not).
TEST(HloTextTest, TruncatedAndCorruptedInputNeverCrashes) {
  const std::string text = kLinalgAndMisc;
  int errors = 0;
  for (size_t n = 0; n < text.size(); n += 3) {
    auto result = ParseHloModule(text.substr(0, n));
    if (!result.ok()) {
      ++errors;
      EXPECT_TRUE(absl::StrContains(result.status().message(), "line ")) << result.status();
    }
  }
  EXPECT_GT(errors, 0);
  std::mt19937 rng(42);
  const std::string alphabet = "{}()[]%,=\"x0-/*\n ";
  for (int trial = 0; trial < 1500; ++trial) {
    std::string mutated = text;
    for (int k = 0; k < 3; ++k) mutated[rng() % mutated.size()] = alphabet[rng() % alphabet.size()];
    auto result = ParseHloModule(mutated);
    if (!result.ok()) {
      EXPECT_FALSE(result.status().message().empty());
    }
  }
}

}  // namespace
}  // namespace xla
