#include "engine/conversation/record_lifecycle.h"

#include <ctime>

#include "base/version.h"
#include "engine/conversation/peer_results.h"
#include "engine/files/file_io.h"
#include "engine/measure/rr_sampler.h"
#include "net/socket_address.h"

namespace nicbench::engine {
namespace {

std::string Rfc3339(std::time_t t) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

void BeginRecord(record::RunRecord& record, record::Role role,
                 const std::string& remote_unknown_why) {
  record.version = std::string("nicbench ") + kVersion;
  const std::time_t now = std::time(nullptr);
  record.timestamp_secs = now;
  record.timestamp = Rfc3339(now);
  record.local.role = role;
  record.local.software = record.version;
  record.remote = record::Measured<record::EndpointRecord>::Unknown(record::Missing::kNotReported,
                                                                    remote_unknown_why);
}

void AddConnection(record::RunRecord& record, int fd) {
  record::ConnectionInfo info;
  if (auto local = net::SocketAddress::Local(fd)) {
    info.local_host = local->HostString();
    info.local_port = local->port();
  }
  if (auto peer = net::SocketAddress::Peer(fd)) {
    info.remote_host = peer->HostString();
    info.remote_port = peer->port();
  }
  record.connections.push_back(info);
}

void EndData(EndRun& run) {
  run.record.local.intervals = run.record.intervals;
  if (run.file) run.record.local.file = run.file->Record();
  if (run.host) run.host->Finish(run.record.local);
  run.record.rr = SummarizeRr(run.totals, run.record);
}

Status FinishRecord(EndRun& run, const protocol::PeerResults& theirs, bool asked_for_output) {
  auto totals = CombineTotals(run.totals, theirs, run.spec.transport);
  if (!totals) return tl::unexpected(totals.error());
  run.record.streams = std::move(*totals);
  run.record.peer = MakePeerReport(theirs, asked_for_output);
  return Ok();
}

}  // namespace nicbench::engine
