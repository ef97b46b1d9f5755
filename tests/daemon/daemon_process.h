// DaemonProcess: starts tools/xla_service as a separate process on
// 127.0.0.1 with port 0, reads the port it prints, and stops it (SIGTERM)
// when destroyed. For tests that drive a real daemon.
#ifndef TESTS_DAEMON_DAEMON_PROCESS_H_
#define TESTS_DAEMON_DAEMON_PROCESS_H_

#include <sys/types.h>

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace xla {

class DaemonProcess {
 public:
  // `flags` are extra command-line flags for the daemon.
  static absl::StatusOr<std::unique_ptr<DaemonProcess>> Start(const std::vector<std::string>& flags = {});
  ~DaemonProcess();

  int port() const { return port_; }
  std::string target() const { return "127.0.0.1:" + std::to_string(port_); }
  bool running() const;
  // Sends SIGTERM and waits; returns the exit status (-1 if killed by a signal).
  int Stop();
  // What the daemon wrote to stderr so far (its request log).
  std::string Log() const;

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  std::string log_path_;
  int exit_status_ = 0;
};

}  // namespace xla

#endif  // TESTS_DAEMON_DAEMON_PROCESS_H_
