#include "probes/host_delta_reader.h"

#include <utility>

#include "base/check.h"

namespace nicbench::probes {

HostDeltaReader::HostDeltaReader(FileSource& files, NicDevice nic, bool mark_nic,
                                 const HostDeltaOptions& options)
    : files_(&files),
      nic_(std::move(nic)),
      mark_nic_(mark_nic),
      threads_(options.threads),
      namespaces_(options.host_namespaces) {}

HostDeltaReader HostDeltaReader::Create(FileSource& files, const HostDeltaOptions& options) {
  const std::string& iface = options.nic_interface;
  bool mark = !iface.empty() && iface != "lo";
  NicDevice nic = mark ? LocateNicDevice(files, iface) : NicDevice{};
  return HostDeltaReader(files, std::move(nic), mark, options);
}

HostSnapshot HostDeltaReader::Read() {
  HostSnapshot snap =
      ReadHostSnapshot(*files_, buffer_, mark_nic_ ? nic_.interface : std::string(), threads_);
  if (namespaces_) snap.namespaces = ReadNamespaceOctets(*files_, buffer_);
  return snap;
}

void HostDeltaReader::Begin() {
  previous_ = Read();
  begun_ = true;
}

record::HostInterval HostDeltaReader::Sample(double start, double end) {
  NB_CHECK(begun_);
  HostSnapshot now = Read();
  record::HostInterval interval =
      DiffSnapshots(previous_, now, start, end, mark_nic_ ? &nic_ : nullptr);
  previous_ = std::move(now);
  return interval;
}

}  // namespace nicbench::probes
