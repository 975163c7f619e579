// HostObserver: one end's view of its own host during a test. It finds the interface that
// carries the test (the route to the peer), takes a host snapshot when the data starts, one at
// every interval boundary (the same boundaries as the throughput intervals, so both ends' samples
// line up), and collects the host and NIC facts. Each end's EndRun (measure_loop.h) owns one.
//
// Sampling is cheap (a few hundred microseconds of CPU per boundary, see docs/probes.md) and runs
// on the test's controller thread, never on a data-path worker.
// Thread safety: owned by one controller thread.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "engine/measure/interval_sampler.h"
#include "probes/file_source.h"
#include "probes/host_delta_reader.h"
#include "probes/own_threads.h"
#include "record/run_record.h"

namespace nicbench::engine {

// How many intervals (with their host samples) a record may keep so that it stays within the
// budget that both the memory of a long test and the results exchange (16 MiB) allow, judged
// by the JSON size of the first interval and its sample. At least 16.
size_t KeepLimitFor(const record::IntervalRecord& first, const record::HostInterval* sample);

class HostObserver;
// After the first interval closed (`closed` is it, and `host` has its sample): gives the
// sampler and the observer the same KeepLimitFor limit. Later calls do nothing.
void BoundRecordOnce(IntervalSampler& sampler, HostObserver& host,
                     const record::IntervalRecord* closed);

class HostObserver {
 public:
  // peer_address: the numeric address of the other end (for the route lookup). An empty or
  // unroutable peer leaves the NIC facts unknown with the reason.
  // sample: false makes Begin/OnBoundary do nothing (facts are still collected, once).
  // threads: this end's own threads, whose CPU time is the samples' process use (null: the
  // whole process's).
  // Reads the live machine ("/").
  HostObserver(const std::string& peer_address, bool sample,
               std::shared_ptr<const probes::OwnThreads> threads = nullptr);
  // Reads `files` (a captured tree in tests); `iface` is the interface that carries the test, or
  // why it is not known.
  HostObserver(std::unique_ptr<probes::FileSource> files, const Result<std::string>& iface,
               bool sample, std::shared_ptr<const probes::OwnThreads> threads = nullptr);
  HostObserver(const HostObserver&) = delete;  // the sampler points into *files_
  HostObserver& operator=(const HostObserver&) = delete;

  // Takes the first snapshot. Call when the data starts (TEST_RUNNING).
  void Begin();
  // Takes the sample of the interval the throughput sampler just closed, with the same start
  // and end. `closed` null: the sampler dropped that interval (a final sliver), so the sample
  // is taken (to keep the deltas aligned) and dropped too.
  void OnBoundary(const record::IntervalRecord* closed);
  // Keeps at most `limit` samples (0 = no limit), merging pairs after the omitted warm-up as
  // IntervalSampler::SetKeepLimit does with the intervals (give both the same limit).
  void SetKeepLimit(size_t limit) { keep_limit_ = limit; }
  size_t keep_limit() const { return keep_limit_; }
  // Fills host, nic and samples of `endpoint` (moves the samples out).
  void Finish(record::EndpointRecord& endpoint);

  const std::string& interface() const { return interface_; }
  // The newest kept sample, or null.
  const record::HostInterval* last() const { return samples_.empty() ? nullptr : &samples_.back(); }

 private:
  std::unique_ptr<probes::FileSource> files_;
  std::shared_ptr<const probes::OwnThreads> threads_;  // the sampler points into *threads_
  std::string interface_;
  record::NicFacts nic_;
  std::unique_ptr<probes::HostDeltaReader> sampler_;
  std::vector<record::HostInterval> samples_;
  bool sample_;
  bool began_ = false;  // the driver's counters were read when the data started
  size_t keep_limit_ = 0;
  size_t omitted_kept_ = 0;
};

}  // namespace nicbench::engine
