#include "engine/conversation/client_role.h"

#include <poll.h>

#include <fmt/format.h>

#include "engine/conversation/client_errors.h"
#include "protocol/control_channel.h"

namespace nicbench::engine {

namespace wire = protocol;

Result<MeasureRole::Control> ClientRole::OnControl(MonoTime) {
  auto message =
      ReadServerMessage(run_, run_.config.control_timeout, "a state byte during the test");
  if (!message) return tl::unexpected(message.error());
  if (!message->has_value()) return Control::kContinue;  // a live sample was taken in
  auto state = CheckServerState(run_, **message);
  if (!state) return tl::unexpected(state.error());
  return Fail(ErrorKind::kProtocol,
              "unexpected " + wire::StateName(*state) + " from the server during the test");
}

Status ClientRole::OnStop() {
  (void)wire::SendState(run_.control.get(), wire::State::kClientTerminate);
  return Fail(ErrorKind::kInterrupted, "interrupted");
}

Status ClientRole::OnWake() {
  if (!run_.file || !run_.path->Failed()) return Ok();
  // A server whose file call failed (its disk is full) says why on the control connection
  // before it closes the streams, so our streams' reset is not the cause: its word goes first.
  if (ControlReadable()) {
    auto control = OnControl(run_.clock->Now());
    if (!control) return tl::unexpected(control.error());
  }
  // A -F file call failed (the disk is full, an I/O error): the test cannot go on.
  (void)wire::SendState(run_.control.get(), wire::State::kClientTerminate);
  Status failed = run_.path->Join();
  return Fail(ErrorKind::kData, failed ? Error{"-F: a file call failed"} : failed.error());
}

Status ClientRole::OnStall(std::chrono::milliseconds limit) {
  (void)wire::SendState(run_.control.get(), wire::State::kClientTerminate);
  return Fail(ErrorKind::kData,
              fmt::format("no data moved for {} ms (--rcv-timeout)", limit.count()));
}

void ClientRole::OnClosed(const record::IntervalRecord* closed, const record::HostInterval* sample,
                          bool) {
  if (closed == nullptr) return;
  if (run_.spec.interval.count() > 0) {
    run_.record.spec = run_.spec;
    auto remote = run_.remote_live.find(run_.closed_intervals);
    run_.events->Interval(run_.record, *closed, sample,
                          remote == run_.remote_live.end() ? nullptr : &remote->second);
  }
  run_.remote_live.erase(run_.closed_intervals++);
}

bool ClientRole::ControlReadable() const {
  pollfd p{run_.control.get(), POLLIN, 0};
  return ::poll(&p, 1, 0) == 1 && (p.revents & POLLIN) != 0;
}

}  // namespace nicbench::engine
