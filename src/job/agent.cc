// The agent's loop (agent.h): connect with backoff, housekeeping, claim, run, finish.
#include "job/agent.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include "analysis/figures.h"
#include "base/log.h"
#include "job/stop_event.h"

namespace nicbench::job {
namespace {

using std::chrono::milliseconds;

constexpr milliseconds kFirstBackoff{500};

int Millis(milliseconds d) { return static_cast<int>(std::max<int64_t>(0, d.count())); }

bool Readable(int fd, milliseconds wait) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, Millis(wait)) > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR)) != 0;
}

// The goodput from sender to receiver: the client's sending, counted by the server.
std::optional<double> SentGoodput(const record::RunRecord& run) {
  const auto figures = analysis::ComputeFigures(run);
  const auto& g = figures.client_to_server.receiver_bits_per_second;
  if (!g.known()) return std::nullopt;
  return g.value();
}

void Remember(record::AgentMetrics& m, record::PairGoodput pair) {
  auto it = std::find_if(m.last.begin(), m.last.end(), [&](const record::PairGoodput& p) {
    return p.sender == pair.sender && p.receiver == pair.receiver;
  });
  if (it == m.last.end()) {
    m.last.push_back(std::move(pair));
  } else {
    *it = std::move(pair);
  }
}

}  // namespace

double WallSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

Agent::Agent(AgentSpec spec, AgentTests tests) : spec_(std::move(spec)), tests_(std::move(tests)) {
  metrics_.agent = spec_.self.name;
}

record::AgentMetrics Agent::Metrics() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return metrics_;
}

void Agent::Changed(const std::function<void(record::AgentMetrics&)>& change) {
  record::AgentMetrics copy;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    change(metrics_);
    copy = metrics_;
  }
  if (spec_.metrics) spec_.metrics(copy);
}

bool Agent::Wait(milliseconds d) { return !Readable(stop_fd_, d); }

void Agent::Lost(const Error& error) {
  if (fleet_) LogWarning("fleet database: " + error.message + "; reconnecting");
  fleet_.reset();
  Changed([](record::AgentMetrics& m) { m.database_up = false; });
}

bool Agent::Connect() {
  if (fleet_) return true;
  auto fleet = store::Fleet::Open(spec_.url);
  if (!fleet) {
    backoff_ = std::min(spec_.max_backoff, std::max(kFirstBackoff, backoff_ * 2));
    LogWarning(fmt::format("fleet database: {}; trying again in {} ms", fleet.error().message,
                           backoff_.count()));
    return false;
  }
  const bool again = backoff_.count() > 0;
  backoff_ = milliseconds(0);
  fleet_ = std::move(*fleet);
  next_heartbeat_ = {};
  Changed([again](record::AgentMetrics& m) {
    m.database_up = true;
    if (again) ++m.reconnects;
  });
  return true;
}

Status Agent::Run(int stop_fd) {
  stop_fd_ = stop_fd;
  auto first = store::Fleet::Open(spec_.url);
  if (!first) return tl::unexpected(first.error());
  fleet_ = std::move(*first);
  Changed([](record::AgentMetrics& m) { m.database_up = true; });
  while (!Readable(stop_fd_, milliseconds(0))) {
    if (!Connect()) {
      if (!Wait(backoff_)) break;
      continue;
    }
    Housekeep();
    if (!fleet_) continue;
    auto job = fleet_->Claim(spec_.self.name, WallSeconds(), spec_.terms);
    if (!job) {
      Lost(job.error());
      continue;
    }
    if (job->has_value()) {
      Changed([](record::AgentMetrics& m) { ++m.claims; });
      RunJob(**job);
    } else if (!Wait(spec_.poll)) {
      break;
    }
  }
  return Ok();
}

// Once a heartbeat: every agent does the housekeeping, so its cost grows with the fleet; a
// heartbeat's pace bounds it (1,000 agents at 5 s: 400 short transactions a second).
void Agent::Housekeep() {
  const double now = WallSeconds();
  if (std::chrono::steady_clock::now() < next_heartbeat_) return;
  if (auto s = fleet_->Heartbeat(spec_.self, now); !s) return Lost(s.error());
  next_heartbeat_ = std::chrono::steady_clock::now() + spec_.heartbeat;
  if (auto written = fleet_->Schedule(now, spec_.terms); !written) return Lost(written.error());
  auto expired = fleet_->ExpireLeases(now, spec_.terms);
  if (!expired) return Lost(expired.error());
  if (*expired > 0) {
    const int n = *expired;
    Changed([n](record::AgentMetrics& m) { m.lease_expiries += static_cast<uint64_t>(n); });
  }
}

void Agent::RunJob(const store::FleetJob& job) {
  auto config = tests_.prepare(job.receiver_address, job.test);
  if (!config) {
    // Never run: the options are not a test `run` would accept.
    const std::string why = "refused: " + config.error().message;
    LogWarning(fmt::format("job {} ({} -> {}): {}", job.id, job.sender, job.receiver, why));
    if (auto s = fleet_->FailJob(job, why, WallSeconds()); !s) Lost(s.error());
    Changed([&](record::AgentMetrics& m) {
      ++m.jobs_failed;
      ++m.jobs_refused;
    });
    return;
  }
  auto result = RunWithRenewals(job, *config);
  // Stopped mid-test (SIGTERM from systemd or kubelet): the test was cut short, not failed, so
  // the job goes back to the queue for this agent's next start or another's. A test that ended
  // whole before the stop is stored as usual.
  const bool cut_short = !result || result->incomplete;
  if (cut_short && !Wait(milliseconds(0))) return Release(job);
  Finish(job, result);
}

void Agent::Release(const store::FleetJob& job) {
  const std::string why = fmt::format("agent {} stopped during the test", spec_.self.name);
  if (!fleet_ && !Connect()) return;  // the lease expires and requeues it instead
  if (auto s = fleet_->Release(job, why, WallSeconds()); !s) return Lost(s.error());
  LogInfo(fmt::format("job {} ({} -> {}): handed back to the queue, not run to its end", job.id,
                      job.sender, job.receiver));
  Changed([](record::AgentMetrics& m) { ++m.jobs_released; });
}

// The test on a thread of its own; this thread renews the lease and heartbeats meanwhile, and
// reconnects when the database goes away (the test goes on). The test has a stop of its own,
// set when the agent's is: the agent's stays readable for the loop.
Result<record::RunRecord> Agent::RunWithRenewals(const store::FleetJob& job,
                                                 engine::ClientConfig config) {
  StopEvent test_stop, done;
  config.stop_fd = test_stop.fd;
  Result<record::RunRecord> result = Fail("the test did not run");
  std::thread test([&] {
    result = tests_.run(config);
    done.Now();
  });
  bool stopping = false;
  for (;;) {
    pollfd fds[2] = {{done.fd, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
    const int n = ::poll(fds, stopping ? 1 : 2, Millis(spec_.heartbeat));
    if (n > 0 && fds[0].revents != 0) break;
    if (n > 0 && !stopping && fds[1].revents != 0) {
      stopping = true;
      test_stop.Now();
      continue;
    }
    if (!fleet_ && !Connect()) continue;
    const double now = WallSeconds();
    auto s = fleet_->Renew(job, now, spec_.terms);
    if (s) s = fleet_->Heartbeat(spec_.self, now);
    if (!s) Lost(s.error());
  }
  test.join();
  return result;
}

// Stores the run with the job done, or marks it failed; retried across reconnections while the
// lease lasts. A lost lease discards the run: the job was given to another attempt.
void Agent::Finish(const store::FleetJob& job, const Result<record::RunRecord>& result) {
  const double deadline = WallSeconds() + spec_.terms.lease;
  record::PairGoodput pair{job.sender, job.receiver, std::nullopt, WallSeconds(), !result};
  if (result) pair.bits_per_second = SentGoodput(*result);
  const store::Labels labels = {{"fleet_job", std::to_string(job.id)},
                                {"fleet_mesh", std::to_string(job.mesh_id)},
                                {"fleet_sender", job.sender},
                                {"fleet_receiver", job.receiver}};
  for (;;) {
    if (fleet_ || Connect()) {
      Status s = result ? fleet_->Finish(job, *result, labels, WallSeconds()).map([](int64_t) {})
                        : fleet_->FailJob(job, result.error().message, WallSeconds());
      if (s) break;
      if (s.error().message.find("the lease was lost") != std::string::npos) {
        LogWarning(s.error().message + ": the run is discarded");
        Changed([](record::AgentMetrics& m) { ++m.leases_lost; });
        return;
      }
      Lost(s.error());
    }
    if (WallSeconds() > deadline || !Wait(std::max(backoff_, kFirstBackoff))) return;
  }
  Changed([&](record::AgentMetrics& m) {
    ++(result ? m.jobs_done : m.jobs_failed);
    Remember(m, pair);
  });
}

}  // namespace nicbench::job
