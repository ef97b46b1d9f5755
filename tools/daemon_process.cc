#include "tools/daemon_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "grpcpp/generic/generic_stub.h"
#include "xla/status_macros.h"

extern char** environ;

namespace xla {

namespace {

// Daemons still running when the test binary exits (e.g. ones held by
// leaked singletons) get SIGTERM, so no test leaves a process behind.
std::vector<pid_t>& LivePids() {
  static auto* pids = new std::vector<pid_t>();
  return *pids;
}

void StopLiveDaemons() {
  for (pid_t pid : LivePids()) kill(pid, SIGTERM);
}

}  // namespace

absl::StatusOr<std::unique_ptr<DaemonProcess>> DaemonProcess::Start(const std::vector<std::string>& flags) {
  ASSIGN_OR_RETURN(std::unique_ptr<DaemonProcess> daemon, Spawn(flags));
  RETURN_IF_ERROR(daemon->WaitUntilListening(absl::Seconds(6)));
  return daemon;
}

absl::StatusOr<std::unique_ptr<DaemonProcess>> DaemonProcess::Spawn(const std::vector<std::string>& flags,
                                                                   const std::string& address,
                                                                   const std::vector<std::string>& prefix) {
  static const bool registered = [] { return std::atexit(StopLiveDaemons) == 0; }();
  (void)registered;
  auto daemon = std::make_unique<DaemonProcess>();
  daemon->address_ = address;
  const char* tmp = std::getenv("TEST_TMPDIR");
  static int counter = 0;
  daemon->log_path_ = absl::StrCat(tmp ? tmp : "/tmp", "/xla_service_", getpid(), "_", counter++, ".log");
  daemon->out_path_ = daemon->log_path_ + ".out";
  const char* binary = std::getenv("XLA_SERVICE_BINARY");
  std::vector<std::string> args = prefix;
  args.push_back(binary != nullptr && *binary != '\0' ? binary : "tools/xla_service");
  args.push_back("--address=" + address);
  args.push_back("--port=0");
  args.insert(args.end(), flags.begin(), flags.end());
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, daemon->out_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, daemon->log_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  int rc = posix_spawn(&daemon->pid_, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return Internal("cannot start %s: %s", argv[0], strerror(rc));
  LivePids().push_back(daemon->pid_);
  return daemon;
}

absl::Status DaemonProcess::WaitUntilListening(absl::Duration timeout) {
  // Wait for "listening on ADDRESS:PORT".
  const absl::Time deadline = absl::Now() + timeout;
  while (port_ == 0) {
    std::ifstream out(out_path_);
    std::string line;
    if (std::getline(out, line)) {
      size_t colon = line.rfind(':', line.find(" backend="));
      if (colon != std::string::npos) port_ = std::atoi(line.c_str() + colon + 1);
    }
    if (port_ != 0) break;
    if (!running()) return Internal("the daemon exited at startup: %s", Log());
    if (absl::Now() > deadline) return Internal("the daemon did not report its port: %s", Log());
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return absl::OkStatus();
}

bool DaemonProcess::running() const {
  if (pid_ <= 0) return false;
  int status;
  return waitpid(pid_, &status, WNOHANG) == 0;
}

int DaemonProcess::Reaped(int status) {
  LivePids().erase(std::remove(LivePids().begin(), LivePids().end(), pid_), LivePids().end());
  pid_ = -1;
  exit_status_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return exit_status_;
}

int DaemonProcess::Stop() {
  if (pid_ <= 0) return exit_status_;
  kill(pid_, SIGTERM);
  int status = 0;
  waitpid(pid_, &status, 0);
  return Reaped(status);
}

void DaemonProcess::Kill() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  Stop();
}

int DaemonProcess::WaitForExit(absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (pid_ > 0 && absl::Now() < deadline) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) return Reaped(status);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (pid_ > 0) {
    Kill();
    return -1;
  }
  return exit_status_;
}

DaemonProcess::~DaemonProcess() { Stop(); }

std::string DaemonProcess::Log() const {
  std::ifstream in(log_path_);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

grpc::Status RawUnaryCall(const std::string& target, const std::string& method, const std::string& body,
                          const std::vector<std::pair<std::string, std::string>>& metadata) {
  auto channel = grpc::CreateChannel(target, grpc::InsecureChannelCredentials());
  grpc::GenericStub generic(channel);
  grpc::ClientContext context;
  for (const auto& [key, value] : metadata) context.AddMetadata(key, value);
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
  grpc::Slice slice(body.data(), body.size());
  grpc::ByteBuffer request(&slice, 1), response;
  grpc::CompletionQueue cq;
  std::unique_ptr<grpc::GenericClientAsyncResponseReader> call = generic.PrepareUnaryCall(&context, method, request, &cq);
  call->StartCall();
  grpc::Status status;
  call->Finish(&response, &status, reinterpret_cast<void*>(1));
  void* tag;
  bool ok;
  if (!cq.Next(&tag, &ok)) return grpc::Status(grpc::StatusCode::UNKNOWN, "no completion");
  return status;
}

}  // namespace xla
