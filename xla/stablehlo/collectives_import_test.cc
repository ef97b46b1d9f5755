// StableHLO all_to_all (split == concat, split != concat, variadic,
// cross_partition), reduce_scatter (the specification's example,
// flattened_ids) and send/recv between two processes: the files in
// testdata/collectives run through the conformance runner's
// interpreter.run_parallel on both backends, every check holding.
#include <string>

#include "gtest/gtest.h"
#include "tests/conformance/runner.h"

namespace xla {
namespace {

class CollectivesImportTest : public ::testing::TestWithParam<std::string> {};

TEST_P(CollectivesImportTest, SpecificationExamplesPass) {
  conformance::RunOptions options;
  options.backend = GetParam();
  options.threads = 1;
  options.timeout_seconds = 60;
  const std::string root = "xla/stablehlo/testdata/collectives";
  for (const char* file : {"all_to_all.mlir", "reduce_scatter.mlir", "send_recv.mlir"}) {
    conformance::FileResult r = conformance::RunFile(root, file, options);
    EXPECT_TRUE(r.passed) << file << ": " << r.error;
    EXPECT_TRUE(r.strict_passed) << file;
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, CollectivesImportTest, ::testing::Values("interpreter", "cpu"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace xla
