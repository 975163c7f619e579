// The fleet's job queue under load (docs/fleet.md, "Performance"): AGENTS simulated agents,
// driven by THREADS threads with a connection each, claim jobs from MESHES meshes (each a ring
// of pairs over all agents, so every job's two hosts are wanted by two agents) and end each at
// once (FailJob: the same row updates as a finished job, without storing a run). Prints the
// claims per second and the latency of a claim that got a job (median, p99, max), and of
// every claim call. Needs a PostgreSQL database it may create tables in; bench/fleet_claim.sh
// starts one.
//
//   fleet_claim_bench postgresql://nicbench@127.0.0.1:PORT/DB [AGENTS] [MESHES] [THREADS]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "store/fleet.h"

namespace {

using nicbench::store::Fleet;
using Clock = std::chrono::steady_clock;

double Now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string AgentName(int i) { return fmt::format("agent-{:04}", i); }

bool Prepare(Fleet& fleet, int agents, int meshes) {
  const double now = Now();
  for (int i = 0; i < agents; ++i) {
    nicbench::store::FleetHost h;
    h.name = AgentName(i);
    h.addresses = {fmt::format("198.18.{}.{}", i / 250, i % 250 + 1)};
    h.version = "bench";
    if (!fleet.Heartbeat(h, now)) return false;
  }
  for (int m = 0; m < meshes; ++m) {
    nicbench::store::MeshSpec spec;
    spec.name = fmt::format("ring{}", m);
    for (int i = 0; i < agents; ++i) {
      spec.hosts.push_back(AgentName(i));
      spec.pairs.emplace_back(AgentName(i), AgentName((i + m + 1) % agents));
    }
    spec.test = {"-t", "1"};
    spec.every_secs = 86400;
    if (!fleet.CreateMesh(spec, now)) return false;
  }
  auto written = fleet.Schedule(now, {});
  if (!written) {
    std::fprintf(stderr, "schedule: %s\n", written.error().message.c_str());
    return false;
  }
  std::printf("%d hosts, %d jobs queued\n", agents, *written);
  return true;
}

struct Latencies {
  std::vector<double> got, all;  // milliseconds
};

// One thread's agents, claimed for in turn until none of them has a queued job left.
Latencies Drive(const std::string& url, int first, int count, std::atomic<long>& claims) {
  Latencies out;
  auto fleet = Fleet::Open(url);
  if (!fleet) return out;
  nicbench::store::LeaseTerms terms;
  std::vector<int> mine;
  for (int i = first; i < first + count; ++i) mine.push_back(i);
  for (int idle_rounds = 0; idle_rounds < 3 && !mine.empty();) {
    bool any = false;
    for (int i : mine) {
      const auto start = Clock::now();
      auto job = (*fleet)->Claim(AgentName(i), Now(), terms);
      const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
      out.all.push_back(ms);
      if (!job) {
        std::fprintf(stderr, "claim: %s\n", job.error().message.c_str());
        return out;
      }
      if (!job->has_value()) continue;
      any = true;
      out.got.push_back(ms);
      ++claims;
      if (auto s = (*fleet)->FailJob(**job, "bench", Now()); !s) {
        std::fprintf(stderr, "end: %s\n", s.error().message.c_str());
        return out;
      }
    }
    idle_rounds = any ? 0 : idle_rounds + 1;
  }
  return out;
}

void Print(const char* what, std::vector<double> v) {
  if (v.empty()) return;
  std::sort(v.begin(), v.end());
  auto at = [&v](double q) { return v[std::min(v.size() - 1, static_cast<size_t>(q * v.size()))]; };
  std::printf("%-22s n=%zu median %.2f ms, p99 %.2f ms, max %.2f ms\n", what, v.size(), at(0.5),
              at(0.99), v.back());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: fleet_claim_bench URL [AGENTS] [MESHES] [THREADS]\n");
    return 2;
  }
  const std::string url = argv[1];
  const int agents = argc > 2 ? std::atoi(argv[2]) : 1000;
  const int meshes = argc > 3 ? std::atoi(argv[3]) : 10;
  const int threads = argc > 4 ? std::atoi(argv[4]) : 16;
  auto fleet = Fleet::Open(url);
  if (!fleet) {
    std::fprintf(stderr, "%s\n", fleet.error().message.c_str());
    return 4;
  }
  if (!Prepare(**fleet, agents, meshes)) return 4;
  std::atomic<long> claims{0};
  std::vector<Latencies> results(threads);
  std::vector<std::thread> pool;
  const auto start = Clock::now();
  for (int t = 0; t < threads; ++t) {
    const int first = t * agents / threads, next = (t + 1) * agents / threads;
    pool.emplace_back(
        [&, t, first, next] { results[t] = Drive(url, first, next - first, claims); });
  }
  for (auto& th : pool) th.join();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  Latencies all;
  for (const auto& r : results) {
    all.got.insert(all.got.end(), r.got.begin(), r.got.end());
    all.all.insert(all.all.end(), r.all.begin(), r.all.end());
  }
  std::printf("%ld claims in %.2f s: %.0f claims/s (%d agents on %d connections)\n", claims.load(),
              seconds, claims.load() / seconds, agents, threads);
  Print("claim that got a job", all.got);
  Print("every claim call", all.all);
  return 0;
}
