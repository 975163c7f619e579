// HostObserver: one end's view of its own host during a test. It finds the interface that
// carries the test (the route to the peer), takes a host snapshot when the data starts, one at
// every interval boundary (the same boundaries as the throughput intervals, so both ends' samples
// line up), and collects the host and NIC facts. Both the client and the server session own one.
//
// Sampling is cheap (a few hundred microseconds of CPU per boundary, see docs/probes.md) and runs
// on the session's controller thread, never on a data-path worker.
// Thread safety: owned by one controller thread.
#pragma once

#include <memory>
#include <string>

#include "probes/file_source.h"
#include "probes/host_sampler.h"
#include "record/run_record.h"

namespace nicbench::engine {

class HostObserver {
 public:
  // peer_address: the numeric address of the other end (for the route lookup). An empty or
  // unroutable peer leaves the NIC facts unknown with the reason.
  // sample: false makes Begin/OnBoundary do nothing (facts are still collected, once).
  HostObserver(const std::string& peer_address, bool sample);
  HostObserver(const HostObserver&) = delete;  // the sampler points into files_
  HostObserver& operator=(const HostObserver&) = delete;

  // Takes the first snapshot. Call when the data starts (TEST_RUNNING).
  void Begin();
  // Takes the sample of the interval the throughput sampler just closed, with the same start
  // and end. `closed` null: the sampler dropped that interval (a final sliver), so the sample
  // is taken (to keep the deltas aligned) and dropped too.
  void OnBoundary(const record::IntervalRecord* closed);
  // Fills host, nic and samples of `endpoint` (moves the samples out).
  void Finish(record::EndpointRecord& endpoint);

  const std::string& interface() const { return interface_; }
  // The newest kept sample, or null.
  const record::HostInterval* last() const { return samples_.empty() ? nullptr : &samples_.back(); }

 private:
  probes::DirFileSource files_;
  std::string interface_;
  record::NicFacts nic_;
  std::unique_ptr<probes::HostSampler> sampler_;
  std::vector<record::HostInterval> samples_;
  bool sample_;
};

}  // namespace nicbench::engine
