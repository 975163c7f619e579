// The server's part in the measuring loop (measure_loop.h): the client ends the test (TEST_END;
// anything else fails it), a stall or the safety timer is told to the client with SERVER_ERROR,
// the total rate is checked at each boundary, and each interval's host sample goes to the
// client as it closes when asked for (the last travels with the results: the client may have
// stopped reading by then). What it tells the client goes through a ServerTeller (the session,
// or a fake in a unit test), so the role runs on a FakeClock with a socketpair for control.
//
// Thread safety: the session's controller thread, as the loop.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/conversation/total_rate_check.h"
#include "engine/measure/measure_loop.h"

namespace nicbench::engine {

// What the server role says to the client, through the session that owns the connection.
class ServerTeller {
 public:
  virtual ~ServerTeller() = default;
  // SERVER_ERROR with iperf3's code.
  virtual void TellError(int i_errno, int sys_errno) = 0;
  // SERVER_ERROR with the code and, to a nicbench client, `why`; returns `why` as the failure.
  virtual Status Refuse(int i_errno, const std::string& why) = 0;
  // The host sample of the interval that just closed, when the client asked for live samples.
  virtual void SendLiveSample() = 0;
};

struct ServerRoleConfig {
  int control_fd = -1;  // the test's control connection (not owned)
  std::chrono::milliseconds control_timeout{0};
  uint64_t total_rate_limit_bits_per_second = 0;  // 0 = none
  std::chrono::seconds total_rate_window{10};
};

class ServerRole final : public MeasureRole {
 public:
  // REQUIRES: `run` and `teller` outlive the role.
  ServerRole(EndRun& run, const ServerRoleConfig& config, ServerTeller& teller)
      : run_(run),
        config_(config),
        teller_(teller),
        rate_check_(config.total_rate_limit_bits_per_second, config.total_rate_window) {}

  Result<Control> OnControl(MonoTime now) override;
  Status OnStop() override;
  Status OnWake() override;
  Status OnStall(std::chrono::milliseconds limit) override;
  Status OnGiveUp() override;
  Status AtBoundary(MonoTime t, const std::vector<FlowCounters>& counters) override;
  void OnClosed(const record::IntervalRecord* closed, const record::HostInterval* sample,
                bool last) override;

 private:
  EndRun& run_;
  ServerRoleConfig config_;
  ServerTeller& teller_;
  TotalRateCheck rate_check_;
};

}  // namespace nicbench::engine
