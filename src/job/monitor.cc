#include "job/monitor.h"

#include <poll.h>
#include <unistd.h>

#include <thread>

#include "job/monitor_judge.h"
#include "job/monitor_series.h"
#include "job/monitor_worker.h"
#include "job/stop_event.h"
#include "probes/host_delta_reader.h"
#include "probes/host_snapshot.h"
#include "probes/nic_device.h"

namespace nicbench::job {
namespace {

using Clock = std::chrono::steady_clock;

void Judge(MonitorJudge& judge, const Observation& o) {
  switch (o.kind) {
    case Observation::Kind::kTest: judge.OnTest(o.test, o.at_unix); break;
    case Observation::Kind::kProbe: judge.OnProbe(o.probe, o.at_unix); break;
    case Observation::Kind::kProbeInterval: judge.OnProbeInterval(o.live, o.at_unix); break;
    case Observation::Kind::kPeer: judge.OnPeer(o.reached, o.why, o.at_unix); break;
  }
}

// The host's side of the loop: a sample at every boundary, the link's state beside it, and
// under --record the files behind it.
class Sampler {
 public:
  Sampler(const MonitorSpec& spec, probes::FileSource& files)
      : spec_(spec),
        files_(files),
        iface_(spec.nic_interface == "lo" ? "" : spec.nic_interface),
        reader_(probes::HostDeltaReader::Create(files, {iface_, nullptr})) {}

  Status Begin() {
    if (!spec_.record_dir.empty()) {
      if (auto s = StartSeries(spec_.record_dir, iface_); !s) return s;
      Record();
    }
    reader_.Begin();
    start_ = Clock::now();
    return Ok();
  }

  void Take(MonitorJudge& judge) {
    const double end = std::chrono::duration<double>(Clock::now() - start_).count();
    const record::HostInterval sample = reader_.Sample(last_end_, end);
    last_end_ = end;
    Record();
    judge.OnSample(sample, iface_, ReadLinkState(files_, iface_), UnixNow());
  }

 private:
  void Record() {
    if (spec_.record_dir.empty()) return;
    // A series that cannot be written is left short; the monitor goes on (it is a side job).
    (void)WriteSeriesSample(files_, spec_.record_dir, ++recorded_, iface_, UnixNow());
  }

  const MonitorSpec& spec_;
  probes::FileSource& files_;
  std::string iface_;
  probes::HostDeltaReader reader_;
  Clock::time_point start_;
  double last_end_ = 0;
  size_t recorded_ = 0;
};

// poll's timeout until `when`, at least 0.
int MillisUntil(Clock::time_point when) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(when - Clock::now());
  return static_cast<int>(std::max<int64_t>(left.count(), 0));
}

}  // namespace

Status RunMonitor(const MonitorSpec& spec, const MonitorSinks& sinks) {
  probes::DirFileSource live;
  probes::FileSource& files = spec.files ? *spec.files : live;
  Sampler sampler(spec, files);
  if (auto s = sampler.Begin(); !s) return s;
  MonitorJudge judge(spec.id, spec.peer, spec.thresholds, sinks);
  judge.SetBaseline(spec.baseline);
  Mailbox box;
  StopEvent stop;  // ends the worker's current test or probe
  Worker worker(spec, box, stop.fd);
  std::thread tests([&worker] { worker.Run(); });
  auto next_sample = Clock::now() + spec.sample_interval;
  for (;;) {
    pollfd fds[2] = {{box.fd(), POLLIN, 0}, {spec.wake_fd, POLLIN, 0}};
    const int n = ::poll(fds, spec.wake_fd >= 0 ? 2 : 1, MillisUntil(next_sample));
    if (n > 0 && (fds[1].revents & POLLIN) && sinks.woken && sinks.woken()) break;
    if (n > 0 && (fds[0].revents & POLLIN)) {
      for (const Observation& o : box.Take()) Judge(judge, o);
    }
    if (Clock::now() < next_sample) continue;
    sampler.Take(judge);
    // A late wake-up (a suspended host) skips the boundaries it missed instead of sampling
    // them all at once.
    while (next_sample <= Clock::now()) next_sample += spec.sample_interval;
  }
  stop.Now();
  tests.join();
  for (const Observation& o : box.Take()) {
    // A test interrupted by the stop is not posted; what finished before it is kept.
    Judge(judge, o);
  }
  return Ok();
}

Status ReplayMonitor(const std::string& dir, const std::string& id, const Thresholds& thresholds,
                     const MonitorSinks& sinks) {
  auto series = ReadSeries(dir);
  if (!series) return tl::unexpected(series.error());
  MonitorJudge judge(id, "", thresholds, sinks);
  std::string buffer;
  probes::DirFileSource first(series->samples.front().path);
  const probes::NicDevice nic = probes::LocateNicDevice(first, series->iface);
  const probes::NicDevice* marked = series->iface.empty() ? nullptr : &nic;
  probes::HostSnapshot before = probes::ReadHostSnapshot(first, buffer, series->iface);
  const double t0 = series->samples.front().at_unix;
  for (size_t i = 1; i < series->samples.size(); ++i) {
    const SeriesEntry& entry = series->samples[i];
    probes::DirFileSource files(entry.path);
    probes::HostSnapshot after = probes::ReadHostSnapshot(files, buffer, series->iface);
    const record::HostInterval sample = probes::DiffSnapshots(
        before, after, series->samples[i - 1].at_unix - t0, entry.at_unix - t0, marked);
    judge.OnSample(sample, series->iface, ReadLinkState(files, series->iface), entry.at_unix);
    before = std::move(after);
  }
  return Ok();
}

}  // namespace nicbench::job
