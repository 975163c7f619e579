// Plain HTTP from tests to the servers they start on 127.0.0.1: the metrics listeners of the
// monitor and the agent, and a real Prometheus server (RealPrometheus) scraping them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "support/run_binary.h"

namespace nicbench::testing {

// GET `path` from 127.0.0.1:port over HTTP/1.0 (the server closes after the answer): the whole
// answer, status line included; "" when nothing answers.
std::string HttpGet(int port, const std::string& path, const std::string& method = "GET");

// The body of an HTTP answer, "" without one.
std::string Body(const std::string& answer);

// The port in "metrics on http://127.0.0.1:PORT/metrics" on a process's stderr, 0 when it
// never says so.
int MetricsPort(BackgroundProcess& process);

// `text` with every byte but unreserved ones percent-encoded, for a URL's query.
std::string UrlEncoded(const std::string& text);

// Debian's `prometheus` scraping `targets` (127.0.0.1 ports) every second, its data and config
// in `dir`, its web API on a free port. Stopped when destroyed.
class RealPrometheus {
 public:
  RealPrometheus(const std::string& dir, const std::vector<int>& targets);
  ~RealPrometheus();
  bool Listening() const { return listening_; }
  // The query API's JSON body for the PromQL `query`, "" when nothing answered.
  std::string Query(const std::string& query) const;
  std::string StderrSoFar() { return process_->StderrSoFar(); }

 private:
  int web_ = 0;
  bool listening_ = false;
  std::unique_ptr<BackgroundProcess> process_;
};

}  // namespace nicbench::testing
