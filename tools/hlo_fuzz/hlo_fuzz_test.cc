// The fuzzer in CI: a fixed set of seeds (modules kFirstSeed.. and their
// arguments), each run on the CPU backend with 1 thread and with 2 or 3,
// against the interpreter. Expects no mismatch, no CPU compile/run failure
// and no invalid module. A failure lists the seeds; reproduce and shrink one
// with `bazel-bin/tools/hlo_fuzz/hlo_fuzz --seed=S --modules=1`.
#include <iostream>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "tools/hlo_fuzz/differential_runner.h"
#include "tools/hlo_fuzz/module_generator.h"

namespace xla {
namespace hlo_fuzz {
namespace {

constexpr uint64_t kFirstSeed = 1;
constexpr int kModules = 2500;

struct Finding {
  uint64_t seed;
  std::string detail;
};

struct Results {
  std::vector<Finding> mismatches, cpu_failures, invalid;
  int64_t compared = 0, skipped = 0;
};

class FixedSeedFuzzTest : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    results_ = new Results;
    const absl::Time start = absl::Now();
    for (uint64_t seed = kFirstSeed; seed < kFirstSeed + kModules; ++seed) {
      RunOptions options;
      options.arg_seed = seed;
      options.threads = 2 + static_cast<int>(seed % 2);
      const RunResult r = RunDifferential(GenerateModule(seed).text, options);
      results_->compared += r.counts.compared;
      results_->skipped += r.counts.skipped;
      switch (r.verdict) {
        case Verdict::kMatch: break;
        case Verdict::kMismatch: results_->mismatches.push_back({seed, r.detail}); break;
        case Verdict::kCpuFailure: results_->cpu_failures.push_back({seed, r.detail}); break;
        default: results_->invalid.push_back({seed, std::string(VerdictName(r.verdict)) + ": " + r.detail});
      }
    }
    std::cout << "hlo_fuzz_test: " << kModules << " modules in " << absl::ToDoubleSeconds(absl::Now() - start)
              << " s; outputs compared " << results_->compared << ", not comparable " << results_->skipped
              << "; " << results_->mismatches.size() << " mismatches, " << results_->cpu_failures.size()
              << " compile failures, " << results_->invalid.size() << " invalid\n";
  }
  static void TearDownTestSuite() { delete results_; }

  static std::string List(const std::vector<Finding>& findings) {
    std::string out;
    for (const Finding& f : findings) {
      out += "  seed " + std::to_string(f.seed) + ": " + f.detail.substr(0, 300) + "\n";
    }
    return out + "(reproduce and shrink: bazel-bin/tools/hlo_fuzz/hlo_fuzz --seed=SEED --modules=1)";
  }

  static Results* results_;
};

Results* FixedSeedFuzzTest::results_ = nullptr;

TEST_F(FixedSeedFuzzTest, NoMismatches) {
  EXPECT_TRUE(results_->mismatches.empty())
      << results_->mismatches.size() << " modules where the CPU backend disagrees with the interpreter:\n"
      << List(results_->mismatches);
}

TEST_F(FixedSeedFuzzTest, NoCpuCompileOrRunFailures) {
  EXPECT_TRUE(results_->cpu_failures.empty())
      << results_->cpu_failures.size() << " modules the interpreter runs but the CPU backend does not:\n"
      << List(results_->cpu_failures);
}

TEST_F(FixedSeedFuzzTest, EveryModuleIsValidAndRunsOnTheInterpreter) {
  EXPECT_TRUE(results_->invalid.empty()) << "generator bugs:\n" << List(results_->invalid);
}

TEST_F(FixedSeedFuzzTest, AlmostEveryOutputIsCompared) {
  EXPECT_LT(results_->skipped * 20, results_->compared + results_->skipped);
}

}  // namespace
}  // namespace hlo_fuzz
}  // namespace xla
