// The client's part in the measuring loop (measure_loop.h): the server may send live samples
// (anything else ends the test), a stall or a stop is told to the server with CLIENT_TERMINATE,
// and each interval that closes is told to the events with the server's sample of it when that came
// in time. It reads and writes the run's control connection and reads the run's clock, so a
// unit test drives it with a socketpair on a FakeClock.
//
// Thread safety: the thread that runs RunClient, as the loop.
#pragma once

#include <chrono>

#include "engine/conversation/client_run.h"

namespace nicbench::engine {

class ClientRole final : public MeasureRole {
 public:
  // REQUIRES: `run` outlives the role; run.events is set.
  explicit ClientRole(ClientRun& run) : run_(run) {}

  Result<Control> OnControl(MonoTime now) override;
  Status OnStop() override;
  Status OnWake() override;
  Status OnStall(std::chrono::milliseconds limit) override;
  void OnClosed(const record::IntervalRecord* closed, const record::HostInterval* sample,
                bool last) override;

 private:
  bool ControlReadable() const;

  ClientRun& run_;
};

}  // namespace nicbench::engine
