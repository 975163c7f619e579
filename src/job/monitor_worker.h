// The monitor's second thread: the periodic tests on their schedule and the latency probes
// between them, each outcome posted to the main thread's mailbox. Internal to the job layer.
// Thread safety: Mailbox is thread-safe; a Worker belongs to its thread.
#pragma once

#include <chrono>
#include <mutex>
#include <string>
#include <vector>

#include "engine/client.h"
#include "job/monitor.h"
#include "job/monitor_rules.h"

namespace nicbench::job {

// What the worker saw, for the main thread to judge.
struct Observation {
  enum class Kind { kTest, kProbe, kProbeInterval, kPeer } kind = Kind::kPeer;
  engine::ClientOutcome test;
  ProbeWindow probe;
  ProbeInterval live;   // kProbeInterval: an interval of the window in progress
  bool reached = true;  // kPeer
  std::string why;      // kPeer, unreached
  double at_unix = 0;
};

// Observations handed from the worker to the main thread; `fd()` (an eventfd) is readable while
// some wait.
class Mailbox {
 public:
  Mailbox();
  ~Mailbox();
  Mailbox(const Mailbox&) = delete;
  Mailbox& operator=(const Mailbox&) = delete;
  int fd() const { return fd_; }
  void Post(Observation o);
  std::vector<Observation> Take();

 private:
  int fd_;
  std::mutex mutex_;
  std::vector<Observation> items_;
};

class Worker {
 public:
  // `stop_fd` readable: the current test or probe ends and Run returns.
  Worker(const MonitorSpec& spec, Mailbox& box, int stop_fd)
      : spec_(spec), box_(box), stop_fd_(stop_fd), stock_(spec.stock_peer) {}
  void Run();

 private:
  bool RunTests();                               // false: the peer was not reached
  bool Probe(std::chrono::milliseconds window);  // the same
  bool RequestResponse(std::chrono::milliseconds window);
  bool ConnectTimes(std::chrono::milliseconds window);
  bool Reached(const engine::ClientOutcome& o);
  bool Wait(std::chrono::milliseconds d) const;  // false: stopped
  std::string PeerText() const;                  // "nas.example port 5201", for the log

  const MonitorSpec& spec_;
  Mailbox& box_;
  int stop_fd_;
  bool stock_ = false;  // the peer answers no request/response probes (a stock iperf3)
  bool unreached_ = false;
  std::string why_;  // the latest failure to reach the peer
};

double UnixNow();

}  // namespace nicbench::job
