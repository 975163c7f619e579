#include "probes/namespace_bytes.h"

#include <cerrno>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "probes/host_snapshot.h"
#include "probes/test_fixture.h"

namespace nicbench::probes {
namespace {

// A /proc of processes in namespaces: links and files by path, and the errno a path answers
// with instead (a process gone, a link denied to a user who is not root).
class FakeProcFiles final : public FileSource {
 public:
  void AddProcess(int pid, uint64_t inode, uint64_t in_octets, uint64_t out_octets) {
    const std::string dir = "/proc/" + std::to_string(pid);
    names_.push_back(std::to_string(pid));
    links_[dir + "/ns/net"] = "net:[" + std::to_string(inode) + "]";
    files_[dir + "/net/netstat"] =
        "TcpExt: SyncookiesSent ListenDrops\nTcpExt: 0 3\n"
        "IpExt: InNoRoutes InOctets OutOctets InNoECTPkts\nIpExt: 0 " +
        std::to_string(in_octets) + " " + std::to_string(out_octets) + " 9\n";
  }
  void FailWith(const std::string& path, int sys_errno) { errors_[path] = sys_errno; }
  // /proc/self/status's NSpid line: one PID per PID namespace the process is in.
  void SetNsPid(const std::string& pids) {
    files_["/proc/self/status"] = "Name:\tnicbench\nNSpid:\t" + pids + "\nNSpgid:\t1\n";
  }

  Status ReadInto(std::string_view path, std::string& out) override {
    if (auto e = errors_.find(std::string(path)); e != errors_.end()) {
      return Fail("read " + std::string(path), e->second);
    }
    auto it = files_.find(std::string(path));
    if (it == files_.end()) return Fail("read " + std::string(path), ENOENT);
    out = it->second;
    return Ok();
  }
  Result<std::vector<std::string>> ListDir(std::string_view path) override {
    if (path != "/proc") return Fail("opendir", ENOENT);
    return names_;
  }
  Result<std::string> ReadLink(std::string_view path) override {
    if (auto e = errors_.find(std::string(path)); e != errors_.end()) {
      return Fail("readlink " + std::string(path), e->second);
    }
    auto it = links_.find(std::string(path));
    if (it == links_.end()) return Fail("readlink " + std::string(path), ENOENT);
    return it->second;
  }
  bool IsLive() const override { return false; }

 private:
  std::vector<std::string> names_{"self", "net", "sys"};  // not processes
  std::map<std::string, std::string> links_;
  std::map<std::string, std::string> files_{{"/proc/self/status", "NSpid:\t4242\n"}};
  std::map<std::string, int> errors_;
};

TEST(NamespaceBytes, ParsesTheNamespaceLink) {
  EXPECT_EQ(ParseNetnsLink("net:[4026531840]").value(), 4026531840u);
  EXPECT_FALSE(ParseNetnsLink("mnt:[4026531840]"));
  EXPECT_FALSE(ParseNetnsLink("net:[]"));
  EXPECT_FALSE(ParseNetnsLink("net:[12x]"));
  EXPECT_FALSE(ParseNetnsLink("net:[12"));
}

TEST(NamespaceBytes, SumsInAndOutOctetsOfACapturedNetstat) {
  const std::string text = testing::ReadFixture("roots/vm-6.18/proc/net/netstat");
  auto octets = ParseIpExtOctets(text);
  ASSERT_TRUE(octets) << octets.error().ToString();
  // The same two counters through the general parser.
  auto all = ParseSnmp(text);
  ASSERT_TRUE(all);
  EXPECT_EQ(static_cast<int64_t>(*octets), all->at("IpExt.InOctets") + all->at("IpExt.OutOctets"));
  EXPECT_GT(*octets, 0u);
}

TEST(NamespaceBytes, NetstatWithoutIpExtIsAnError) {
  EXPECT_FALSE(ParseIpExtOctets("TcpExt: A B\nTcpExt: 1 2\n"));
  EXPECT_FALSE(ParseIpExtOctets("IpExt: InOctets InNoRoutes\nIpExt: 1 2\n"));
  EXPECT_FALSE(ParseIpExtOctets(""));
}

TEST(NamespaceBytes, ReadsEachNamespaceOnceThroughAProcessThatAnswers) {
  FakeProcFiles files;
  files.AddProcess(1, 100, 10, 20);     // the root namespace
  files.AddProcess(40, 200, 1000, 0);   // a stand host: its first process exits ...
  files.AddProcess(41, 200, 1000, 50);  // ... and the second answers
  files.AddProcess(42, 100, 7, 7);      // the root namespace again: not read twice
  files.AddProcess(43, 300, 0, 0);      // gone before its link was read
  files.FailWith("/proc/40/net/netstat", ENOENT);
  files.FailWith("/proc/43/ns/net", ENOENT);
  std::string buffer;
  auto read = ReadNamespaceOctets(files, buffer);
  ASSERT_TRUE(read) << read.error().ToString();
  EXPECT_EQ(*read, (NamespaceOctets{{100, 30}, {200, 1050}}));
}

TEST(NamespaceBytes, ANamespaceNotReadableIsPermissionDeniedNotZero) {
  FakeProcFiles files;
  files.AddProcess(1, 100, 10, 20);
  files.AddProcess(7, 200, 5, 5);
  files.FailWith("/proc/1/ns/net", EACCES);
  std::string buffer;
  auto read = ReadNamespaceOctets(files, buffer);
  ASSERT_FALSE(read);
  EXPECT_EQ(MissingFromErrno(read.error().sys_errno), record::Missing::kPermissionDenied);
  EXPECT_NE(read.error().ToString().find("network namespace is needed"), std::string::npos)
      << read.error().ToString();
}

// hidepid hides other users' processes, process 1 among them: their namespaces would be
// left out, so the whole read is refused.
TEST(NamespaceBytes, HiddenProcessesArePermissionDenied) {
  FakeProcFiles files;
  files.AddProcess(4242, 100, 10, 20);
  std::string buffer;
  auto read = ReadNamespaceOctets(files, buffer);
  ASSERT_FALSE(read);
  EXPECT_EQ(MissingFromErrno(read.error().sys_errno), record::Missing::kPermissionDenied);
  EXPECT_NE(read.error().ToString().find("hidepid"), std::string::npos);
}

// In a container's PID namespace /proc lists the container's processes only (its own process
// 1 among them), so the host's other namespaces are out of sight.
TEST(NamespaceBytes, APidNamespaceOfItsOwnIsNotSupported) {
  FakeProcFiles files;
  files.AddProcess(1, 100, 10, 20);
  files.AddProcess(7, 100, 10, 20);
  files.SetNsPid("81234\t7");
  std::string buffer;
  auto read = ReadNamespaceOctets(files, buffer);
  ASSERT_FALSE(read);
  EXPECT_EQ(MissingFromErrno(read.error().sys_errno), record::Missing::kNotSupported);
  EXPECT_NE(read.error().ToString().find("container"), std::string::npos);
  files.SetNsPid("7");
  EXPECT_TRUE(ReadNamespaceOctets(files, buffer));
}

TEST(NamespaceBytes, NoProcessesIsNotSupported) {
  FakeProcFiles files;
  std::string buffer;
  auto read = ReadNamespaceOctets(files, buffer);
  ASSERT_FALSE(read);
  EXPECT_EQ(MissingFromErrno(read.error().sys_errno), record::Missing::kNotSupported);
}

TEST(NamespaceBytes, ADifferenceCountsTheNamespacesOfBothReadings) {
  const NamespaceOctets before{{100, 1000}, {200, 5000}, {400, 90}};
  // 100 moved 500; 200 went backwards (0); 300 is new (its history is not this interval's);
  // 400 is gone.
  const NamespaceOctets after{{100, 1500}, {200, 10}, {300, 1 << 30}};
  EXPECT_EQ(DiffNamespaceOctets(before, after), 500u);
}

TEST(NamespaceBytes, AnIntervalCarriesTheHostsBytesOrWhyNot) {
  HostSnapshot a, b;
  record::HostInterval none = DiffSnapshots(a, b, 0, 1, nullptr);
  ASSERT_FALSE(none.host_ip_bytes.known());
  EXPECT_EQ(none.host_ip_bytes.why(), record::Missing::kAbsent);

  a.namespaces = NamespaceOctets{{100, 1000}};
  b.namespaces = NamespaceOctets{{100, 4000}};
  record::HostInterval known = DiffSnapshots(a, b, 0, 1, nullptr);
  ASSERT_TRUE(known.host_ip_bytes.known());
  EXPECT_EQ(known.host_ip_bytes.value(), 3000u);

  b.namespaces = Result<NamespaceOctets>(Fail("readlink /proc/1/ns/net", EACCES));
  record::HostInterval denied = DiffSnapshots(a, b, 0, 1, nullptr);
  ASSERT_FALSE(denied.host_ip_bytes.known());
  EXPECT_EQ(denied.host_ip_bytes.why(), record::Missing::kPermissionDenied);
}

}  // namespace
}  // namespace nicbench::probes
