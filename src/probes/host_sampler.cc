#include "probes/host_sampler.h"

#include <utility>

#include "base/check.h"

namespace nicbench::probes {

HostSampler::HostSampler(FileSource& files, NicDevice nic, bool mark_nic)
    : files_(&files), nic_(std::move(nic)), mark_nic_(mark_nic) {}

HostSampler HostSampler::Create(FileSource& files, const SamplerOptions& options) {
  const std::string& iface = options.nic_interface;
  bool mark = !iface.empty() && iface != "lo";
  NicDevice nic = mark ? LocateNicDevice(files, iface) : NicDevice{};
  return HostSampler(files, std::move(nic), mark);
}

void HostSampler::Begin() {
  previous_ = ReadHostSnapshot(*files_, buffer_, mark_nic_ ? nic_.interface : std::string());
  begun_ = true;
}

record::HostInterval HostSampler::Sample(double start, double end) {
  NB_CHECK(begun_);
  HostSnapshot now = ReadHostSnapshot(*files_, buffer_, mark_nic_ ? nic_.interface : std::string());
  record::HostInterval interval =
      DiffSnapshots(previous_, now, start, end, mark_nic_ ? &nic_ : nullptr);
  previous_ = std::move(now);
  return interval;
}

}  // namespace nicbench::probes
