#include "job/monitor_worker.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>

#include <fmt/format.h>

#include "base/latency_histogram.h"
#include "base/log.h"
#include "job/under_load.h"
#include "net/socket.h"
#include "net/socket_address.h"

namespace nicbench::job {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr milliseconds kShortestWindow{500};  // a probe window shorter than this is not run
constexpr milliseconds kBackoffFirst{1000}, kBackoffMost{60000};

record::LatencySummary Summarize(const LatencyHistogram& h) {
  record::LatencySummary s;
  s.count = h.count();
  s.mean_us = h.MeanNs() / 1000;
  s.min_us = static_cast<double>(h.min_ns()) / 1000;
  s.max_us = static_cast<double>(h.max_ns()) / 1000;
  s.p50_us = h.ValueAtQuantile(0.5) / 1000;
  s.p90_us = h.ValueAtQuantile(0.9) / 1000;
  s.p99_us = h.ValueAtQuantile(0.99) / 1000;
  s.p999_us = h.ValueAtQuantile(0.999) / 1000;
  return s;
}

// Posts each interval of a probe window as it closes, with its whole distribution: a host
// event's latency evidence is taken from the probes of its own span, not from the last window
// that ended (which began before the storm).
class LiveProbes final : public engine::ClientEvents {
 public:
  explicit LiveProbes(Mailbox& box) : box_(box) {}
  void Interval(const record::RunRecord&, const record::IntervalRecord& interval,
                const record::HostInterval*, const record::HostInterval*) override {
    if (!interval.rr || !interval.rr->latency_buckets) return;
    Observation o;
    o.kind = Observation::Kind::kProbeInterval;
    o.live.seconds = interval.end - interval.start;
    o.live.buckets = *interval.rr->latency_buckets;
    o.at_unix = UnixNow();
    box_.Post(std::move(o));
  }

 private:
  Mailbox& box_;
};

}  // namespace

double UnixNow() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

Mailbox::Mailbox() : fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}
Mailbox::~Mailbox() {
  if (fd_ >= 0) ::close(fd_);
}

void Mailbox::Post(Observation o) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    items_.push_back(std::move(o));
  }
  const uint64_t one = 1;
  if (::write(fd_, &one, sizeof one) < 0) {
    // The counter cannot overflow at one post per test or probe window; nothing to do.
  }
}

std::vector<Observation> Mailbox::Take() {
  uint64_t n = 0;
  if (::read(fd_, &n, sizeof n) < 0) {
    // EAGAIN: nothing was posted since the last take.
  }
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<Observation> out;
  out.swap(items_);
  return out;
}

bool Worker::Wait(milliseconds d) const {
  pollfd p{stop_fd_, POLLIN, 0};
  return ::poll(&p, 1, static_cast<int>(std::max<int64_t>(d.count(), 0))) == 0;
}

// Whether the outcome reached the peer, posted when that changes (a peer gone, a peer back).
bool Worker::Reached(const engine::ClientOutcome& o) {
  const bool reached = o.ok() || o.status.error().kind != ErrorKind::kConnect;
  if (!reached) why_ = o.status.error().ToString();
  if (reached == !unreached_) return reached;
  unreached_ = !reached;
  if (reached) LogInfo(fmt::format("monitor {}: {} answers again", spec_.id, PeerText()));
  Observation peer;
  peer.kind = Observation::Kind::kPeer;
  peer.reached = reached;
  peer.why = reached ? "" : o.status.error().ToString();
  peer.at_unix = UnixNow();
  box_.Post(std::move(peer));
  return reached;
}

bool Worker::RunTests() {
  for (const engine::ClientConfig& config : spec_.tests) {
    engine::ClientConfig c = config;
    c.stop_fd = stop_fd_;
    Observation o;
    o.kind = Observation::Kind::kTest;
    // After a stock iperf3 refused a probe it resets for a moment: RunSettled waits that out.
    o.test = RunSettled(c, stop_fd_, stock_);
    o.at_unix = UnixNow();
    if (!o.test.ok() && o.test.status.error().kind == ErrorKind::kInterrupted) return true;
    const bool reached = Reached(o.test);
    box_.Post(std::move(o));
    if (!reached) return false;
  }
  return true;
}

bool Worker::RequestResponse(milliseconds window) {
  engine::ClientConfig probe =
      ProbeConfig(spec_.tests.front(), record::RrMode::kRr, spec_.probe_rate, window);
  probe.stop_fd = stop_fd_;
  // A nicbench server then samples its host at each interval and sends the samples with the
  // results: the peer's host is watched between the tests as well (this end's sampling in the
  // probe test is its cost, the main thread samples this host anyway).
  probe.sample_host = true;
  // The pacer's timer at half the probes' period, not the default 1 ms: at 10 probes a second
  // the default woke the worker 1000 times a second for nothing, most of the monitor's CPU
  // between tests. A probe's time counts from when it is queued, so the tick is not in it.
  probe.spec.pacing_timer_us = std::clamp<uint32_t>(500000 / spec_.probe_rate, 1000, 100000);
  probe.interval_latency_buckets = true;
  LiveProbes live(box_);
  engine::ClientOutcome o = RunSettled(probe, stop_fd_, false, live);
  if (!o.ok() && o.status.error().kind == ErrorKind::kInterrupted) return true;
  if (!o.ok() && o.status.error().kind == ErrorKind::kPeerCannot) {
    stock_ = true;  // from now on, connect times
    return true;
  }
  const bool reached = Reached(o);
  if (o.record.rr) {
    const record::RrStats& s = o.record.rr->local;
    Observation obs;
    obs.kind = Observation::Kind::kProbe;
    obs.probe.what = "rr";
    obs.probe.sent = s.transactions + s.lost;
    obs.probe.answered = s.transactions;
    obs.probe.latency = s.latency;
    if (s.latency_buckets) obs.probe.buckets = *s.latency_buckets;
    if (o.record.remote.known())
      obs.probe.peer_samples = std::move(o.record.remote.value().samples);
    obs.at_unix = UnixNow();
    box_.Post(std::move(obs));
  }
  return reached;
}

// Against a stock iperf3: one TCP connect a second (each one makes iperf3 log a connection
// that sent no cookie, so fewer than the request/response probes), its time the latency.
bool Worker::ConnectTimes(milliseconds window) {
  const engine::ClientConfig& test = spec_.tests.front();
  const auto end = Clock::now() + window;
  LatencyHistogram h;
  uint64_t sent = 0;
  Error last;
  while (Clock::now() < end) {
    ++sent;
    const auto start = Clock::now();
    auto addrs = net::Resolve(test.host, test.port);
    Result<net::UniqueFd> fd = addrs ? net::Connect(addrs->front(), "", 0, {}, test.connect_timeout)
                                     : Result<net::UniqueFd>(tl::unexpected(addrs.error()));
    if (fd) {
      h.Record(static_cast<uint64_t>(std::chrono::nanoseconds(Clock::now() - start).count()));
    } else {
      last = fd.error();
    }
    if (!Wait(milliseconds(1000))) return true;
  }
  Observation obs;
  obs.kind = Observation::Kind::kProbe;
  obs.probe.what = "connect";
  obs.probe.sent = sent;
  obs.probe.answered = h.count();
  if (h.count() > 0) obs.probe.latency = Summarize(h);
  for (size_t b = 0; b < LatencyHistogram::kBuckets; ++b) {
    if (h.CountAt(b) == 0) continue;
    const double mid =
        static_cast<double>(LatencyHistogram::BucketLow(b) + LatencyHistogram::BucketHigh(b)) /
        2000.0;
    obs.probe.buckets.push_back(record::LatencyBucket{mid, h.CountAt(b)});
  }
  obs.at_unix = UnixNow();
  box_.Post(std::move(obs));
  engine::ClientOutcome o;
  if (h.count() == 0) o.status = Fail(ErrorKind::kConnect, last.ToString());
  return Reached(o);
}

std::string Worker::PeerText() const {
  const engine::ClientConfig& test = spec_.tests.front();
  return fmt::format("{} port {}", test.host, test.port);
}

Result<bool> ProbePeerIsStock(const MonitorSpec& spec) {
  const engine::ClientConfig& test = spec.tests.front();
  engine::ClientConfig probe = ProbeConfig(test, record::RrMode::kRr, 10, milliseconds(1000));
  probe.stop_fd = spec.wake_fd;
  const engine::ClientOutcome o = RunSettled(probe, spec.wake_fd);
  if (o.ok()) return false;
  const Error& e = o.status.error();
  if (e.kind == ErrorKind::kPeerCannot) return true;
  const std::string where = test.host + " port " + std::to_string(test.port);
  if (e.kind == ErrorKind::kConnect) {
    return Fail(ErrorKind::kConnect, where + " is unreachable: " + e.ToString());
  }
  if (e.kind == ErrorKind::kInterrupted) return Fail(ErrorKind::kInterrupted, e.message);
  return Fail(e.kind, where + " does not answer as nicbench or iperf3: " +
                          o.record.error.value_or(e.ToString()));
}

bool Worker::Probe(milliseconds window) {
  return stock_ ? ConnectTimes(window) : RequestResponse(window);
}

void Worker::Run() {
  auto next_test = Clock::now();  // the first tests at once: they make the baseline
  milliseconds backoff = kBackoffFirst;
  while (Wait(milliseconds(0))) {
    const auto now = Clock::now();
    bool reached = true;
    if (now >= next_test) {
      next_test = now + spec_.every;
      reached = RunTests();
    } else {
      const auto left = std::chrono::duration_cast<milliseconds>(next_test - now);
      const milliseconds window = std::min(spec_.probe_window, left);
      if (window < kShortestWindow) {
        if (!Wait(window)) return;
        continue;
      }
      reached = Probe(window);
    }
    if (reached) {
      backoff = kBackoffFirst;
      continue;
    }
    // The peer is away: try again later, each time twice as late, up to a minute. The event
    // says so once; the log, at each try, so a reader sees the monitor is still at it.
    LogWarning(fmt::format("monitor {}: {} not reached ({}); trying again in {} s", spec_.id,
                           PeerText(), why_, backoff.count() / 1000));
    if (!Wait(backoff)) return;
    backoff = std::min(backoff * 2, kBackoffMost);
  }
}

}  // namespace nicbench::job
