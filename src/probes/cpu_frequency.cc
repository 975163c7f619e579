// cpufreq of each online CPU, for the host facts. The kernel's cpufreq core
// (drivers/cpufreq/cpufreq.c) makes /sys/devices/system/cpu/cpuN/cpufreq a link to the policy
// that CPU belongs to; a VM's vCPUs and a kernel without a frequency driver have no such
// directory, and then the frequency is unknown: /proc/cpuinfo's "cpu MHz" is not read, since
// a hypervisor reports a nominal figure there, not what the core runs at.
#include <string>
#include <vector>

#include "probes/collect_facts.h"
#include "probes/text_scan.h"

namespace nicbench::probes {
namespace {

uint64_t ReadKhz(FileSource& files, const std::string& path) {
  auto text = files.ReadTrimmed(path);
  if (!text) return 0;
  return scan::ToU64(*text).value_or(0);
}

}  // namespace

record::Measured<std::vector<record::CpuFrequency>> ReadCpuFrequencies(
    FileSource& files, const std::vector<int>& cpus) {
  std::vector<record::CpuFrequency> out;
  std::optional<Error> denied;
  for (int cpu : cpus) {
    const std::string dir = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cpufreq/";
    auto governor = files.ReadTrimmed(dir + "scaling_governor");
    if (!governor) {
      if (MissingFromErrno(governor.error().sys_errno) == record::Missing::kPermissionDenied) {
        denied = governor.error();
      }
      continue;
    }
    record::CpuFrequency f;
    f.cpu = cpu;
    f.governor = *governor;
    f.driver = files.ReadTrimmed(dir + "scaling_driver").value_or(std::string());
    // scaling_cur_freq is the policy's last known frequency and readable by anyone;
    // cpuinfo_cur_freq asks the hardware and is root-only (mode 0400).
    f.current_khz = ReadKhz(files, dir + "scaling_cur_freq");
    if (f.current_khz == 0) f.current_khz = ReadKhz(files, dir + "cpuinfo_cur_freq");
    f.min_khz = ReadKhz(files, dir + "cpuinfo_min_freq");
    f.max_khz = ReadKhz(files, dir + "cpuinfo_max_freq");
    out.push_back(std::move(f));
  }
  if (!out.empty()) return out;
  if (denied) return UnknownFrom<std::vector<record::CpuFrequency>>(*denied);
  return record::Measured<std::vector<record::CpuFrequency>>::Unknown(
      record::Missing::kNotSupported,
      "no cpufreq in /sys/devices/system/cpu (a VM, or no "
      "frequency driver)");
}

}  // namespace nicbench::probes
