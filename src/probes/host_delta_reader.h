// HostDeltaReader: per-interval measurements of this host while a test runs (CPU per core by kind,
// interrupts per line with the NIC's lines named by queue, NET_RX/NET_TX softirqs, softnet,
// protocol counters, the process's rusage). The session calls Begin() when the test starts and
// Sample() at each interval boundary on its controller thread.
//
// Cost: one open/read/close per file into a buffer reused across samples, parsed with
// string_view; measured in docs/probes.md (bench/probes_sampler_bench.cc).
// Thread safety: not thread-safe; one sampler belongs to one thread.
#pragma once

#include <string>

#include "base/result.h"
#include "probes/file_source.h"
#include "probes/host_snapshot.h"
#include "probes/nic_device.h"
#include "record/host_sample.h"

namespace nicbench::probes {

struct HostDeltaOptions {
  // The interface that carries the test ("eth0"); its IRQ lines are marked nic=true with their
  // queue names. Empty, or "lo": no line is marked.
  std::string nic_interface;
  // The end's own threads (the main job runs both ends in one process): the process use is
  // theirs. Null: the whole process's (getrusage). Must outlive the reader.
  const OwnThreads* threads = nullptr;
  // Read every network namespace's IPv4 bytes too (namespace_bytes.h: a readlink per process
  // of the host at each sample), for the host-wide measure of other traffic.
  bool host_namespaces = false;
};

class HostDeltaReader {
 public:
  // `files` must outlive the sampler.
  static HostDeltaReader Create(FileSource& files, const HostDeltaOptions& options);

  // Takes the first snapshot. Call once before the first Sample().
  void Begin();

  // Takes a new snapshot and returns the deltas since the previous one. start/end are the
  // interval's bounds in seconds since the test started (copied into the result; end - start
  // divides the IRQ counts into per-second rates).
  // REQUIRES: Begin() was called.
  record::HostInterval Sample(double start, double end);

  const NicDevice& nic() const { return nic_; }

 private:
  HostDeltaReader(FileSource& files, NicDevice nic, bool mark_nic, const HostDeltaOptions& options);
  HostSnapshot Read();

  FileSource* files_;
  NicDevice nic_;
  bool mark_nic_;
  const OwnThreads* threads_;
  bool namespaces_;
  bool begun_ = false;
  std::string buffer_;
  HostSnapshot previous_;
};

}  // namespace nicbench::probes
