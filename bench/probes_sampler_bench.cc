// Cost of one HostDeltaReader::Sample() on the live machine (read and parse /proc/stat,
// /proc/interrupts, /proc/softirqs, /proc/net/softnet_stat, snmp, netstat; getrusage; the
// deltas). The session calls it at every interval boundary, down to every 100 ms.
#include <benchmark/benchmark.h>

#include "probes/host_delta_reader.h"
#include "probes/namespace_bytes.h"
#include "probes/proc_parsers.h"

namespace {

using nicbench::probes::DirFileSource;
using nicbench::probes::HostDeltaOptions;
using nicbench::probes::HostDeltaReader;

void BM_Sample(benchmark::State& state) {
  DirFileSource files("/");
  HostDeltaReader sampler = HostDeltaReader::Create(files, HostDeltaOptions{"eth0"});
  sampler.Begin();
  double t = 0;
  for (auto _ : state) {
    auto interval = sampler.Sample(t, t + 1);
    benchmark::DoNotOptimize(interval);
    t += 1;
  }
}
BENCHMARK(BM_Sample);

void BM_ParseInterrupts(benchmark::State& state) {
  DirFileSource files("/");
  std::string text;
  (void)files.ReadInto("/proc/interrupts", text);
  for (auto _ : state) benchmark::DoNotOptimize(nicbench::probes::ParseInterrupts(text));
}
BENCHMARK(BM_ParseInterrupts);

// The host-wide read a test's sampler adds at each boundary (HostDeltaOptions::host_namespaces):
// a readlink per process of the host and a netstat per network namespace.
void BM_ReadNamespaceOctets(benchmark::State& state) {
  DirFileSource files("/");
  std::string buffer;
  size_t namespaces = 0;
  for (auto _ : state) {
    auto read = nicbench::probes::ReadNamespaceOctets(files, buffer);
    if (read) namespaces = read->size();
    benchmark::DoNotOptimize(read);
  }
  state.counters["namespaces"] = static_cast<double>(namespaces);
  auto procs = files.ListDir("/proc");
  state.counters["proc_entries"] = procs ? static_cast<double>(procs->size()) : 0;
}
BENCHMARK(BM_ReadNamespaceOctets)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
