#include "tests/cluster/cluster_process.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "xla/status_macros.h"

namespace xla {
namespace {

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

std::string WriteToken(const std::string& dir, const std::string& name, const std::string& token) {
  const std::string path = absl::StrCat(dir, "/", name);
  std::ofstream(path) << token << "\n";
  return path;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Cluster>> Cluster::Start(int size, const std::vector<std::string>& flags,
                                                        int start_ranks) {
  auto cluster = std::make_unique<Cluster>();
  cluster->size_ = size;
  const char* tmp = std::getenv("TEST_TMPDIR");
  static int counter = 0;
  cluster->token_dir_ = tmp ? tmp : "/tmp";
  cluster->token_ = absl::StrCat("cluster-token-", getpid(), "-", counter++);
  ASSIGN_OR_RETURN(int port, FreePort());
  cluster->coordinator_ = absl::StrCat("127.0.0.1:", port);
  const int ranks = start_ranks < 0 ? size : start_ranks;
  for (int rank = 0; rank < ranks; ++rank) {
    ASSIGN_OR_RETURN(std::unique_ptr<DaemonProcess> daemon, cluster->StartRank(rank, flags));
    cluster->daemons_.push_back(std::move(daemon));
  }
  if (ranks == size) {
    for (auto& daemon : cluster->daemons_) RETURN_IF_ERROR(daemon->WaitUntilListening(absl::Seconds(60)));
  }
  return cluster;
}

absl::StatusOr<std::unique_ptr<DaemonProcess>> Cluster::StartRank(int rank, const std::vector<std::string>& flags,
                                                                  const std::string& token) {
  static int files = 0;
  const std::string token_file =
      WriteToken(token_dir_, absl::StrCat("token_", getpid(), "_", files++), token.empty() ? token_ : token);
  std::vector<std::string> all = {
      absl::StrCat("--cluster_coordinator=", coordinator_), absl::StrCat("--cluster_size=", size_),
      absl::StrCat("--cluster_rank=", rank), absl::StrCat("--auth_token_file=", token_file)};
  all.insert(all.end(), flags.begin(), flags.end());
  return DaemonProcess::Spawn(all);
}

}  // namespace xla
