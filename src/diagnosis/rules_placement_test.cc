// The placement rules on recorded inputs from real machines (each file is labelled in
// tests/testdata/README.md): a two-socket host's CPU-to-node layout, and a laptop whose
// single-vector NIC takes every interrupt on one core. Each cause has a twin on the same machine
// without it, which must raise nothing of the kind.
#include <algorithm>
#include <sstream>

#include <gtest/gtest.h>

#include "diagnosis/diagnose.h"
#include "diagnosis/test_records.h"
#include "probes/collect_facts.h"
#include "probes/proc_parsers.h"
#include "probes/test_fixture.h"
#include "support/run_binary.h"

namespace nicbench::diagnosis {
namespace {

using namespace testing;  // NOLINT: the test record helpers
using record::RunRecord;
using record::Severity;

// Every sample of `end` with `cpus` quiet CPUs, the NIC's one line spread as `irq_per_cpu`,
// NET_RX softirqs as `softirq_per_cpu`, and nicbench's threads last seen on `ran_on`.
void Reshape(record::EndpointRecord& end, int cpus, const std::vector<uint64_t>& irq_per_cpu,
             const std::vector<uint64_t>& softirq_per_cpu, const std::vector<int>& ran_on) {
  EachSample(end, [&](record::HostInterval& s) {
    std::vector<record::CpuShare> shares;
    for (int c = 0; c < cpus; ++c) shares.push_back(QuietCpu(c));
    s.cpus = shares;
    record::IrqRate& line = s.irqs.value()[0];
    line.per_cpu = irq_per_cpu;
    line.total = 0;
    for (uint64_t n : irq_per_cpu) line.total += n;
    line.per_second = static_cast<double>(line.total);
    s.net_rx_softirqs = softirq_per_cpu;
    s.process.value().ran_on_cpus = ran_on;
  });
}

// The CPUs of `node` in a `lscpu -p=cpu,node`-style layout ("CPU NODE" per line).
std::string NodeCpus(const std::string& layout, int node) {
  std::istringstream in(layout);
  std::vector<int> cpus;
  int cpu = 0, n = 0;
  while (in >> cpu >> n) {
    if (n == node) cpus.push_back(cpu);
  }
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    out += (out.empty() ? "" : ",") + std::to_string(cpus[i]) +
           (j > i ? "-" + std::to_string(cpus[j]) : "");
    i = j + 1;
  }
  return out;
}

// The 2x E5-2640 server of netutils-linux: 32 CPUs, node 0 = 0-7,16-23, node 1 = 8-15,24-31.
// Its NIC is placed on node 1 (the capture names the layout, not the NIC's node); the interrupt
// line and the softirqs are on cpu2, nicbench on cpu2 and cpu3: all on node 0.
RunRecord TwoNodeRun(const std::vector<int>& work_cpus) {
  const std::string layout =
      probes::testing::ReadFixture("proc/lscpu-node-layout-2xE5-2640-32cpu.txt");
  RunRecord run = MakeRun(700e6);
  record::EndpointRecord& end = Remote(run);  // the receiver
  end.host.cpu_count = 32;
  end.nic.numa_node = 1;
  end.nic.local_cpus = NodeCpus(layout, 1);
  end.nic.irq_vectors = std::vector<record::IrqVector>{
      {"45", "eth0-TxRx-0", NodeCpus(layout, 0), std::to_string(work_cpus[0])}};
  std::vector<uint64_t> irqs(32, 0), softirqs(32, 0);
  irqs[work_cpus[0]] = 8000;
  softirqs[work_cpus[0]] = 9000;
  softirqs[work_cpus[1]] = 1000;
  Reshape(end, 32, irqs, softirqs, work_cpus);
  return run;
}

TEST(NumaPlacement, FlowsProcessedOnTheFarNode) {
  const RunRecord run = TwoNodeRun({2, 3});
  EXPECT_EQ(NodeCpus(probes::testing::ReadFixture("proc/lscpu-node-layout-2xE5-2640-32cpu.txt"), 1),
            "8-15,24-31");
  const auto findings = Diagnose(run);
  const record::Finding* f = Find(findings, "nic-far-numa-node");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kNotice);
  EXPECT_NE(f->title.find("remote server"), std::string::npos) << f->title;
  ASSERT_GE(f->evidence.size(), 3u);
  EXPECT_NE(f->evidence[0].find("NUMA node 1, local CPUs 8-15,24-31"), std::string::npos);
  EXPECT_NE(f->evidence[1].find("100% of"), std::string::npos) << f->evidence[1];
  EXPECT_NE(f->evidence[2].find("100%"), std::string::npos) << f->evidence[2];
  EXPECT_NE(f->next_step.find("taskset -c 8-15,24-31 nicbench"), std::string::npos);
  EXPECT_NE(f->next_step.find("echo 8-15,24-31 > /proc/irq/45/smp_affinity_list"),
            std::string::npos)
      << f->next_step;
}

TEST(NumaPlacement, SilentWhenTheWorkRunsOnTheNicsNode) {
  EXPECT_EQ(Find(Diagnose(TwoNodeRun({9, 10})), "nic-far-numa-node"), nullptr);
}

TEST(NumaPlacement, SilentWhenTheNodeIsUnknown) {
  RunRecord run = TwoNodeRun({2, 3});
  Remote(run).nic.numa_node =
      record::Measured<int>::Unknown(record::Missing::kNotSupported, "numa_node -1");
  EXPECT_EQ(Find(Diagnose(run), "nic-far-numa-node"), nullptr);
}

// The sysstat test tree's laptop (8 CPUs): enp6s0 has one MSI vector, irq 33, and every one of
// its 53913 interrupts landed on CPU3.
std::vector<uint64_t> LaptopNicLine() {
  auto parsed = probes::ParseInterrupts(
      probes::testing::ReadFixture("proc/interrupts-sysstat-laptop-8cpu.txt"));
  EXPECT_TRUE(parsed.has_value());
  for (const probes::InterruptLine& line : parsed->lines) {
    if (line.name == "enp6s0") return line.per_cpu;
  }
  ADD_FAILURE() << "no enp6s0 line";
  return {};
}

RunRecord SharedCoreRun(int nicbench_cpu) {
  RunRecord run = MakeRun(700e6);
  record::EndpointRecord& end = Remote(run);
  end.host.cpu_count = 8;
  end.nic.interface = "enp6s0";
  end.nic.irq_vectors = std::vector<record::IrqVector>{{"33", "enp6s0", "0-7", "3"}};
  const std::vector<uint64_t> irqs = LaptopNicLine();
  Reshape(end, 8, irqs, irqs, {nicbench_cpu});
  SetCpu(end, 3, 30, 25, 5, 37);  // 97% busy: copies, socket calls and the packet work
  return run;
}

TEST(IrqCoreShared, AppSharesTheOnlyInterruptCore) {
  const std::vector<uint64_t> irqs = LaptopNicLine();
  ASSERT_EQ(irqs.size(), 8u);
  EXPECT_EQ(irqs[3], 53913u);
  const auto findings = Diagnose(SharedCoreRun(3));
  const record::Finding* f = Find(findings, "irq-core-shared-with-app");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_NE(f->title.find("cpu3"), std::string::npos) << f->title;
  EXPECT_NE(f->evidence[0].find("100% of the"), std::string::npos) << f->evidence[0];
  EXPECT_NE(f->evidence[1].find("ran on cpu3 in 10 of 10 samples"), std::string::npos);
  EXPECT_NE(f->next_step.find("taskset -c 0-2,4-7 nicbench"), std::string::npos) << f->next_step;
  EXPECT_NE(f->next_step.find("echo 0-2,4-7 > /proc/irq/33/smp_affinity_list"), std::string::npos);
}

TEST(IrqCoreShared, SilentWhenNicbenchRunsElsewhereOrTheCoreHasTime) {
  EXPECT_EQ(Find(Diagnose(SharedCoreRun(5)), "irq-core-shared-with-app"), nullptr);
  RunRecord idle = SharedCoreRun(3);
  SetCpu(Remote(idle), 3, 10, 10, 2, 20);
  EXPECT_EQ(Find(Diagnose(idle), "irq-core-shared-with-app"), nullptr);
  RunRecord unknown = SharedCoreRun(3);  // an older peer: where nicbench ran is not known
  EachSample(Remote(unknown), [](record::HostInterval& s) { s.process.value().ran_on_cpus = {}; });
  EXPECT_EQ(Find(Diagnose(unknown), "irq-core-shared-with-app"), nullptr);
}

}  // namespace
}  // namespace nicbench::diagnosis
