// The metrics listener of a static nicbench: Debian's cpp-httplib is a shared library only, so
// a static binary has no HTTP server (docs/monitor.md); --metrics-listen is refused at start.
#include "cli/metrics_listener.h"

namespace nicbench::cli {

struct MetricsListener::Server {};

Result<std::unique_ptr<MetricsListener>> MetricsListener::Start(const ListenAddress&) {
  return Fail(ErrorKind::kOther,
              "--metrics-listen: this static nicbench was built without the metrics listener "
              "(Debian's cpp-httplib is a shared library only); use the dynamic build");
}

MetricsListener::~MetricsListener() = default;

}  // namespace nicbench::cli
