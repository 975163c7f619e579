#include "job/run_job.h"

#include <memory>
#include <utility>

#include "diagnosis/diagnose.h"
#include "job/loopback_server.h"
#include "stand/stand.h"

namespace nicbench::job {
namespace {

// A test that runs across a `nicbench stand` link names the stand's profile in its record, so a
// reader sees the link limit beside the shaping fact of the interface. Only interfaces a stand
// made can match, so this never runs a command for an ordinary interface.
void NameStandProfile(record::RunRecord& run) {
  const std::string& iface = run.local.nic.interface;
  // Stand host devices are named "<stand>-h<N>-e0" (stand::HostDevice).
  const bool stand_like =
      iface.size() > 3 && iface.ends_with("-e0") && iface.find("-h") != std::string::npos;
  if (run.local.nic.loopback || !stand_like) return;
  auto stands = stand::List();
  if (!stands) return;
  for (const stand::StandInfo& info : *stands) {
    for (const stand::HostInfo& host : info.hosts) {
      if (host.interface != iface) continue;
      run.stand_profile = std::string(stand::ProfileName(info.spec.profile));
      if (run.label.empty()) run.label = "stand " + info.spec.name + " host " + host.host;
      return;
    }
  }
}

// A stock iperf3 peer sends no EndpointRecord: the capture's stands in for it. Its one sample
// was taken on the far end's clock while the test ran; it is placed after the warm-up so it
// counts (analysis::CountedSamples). A nicbench peer's own record is kept.
void AttachRemoteFacts(const RunJobSpec& spec, record::RunRecord& run) {
  if (!spec.remote_facts || run.remote.known()) return;
  record::EndpointRecord end = spec.remote_facts->end;
  end.role = record::Role::kServer;
  end.software = "iperf3 (facts from a nicbench collect capture)";
  const double omit = std::chrono::duration<double>(run.spec.omit).count();
  for (record::HostInterval& sample : end.samples) {
    sample.start += omit;
    sample.end += omit;
  }
  run.remote = std::move(end);
}

// One test of the job, told to `events` from its start to its diagnosis.
engine::ClientOutcome RunTest(const RunJobSpec& spec, const engine::ClientConfig& test,
                              RunJobEvents& events) {
  events.TestStarting(test);
  engine::ClientOutcome outcome = spec.under_load ? RunUnderLoad(test, *spec.under_load, events)
                                                  : engine::RunClient(test, events);
  NameStandProfile(outcome.record);
  AttachRemoteFacts(spec, outcome.record);
  if (outcome.ok()) outcome.record.findings = diagnosis::Diagnose(outcome.record);
  events.TestEnded(outcome);
  return outcome;
}

// Forward then reverse against `client`'s server, stopping after a direction that failed; when
// both finished, the pair's rows and findings.
void RunBothDirections(const RunJobSpec& spec, engine::ClientConfig client, RunJobResult& result,
                       RunJobEvents& events) {
  for (const record::Direction direction :
       {record::Direction::kForward, record::Direction::kReverse}) {
    client.spec.direction = direction;
    result.runs.push_back(RunTest(spec, client, events));
    if (!result.runs.back().ok()) return;
  }
  record::RunRecord& forward = result.runs[0].record;
  record::RunRecord& reverse = result.runs[1].record;
  DirectionPair pair;
  pair.findings = diagnosis::DiagnosePair(forward, reverse);
  pair.rows = analysis::CompareDirections(forward, reverse);
  events.PairEnded(pair);
  // The record keeps the pair's findings too (the store and -J's second document carry them).
  diagnosis::AddFindings(reverse.findings, pair.findings);
  result.pair = std::move(pair);
}

// Stores the kept runs in order, each in its own transaction, until one fails.
void StoreKept(const StoreTarget& target, RunJobResult& result) {
  std::unique_ptr<store::Store> opened;
  for (const engine::ClientOutcome& outcome : result.runs) {
    if (!Kept(outcome)) continue;
    if (!opened) {
      auto store = store::OpenStore(target.location, store::OpenMode::kCreate, target.busy_timeout);
      if (!store) {
        result.store_error = store.error();
        return;
      }
      opened = std::move(*store);
    }
    auto id = opened->Put(outcome.record, target.labels);
    if (!id) {
      result.store_error = id.error();
      return;
    }
    result.stored.push_back({*id, opened->Describe(), outcome.record.incomplete});
  }
}

}  // namespace

bool Kept(const engine::ClientOutcome& outcome) {
  if (outcome.ok()) return true;
  return outcome.status.error().kind == ErrorKind::kInterrupted && outcome.record.incomplete;
}

Result<RunJobResult> RunJob(const RunJobSpec& spec, RunJobEvents& events) {
  RunJobResult result;
  if (spec.loopback) {
    auto server = LoopbackServer::Start();
    if (!server) {
      return Fail("cannot start the loopback server: " + server.error().ToString());
    }
    engine::ClientConfig client = spec.client;
    client.host = (*server)->host();
    client.port = (*server)->port();
    RunBothDirections(spec, std::move(client), result, events);
  } else if (spec.both_directions) {
    RunBothDirections(spec, spec.client, result, events);
  } else {
    result.runs.push_back(RunTest(spec, spec.client, events));
  }
  if (spec.store) StoreKept(*spec.store, result);
  return result;
}

Result<RunJobResult> RunJob(const RunJobSpec& spec) {
  RunJobEvents none;
  return RunJob(spec, none);
}

}  // namespace nicbench::job
