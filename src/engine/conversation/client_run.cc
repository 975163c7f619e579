#include "engine/conversation/client_run.h"

#include <algorithm>

#include <fmt/format.h>

#include "base/log.h"
#include "engine/conversation/client_errors.h"
#include "protocol/control_channel.h"
#include "record/json.h"

namespace nicbench::engine {
namespace {

using std::chrono::milliseconds;
namespace wire = protocol;

// A live sample is a few KiB; the server is at most an interval or two ahead of us. Beyond
// these a sample is dropped (with one warning), so a server cannot make us grow.
constexpr size_t kMaxLiveSampleBytes = 1 << 20;
constexpr size_t kMaxLiveSamplesAhead = 16;
constexpr int kLiveSamplesSlack = 8;

// More live samples than intervals could have closed by now (plus slack), or too many waiting
// for ours: the server is flooding; drop.
bool TooManyLiveSamples(const ClientRun& run, int k) {
  if (run.remote_live.size() >= kMaxLiveSamplesAhead && k >= run.closed_intervals) return true;
  if (run.spec.interval.count() <= 0) return true;
  const auto elapsed = run.clock->Now() - run.data_start;
  const auto possible = elapsed / run.spec.interval + kLiveSamplesSlack;
  return run.live_taken > possible;
}

// A live sample from the server, after its state byte: kept until our interval of the same
// index closes, or shown at once if that has happened already.
Status ReadLiveSample(ClientRun& run, milliseconds timeout) {
  auto doc = wire::ReadJson(run.control.get(), timeout, kMaxLiveSampleBytes, "a live sample");
  if (!doc) return Fail(ErrorKind::kProtocol, doc.error());
  const auto index = doc->find("index");
  const auto sample = doc->find("sample");
  if (index == doc->end() || !index->is_number_unsigned() || sample == doc->end()) {
    return Fail(ErrorKind::kProtocol, "live sample: expected {index, sample}");
  }
  auto decoded = record::HostIntervalFromJson(*sample);
  if (!decoded) return Fail(ErrorKind::kProtocol, "live sample: " + decoded.error().message);
  const int k = static_cast<int>(std::min<uint64_t>(index->get<uint64_t>(), 1u << 30));
  ++run.live_taken;
  if (TooManyLiveSamples(run, k)) {
    if (!run.live_warned) {
      LogWarning(
          "the server sends more live samples than the test has intervals; dropping "
          "the excess");
      run.live_warned = true;
    }
    return Ok();
  }
  if (k < run.closed_intervals) {
    run.events->LateRemoteSample(run.record, *decoded);
  } else {
    run.remote_live[k] = std::move(*decoded);
  }
  return Ok();
}

}  // namespace

milliseconds Left(const ClientRun& run, MonoTime deadline) {
  return std::max(milliseconds(0),
                  std::chrono::duration_cast<milliseconds>(deadline - run.clock->Now()));
}

Result<std::optional<wire::State>> ReadServerMessage(ClientRun& run, milliseconds timeout,
                                                     std::string_view what) {
  auto state = wire::ReadState(run.control.get(), timeout, what);
  if (!state) return Fail(ErrorKind::kProtocol, state.error());
  if (*state == wire::State::kNicbenchSample && run.config.live_samples) {
    if (auto s = ReadLiveSample(run, timeout); !s) return tl::unexpected(s.error());
    return std::optional<wire::State>{};
  }
  return std::optional<wire::State>{*state};
}

Result<wire::State> CheckServerState(ClientRun& run, wire::State state) {
  if (state == wire::State::kAccessDenied) {
    return Fail(ErrorKind::kBusy, "the server is busy running a test. try again later");
  }
  if (state == wire::State::kServerError) {
    auto info = wire::ReadServerErrorTail(run.control.get(), run.config.control_timeout);
    if (!info) {
      return Fail(ErrorKind::kPeerError,
                  "the server reported an error: " + info.error().ToString());
    }
    // A nicbench server says why in words after the code; a stock one closes the connection.
    auto words = wire::ReadJson(run.control.get(), std::chrono::seconds(1), size_t{64} * 1024,
                                "the server's error text");
    if (words && words->is_object() && words->contains("error") && (*words)["error"].is_string()) {
      return Fail(ErrorKind::kPeerError, "the server: " + (*words)["error"].get<std::string>());
    }
    return Fail(ErrorKind::kPeerError, "the server reported an error: " + info->Text());
  }
  if (state == wire::State::kServerTerminate) {
    return Fail(ErrorKind::kProtocol, "the server has terminated");
  }
  return state;
}

Result<wire::State> ReadServerState(ClientRun& run, milliseconds timeout, std::string_view what) {
  const MonoTime deadline = run.clock->Now() + timeout;
  Result<std::optional<wire::State>> message = std::optional<wire::State>{};
  while (message && !message->has_value()) {
    // Checked here too: a read with no time left still succeeds while data keeps coming.
    if (run.clock->Now() >= deadline) {
      return Fail(ErrorKind::kProtocol,
                  fmt::format("{}: timed out after {} ms (the server kept sending other "
                              "messages)",
                              what, timeout.count()));
    }
    message = ReadServerMessage(run, Left(run, deadline), what);
  }
  if (!message) return tl::unexpected(message.error());
  return CheckServerState(run, **message);
}

Status CheckExpected(const Result<wire::State>& state, wire::State want) {
  if (!state) return tl::unexpected(state.error());
  if (*state != want) {
    return Fail(ErrorKind::kProtocol, fmt::format("expected {} from the server, got {}",
                                                  wire::StateName(want), wire::StateName(*state)));
  }
  return Ok();
}

Status Expect(ClientRun& run, wire::State want, milliseconds timeout) {
  return CheckExpected(
      ReadServerState(run, timeout, "a state byte before " + wire::StateName(want)), want);
}

}  // namespace nicbench::engine
