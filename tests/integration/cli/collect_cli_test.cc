// `nicbench collect`: the capture script as the binary writes it, run for real with the
// system's sh on this Linux host (tar on stdout and -o DIR), read back by `inspect --root`, and
// given to `run --remote-facts` against a stock `iperf3 -s` on loopback, whose end then carries
// the capture's facts. The script's FreeBSD branch runs too, against stand-ins for FreeBSD's base
// tools that print the seed posts' own output. Bad captures: clear errors, exit 2 or 3.
#include <stdlib.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_binary.h"
#include "support/text.h"

namespace nicbench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string NewCollectDir() {
  char name[] = "/tmp/nicbench-collect-test-XXXXXX";
  EXPECT_NE(mkdtemp(name), nullptr);
  return name;
}

// The default route's interface, as the script would pick it; "lo" on a host without one.
std::string TestInterface() {
  std::ifstream in("/proc/net/route");
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string iface, destination;
    fields >> iface >> destination;
    if (destination == "00000000") return iface;
  }
  return "lo";
}

// sh, or dash where installed (Debian's sh is dash; the script is POSIX and must run on both).
std::string Shell() { return access("/usr/bin/dash", X_OK) == 0 ? "/usr/bin/dash" : "/bin/sh"; }

struct Fixture {
  std::string script, dir;
  ~Fixture() {
    std::error_code ec;
    if (!dir.empty()) fs::remove_all(dir, ec);
  }
};

// The script written out by the binary, in a fresh directory.
void WriteScript(Fixture& f) {
  f.dir = NewCollectDir();
  const testing::ProcessResult r = testing::RunNicbench({"collect", "--script"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  f.script = f.dir + "/collect.sh";
  std::ofstream(f.script) << r.out;
}

TEST(CollectCli, ScriptIsTheEmbeddedFile) {
  const testing::ProcessResult r = testing::RunNicbench({"collect", "--script"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, testing::FileText(nicbench::testing::SourceDir() + "/src/cli/collect.sh"));
  EXPECT_EQ(r.out.rfind("#!/bin/sh\n", 0), 0u);
}

TEST(CollectCli, ScriptCaptureOfThisHostReadsBack) {
  Fixture f;
  WriteScript(f);
  const std::string iface = TestInterface();
  const std::string out = f.dir + "/capture";
  const testing::ProcessResult r =
      testing::RunProcess({Shell(), f.script, "-s", "1", "-i", iface, "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(
      testing::FileText(out + "/nicbench-capture").find("os Linux\ninterface " + iface + "\n"),
      std::string::npos);
  const testing::ProcessResult back = testing::RunNicbench({"inspect", "--root", out, "--json"});
  ASSERT_EQ(back.exit_code, 0) << back.err;
  const json doc = json::parse(back.out);
  EXPECT_EQ(doc["nic"]["interface"], iface);
  EXPECT_TRUE(doc["host"]["cpu_count"].is_number()) << doc["host"].dump();
  const testing::ProcessResult text = testing::RunNicbench({"inspect", "--root", out});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("captured"), std::string::npos) << text.out;  // its sample's line
}

TEST(CollectCli, ScriptWritesATarWithoutDashO) {
  Fixture f;
  WriteScript(f);
  const std::string tar = f.dir + "/capture.tar";
  const testing::ProcessResult r =
      testing::RunProcess({"/bin/sh", "-c", Shell() + " " + f.script + " -s 1 -i lo > " + tar});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string out = f.dir + "/unpacked";
  fs::create_directories(out);
  ASSERT_EQ(testing::RunProcess({"tar", "-xf", tar, "-C", out}).exit_code, 0);
  const testing::ProcessResult back = testing::RunNicbench({"inspect", "--root", out, "--json"});
  ASSERT_EQ(back.exit_code, 0) << back.err;
  EXPECT_EQ(json::parse(back.out)["nic"]["interface"], "lo");
}

TEST(CollectCli, ScriptRefusesBadArguments) {
  Fixture f;
  WriteScript(f);
  const testing::ProcessResult seconds = testing::RunProcess({Shell(), f.script, "-s", "x"});
  EXPECT_EQ(seconds.exit_code, 2);
  EXPECT_NE(seconds.err.find("whole seconds"), std::string::npos) << seconds.err;
  EXPECT_EQ(testing::RunProcess({Shell(), f.script, "extra"}).exit_code, 2);
}

// nicbench's own capture of this host has the script's shape: the same facts read back.
TEST(CollectCli, NicbenchCollectMakesTheSameCapture) {
  Fixture f;
  WriteScript(f);
  const std::string iface = TestInterface();
  const std::string by_script = f.dir + "/script", by_nicbench = f.dir + "/nicbench";
  ASSERT_EQ(
      testing::RunProcess({Shell(), f.script, "-s", "1", "-i", iface, "-o", by_script}).exit_code,
      0);
  const testing::ProcessResult r =
      testing::RunNicbench({"collect", "-o", by_nicbench, "-i", iface, "-s", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json a = json::parse(testing::RunNicbench({"inspect", "--root", by_script, "--json"}).out);
  const json b =
      json::parse(testing::RunNicbench({"inspect", "--root", by_nicbench, "--json"}).out);
  for (const char* key : {"interface", "driver", "mtu", "pci", "irq_mode", "loopback"}) {
    EXPECT_EQ(a["nic"][key], b["nic"][key]) << key;
  }
  EXPECT_EQ(a["host"], b["host"]);
}

std::string Iperf3Path() {
  const char* other = std::getenv("NICBENCH_IPERF3");
  return other != nullptr && *other != '\0' ? other : "/usr/bin/iperf3";
}

// A stock iperf3 end sends no facts; the capture's stand in for them in the record.
TEST(CollectCli, RemoteFactsJoinARunAgainstStockIperf3) {
  if (access(Iperf3Path().c_str(), X_OK) != 0) GTEST_SKIP() << Iperf3Path() << " is not installed";
  Fixture f;
  WriteScript(f);
  const std::string capture = f.dir + "/far";
  ASSERT_EQ(
      testing::RunProcess({Shell(), f.script, "-s", "1", "-i", "lo", "-o", capture}).exit_code, 0);
  const int port = testing::FreeTcpPort();
  testing::BackgroundProcess server(
      {Iperf3Path(), "-s", "-1", "-B", "127.0.0.1", "-p", std::to_string(port), "--forceflush"});
  ASSERT_TRUE(server.WaitForOutput("Server listening")) << server.StderrSoFar();
  const testing::ProcessResult r = testing::RunNicbench(
      {"run", "127.0.0.1", "-p", std::to_string(port), "-t", "1", "-J", "--remote-facts", capture});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const json doc = json::parse(r.out);
  const json& remote = doc["remote"];
  ASSERT_TRUE(remote.is_object()) << doc.value("unknown", json()).dump();
  EXPECT_NE(remote["software"].get<std::string>().find("nicbench collect"), std::string::npos);
  EXPECT_EQ(remote["nic"]["interface"], "lo");
  ASSERT_EQ(remote["samples"].size(), 1u);
  EXPECT_TRUE(remote["samples"][0]["cpus"].is_array()) << remote["samples"][0].dump();
}

// A stand-in for one FreeBSD tool: an sh script in `bin` named `name` with `body`.
void FakeTool(const std::string& bin, const std::string& name, const std::string& body) {
  const std::string path = bin + "/" + name;
  std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
  fs::permissions(path, fs::perms::owner_all);
}

// The script's FreeBSD branch, run here with FreeBSD's base tools played by scripts in PATH
// that print seed 2's own output (its `pciconf -lv` line for em0, `vmstat -i` and `top -SHPb`
// of the stormed server; tests/testdata/freebsd), the second `vmstat -i` its rates carried on
// for two seconds, the `ifconfig` line for em0 constructed (the post shows none). The capture
// reads back through `inspect --root` with the NIC, the interrupt lines and the CPU sample.
TEST(CollectCli, ScriptFreebsdBranchCapturesWhatTheParsersRead) {
  Fixture f;
  WriteScript(f);
  const std::string bin = f.dir + "/bin", fixtures = testing::TestdataDir() + "/freebsd/";
  fs::create_directories(bin);
  FakeTool(bin, "uname",
           "case \"$1\" in -s) echo FreeBSD ;; *) echo 'FreeBSD nas 9.3-RELEASE amd64' ;; esac");
  FakeTool(
      bin, "sysctl",
      "case \"$*\" in\n"
      "  hw) printf 'hw.ncpu: 2\\nhw.model: Intel(R) Pentium(R) CPU G2020\\n' ;;\n"
      "  kern.hostname*) printf 'kern.hostname: nas\\nkern.osrelease: 9.3-RELEASE\\n' ;;\n"
      "  '-n dev.em.0.%parent') echo pci1 ;;\n"
      "  dev.em) printf 'dev.em.0.%%parent: pci1\\ndev.em.0.mac_stats.missed_packets: 10\\n' ;;\n"
      "  *) exit 1 ;;\nesac");
  FakeTool(bin, "ifconfig",
           "printf 'em0: flags=8843<UP,BROADCAST,RUNNING,SIMPLEX,MULTICAST> metric 0 mtu 1500\\n"
           "\\toptions=4019b<RXCSUM,TXCSUM,VLAN_MTU,VLAN_HWTAGGING,VLAN_HWCSUM,TSO4>\\n"
           "\\tmedia: Ethernet autoselect (1000baseT <full-duplex>)\\n\\tstatus: active\\n'");
  FakeTool(bin, "pciconf",
           "[ \"$1\" = -lv ] && cat " + fixtures +
               "pciconf-lv-em0-nas4free.txt\n"
               "[ \"$1\" = -lc ] && cat " +
               fixtures + "pciconf-lvc-em0-nas4free.txt\nexit 0");
  const std::string vmstat = fixtures + "vmstat-i-em0-nas4free-stormed.txt";
  FakeTool(bin, "vmstat",
           "if [ -f " + f.dir +
               "/vmstat-ran ]; then\n"
               "  awk 'NR > 1 && $1 ~ /^irq/ { $(NF - 1) += 2 * $NF } { print }' " +
               vmstat +
               "\n"
               "else touch " +
               f.dir + "/vmstat-ran; cat " + vmstat + "; fi");
  FakeTool(bin, "top", "cat " + fixtures + "top-SHPb-em0-nas4free-stormed.txt");
  for (const char* quiet : {"netstat", "route"}) FakeTool(bin, quiet, "exit 0");
  const std::string out = f.dir + "/capture";
  const testing::ProcessResult r =
      testing::RunProcess({"/usr/bin/env", "PATH=" + bin + ":" + std::getenv("PATH"), Shell(),
                           f.script, "-i", "em0", "-s", "1", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(testing::FileText(out + "/nicbench-capture").find("os FreeBSD\ninterface em0\n"),
            std::string::npos);
  const testing::ProcessResult text = testing::RunNicbench({"inspect", "--root", out});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  for (const char* line :
       {"hostname:      nas", "driver:                   em", "speed:                    1000",
        "pci:                      8086:10d3 Intel Corporation / 82574L", "irq 257 em0:rx0",
        "captured  cpu0 100% hi", "irq mode:                 MSI"}) {
    EXPECT_NE(text.out.find(line), std::string::npos) << line << "\n" << text.out;
  }
  const json back = json::parse(testing::RunNicbench({"inspect", "--root", out, "--json"}).out);
  EXPECT_EQ(back["nic"]["driver_stats"]["mac_stats.missed_packets"], 10) << back.dump(2);
}

TEST(CollectCli, BadCapturesAndArguments) {
  Fixture f;
  f.dir = NewCollectDir();
  const testing::ProcessResult missing = testing::RunNicbench(
      {"run", "127.0.0.1", "-p", "9", "--remote-facts", f.dir + "/nonexistent"});
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
  EXPECT_NE(missing.err.find("nonexistent"), std::string::npos) << missing.err;
  fs::create_directories(f.dir + "/plain/proc");
  const testing::ProcessResult plain =
      testing::RunNicbench({"run", "127.0.0.1", "-p", "9", "--remote-facts", f.dir + "/plain"});
  EXPECT_EQ(plain.exit_code, 3) << plain.err;
  EXPECT_NE(plain.err.find("not a capture"), std::string::npos) << plain.err;
  fs::create_directories(f.dir + "/darwin");
  std::ofstream(f.dir + "/darwin/nicbench-capture")
      << "nicbench-capture 1\nos Darwin\ninterface en0\n";
  const testing::ProcessResult darwin =
      testing::RunNicbench({"inspect", "--root", f.dir + "/darwin"});
  EXPECT_EQ(darwin.exit_code, 3) << darwin.err;
  EXPECT_NE(darwin.err.find("neither Linux nor FreeBSD"), std::string::npos) << darwin.err;
  const testing::ProcessResult loopback =
      testing::RunNicbench({"run", "--remote-facts", f.dir + "/darwin"});
  EXPECT_EQ(loopback.exit_code, 2) << loopback.err;
  EXPECT_EQ(testing::RunNicbench({"collect"}).exit_code, 2);
  const testing::ProcessResult no_iface =
      testing::RunNicbench({"collect", "-o", f.dir + "/x", "-i", "nosuchif0", "-s", "1"});
  EXPECT_EQ(no_iface.exit_code, 3) << no_iface.err;
  EXPECT_NE(no_iface.err.find("nosuchif0"), std::string::npos) << no_iface.err;
}

}  // namespace
}  // namespace nicbench
