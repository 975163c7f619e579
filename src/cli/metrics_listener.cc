#include "cli/metrics_listener.h"

#include <fmt/format.h>

#include "base/units.h"
#include "report/monitor_report.h"

namespace nicbench::cli {

Result<ListenAddress> ParseListenAddress(const std::string& text) {
  ListenAddress where;
  std::string port = text;
  const size_t colon = text.rfind(':');
  if (colon != std::string::npos) {
    std::string host = text.substr(0, colon);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
      host = host.substr(1, host.size() - 2);
    }
    if (!host.empty()) where.host = host;
    port = text.substr(colon + 1);
  }
  auto p = ParseUnsigned(port);
  if (!p || *p > 65535) {
    return Fail(fmt::format("--metrics-listen {}: expected ADDR:PORT with a port 0..65535", text));
  }
  where.port = static_cast<int>(*p);
  return where;
}

void MetricsListener::Update(const record::MonitorMetrics& metrics) {
  UpdateText(report::RenderPrometheus(metrics));
}

void MetricsListener::UpdateText(std::string exposition) {
  std::lock_guard<std::mutex> lock(mutex_);
  exposition_ = std::move(exposition);
}

}  // namespace nicbench::cli
