#include "service/metrics.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace xla {
namespace {

// One metric's HELP and TYPE lines.
void Header(std::string* out, absl::string_view name, absl::string_view type, absl::string_view help) {
  absl::StrAppend(out, "# HELP ", name, " ", help, "\n# TYPE ", name, " ", type, "\n");
}

void Sample(std::string* out, absl::string_view name, absl::string_view labels, double value) {
  absl::StrAppend(out, name, labels.empty() ? "" : absl::StrCat("{", labels, "}"), " ",
                  absl::StrFormat("%.17g", value), "\n");
}

}  // namespace

void ServiceMetrics::RecordCall(absl::string_view method, absl::StatusCode code, double seconds, int64_t bytes) {
  absl::MutexLock lock(&mu_);
  auto it = methods_.find(method);
  if (it == methods_.end()) it = methods_.emplace(std::string(method), MethodStats()).first;
  MethodStats& stats = it->second;
  ++stats.calls[code];
  ++stats.count;
  stats.seconds += seconds;
  stats.bytes += bytes;
  const auto bucket = std::lower_bound(kLatencyBuckets.begin(), kLatencyBuckets.end(), seconds);
  if (bucket != kLatencyBuckets.end()) ++stats.buckets[bucket - kLatencyBuckets.begin()];
}

std::string ServiceMetrics::Render(Service& service, const RequestQueue& queue) const {
  std::string out;
  {
    absl::MutexLock lock(&mu_);
    Header(&out, "xla_requests_total", "counter", "Calls finished, by method and status code (rejections included).");
    for (const auto& [method, stats] : methods_) {
      for (const auto& [code, n] : stats.calls) {
        Sample(&out, "xla_requests_total",
               absl::StrCat("method=\"", method, "\",code=\"", absl::StatusCodeToString(code), "\""), n);
      }
    }
    Header(&out, "xla_request_duration_seconds", "histogram", "Call latency, by method.");
    for (const auto& [method, stats] : methods_) {
      int64_t cumulative = 0;
      for (size_t b = 0; b < kLatencyBuckets.size(); ++b) {
        cumulative += stats.buckets[b];
        Sample(&out, "xla_request_duration_seconds_bucket",
               absl::StrCat("method=\"", method, "\",le=\"", absl::StrFormat("%g", kLatencyBuckets[b]), "\""),
               cumulative);
      }
      Sample(&out, "xla_request_duration_seconds_bucket", absl::StrCat("method=\"", method, "\",le=\"+Inf\""),
             stats.count);
      Sample(&out, "xla_request_duration_seconds_sum", absl::StrCat("method=\"", method, "\""), stats.seconds);
      Sample(&out, "xla_request_duration_seconds_count", absl::StrCat("method=\"", method, "\""), stats.count);
    }
    Header(&out, "xla_request_bytes_total", "counter", "Bytes of requests and responses, by method.");
    for (const auto& [method, stats] : methods_) {
      Sample(&out, "xla_request_bytes_total", absl::StrCat("method=\"", method, "\""), stats.bytes);
    }
  }
  GetServiceInfoResponse info;
  if (service.GetServiceInfo(GetServiceInfoRequest(), &info).ok()) {
    Header(&out, "xla_bytes_in_use", "gauge", "Device memory held by all sessions.");
    Sample(&out, "xla_bytes_in_use", "", info.bytes_in_use());
    Header(&out, "xla_max_memory_bytes", "gauge", "The daemon's memory quota (--max_memory_bytes).");
    Sample(&out, "xla_max_memory_bytes", "", info.max_memory_bytes());
    Header(&out, "xla_compilation_cache_hits_total", "counter", "Compiles answered from the cache.");
    Sample(&out, "xla_compilation_cache_hits_total", "", info.cache_hits());
    Header(&out, "xla_compilation_cache_misses_total", "counter", "Compiles the cache did not have.");
    Sample(&out, "xla_compilation_cache_misses_total", "", info.cache_misses());
    Header(&out, "xla_compilation_cache_evictions_total", "counter", "Executables evicted from the cache.");
    Sample(&out, "xla_compilation_cache_evictions_total", "", info.cache_evictions());
    Header(&out, "xla_compilation_cache_bytes", "gauge", "Bytes of the executables the cache holds.");
    Sample(&out, "xla_compilation_cache_bytes", "", info.cache_bytes());
    Header(&out, "xla_compilations_total", "counter", "Compiles the backend ran.");
    Sample(&out, "xla_compilations_total", "", info.compilations());
    Header(&out, "xla_executions_total", "counter", "Runs started.");
    Sample(&out, "xla_executions_total", "", info.executions());
  }
  Header(&out, "xla_sessions", "gauge", "Open sessions.");
  Sample(&out, "xla_sessions", "", service.open_sessions());
  Header(&out, "xla_queued_requests", "gauge", "Requests waiting for a worker.");
  Sample(&out, "xla_queued_requests", "", queue.queued());
  Header(&out, "xla_running_requests", "gauge", "Requests a worker is running.");
  Sample(&out, "xla_running_requests", "", queue.running());
  Header(&out, "xla_workers", "gauge", "Worker threads (--threads).");
  Sample(&out, "xla_workers", "", queue.workers());
  Header(&out, "xla_max_queued_requests", "gauge", "The request queue's bound (--max_queued_requests).");
  Sample(&out, "xla_max_queued_requests", "", queue.max_queued());
  return out;
}

}  // namespace xla
