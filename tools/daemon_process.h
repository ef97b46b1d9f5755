// DaemonProcess: starts tools/xla_service (the runfiles' binary, or
// $XLA_SERVICE_BINARY) as a separate process on 127.0.0.1 (or a given
// address) with port 0, reads the port it prints, and stops it (SIGTERM)
// when destroyed. For tests, benchmarks and demos that drive real daemons.
#ifndef TESTS_DAEMON_DAEMON_PROCESS_H_
#define TESTS_DAEMON_DAEMON_PROCESS_H_

#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"

namespace xla {

class DaemonProcess {
 public:
  // `flags` are extra command-line flags for the daemon.
  static absl::StatusOr<std::unique_ptr<DaemonProcess>> Start(const std::vector<std::string>& flags = {});
  // Starts it without waiting for it to listen (a cluster's daemons wait
  // for each other first), on `address`; `prefix` runs it through another
  // command (e.g. {"/usr/sbin/ip", "netns", "exec", NAME}).
  static absl::StatusOr<std::unique_ptr<DaemonProcess>> Spawn(const std::vector<std::string>& flags,
                                                             const std::string& address = "127.0.0.1",
                                                             const std::vector<std::string>& prefix = {});
  // Waits until it prints where it listens.
  absl::Status WaitUntilListening(absl::Duration timeout);
  ~DaemonProcess();

  int port() const { return port_; }
  std::string target() const { return address_ + ":" + std::to_string(port_); }
  bool running() const;
  // Sends SIGTERM and waits; returns the exit status (-1 if killed by a signal).
  int Stop();
  // SIGKILL (no chance to clean up), and waits.
  void Kill();
  // Waits up to `timeout` for it to exit by itself; its exit status (-1 if
  // killed by a signal or still running, then killed).
  int WaitForExit(absl::Duration timeout);
  // What the daemon wrote to stderr so far (its request log).
  std::string Log() const;

 private:
  // Forgets the process waitpid reaped with `status`; its exit status.
  int Reaped(int status);

  pid_t pid_ = -1;
  int port_ = 0;
  std::string address_ = "127.0.0.1";
  std::string out_path_;
  std::string log_path_;
  int exit_status_ = 0;
};

// One unary call of `method` (a full path: "/xla.XlaService/Compile") on the
// daemon at `target`, with `body` as its raw bytes and the given metadata,
// and a 60 s deadline; the call's status.
grpc::Status RawUnaryCall(const std::string& target, const std::string& method, const std::string& body,
                          const std::vector<std::pair<std::string, std::string>>& metadata = {});

}  // namespace xla

#endif  // TESTS_DAEMON_DAEMON_PROCESS_H_
