// xla_service: the execution service daemon. Serves the Service over gRPC
// (proto/xla_service.proto) to many clients on a shared machine, each in its
// own session with its own handles, under memory quotas. See README.md.
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "backends/execution_control.h"
#include "service/cluster/cluster_member.h"
#include "service/cluster/coordinator.h"
#include "service/grpc_service.h"
#include "xla/custom_call/custom_call_plugin.h"
#include "xla/custom_call/custom_call_registry.h"
// Last: it includes <resolv.h>, whose _res macro breaks Eigen's headers.
#include "httplib.h"

ABSL_FLAG(std::string, address, "127.0.0.1",
          "Address to listen on. The default is loopback only; use 0.0.0.0 to listen on all interfaces.");
ABSL_FLAG(int, port, 0, "Port to listen on; 0 picks a free port (printed at startup).");
ABSL_FLAG(std::string, backend, "", "Backend to run on (default: the best one linked in).");
ABSL_FLAG(int64_t, max_memory_bytes, int64_t{8} << 30, "Device memory quota for the whole daemon, in bytes.");
ABSL_FLAG(int64_t, max_session_bytes, int64_t{4} << 30, "Device memory quota per session, in bytes.");
ABSL_FLAG(int64_t, cache_bytes, int64_t{256} << 20,
          "Bound of the compilation cache (least recently used executables are evicted), in bytes.");
ABSL_FLAG(std::string, xla_cache_dir, "",
          "Directory where compiled executables are saved, and loaded from instead of compiling by this and "
          "later daemons of the same build (several may share it). Its files are code the daemon runs: give "
          "it a directory only the daemon's user can write. Empty: none.");
ABSL_FLAG(int64_t, xla_cache_dir_bytes, int64_t{1} << 30,
          "Size bound of --xla_cache_dir (least recently used files are removed), in bytes.");
ABSL_FLAG(int, threads, 64,
          "Requests the daemon works on at once (its worker threads); more wait in a queue, taking turns "
          "between sessions.");
ABSL_FLAG(int64_t, max_queued_requests, 1024,
          "Requests that may wait for a worker; beyond this a request gets RESOURCE_EXHAUSTED at once.");
ABSL_FLAG(int64_t, max_request_bytes, int64_t{4} << 20,
          "Largest request body, and largest chunk of a streamed upload, in bytes (larger ones get "
          "RESOURCE_EXHAUSTED, logged).");
ABSL_FLAG(double, max_run_seconds, 300,
          "A run taking longer stops with DEADLINE_EXCEEDED at its next loop check (0: no limit).");
ABSL_FLAG(double, max_compile_seconds, 300,
          "A compile taking longer stops with DEADLINE_EXCEEDED at its next check (between passes and "
          "instructions; 0: no limit).");
ABSL_FLAG(int, devices, 8,
          "Host devices the daemon offers (GetDeviceHandles, the processes of a replicated run). Each is a "
          "thread of this process on the same backend and host memory.");
ABSL_FLAG(double, wait_seconds, 60,
          "The longest a replicated run's collective or infeed waits (the run then fails on every device), and "
          "TransferFromOutfeed's wait when the request names none.");
ABSL_FLAG(int, xla_cpu_threads, 0,
          "Worker threads of the CPU backend per run; requests asking for more (or for the default) get this "
          "many. 0: the cores in this process's CPU affinity mask.");
ABSL_FLAG(std::string, xla_cpu_target, "host",
          "CPU the CPU backend compiles for when a request names none (DebugOptions.xla_cpu_target): host, "
          "or an LLVM CPU name (haswell, skylake-avx512, znver4, ...) with optional ':+feature,-feature'.");
ABSL_FLAG(std::string, xla_dump_to, "",
          "Directory to dump every compilation into (HLO before/after each pass, buffer assignment, LLVM IR, "
          "assembly). Clients cannot choose a dump directory of their own.");
ABSL_FLAG(int, metrics_port, -1,
          "Serve Prometheus metrics (GET /metrics: calls by method and status, latency histograms, bytes in use, "
          "sessions, the compilation cache, compiles, runs, the request queue) over plain HTTP on this port of "
          "--address; 0 picks a free port (logged); -1: no metrics endpoint.");
ABSL_FLAG(std::string, auth_token_file, "",
          "When set, every call must carry this file's token (trimmed) as metadata 'xla-auth-token'.");
ABSL_FLAG(std::string, tls_cert, "", "PEM certificate chain for TLS (with --tls_key).");
ABSL_FLAG(std::string, tls_key, "", "PEM private key for TLS (with --tls_cert).");
ABSL_FLAG(int64_t, session_idle_timeout_seconds, 600,
          "Sessions idle this long are closed and their buffers freed.");
ABSL_FLAG(std::string, custom_call_plugin, "",
          "A shared library whose XlaRegisterCustomCalls entry point registers custom-call targets "
          "(xla/custom_call/custom_call_plugin.h); repeat the flag for several. Computations can call only "
          "targets linked into this binary or registered by these plugins. A plugin that fails to load is a "
          "startup error.");

ABSL_FLAG(std::string, cluster_coordinator, "",
          "HOST:PORT of the cluster's coordinator, which the daemon of --cluster_rank=0 serves there. With "
          "--cluster_size > 1 the daemon joins that cluster at startup (waiting up to "
          "--cluster_join_timeout_seconds for all ranks) before it serves: GetDeviceHandles then hands out devices "
          "of every host, and replicated runs span hosts with collectives on Gloo.");
ABSL_FLAG(int, cluster_size, 1, "Daemons in the cluster (1: no cluster).");
ABSL_FLAG(int, cluster_rank, 0, "This daemon's rank in the cluster, 0 to --cluster_size - 1.");
ABSL_FLAG(std::string, cluster_gloo_address, "",
          "The address Gloo's connections of this host bind to (default: --address, which must then be a "
          "concrete address, not 0.0.0.0).");
ABSL_FLAG(std::string, cluster_advertise_address, "",
          "HOST:PORT clients reach this daemon at, as the cluster's device handles name it (default: --address and "
          "the port the daemon listens on).");
ABSL_FLAG(bool, cluster_keep_gloo_contexts, true,
          "Keep Gloo contexts across runs (a run whose hosts ran together before connects nothing); false: every "
          "run connects its own, as a comparison for benchmarks and a fallback.");
ABSL_FLAG(double, cluster_join_timeout_seconds, 120, "How long the daemon waits for the whole cluster to register.");

namespace xla {
namespace {

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream file(path);
  if (!file) return absl::NotFoundError(absl::StrCat("cannot read '", path, "'"));
  std::stringstream buffer;
  buffer << file.rdbuf();
  return buffer.str();
}

int Fail(const std::string& message) {
  std::fprintf(stderr, "xla_service: %s\n", message.c_str());
  return 1;
}

// Every --custom_call_plugin value in order (absl keeps only the last one).
std::vector<std::string> PluginPaths(int argc, char** argv) {
  std::vector<std::string> paths;
  for (int i = 1; i < argc; ++i) {
    absl::string_view arg = argv[i];
    if (arg == "--") break;
    if (absl::ConsumePrefix(&arg, "--custom_call_plugin=") || absl::ConsumePrefix(&arg, "-custom_call_plugin=")) {
      paths.emplace_back(arg);
    } else if ((arg == "--custom_call_plugin" || arg == "-custom_call_plugin") && i + 1 < argc) {
      paths.emplace_back(argv[++i]);
    }
  }
  return paths;
}

int Main(const std::vector<std::string>& plugins) {
  // Signals are taken by a dedicated thread (sigwait), so block them in
  // every thread before any is created.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  std::string token;
  if (!absl::GetFlag(FLAGS_auth_token_file).empty()) {
    absl::StatusOr<std::string> contents = ReadFile(absl::GetFlag(FLAGS_auth_token_file));
    if (!contents.ok()) return Fail(std::string(contents.status().message()));
    token = std::string(absl::StripAsciiWhitespace(*contents));
    if (token.empty()) return Fail("the auth token file is empty");
  }
  std::shared_ptr<grpc::ServerCredentials> credentials = grpc::InsecureServerCredentials();
  std::string tls_cert;  // the cluster's members trust it for the coordinator's TLS
  if (!absl::GetFlag(FLAGS_tls_cert).empty() || !absl::GetFlag(FLAGS_tls_key).empty()) {
    absl::StatusOr<std::string> cert = ReadFile(absl::GetFlag(FLAGS_tls_cert));
    absl::StatusOr<std::string> key = ReadFile(absl::GetFlag(FLAGS_tls_key));
    if (!cert.ok() || !key.ok()) return Fail("--tls_cert and --tls_key must both name readable PEM files");
    grpc::SslServerCredentialsOptions ssl;
    ssl.pem_key_cert_pairs.push_back({*key, *cert});
    credentials = grpc::SslServerCredentials(ssl);
    tls_cert = *cert;
  }
  // Outlives the servers that use it.
  std::unique_ptr<ClusterCoordinator> coordinator_service;

  // Before any request: the registry the backends bind custom calls to.
  for (const std::string& path : plugins) {
    if (path.empty()) return Fail("--custom_call_plugin needs a path");
    absl::Status loaded = LoadCustomCallPlugin(path, CustomCallRegistry::Global());
    if (!loaded.ok()) return Fail(std::string(loaded.message()));
    std::fprintf(stderr, "xla_service: loaded custom-call plugin %s\n", path.c_str());
  }

  ServiceLimits limits;
  limits.max_memory_bytes = absl::GetFlag(FLAGS_max_memory_bytes);
  limits.max_session_bytes = absl::GetFlag(FLAGS_max_session_bytes);
  limits.cache_bytes = absl::GetFlag(FLAGS_cache_bytes);
  limits.cache_dir = absl::GetFlag(FLAGS_xla_cache_dir);
  if (absl::GetFlag(FLAGS_xla_cache_dir_bytes) < 1) return Fail("--xla_cache_dir_bytes must be >= 1");
  limits.cache_dir_bytes = absl::GetFlag(FLAGS_xla_cache_dir_bytes);
  if (absl::GetFlag(FLAGS_xla_cpu_threads) < 0) return Fail("--xla_cpu_threads must be >= 0");
  limits.max_cpu_threads = absl::GetFlag(FLAGS_xla_cpu_threads);
  if (absl::GetFlag(FLAGS_max_run_seconds) < 0) return Fail("--max_run_seconds must be >= 0");
  limits.max_run_seconds = absl::GetFlag(FLAGS_max_run_seconds);
  if (absl::GetFlag(FLAGS_max_compile_seconds) < 0) return Fail("--max_compile_seconds must be >= 0");
  limits.max_compile_seconds = absl::GetFlag(FLAGS_max_compile_seconds);
  if (absl::GetFlag(FLAGS_devices) < 1) return Fail("--devices must be >= 1");
  limits.num_devices = absl::GetFlag(FLAGS_devices);
  if (absl::GetFlag(FLAGS_wait_seconds) <= 0) return Fail("--wait_seconds must be > 0");
  limits.wait_seconds = absl::GetFlag(FLAGS_wait_seconds);
  limits.dump_to = absl::GetFlag(FLAGS_xla_dump_to);
  limits.cpu_target = absl::GetFlag(FLAGS_xla_cpu_target);
  limits.allow_request_dump_to = false;
  absl::StatusOr<std::unique_ptr<Service>> created = Service::Create(absl::GetFlag(FLAGS_backend), limits);
  if (!created.ok()) return Fail(std::string(created.status().message()));
  std::shared_ptr<Service> service = std::move(*created);
  const absl::Duration idle = absl::Seconds(absl::GetFlag(FLAGS_session_idle_timeout_seconds));
  if (absl::GetFlag(FLAGS_threads) < 1) return Fail("--threads must be >= 1");
  if (absl::GetFlag(FLAGS_max_queued_requests) < 1) return Fail("--max_queued_requests must be >= 1");
  GrpcServiceOptions service_options;
  service_options.auth_token = token;
  service_options.idle_timeout = idle;
  service_options.workers = absl::GetFlag(FLAGS_threads);
  service_options.max_queued_requests = absl::GetFlag(FLAGS_max_queued_requests);
  service_options.max_request_bytes = absl::GetFlag(FLAGS_max_request_bytes);
  if (service_options.max_request_bytes < 1 || service_options.max_request_bytes > INT32_MAX) {
    return Fail("--max_request_bytes must be between 1 and 2147483647");
  }
  GrpcService grpc_service(service, service_options);

  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(absl::StrCat(absl::GetFlag(FLAGS_address), ":", absl::GetFlag(FLAGS_port)), credentials,
                           &port);
  grpc_service.RegisterWith(&builder);
  // The daemon applies --max_request_bytes itself, where it can log the
  // rejection (grpc_service.h); gRPC's own limit would refuse silently.
  builder.SetMaxReceiveMessageSize(-1);
  // gRPC's own threads serve the callbacks and the two streaming transfers,
  // two of the service's own receive Execute (GrpcService::Start); the
  // unary methods' work runs on the request queue's workers. The bound
  // only keeps a flood of streaming calls from making unbounded threads.
  grpc::ResourceQuota quota("xla_service");
  quota.SetMaxThreads(static_cast<int>(std::min<int64_t>(
      absl::GetFlag(FLAGS_threads) + absl::GetFlag(FLAGS_max_queued_requests) + 16, 1 << 16)));
  builder.SetResourceQuota(quota);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || port == 0) {
    return Fail(absl::StrCat("cannot listen on ", absl::GetFlag(FLAGS_address), ":", absl::GetFlag(FLAGS_port)));
  }
  grpc_service.Start();
  // Prometheus scrapes plain HTTP: a small server of its own.
  std::unique_ptr<httplib::Server> metrics;
  std::thread metrics_thread;
  if (absl::GetFlag(FLAGS_metrics_port) >= 0) {
    metrics = std::make_unique<httplib::Server>();
    metrics->Get("/metrics", [&grpc_service](const httplib::Request&, httplib::Response& response) {
      response.set_content(grpc_service.MetricsText(), "text/plain; version=0.0.4");
    });
    const std::string& address = absl::GetFlag(FLAGS_address);
    const int wanted = absl::GetFlag(FLAGS_metrics_port);
    const int bound = wanted == 0 ? metrics->bind_to_any_port(address) : (metrics->bind_to_port(address, wanted) ? wanted : -1);
    if (bound <= 0) return Fail(absl::StrCat("cannot serve metrics on ", address, ":", wanted));
    metrics_thread = std::thread([&metrics] { metrics->listen_after_bind(); });
    std::fprintf(stderr, "xla_service: metrics on http://%s:%d/metrics\n", address.c_str(), bound);
  }
  absl::Notification stopping;
  std::thread signal_thread([&] {
    int signal = 0;
    sigwait(&signals, &signal);
    std::fprintf(stderr, "xla_service: signal %d, cancelling the work in flight and shutting down\n", signal);
    stopping.Notify();
    // Runs and compiles in flight stop at their next check (CANCELLED);
    // calls still running after 2 s are cancelled by gRPC; and should
    // anything still hold the process (a long runtime call), it exits at 4 s
    // all the same: an operator's SIGTERM ends the daemon within 5 s.
    ExecutionControl::CancelAll();
    std::thread([] {
      std::this_thread::sleep_for(std::chrono::seconds(4));
      std::fprintf(stderr, "xla_service: work still running 4 s after the signal; exiting now\n");
      std::fflush(stderr);
      std::_Exit(0);
    }).detach();
    server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  });
  // A cluster daemon joins before it says where it listens: clients wait
  // for that line, so none sees the daemon outside its cluster. (Threads
  // run now: a failure exits at once.)
  auto fail_now = [](const std::string& message) {
    Fail(message);
    std::fflush(stderr);
    std::_Exit(1);
  };
  std::unique_ptr<grpc::Server> coordinator_server;
  std::shared_ptr<ClusterMember> cluster;
  if (absl::GetFlag(FLAGS_cluster_size) > 1) {
    const int size = absl::GetFlag(FLAGS_cluster_size);
    const int rank = absl::GetFlag(FLAGS_cluster_rank);
    if (rank < 0 || rank >= size) fail_now("--cluster_rank must be between 0 and --cluster_size - 1");
    const std::string& coordinator = absl::GetFlag(FLAGS_cluster_coordinator);
    if (coordinator.empty()) fail_now("--cluster_size > 1 needs --cluster_coordinator=HOST:PORT");
    if (rank == 0) {
      ClusterCoordinator::Options coordinator_options;
      coordinator_options.cluster_size = size;
      coordinator_options.auth_token = token;
      coordinator_service = std::make_unique<ClusterCoordinator>(coordinator_options);
      grpc::ServerBuilder coordinator_builder;
      int coordinator_port = 0;
      coordinator_builder.AddListeningPort(coordinator, credentials, &coordinator_port);
      coordinator_builder.RegisterService(coordinator_service.get());
      coordinator_server = coordinator_builder.BuildAndStart();
      if (coordinator_server == nullptr || coordinator_port == 0) {
        fail_now(absl::StrCat("cannot serve the cluster coordinator on ", coordinator));
      }
      std::fprintf(stderr, "xla_service: cluster coordinator on %s for %d hosts\n", coordinator.c_str(), size);
    }
    ClusterMember::Options member;
    member.coordinator = coordinator;
    member.cluster_size = size;
    member.rank = rank;
    member.service_address = absl::GetFlag(FLAGS_cluster_advertise_address).empty()
                                 ? absl::StrCat(absl::GetFlag(FLAGS_address), ":", port)
                                 : absl::GetFlag(FLAGS_cluster_advertise_address);
    member.num_devices = limits.num_devices;
    member.gloo_address = absl::GetFlag(FLAGS_cluster_gloo_address).empty() ? absl::GetFlag(FLAGS_address)
                                                                             : absl::GetFlag(FLAGS_cluster_gloo_address);
    member.auth_token = token;
    member.keep_gloo_contexts = absl::GetFlag(FLAGS_cluster_keep_gloo_contexts);
    if (!tls_cert.empty()) {
      grpc::SslCredentialsOptions ssl;
      ssl.pem_root_certs = tls_cert;
      member.credentials = grpc::SslCredentials(ssl);
    }
    member.join_timeout = absl::Seconds(absl::GetFlag(FLAGS_cluster_join_timeout_seconds));
    absl::StatusOr<std::unique_ptr<ClusterMember>> joined = ClusterMember::Join(member);
    if (!joined.ok()) fail_now(std::string(joined.status().message()));
    cluster = std::move(*joined);
    service->set_cluster(cluster);
    std::fprintf(stderr, "xla_service: joined the cluster as rank %d of %d (%lld devices in all)\n", rank, size,
                 static_cast<long long>(cluster->total_devices()));
  }
  std::printf("xla_service: listening on %s:%d backend=%s devices=%d\n", absl::GetFlag(FLAGS_address).c_str(),
              port, service->backend().name().c_str(), limits.num_devices);
  std::fflush(stdout);

  std::thread reaper([&] {
    while (!stopping.WaitForNotificationWithTimeout(absl::Seconds(1))) {
      int closed = service->CloseIdleSessions(idle);
      if (closed > 0) std::fprintf(stderr, "xla_service: closed %d idle session(s)\n", closed);
    }
  });
  server->Wait();
  if (coordinator_server != nullptr) coordinator_server->Shutdown(std::chrono::system_clock::now());
  if (metrics != nullptr) {
    metrics->stop();
    metrics_thread.join();
  }
  signal_thread.join();
  reaper.join();
  std::fprintf(stderr, "xla_service: stopped (%lld bytes still held by %lld open sessions)\n",
               static_cast<long long>(service->allocation_tracker().bytes_in_use()),
               static_cast<long long>(service->open_sessions()));
  return 0;
}

}  // namespace
}  // namespace xla

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "The XLA execution service daemon.\n"
      "usage: xla_service [--address=127.0.0.1] [--port=0] [--backend=NAME] [--max_memory_bytes=N]\n"
      "                   [--max_session_bytes=N] [--cache_bytes=N] [--xla_cache_dir=DIR] [--threads=N]\n"
      "                   [--auth_token_file=F]\n"
      "                   [--tls_cert=F --tls_key=F] [--session_idle_timeout_seconds=N]\n"
      "                   [--custom_call_plugin=LIB.so ...]\n"
      "                   [--cluster_coordinator=HOST:PORT --cluster_size=N --cluster_rank=R]");
  const std::vector<std::string> plugins = xla::PluginPaths(argc, argv);
  std::vector<char*> positional = absl::ParseCommandLine(argc, argv);
  if (positional.size() > 1) {
    std::fprintf(stderr, "xla_service: unexpected argument '%s' (see --help)\n", positional[1]);
    return 1;
  }
  return xla::Main(plugins);
}
