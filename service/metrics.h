// ServiceMetrics: what an operator scrapes from the daemon (xla_service
// --metrics_port, GET /metrics), in Prometheus' text exposition format:
// calls by method and status code, latency histograms and bytes per
// method, and gauges read at scrape time (bytes in use, sessions, the
// compilation cache, compiles and runs, the request queue). Thread-safe.
#ifndef SERVICE_METRICS_H_
#define SERVICE_METRICS_H_

#include <array>
#include <cstdint>
#include <map>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "service/request_queue.h"
#include "service/service.h"

namespace xla {

class ServiceMetrics {
 public:
  // Upper bounds (seconds) of the latency histogram's buckets; +Inf follows.
  static constexpr std::array<double, 12> kLatencyBuckets = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                                            0.1,   0.25,   0.5,   1,    10,    60};

  // One finished call (rejections included): its method, status, duration
  // and the bytes of its request and response.
  void RecordCall(absl::string_view method, absl::StatusCode code, double seconds, int64_t bytes);

  // The exposition text: the recorded counters plus `service`'s and
  // `queue`'s state now.
  std::string Render(Service& service, const RequestQueue& queue) const;

 private:
  struct MethodStats {
    std::map<absl::StatusCode, int64_t> calls;
    std::array<int64_t, kLatencyBuckets.size()> buckets{};  // calls at most this long (not cumulative)
    int64_t count = 0;
    double seconds = 0;
    int64_t bytes = 0;
  };
  mutable absl::Mutex mu_;
  std::map<std::string, MethodStats, std::less<>> methods_ ABSL_GUARDED_BY(mu_);
};

}  // namespace xla

#endif  // SERVICE_METRICS_H_
