// interpreter.print / interpreter.probe and nested checks become outfeed
// records tuple(s32 site, values...) (InstrumentSite in importer.h): the
// sites the importer describes, and the records the evaluator sends.
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "xla/collectives/replica_context.h"
#include "xla/evaluator/hlo_evaluator.h"
#include "xla/hlo/hlo_verifier.h"
#include "xla/stablehlo/importer.h"

namespace xla {
namespace stablehlo {
namespace {

EntryPoint Import(const std::string& text, bool checks_as_outputs = true) {
  ImportOptions options;
  options.checks_as_outputs = checks_as_outputs;
  absl::StatusOr<std::vector<ImportedChunk>> chunks = ImportStableHlo(text, "r.mlir", options);
  EXPECT_TRUE(chunks.ok()) << chunks.status();
  if (!chunks.ok()) return EntryPoint();
  EntryPoint entry = std::move((*chunks)[0].entries[0]);
  EXPECT_TRUE(VerifyHloModule(*entry.module).ok()) << VerifyHloModule(*entry.module);
  return entry;
}

// Evaluates the entry module as process (0, 0); returns the records sent.
std::vector<std::vector<Literal>> Records(const EntryPoint& entry) {
  collectives::ReplicaContext process;
  HloEvaluator evaluator;
  evaluator.set_replica_context(&process);
  absl::StatusOr<Literal> result = evaluator.Evaluate(*entry.module, {});
  EXPECT_TRUE(result.ok()) << result.status();
  std::vector<std::vector<Literal>> records;
  while (process.outfeed().size() > 0) {
    absl::StatusOr<Literal> r = process.outfeed().Pop("outfeed", absl::ZeroDuration());
    EXPECT_TRUE(r.ok());
    if (r.ok()) records.push_back(std::move(*r).DecomposeTuple());
  }
  return records;
}

constexpr char kLoop[] = R"(
func.func @main() {
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %three = stablehlo.constant dense<3> : tensor<i64>
  %before = stablehlo.constant dense<7> : tensor<i64>
  interpreter.print %before : tensor<i64>
  %i = stablehlo.while(%arg0 = %zero) : tensor<i64>
  cond {
    %c = stablehlo.compare LT, %arg0, %three : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %n = stablehlo.add %arg0, %one : tensor<i64>
    %p = interpreter.probe %n, probe_id = "count" : tensor<i64>
    check.expect_eq %p, %n : tensor<i64>
    stablehlo.return %p : tensor<i64>
  }
  interpreter.print %i : tensor<i64>
  func.return
}
)";

TEST(InstrumentationTest, PrintsProbesAndNestedChecksAreSites) {
  EntryPoint entry = Import(kLoop);
  ASSERT_EQ(entry.sites.size(), 4u);
  EXPECT_EQ(entry.sites[0].kind, InstrumentSite::kPrint);
  EXPECT_EQ(entry.sites[0].name, "%before");
  EXPECT_EQ(entry.sites[1].kind, InstrumentSite::kProbe);
  EXPECT_EQ(entry.sites[1].name, "count");
  EXPECT_EQ(entry.sites[2].kind, InstrumentSite::kCheck);
  EXPECT_EQ(entry.sites[2].check.kind, CheckSpec::kEq);
  EXPECT_EQ(entry.sites[2].check.actual_output, 1);
  EXPECT_EQ(entry.sites[2].check.expected_output, 2);
  EXPECT_EQ(entry.sites[2].check.location, "r.mlir:15:5");
  EXPECT_EQ(entry.sites[3].kind, InstrumentSite::kPrint);
  EXPECT_EQ(entry.sites[3].name, "%i");
  EXPECT_TRUE(entry.checks.empty());  // the only check is nested
  EXPECT_EQ(entry.instrumented_modules.count("main"), 1u);
}

TEST(InstrumentationTest, EveryExecutionSendsARecordInProgramOrder) {
  EntryPoint entry = Import(kLoop);
  std::vector<std::vector<Literal>> records = Records(entry);
  // print 7; per iteration k = 1..3: probe k, check (k, k); print 3.
  ASSERT_EQ(records.size(), 8u);
  std::vector<int64_t> sites;
  for (const std::vector<Literal>& r : records) sites.push_back(r[0].GetAsInt64(0));
  EXPECT_EQ(sites, (std::vector<int64_t>{0, 1, 2, 1, 2, 1, 2, 3}));
  EXPECT_EQ(records[0][1], Literal::CreateR0<int64_t>(7));
  EXPECT_EQ(records[1][1], Literal::CreateR0<int64_t>(1));
  EXPECT_EQ(records[3][1], Literal::CreateR0<int64_t>(2));
  EXPECT_EQ(records[5][1], Literal::CreateR0<int64_t>(3));
  ASSERT_EQ(records[6].size(), 3u);
  EXPECT_EQ(records[6][1], Literal::CreateR0<int64_t>(3));
  EXPECT_EQ(records[6][2], Literal::CreateR0<int64_t>(3));
  EXPECT_EQ(records[7][1], Literal::CreateR0<int64_t>(3));
}

TEST(InstrumentationTest, WithoutCheckOutputsNothingIsRecorded) {
  EntryPoint entry = Import(kLoop, /*checks_as_outputs=*/false);
  EXPECT_TRUE(entry.sites.empty());
  EXPECT_TRUE(Records(entry).empty());
}

std::string ImportError(const std::string& text) {
  absl::StatusOr<std::vector<ImportedChunk>> chunks = ImportStableHlo(text, "r.mlir");
  EXPECT_FALSE(chunks.ok());
  return chunks.ok() ? "" : std::string(chunks.status().message());
}

TEST(InstrumentationTest, NotInReducersNorBesideStablehloOutfeed) {
  EXPECT_NE(ImportError(R"(
func.func @main() {
  %x = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
  %z = stablehlo.constant dense<0> : tensor<i64>
  %r = "stablehlo.reduce"(%x, %z) ({
  ^bb0(%a: tensor<i64>, %b: tensor<i64>):
    interpreter.print %a : tensor<i64>
    %s = stablehlo.add %a, %b : tensor<i64>
    stablehlo.return %s : tensor<i64>
  }) {dimensions = array<i64: 0>} : (tensor<2xi64>, tensor<i64>) -> tensor<i64>
  func.return
}
)").find("r.mlir:7:5: interpreter.print: is not supported in a reducer"),
            std::string::npos);
  EXPECT_NE(ImportError(R"(
func.func @main() {
  %x = stablehlo.constant dense<1> : tensor<i64>
  %t = stablehlo.after_all : !stablehlo.token
  %u = "stablehlo.outfeed"(%x, %t) : (tensor<i64>, !stablehlo.token) -> !stablehlo.token
  interpreter.print %x : tensor<i64>
  func.return
}
)").find("cannot share a program with stablehlo.outfeed"),
            std::string::npos);
}

}  // namespace
}  // namespace stablehlo
}  // namespace xla
