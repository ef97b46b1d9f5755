// The custom-call registry, attribute parsing, compile-time binding and
// plugin loading, without a backend (the backends' tests are in
// tests/custom_call_test.cc and tests/daemon/custom_call_daemon_test.cc).
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "xla/custom_call/custom_call_attributes.h"
#include "xla/custom_call/custom_call_invocation.h"
#include "xla/custom_call/custom_call_plugin.h"
#include "xla/custom_call/custom_call_registry.h"
#include "xla/hlo/hlo_parser.h"

namespace xla {
namespace {

absl::Status Sum(absl::Span<const CustomCallOperand> operands, absl::Span<const CustomCallResult> results,
                 const CustomCallAttributes& attrs) {
  ASSIGN_OR_RETURN(auto out, results[0].typed<float>());
  ASSIGN_OR_RETURN(double bias, attrs.GetFloat("bias"));
  for (float& o : out) o = static_cast<float>(bias);
  for (const CustomCallOperand& in : operands) {
    ASSIGN_OR_RETURN(auto values, in.typed<float>());
    for (size_t i = 0; i < out.size(); ++i) out[i] += values[i];
  }
  return absl::OkStatus();
}

bool Contains(const absl::Status& s, absl::string_view text) {
  return absl::StrContains(s.message(), text);
}

TEST(CustomCallRegistryTest, RegistersFindsAndRejectsDuplicates) {
  CustomCallRegistry registry;
  EXPECT_EQ(registry.Find("sum"), nullptr);
  ASSERT_TRUE(registry.Register("sum", Sum).ok());
  EXPECT_NE(registry.Find("sum"), nullptr);
  absl::Status again = registry.Register("sum", Sum);
  EXPECT_EQ(again.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_TRUE(Contains(again, "'sum' is already registered")) << again;
  EXPECT_EQ(registry.Register("", Sum).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(registry.Register("null", CustomCallHandler()).code(), absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(registry.Register("another", Sum).ok());
  EXPECT_EQ(registry.Names(), (std::vector<std::string>{"another", "sum"}));
}

TEST(CustomCallAttributesTest, TypedFfiDictionary) {
  absl::StatusOr<CustomCallAttributes> a = CustomCallAttributes::Parse(
      R"({scale = 2.5 : f32, count = -3 : i64, plain = 7, name = "a \"b\"\0A", exact = true, "quoted key" = 1.0e3, unit})",
      API_VERSION_TYPED_FFI);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(*a->GetFloat("scale"), 2.5);
  EXPECT_EQ(*a->GetInt("count"), -3);
  EXPECT_EQ(*a->GetInt("plain"), 7);
  EXPECT_EQ(*a->GetFloat("plain"), 7.0);  // an integer reads as a float too
  EXPECT_EQ(*a->GetString("name"), "a \"b\"\n");
  EXPECT_TRUE(*a->GetBool("exact"));
  EXPECT_EQ(*a->GetFloat("quoted key"), 1000.0);
  EXPECT_TRUE(*a->GetBool("unit"));
  EXPECT_EQ(a->Names().size(), 7u);
  // Wrong kinds and missing names are errors naming the attribute.
  EXPECT_TRUE(Contains(a->GetInt("scale").status(), "'scale' is a float, not an integer"));
  EXPECT_TRUE(Contains(a->GetString("count").status(), "'count' is an integer, not a string"));
  EXPECT_TRUE(Contains(a->GetBool("missing").status(), "'missing' is missing"));
  // Float text with an integer type is not an integer.
  EXPECT_TRUE(Contains(CustomCallAttributes::Parse("{n = 1.5 : i32}", API_VERSION_TYPED_FFI).status(),
                       "'1.5' is not an integer"));
  EXPECT_TRUE(CustomCallAttributes::Parse("", API_VERSION_TYPED_FFI).ok());
  EXPECT_TRUE(CustomCallAttributes::Parse("{}", API_VERSION_TYPED_FFI)->Names().empty());
}

TEST(CustomCallAttributesTest, MalformedDictionariesAreErrors) {
  for (const char* bad : {"scale = 2.0", "{scale = }", "{scale = 2.0", "{a = 1, a = 2}", "{a = [1, 2]}",
                          "{a = {b = 1}}", "{a = 1 : tensor}", "{a = \"open}", "{a = 1} trailing"}) {
    absl::StatusOr<CustomCallAttributes> a = CustomCallAttributes::Parse(bad, API_VERSION_TYPED_FFI);
    EXPECT_EQ(a.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_TRUE(Contains(a.status(), "custom-call attributes")) << a.status();
  }
}

TEST(CustomCallAttributesTest, OtherApiVersionsAreOpaque) {
  for (CustomCallApiVersion v : {API_VERSION_UNSPECIFIED, API_VERSION_ORIGINAL, API_VERSION_STATUS_RETURNING}) {
    absl::StatusOr<CustomCallAttributes> a = CustomCallAttributes::Parse("{not = parsed", v);
    ASSERT_TRUE(a.ok());
    EXPECT_EQ(a->opaque(), "{not = parsed");
    EXPECT_TRUE(a->Names().empty());
  }
}

std::unique_ptr<HloModule> Parse(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? std::move(*m) : nullptr;
}

TEST(CustomCallInvocationTest, BindsAndInvokesOverLeaves) {
  CustomCallRegistry registry;
  ASSERT_TRUE(registry.Register("sum", Sum).ok());
  auto module = Parse(R"(HloModule m
ENTRY e {
  a = f32[3] parameter(0)
  b = f32[3] parameter(1)
  ROOT c = f32[3] custom-call(a, b), custom_call_target="sum", api_version=API_VERSION_TYPED_FFI, backend_config={bias = 0.5 : f32}
})");
  ASSERT_NE(module, nullptr);
  ASSERT_TRUE(CheckCustomCallTargets(*module, registry).ok());
  const HloInstruction* c = module->entry_computation()->root_instruction();
  absl::StatusOr<std::unique_ptr<CustomCallInvocation>> call = CustomCallInvocation::Bind(*c, registry);
  ASSERT_TRUE(call.ok()) << call.status();
  EXPECT_EQ((*call)->target(), "sum");
  float a[] = {1, 2, 3}, b[] = {10, 20, 30}, out[3] = {};
  const void* ins[] = {a, b};
  void* outs[] = {out};
  ASSERT_TRUE((*call)->Invoke(ins, outs).ok());
  EXPECT_EQ(out[0], 11.5f);
  EXPECT_EQ(out[1], 22.5f);
  EXPECT_EQ(out[2], 33.5f);
}

TEST(CustomCallInvocationTest, UnknownTargetsAndBadConfigsFailToBind) {
  CustomCallRegistry registry;
  ASSERT_TRUE(registry.Register("sum", Sum).ok());
  auto module = Parse(R"(HloModule m
ENTRY e {
  a = f32[3] parameter(0)
  ROOT c = f32[3] custom-call(a), custom_call_target="system", backend_config="rm -rf /"
})");
  ASSERT_NE(module, nullptr);
  absl::Status s = CheckCustomCallTargets(*module, registry);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(Contains(s, "target 'system' is not registered")) << s;
  EXPECT_TRUE(Contains(s, "registered targets: sum")) << s;

  auto bad_config = Parse(R"(HloModule m
ENTRY e {
  a = f32[3] parameter(0)
  ROOT c = f32[3] custom-call(a), custom_call_target="sum", api_version=API_VERSION_TYPED_FFI, backend_config="bias: 1"
})");
  ASSERT_NE(bad_config, nullptr);
  s = CheckCustomCallTargets(*bad_config, registry);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(s, "custom-call c (target 'sum')")) << s;

  auto column_major = Parse(R"(HloModule m
ENTRY e {
  a = f32[2,3] parameter(0)
  ROOT c = f32[2,3]{0,1} custom-call(a), custom_call_target="sum"
})");
  ASSERT_NE(column_major, nullptr);
  s = CheckCustomCallTargets(*column_major, registry);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_TRUE(Contains(s, "not row-major")) << s;
}

TEST(CustomCallInvocationTest, HandlerErrorsNameTheTargetAndKeepTheirCode) {
  CustomCallRegistry registry;
  ASSERT_TRUE(registry
                  .Register("fail",
                            [](absl::Span<const CustomCallOperand>, absl::Span<const CustomCallResult>,
                               const CustomCallAttributes&) { return absl::ResourceExhaustedError("out of widgets"); })
                  .ok());
  auto module = Parse(R"(HloModule m
ENTRY e {
  ROOT c = f32[] custom-call(), custom_call_target="fail"
})");
  ASSERT_NE(module, nullptr);
  auto call = CustomCallInvocation::Bind(*module->entry_computation()->root_instruction(), registry);
  ASSERT_TRUE(call.ok());
  float out = 0;
  void* outs[] = {&out};
  absl::Status s = (*call)->Invoke(nullptr, outs);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(s.message(), "custom call 'fail' (instruction c): out of widgets");
}

TEST(CustomCallPluginTest, LoadsTheTestPluginOnce) {
  CustomCallRegistry registry;
  ASSERT_TRUE(LoadCustomCallPlugin("xla/custom_call/test_plugin.so", registry).ok());
  const CustomCallHandler* negate = registry.Find("test_plugin.negate");
  ASSERT_NE(negate, nullptr);
  float in[] = {1, -2}, out[2] = {};
  std::vector<int64_t> dims = {2};
  CustomCallOperand operand{F32, dims, in};
  CustomCallResult result{F32, dims, out};
  ASSERT_TRUE((*negate)({&operand, 1}, {&result, 1}, CustomCallAttributes()).ok());
  EXPECT_EQ(out[0], -1);
  EXPECT_EQ(out[1], 2);
  // Its targets are taken now: loading it again is an error naming the path.
  absl::Status again = LoadCustomCallPlugin("xla/custom_call/test_plugin.so", registry);
  EXPECT_EQ(again.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_TRUE(Contains(again, "custom-call plugin 'xla/custom_call/test_plugin.so'")) << again;
}

TEST(CustomCallPluginTest, MissingLibrariesAndEntryPointsAreErrors) {
  CustomCallRegistry registry;
  absl::Status missing = LoadCustomCallPlugin("/nonexistent/plugin.so", registry);
  EXPECT_EQ(missing.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(Contains(missing, "'/nonexistent/plugin.so' does not load")) << missing;
  // libc loads but exports no XlaRegisterCustomCalls.
  absl::Status no_entry = LoadCustomCallPlugin("libc.so.6", registry);
  EXPECT_EQ(no_entry.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(Contains(no_entry, "does not export XlaRegisterCustomCalls")) << no_entry;
}

}  // namespace
}  // namespace xla
