// The benchmarks' shared timing and printing: one BENCH line per figure,
//   BENCH name=<id> value=<v> unit=<u> ref=<id> ref_value=<v> ratio=<r>
// where ratio > 1 means better than the reference measured in the same run.
#ifndef TOOLS_BENCH_BENCH_REPORT_H_
#define TOOLS_BENCH_BENCH_REPORT_H_

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>

namespace xla {
namespace bench {

// Best (smallest) of `reps` timings of `fn`, in seconds.
inline double BestSeconds(int reps, const std::function<void()>& fn) {
  double best = 1e30;
  for (int i = 0; i < reps; ++i) {
    auto start = std::chrono::steady_clock::now();
    fn();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

// Best of up to `max_reps` timings of `fn`, stopping once `budget_seconds`
// have been spent (after at least one): for workloads whose duration is not
// known in advance.
inline double BestSecondsWithin(int max_reps, double budget_seconds, const std::function<void()>& fn) {
  double best = 1e30, spent = 0;
  for (int i = 0; i < max_reps && (i == 0 || spent < budget_seconds); ++i) {
    double s = BestSeconds(1, fn);
    best = std::min(best, s);
    spent += s;
  }
  return best;
}

// Prints one figure; `higher_is_better` picks the direction of the ratio.
inline void Report(const std::string& name, double value, const std::string& unit, const std::string& ref,
                   double ref_value, bool higher_is_better) {
  double ratio = higher_is_better ? value / ref_value : ref_value / value;
  std::printf("BENCH name=%s value=%.3f unit=%s ref=%s ref_value=%.3f ratio=%.3f\n", name.c_str(), value,
              unit.c_str(), ref.c_str(), ref_value, ratio);
  std::fflush(stdout);
}

// A figure whose reference could not be measured (the reason is printed
// before it as a '#' line).
inline void ReportWithoutReference(const std::string& name, double value, const std::string& unit) {
  std::printf("BENCH name=%s value=%.3f unit=%s ref=none ref_value=nan ratio=nan\n", name.c_str(), value,
              unit.c_str());
  std::fflush(stdout);
}

}  // namespace bench
}  // namespace xla

#endif  // TOOLS_BENCH_BENCH_REPORT_H_
