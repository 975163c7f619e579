#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "probes/collect_facts.h"
#include "probes/proc_parsers.h"

namespace nicbench::probes {
namespace {

using record::Measured;
using record::Missing;

Measured<std::string> ReadString(FileSource& files, const char* path) {
  auto text = files.ReadTrimmed(path);
  if (!text) return UnknownFrom<std::string>(text.error());
  return *text;
}

bool SameAddress(const struct sockaddr* a, const struct sockaddr_storage& b) {
  if (a == nullptr || a->sa_family != b.ss_family) return false;
  if (a->sa_family == AF_INET) {
    return reinterpret_cast<const sockaddr_in*>(a)->sin_addr.s_addr ==
           reinterpret_cast<const sockaddr_in*>(&b)->sin_addr.s_addr;
  }
  if (a->sa_family == AF_INET6) {
    return std::memcmp(&reinterpret_cast<const sockaddr_in6*>(a)->sin6_addr,
                       &reinterpret_cast<const sockaddr_in6*>(&b)->sin6_addr,
                       sizeof(in6_addr)) == 0;
  }
  return false;
}

bool IsLoopback(const struct sockaddr* addr) {
  if (addr->sa_family == AF_INET) {
    return (ntohl(reinterpret_cast<const sockaddr_in*>(addr)->sin_addr.s_addr) >> 24) == 127;
  }
  if (addr->sa_family == AF_INET6) {
    return IN6_IS_ADDR_LOOPBACK(&reinterpret_cast<const sockaddr_in6*>(addr)->sin6_addr);
  }
  return false;
}

// The local address the kernel picks for `peer` (connect on UDP only sets the route).
Result<struct sockaddr_storage> LocalAddressFor(const struct addrinfo& peer) {
  int fd = ::socket(peer.ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return FailErrno("socket");
  struct sockaddr_storage local {};
  socklen_t len = sizeof local;
  if (::connect(fd, peer.ai_addr, peer.ai_addrlen) < 0 ||
      ::getsockname(fd, reinterpret_cast<struct sockaddr*>(&local), &len) < 0) {
    auto failure = FailErrno("route to peer");
    ::close(fd);
    return failure;
  }
  ::close(fd);
  return local;
}

}  // namespace

record::HostFacts CollectHostFacts(FileSource& files) {
  record::HostFacts facts;
  facts.hostname = ReadString(files, "/proc/sys/kernel/hostname");
  facts.kernel = ReadString(files, "/proc/sys/kernel/osrelease");
  struct utsname names {};
  if (files.IsLive() && ::uname(&names) == 0) {
    facts.hostname = std::string(names.nodename);
    facts.kernel = std::string(names.release);
  }
  std::string text;
  if (auto status = files.ReadInto("/proc/cpuinfo", text); !status) {
    facts.cpu_model = UnknownFrom<std::string>(status.error());
  } else if (auto model = ParseCpuModel(text)) {
    facts.cpu_model = *model;
  } else {
    facts.cpu_model =
        Measured<std::string>::Unknown(Missing::kNotSupported, model.error().ToString());
  }
  auto online = files.ReadTrimmed("/sys/devices/system/cpu/online");
  auto cpus = online ? ParseCpuList(*online) : tl::unexpected(online.error());
  if (cpus) {
    facts.cpu_count = static_cast<int>(cpus->size());
    facts.cpu_frequencies = ReadCpuFrequencies(files, *cpus);
    return facts;
  }
  // Without sysfs (old captures): /proc/stat lists exactly the online CPUs.
  auto stat = files.ReadInto("/proc/stat", text);
  auto parsed = stat ? ParseProcStat(text) : tl::unexpected(stat.error());
  if (parsed) {
    facts.cpu_count = static_cast<int>(parsed->cpus.size());
    std::vector<int> numbers;
    for (const auto& cpu : parsed->cpus) numbers.push_back(cpu.cpu);
    facts.cpu_frequencies = ReadCpuFrequencies(files, numbers);
  } else {
    facts.cpu_count = UnknownFrom<int>(cpus.error());
  }
  return facts;
}

Result<std::string> InterfaceForPeer(const std::string& peer) {
  struct addrinfo hints {};
  hints.ai_socktype = SOCK_DGRAM;
  hints.ai_flags = AI_NUMERICHOST;  // no name lookups from a probe: callers resolve first
  struct addrinfo* found = nullptr;
  if (int rc = ::getaddrinfo(peer.c_str(), "9", &hints, &found); rc != 0) {
    return Fail("cannot resolve '" + peer + "': " + ::gai_strerror(rc));
  }
  std::unique_ptr<struct addrinfo, decltype(&::freeaddrinfo)> owner(found, ::freeaddrinfo);
  if (IsLoopback(found->ai_addr)) return std::string("lo");
  auto local = LocalAddressFor(*found);
  if (!local) return tl::unexpected(local.error());
  // A peer that is one of our own addresses is reached over loopback, whatever device holds it.
  if (SameAddress(found->ai_addr, *local)) return std::string("lo");
  struct ifaddrs* list = nullptr;
  if (::getifaddrs(&list) < 0) return FailErrno("getifaddrs");
  std::string name;
  for (struct ifaddrs* it = list; it != nullptr; it = it->ifa_next) {
    if (SameAddress(it->ifa_addr, *local)) {
      name = it->ifa_name;
      break;
    }
  }
  ::freeifaddrs(list);
  if (name.empty()) return Fail("no interface holds the local address of the route to " + peer);
  return name;
}

}  // namespace nicbench::probes
