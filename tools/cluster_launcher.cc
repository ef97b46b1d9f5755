#include "tools/cluster_launcher.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "absl/random/random.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "xla/status_macros.h"

namespace xla {
namespace {

constexpr char kIp[] = "/usr/sbin/ip";

// A port nothing listens on now (the kernel's pick; free it at once).
absl::StatusOr<int> FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return Internal("socket() failed");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t length = sizeof(address);
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    close(fd);
    return Internal("cannot find a free port");
  }
  close(fd);
  return ntohs(address.sin_port);
}

// Runs `ip ARGS` quietly; OK when it exits 0.
absl::Status Ip(const std::vector<std::string>& args) {
  const std::string command = absl::StrCat(kIp, " ", absl::StrJoin(args, " "), " >/dev/null 2>&1");
  if (std::system(command.c_str()) != 0) return Internal("'ip %s' failed", absl::StrJoin(args, " "));
  return absl::OkStatus();
}

}  // namespace

std::vector<std::string> Cluster::CommandPrefix(int rank) const {
  if (subnet_.empty()) return {};
  return {kIp, "netns", "exec", namespaces_[rank]};
}

std::string Cluster::HostAddress(int rank) const {
  return subnet_.empty() ? "127.0.0.1" : absl::StrCat(subnet_, ".", rank + 1);
}

absl::Status Cluster::CreateNamespaces() {
  if (geteuid() != 0) return FailedPrecondition("not root");
  if (access(kIp, X_OK) != 0) return FailedPrecondition("no %s", kIp);
  // The first 10.213.X.0/24 no interface of this machine uses. Launchers
  // running at once (a test and the demo) take turns from the choice until
  // the bridge holds the address, so two never pick one subnet.
  const int lock = open("/tmp/xla_cluster_launcher.lock", O_CREAT | O_RDWR | O_CLOEXEC, 0600);
  if (lock < 0 || flock(lock, LOCK_EX) != 0) {
    if (lock >= 0) close(lock);
    return FailedPrecondition("cannot lock /tmp/xla_cluster_launcher.lock to choose a subnet");
  }
  struct Unlock {
    int fd;
    ~Unlock() { close(fd); }  // closing releases the lock
  } unlock{lock};
  std::string in_use;
  if (FILE* pipe = popen(absl::StrCat(kIp, " -4 -o addr show 2>/dev/null").c_str(), "r")) {
    char buffer[512];
    while (fgets(buffer, sizeof(buffer), pipe) != nullptr) in_use += buffer;
    pclose(pipe);
  }
  int id = 0;
  while (id < 250 && absl::StrContains(in_use, absl::StrCat(" 10.213.", id, "."))) ++id;
  if (id == 250) return FailedPrecondition("no free 10.213.X.0/24 subnet");
  subnet_ = absl::StrCat("10.213.", id);
  bridge_ = absl::StrCat("xb", tag_);
  absl::Status status = [&]() -> absl::Status {
    RETURN_IF_ERROR(Ip({"link", "add", bridge_, "type", "bridge"}));
    RETURN_IF_ERROR(Ip({"addr", "add", absl::StrCat(subnet_, ".254/24"), "dev", bridge_}));
    RETURN_IF_ERROR(Ip({"link", "set", bridge_, "up"}));
    for (int r = 0; r < size_; ++r) {
      const std::string ns = absl::StrCat("xn", tag_, "h", r);
      const std::string outside = absl::StrCat("xv", tag_, "h", r);
      const std::string inside = absl::StrCat("xi", tag_, "h", r);
      RETURN_IF_ERROR(Ip({"netns", "add", ns}));
      namespaces_.push_back(ns);
      RETURN_IF_ERROR(Ip({"link", "add", outside, "type", "veth", "peer", "name", inside}));
      RETURN_IF_ERROR(Ip({"link", "set", inside, "netns", ns}));
      RETURN_IF_ERROR(Ip({"link", "set", outside, "master", bridge_}));
      RETURN_IF_ERROR(Ip({"link", "set", outside, "up"}));
      RETURN_IF_ERROR(Ip({"netns", "exec", ns, kIp, "addr", "add", absl::StrCat(HostAddress(r), "/24"), "dev", inside}));
      RETURN_IF_ERROR(Ip({"netns", "exec", ns, kIp, "link", "set", inside, "up"}));
      RETURN_IF_ERROR(Ip({"netns", "exec", ns, kIp, "link", "set", "lo", "up"}));
    }
    return absl::OkStatus();
  }();
  if (!status.ok()) {
    DeleteNamespaces();
    subnet_.clear();
  }
  return status;
}

void Cluster::DeleteNamespaces() {
  // Deleting a namespace deletes its end of the veth pair, and so the pair.
  for (const std::string& ns : namespaces_) Ip({"netns", "del", ns}).IgnoreError();
  namespaces_.clear();
  if (!bridge_.empty()) Ip({"link", "del", bridge_}).IgnoreError();
  bridge_.clear();
}

absl::StatusOr<std::unique_ptr<Cluster>> Cluster::Start(int size, const std::vector<std::string>& flags,
                                                        int start_ranks) {
  Options options;
  options.size = size;
  options.flags = flags;
  options.start_ranks = start_ranks;
  return Start(options);
}

absl::StatusOr<std::unique_ptr<Cluster>> Cluster::Start(const Options& options) {
  auto cluster = std::make_unique<Cluster>();
  cluster->size_ = options.size;
  static int counter = 0;
  cluster->tag_ = absl::StrCat(getpid() % 100000, "c", counter++);
  const char* tmp = std::getenv("TEST_TMPDIR");
  cluster->token_dir_ = tmp ? tmp : "/tmp";
  absl::BitGen gen;
  cluster->token_ = absl::StrFormat("%016x%016x", absl::Uniform<uint64_t>(gen), absl::Uniform<uint64_t>(gen));
  if (options.network_namespaces) {
    absl::Status created = cluster->CreateNamespaces();
    cluster->mode_ = created.ok() ? absl::StrCat("network namespaces ", cluster->subnet_, ".0/24")
                                  : absl::StrCat("loopback ports (no network namespaces: ", created.message(), ")");
  } else {
    cluster->mode_ = "loopback ports";
  }
  if (cluster->subnet_.empty()) {
    ASSIGN_OR_RETURN(int port, FreePort());
    cluster->coordinator_ = absl::StrCat("127.0.0.1:", port);
  } else {
    cluster->coordinator_ = absl::StrCat(cluster->HostAddress(0), ":7000");  // rank 0's own namespace
  }
  const int ranks = options.start_ranks < 0 ? options.size : options.start_ranks;
  for (int rank = 0; rank < ranks; ++rank) {
    ASSIGN_OR_RETURN(std::unique_ptr<DaemonProcess> daemon, cluster->StartRank(rank, options.flags));
    cluster->daemons_.push_back(std::move(daemon));
  }
  if (ranks == options.size) {
    for (auto& daemon : cluster->daemons_) RETURN_IF_ERROR(daemon->WaitUntilListening(absl::Seconds(60)));
  }
  return cluster;
}

Cluster::~Cluster() {
  for (auto& daemon : daemons_) daemon.reset();
  DeleteNamespaces();
}

absl::StatusOr<std::unique_ptr<DaemonProcess>> Cluster::StartRank(int rank, const std::vector<std::string>& flags,
                                                                  const std::string& token) {
  static int files = 0;
  const std::string token_file = absl::StrCat(token_dir_, "/token_", tag_, "_", files++);
  std::ofstream(token_file) << (token.empty() ? token_ : token) << "\n";
  std::vector<std::string> all = {
      absl::StrCat("--cluster_coordinator=", coordinator_), absl::StrCat("--cluster_size=", size_),
      absl::StrCat("--cluster_rank=", rank), absl::StrCat("--auth_token_file=", token_file)};
  all.insert(all.end(), flags.begin(), flags.end());
  return DaemonProcess::Spawn(all, HostAddress(rank), CommandPrefix(rank));
}

}  // namespace xla
