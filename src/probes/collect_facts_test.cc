#include "probes/collect_facts.h"

#include <gtest/gtest.h>

#include "probes/nic_internal.h"
#include "support/run_binary.h"

namespace nicbench::probes {
namespace {

TEST(EthtoolOffloadNamesTest, GroupsAsEthtoolShowsThem) {
  std::vector<internal::KernelFeature> features = {{"tx-scatter-gather", true, true},
                                                   {"tx-checksum-ipv4", false, false},
                                                   {"tx-checksum-ip-generic", true, true},
                                                   {"tx-tcp-segmentation", false, true},
                                                   {"tx-tcp6-segmentation", true, true},
                                                   {"rx-gro", true, true},
                                                   {"rx-lro", false, false},
                                                   {"highdma", true, false}};
  auto names = internal::EthtoolOffloadNames(features);
  auto find = [&](const std::string& name) -> const record::OffloadState* {
    for (const auto& o : names) {
      if (o.name == name) return &o;
    }
    return nullptr;
  };
  ASSERT_NE(find("tcp-segmentation-offload"), nullptr);
  EXPECT_TRUE(find("tcp-segmentation-offload")->on);  // any member active
  EXPECT_TRUE(find("tx-checksumming")->on);
  EXPECT_FALSE(find("tx-checksumming")->fixed);
  EXPECT_TRUE(find("generic-receive-offload")->on);
  EXPECT_FALSE(find("large-receive-offload")->on);
  EXPECT_TRUE(find("large-receive-offload")->fixed);
  EXPECT_EQ(find("rx-gro"), nullptr);  // sole member: shown only under the group name
  ASSERT_NE(find("tx-tcp6-segmentation"), nullptr);
  EXPECT_TRUE(find("highdma")->fixed);
  EXPECT_EQ(find("receive-hashing"), nullptr);  // no member: no line
}

TEST(LookupPciNamesTest, VendorAndDeviceLines) {
  const char* ids =
      "# comment\n"
      "1af4  Red Hat, Inc.\n"
      "\t1000  Virtio network device\n"
      "\t\t1af4 0001  Virtio network device\n"
      "\t1041  Virtio 1.0 network device\n"
      "8086  Intel Corporation\n"
      "\t10fb  82599ES 10-Gigabit SFI/SFP+ Network Connection\n";
  record::PciIdentity id;
  id.vendor_id = "8086";
  id.device_id = "10fb";
  id.vendor_name = "";
  id.device_name = "";
  internal::LookupPciNames(ids, id);
  EXPECT_EQ(id.vendor_name, "Intel Corporation");
  EXPECT_EQ(id.device_name, "82599ES 10-Gigabit SFI/SFP+ Network Connection");
  record::PciIdentity virtio;
  virtio.vendor_id = "1af4";
  virtio.device_id = "1041";
  virtio.vendor_name = "";
  virtio.device_name = "";
  internal::LookupPciNames(ids, virtio);
  EXPECT_EQ(virtio.device_name, "Virtio 1.0 network device");
  record::PciIdentity unknown;
  unknown.vendor_id = "1af4";
  unknown.device_id = "ffff";
  unknown.vendor_name = "";
  unknown.device_name = "";
  internal::LookupPciNames(ids, unknown);
  EXPECT_EQ(unknown.vendor_name, "Red Hat, Inc.");
  EXPECT_EQ(unknown.device_name, "");
}

TEST(CollectFactsTest, CapturedTree) {
  DirFileSource files(nicbench::testing::TestdataDir() + "/roots/vm-6.18");
  record::HostFacts host = CollectHostFacts(files);
  ASSERT_TRUE(host.cpu_model.known());
  EXPECT_EQ(host.cpu_model.value(), "AMD EPYC");
  EXPECT_EQ(host.cpu_count.value_or(0), 2);
  EXPECT_TRUE(host.kernel.known());
  EXPECT_EQ(host.kernel.value().rfind("6.18", 0), 0u);
  auto nic = CollectNicFacts("eth0", files);
  ASSERT_TRUE(nic) << nic.error().ToString();
  EXPECT_FALSE(nic->loopback);
  EXPECT_EQ(nic->mtu.value_or(0), 1400u);
  EXPECT_EQ(nic->driver.value_or(""), "virtio_net");
  ASSERT_TRUE(nic->counters.known());
  EXPECT_EQ(nic->counters.value().count("rx_bytes"), 1u);
  EXPECT_EQ(nic->irq_mode.value_or(""), "MSI-X");
  ASSERT_TRUE(nic->irq_vectors.known());
  EXPECT_EQ(nic->irq_vectors.value().size(), 3u);
  EXPECT_EQ(nic->irq_vectors.value()[1].name, "virtio2-input.0");
  ASSERT_TRUE(nic->pci.known());
  EXPECT_EQ(nic->pci.value().vendor_id, "1af4");
  EXPECT_EQ(nic->pci.value().device_id, "1041");
  EXPECT_FALSE(nic->offloads.known());
  EXPECT_EQ(nic->offloads.why(), record::Missing::kAbsent);
  EXPECT_FALSE(CollectNicFacts("nope0", files));
}

// cpufreq as prometheus/procfs's fixture holds it for cpu1 (tests/testdata/README.md): the
// powersave governor of intel_pstate at 1.2 GHz of 3.3. It has no scaling_cur_freq, so the
// reader falls back to cpuinfo_cur_freq; cpu0 has no cpufreq in the copy and is left out.
TEST(CpuFrequencies, PowersaveCaptureReadsGovernorDriverAndFrequencies) {
  DirFileSource files(nicbench::testing::TestdataDir() + "/roots/pfs-cpufreq-powersave");
  auto freq = ReadCpuFrequencies(files, {0, 1});
  ASSERT_TRUE(freq.known()) << freq.detail();
  ASSERT_EQ(freq.value().size(), 1u);
  const record::CpuFrequency& f = freq.value()[0];
  EXPECT_EQ(f.cpu, 1);
  EXPECT_EQ(f.governor, "powersave");
  EXPECT_EQ(f.driver, "intel_pstate");
  EXPECT_EQ(f.current_khz, 1200195u);
  EXPECT_EQ(f.min_khz, 1200000u);
  EXPECT_EQ(f.max_khz, 3300000u);
}

// The build VM, captured with `nicbench inspect --capture` (tests/testdata/README.md): its vCPUs
// have no cpufreq, so the frequency is unknown, not a number; its virtio-net function reports
// numa_node -1 (no node) and local CPUs 0-1, and each vector its effective CPU.
TEST(CollectFactsTest, VmPlacementAndNoCpufreq) {
  DirFileSource files(nicbench::testing::TestdataDir() + "/roots/vm-6.18-place");
  record::HostFacts host = CollectHostFacts(files);
  ASSERT_FALSE(host.cpu_frequencies.known());
  EXPECT_EQ(host.cpu_frequencies.why(), record::Missing::kNotSupported);
  auto nic = CollectNicFacts("eth0", files);
  ASSERT_TRUE(nic) << nic.error().ToString();
  EXPECT_FALSE(nic->numa_node.known());
  EXPECT_EQ(nic->numa_node.why(), record::Missing::kNotSupported);
  EXPECT_NE(nic->numa_node.detail().find("-1"), std::string::npos);
  EXPECT_EQ(nic->local_cpus.value_or(""), "0-1");
  ASSERT_TRUE(nic->irq_vectors.known());
  ASSERT_EQ(nic->irq_vectors.value().size(), 3u);
  for (const record::IrqVector& v : nic->irq_vectors.value()) {
    EXPECT_EQ(v.affinity, "0-1") << v.irq;
    EXPECT_TRUE(v.effective_affinity == "0" || v.effective_affinity == "1") << v.irq;
  }
}

TEST(MissingFromErrnoTest, Mapping) {
  EXPECT_EQ(MissingFromErrno(EOPNOTSUPP), record::Missing::kNotSupported);
  EXPECT_EQ(MissingFromErrno(EPERM), record::Missing::kPermissionDenied);
  EXPECT_EQ(MissingFromErrno(EACCES), record::Missing::kPermissionDenied);
  EXPECT_EQ(MissingFromErrno(ENOENT), record::Missing::kNotSupported);
  EXPECT_EQ(MissingFromErrno(EIO), record::Missing::kError);
}

}  // namespace
}  // namespace nicbench::probes
