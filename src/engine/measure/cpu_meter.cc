#include "engine/measure/cpu_meter.h"

#include <sys/resource.h>

#include <algorithm>
#include <string>

namespace nicbench::engine {

namespace {

double TimevalSeconds(const timeval& tv) { return tv.tv_sec + tv.tv_usec / 1e6; }

}  // namespace

std::pair<double, double> CpuMeter::Now() const {
  if (threads_ != nullptr) {
    probes::DirFileSource live;
    std::string buffer;
    if (auto times = threads_->Read(live, buffer)) return probes::SumUserSystem(*times);
  }
  rusage now{};
  getrusage(RUSAGE_SELF, &now);
  return {TimevalSeconds(now.ru_utime), TimevalSeconds(now.ru_stime)};
}

void CpuMeter::Start(const probes::OwnThreads* threads) {
  threads_ = threads;
  start_wall_ = SteadyClock::Instance().Now();
  start_ = Now();
}

record::CpuUtilization CpuMeter::Read() const {
  const auto [user_now, system_now] = Now();
  const double wall = Seconds(SteadyClock::Instance().Now() - start_wall_).count();
  record::CpuUtilization cpu;
  if (wall <= 0) return cpu;
  const double user = std::max(0.0, user_now - start_.first);
  const double system = std::max(0.0, system_now - start_.second);
  cpu.user_percent = 100.0 * user / wall;
  cpu.system_percent = 100.0 * system / wall;
  cpu.total_percent = cpu.user_percent + cpu.system_percent;
  return cpu;
}

}  // namespace nicbench::engine
