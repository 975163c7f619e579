// `monitor --metrics-listen ADDR:PORT` (docs/monitor.md, "Metrics"): an HTTP listener that
// serves only GET /metrics (the Prometheus text exposition of the monitor's metrics) and GET
// /-/healthy, built on cpp-httplib (Debian's libcpp-httplib-dev): no HTTP parsing of our own.
// Requests are bounded: the request line to 1 KiB, each header line to 4 KiB, at most 32
// headers and no body; two worker threads, so at most two requests are served at once (the
// others wait in the accept queue); a client that sends slowly is dropped after 2 s.
//
// Thread safety: Update may be called from any thread while the listener serves.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "base/result.h"
#include "record/monitor.h"

namespace nicbench::cli {

// "ADDR:PORT", "[v6]:PORT" or ":PORT"/"PORT" (localhost); port 0 = one the kernel picks. An
// error naming the option.
struct ListenAddress {
  std::string host = "127.0.0.1";
  int port = 0;
};
Result<ListenAddress> ParseListenAddress(const std::string& text);

class MetricsListener {
 public:
  // Binds now (an error when the port is in use or the address is not this host's) and serves
  // on a thread of its own until destroyed.
  static Result<std::unique_ptr<MetricsListener>> Start(const ListenAddress& where);
  ~MetricsListener();

  int port() const { return port_; }
  void Update(const record::MonitorMetrics& metrics);
  // Serves `exposition` (the Prometheus text of another job: the agent's) from now on.
  void UpdateText(std::string exposition);

 private:
  MetricsListener() = default;
  struct Server;
  std::unique_ptr<Server> server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mutex_;
  std::string exposition_;
};

}  // namespace nicbench::cli
