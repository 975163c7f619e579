#include "engine/conversation/server_role.h"

#include <cerrno>

#include <fmt/format.h>

#include "protocol/control_channel.h"
#include "protocol/wire.h"

namespace nicbench::engine {

namespace wire = protocol;

Result<MeasureRole::Control> ServerRole::OnControl(MonoTime) {
  auto state =
      wire::ReadState(config_.control_fd, config_.control_timeout, "a state byte during the test");
  if (!state) return Fail("the client has unexpectedly closed the connection");
  if (*state != wire::State::kTestEnd) {
    return Fail(*state == wire::State::kClientTerminate
                    ? "the client has terminated"
                    : "unexpected " + wire::StateName(*state) + " during the test");
  }
  return Control::kPeerEnded;
}

Status ServerRole::OnStop() { return Fail("server stopping: test terminated"); }

Status ServerRole::OnWake() {
  if (!run_.file || !run_.path->Failed()) return Ok();
  // A -F file call failed (the disk is full, an I/O error): the test cannot go on.
  Status failed = run_.path->Join();
  return teller_.Refuse(wire::iperf_errno::kFile,
                        failed ? std::string("-F: a file call failed") : failed.error().ToString());
}

Status ServerRole::OnStall(std::chrono::milliseconds limit) {
  // What iperf3 sends when its --rcv-timeout fires: "idle timeout for receiving data".
  teller_.TellError(wire::iperf_errno::kNoMsg, 0);
  return Fail(fmt::format("no data moved for {} ms (--rcv-timeout)", limit.count()));
}

Status ServerRole::OnGiveUp() {
  // iperf3 has no error for it; the nearest a stock client prints is "the server has
  // terminated" (IESERVERTERM), with ETIMEDOUT for a nicbench client's message.
  teller_.TellError(wire::iperf_errno::kServerTerm, ETIMEDOUT);
  return Fail("safety timer: the client never ended the test");
}

Status ServerRole::AtBoundary(MonoTime t, const std::vector<FlowCounters>& counters) {
  if (auto over = rate_check_.Exceeded(t, counters)) {
    return teller_.Refuse(wire::iperf_errno::kTotalRate, *over);
  }
  return Ok();
}

void ServerRole::OnClosed(const record::IntervalRecord* closed, const record::HostInterval*,
                          bool last) {
  if (closed != nullptr && !last) teller_.SendLiveSample();
}

}  // namespace nicbench::engine
