// The IPv4 bytes of every network namespace of the host (namespace_bytes.h).
#include "probes/namespace_bytes.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <optional>
#include <vector>

#include "probes/text_scan.h"

namespace nicbench::probes {
namespace {

bool IsPid(const std::string& name) { return !name.empty() && scan::ToU64(name).has_value(); }

// A process that exited between the listing and its read: its files are gone, not denied.
bool Gone(const Error& error) { return error.sys_errno == ENOENT || error.sys_errno == ESRCH; }

// The values of the counters `a` and `b` in one "Group: names" / "Group: values" pair.
std::optional<uint64_t> SumOf(std::string_view names, std::string_view values, std::string_view a,
                              std::string_view b) {
  std::optional<uint64_t> first, second;
  for (std::string_view name = scan::NextToken(names); !name.empty();
       name = scan::NextToken(names)) {
    const std::optional<uint64_t> value = scan::ToU64(scan::NextToken(values));
    if (name == a) first = value;
    if (name == b) second = value;
  }
  if (!first || !second) return std::nullopt;
  return *first + *second;
}

// The processes of the whole host must be listed, else a namespace left out reads as no other
// traffic: /proc mounted with hidepid hides other users' processes (process 1 among them), and
// a process in a PID namespace of its own (a container) sees only that namespace's processes
// (its /proc/self/status NSpid line has one number per PID namespace it is in, since 4.1).
Status CheckTheHostsProcessesAreListed(FileSource& files, std::string& buffer,
                                       const std::vector<std::string>& names) {
  if (std::find(names.begin(), names.end(), "1") == names.end()) {
    return Fail("/proc lists no process 1: the host's processes are hidden (hidepid)", EACCES);
  }
  if (!files.ReadInto("/proc/self/status", buffer)) return Ok();  // cannot tell
  std::string_view text = buffer;
  while (!text.empty()) {
    std::string_view line = scan::NextLine(text);
    if (scan::NextToken(line) != "NSpid:") continue;
    scan::NextToken(line);
    if (scan::NextToken(line).empty()) return Ok();
    return Fail(
        "this process is in a PID namespace of its own (a container): the host's other "
        "processes and their network namespaces are not visible",
        EOPNOTSUPP);
  }
  return Ok();
}

// A namespace's identity through a process in it. Each namespace registers its own netstat
// entry (proc_create_net_single in net/ipv4/proc.c), whose inode number (the entry's low_ino,
// fs/proc/inode.c proc_get_inode) every process of that namespace shows and no other does;
// unlike the ns link, stat needs no ptrace access to the process, which a root process inside
// a namespace was refused for process 1 on the build machine's kernel.
Result<uint64_t> NetstatInode(const std::string& root, const std::string& pid) {
  const std::string path = (root == "/" ? std::string() : root) + "/proc/" + pid + "/net/netstat";
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return FailErrno("stat " + path);
  return static_cast<uint64_t>(st.st_ino);
}

// The same through the ns link, "net:[INODE]", for a source that is not a directory tree.
Result<uint64_t> LinkInode(FileSource& files, const std::string& pid) {
  auto link = files.ReadLink("/proc/" + pid + "/ns/net");
  if (!link) return tl::unexpected(link.error());
  return ParseNetnsLink(*link);
}

}  // namespace

Result<uint64_t> ParseNetnsLink(std::string_view link) {
  constexpr std::string_view kPrefix = "net:[";
  if (!scan::StartsWith(link, kPrefix) || link.size() < kPrefix.size() + 2 || link.back() != ']') {
    return Fail("not a network namespace link: '" + std::string(link) + "'");
  }
  const auto inode = scan::ToU64(link.substr(kPrefix.size(), link.size() - kPrefix.size() - 1));
  if (!inode) return Fail("bad namespace inode in '" + std::string(link) + "'");
  return *inode;
}

Result<uint64_t> ParseIpExtOctets(std::string_view netstat) {
  while (!netstat.empty()) {
    std::string_view names = scan::NextLine(netstat);
    std::string_view values = scan::NextLine(netstat);
    if (scan::NextToken(names) != "IpExt:" || scan::NextToken(values) != "IpExt:") continue;
    if (auto sum = SumOf(names, values, "InOctets", "OutOctets")) return *sum;
    return Fail("/proc/net/netstat: IpExt without InOctets and OutOctets");
  }
  return Fail("/proc/net/netstat: no IpExt lines");
}

Result<NamespaceOctets> ReadNamespaceOctets(FileSource& files, std::string& buffer) {
  auto names = files.ListDir("/proc");
  if (!names) return tl::unexpected(names.error());
  if (std::none_of(names->begin(), names->end(), IsPid)) {
    return Fail("no process under /proc", ENOENT);
  }
  if (auto listed = CheckTheHostsProcessesAreListed(files, buffer, *names); !listed) {
    return tl::unexpected(listed.error());
  }
  const std::optional<std::string> root = files.DirectoryRoot();
  NamespaceOctets out;
  for (const std::string& pid : *names) {
    if (!IsPid(pid)) continue;
    auto inode = root ? NetstatInode(*root, pid) : LinkInode(files, pid);
    if (!inode) {
      if (Gone(inode.error())) continue;
      return Fail("every process's network namespace is needed for the host's IP bytes: " +
                      inode.error().ToString(),
                  inode.error().sys_errno);
    }
    if (out.count(*inode) != 0) continue;
    if (auto read = files.ReadInto("/proc/" + pid + "/net/netstat", buffer); !read) {
      if (Gone(read.error())) continue;  // another process of the namespace answers
      return tl::unexpected(read.error());
    }
    auto octets = ParseIpExtOctets(buffer);
    if (!octets) return tl::unexpected(octets.error());
    out.emplace(*inode, *octets);
  }
  if (out.empty()) return Fail("no process's network namespace under /proc", ENOENT);
  return out;
}

uint64_t DiffNamespaceOctets(const NamespaceOctets& before, const NamespaceOctets& after) {
  uint64_t sum = 0;
  for (const auto& [inode, now] : after) {
    const auto was = before.find(inode);
    if (was != before.end() && now > was->second) sum += now - was->second;
  }
  return sum;
}

}  // namespace nicbench::probes
