#include "analysis/placement.h"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include "analysis/figures.h"

namespace nicbench::analysis {
namespace {

std::optional<int> Number(std::string_view text) {
  int value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || value < 0) return std::nullopt;
  return value;
}

void AddPerCpu(const std::vector<uint64_t>& counts, std::vector<uint64_t>& into, uint64_t& total) {
  if (into.size() < counts.size()) into.resize(counts.size());
  for (size_t c = 0; c < counts.size(); ++c) {
    into[c] += counts[c];
    total += counts[c];
  }
}

void AddSample(const record::HostInterval& s, Placement& out) {
  if (const auto* rx = s.net_rx_softirqs.get()) AddPerCpu(*rx, out.softirqs_per_cpu, out.softirqs);
  if (const auto* tx = s.net_tx_softirqs.get()) AddPerCpu(*tx, out.softirqs_per_cpu, out.softirqs);
  if (const auto* irqs = s.irqs.get()) {
    for (const record::IrqRate& line : *irqs) {
      if (line.nic) AddPerCpu(line.per_cpu, out.nic_irqs_per_cpu, out.nic_irqs);
    }
  }
  if (const auto* cpus = s.cpus.get()) {
    out.host_cpus = std::max(out.host_cpus, static_cast<int>(cpus->size()));
  }
  const auto* process = s.process.get();
  if (process == nullptr || process->ran_on_cpus.empty()) return;
  ++out.ran_on_samples;
  for (int cpu : process->ran_on_cpus) ++out.ran_on[cpu];
}

}  // namespace

std::optional<std::vector<int>> CpusOfList(std::string_view text) {
  std::vector<int> out;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    std::string_view part = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    const size_t dash = part.find('-');
    auto first = Number(part.substr(0, dash));
    auto last = dash == std::string_view::npos ? first : Number(part.substr(dash + 1));
    if (!first || !last || *last < *first) return std::nullopt;
    for (int cpu = *first; cpu <= *last; ++cpu) out.push_back(cpu);
  }
  if (out.empty()) return std::nullopt;
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string CpuListText(const std::vector<int>& cpus) {
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += j == i ? std::to_string(cpus[i]) : fmt::format("{}-{}", cpus[i], cpus[j]);
    i = j + 1;
  }
  return out;
}

bool Placement::MultiNode() const {
  const int seen = std::max(host_cpus, static_cast<int>(softirqs_per_cpu.size()));
  return !local_cpus.empty() && static_cast<int>(local_cpus.size()) < seen;
}

bool Placement::IsLocal(int cpu) const {
  return std::binary_search(local_cpus.begin(), local_cpus.end(), cpu);
}

Placement PlacementOf(const record::RunRecord& run, const record::EndpointRecord& end) {
  Placement out;
  if (const int* node = end.nic.numa_node.get()) out.numa_node = *node;
  if (const std::string* cpus = end.nic.local_cpus.get()) {
    out.local_cpus = CpusOfList(*cpus).value_or(std::vector<int>());
  }
  for (const record::HostInterval* s : CountedSamples(run, end)) AddSample(*s, out);
  return out;
}

}  // namespace nicbench::analysis
