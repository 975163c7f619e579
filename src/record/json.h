// The JSON form of every record type (nlohmann ADL style: `nlohmann::json j = nic_facts;`), so
// one piece of code serves the JSON report (src/report), `nicbench inspect --json`, the store,
// and the protocol extension that carries a server's EndpointRecord to the client.
// Schema: docs/json-schema.md (schema_version 1). Pure functions; thread-safe.
//
// Member names are the C++ field names (units are in the names: rtt_us, speed_mbps, *_seconds).
// Enums are lower-case strings ("tcp", "bidirectional", "warning").
//
// The unknown rule, applied to every Measured<T> member everywhere:
//   known   -> the member holds the plain value:   "speed_mbps": 1000
//   unknown -> the member is null, and the enclosing object has an "unknown" object with one
//              string per unknown member, MissingName() then ": detail" when there is a detail:
//              "speed_mbps": null, "unknown": {"speed_mbps": "permission denied: needs
//              CAP_NET_ADMIN"}
// A script can thus test `x["speed_mbps"] is None` and print `x["unknown"]["speed_mbps"]`.
//
// No NaN or infinity is ever written: a non-finite double becomes null (and is rejected when
// read back, since it can only come from a bug upstream).
//
// Both directions follow one field list per type (record/json_schema.h, which says how to add a
// member), so a member is never written without being read.
//
// Reading: from_json is type-checked member by member (an unsigned field rejects -1 and 1e300, a
// string field rejects 5, arrays and maps are capped at kMaxJsonElements), and signals a bad
// document by throwing (a std::exception). At a trust boundary call it through one of the
// *FromJson functions below, which catch everything and return an Error naming the member path
// ("samples[3].cpus[1].user: expected a finite number"). A Measured member that is absent from
// the document reads as unknown (kNotReported), and a member added after schema 1 shipped keeps
// its default when absent, so an older peer's record still reads; every other member is
// required.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "record/facts.h"
#include "record/host_sample.h"
#include "record/measured.h"
#include "record/run_record.h"
#include "record/test_spec.h"

namespace nicbench::record {

// Version of the JSON schema documented in docs/json-schema.md. Bump on any incompatible change.
inline constexpr int kJsonSchemaVersion = 1;

// Upper bound on the elements of any one array or object read from a document. A 24-hour test
// at 0.1 s intervals has 864,000 samples; more than this is a hostile or broken peer.
inline constexpr size_t kMaxJsonElements = 1u << 20;

// file_record.h: hand-written in json_file.cc (its mode is a name and its rate is derived).
void to_json(nlohmann::json& j, const FileRecord& v);
void from_json(const nlohmann::json& j, FileRecord& v);

// Every record type with a JSON form. Each has one field list (record/json_schema.h) that both
// its to_json and its from_json walk; a new record type is added here and there.
// clang-format off
#define NICBENCH_RECORD_JSON_TYPES(X)                                                             \
  /* facts.h */                                                                                   \
  X(CpuFrequency) X(HostFacts) X(OffloadState) X(RingSizes) X(ChannelCounts) X(Coalescing)       \
  X(PauseSettings)                                                                                \
  X(IrqVector) X(Qdisc) X(PciLink) X(PciLinkState) X(PciInterruptCap) X(PciIdentity) X(NicFacts)  \
  /* host_sample.h */                                                                             \
  X(CpuShare) X(IrqRate) X(SoftnetDelta) X(ProcessUsage) X(RunQueueDelay) X(HostInterval)         \
  X(QueueSample)                                                                                  \
  /* run_record.h; RunRecord is the whole record in field-name form (for the store; the           \
     iperf3-shaped report is report::RenderJson) */                                               \
  X(LatencyBucket) X(LatencySummary) X(RrStats) X(ClockOffset) X(RrSummary) X(ProbePhase)          \
  X(UnderLoad)                                                                                    \
  X(TcpInfoSample) X(StreamInterval) X(IntervalRecord) X(StreamTotals) X(CpuUtilization)          \
  X(EndpointRecord) X(Finding) X(PeerReport) X(ConnectionInfo) X(RunRecord)                       \
  /* test_spec.h: durations are integer milliseconds (duration_ms, omit_ms, interval_ms);         \
     reading does not Validate(), the caller does, with its own limits */                         \
  X(TestSpec)
// clang-format on

// The macro's T is a type name, which cannot be parenthesized.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define NICBENCH_RECORD_JSON_DECLARE(T)        \
  void to_json(nlohmann::json& j, const T& v); \
  void from_json(const nlohmann::json& j, T& v);
// NOLINTEND(bugprone-macro-parentheses)
NICBENCH_RECORD_JSON_TYPES(NICBENCH_RECORD_JSON_DECLARE)
#undef NICBENCH_RECORD_JSON_DECLARE

// Enum names as written in JSON.
const char* SeverityName(Severity s);    // "info", "notice", "warning", "critical"
const char* DirectionName(Direction d);  // "forward", "reverse", "bidirectional"
const char* RoleName(Role r);            // "client", "server"
const char* MissingToken(Missing why);   // same text as MissingName()

// The reason string of the unknown rule: "permission denied: needs CAP_NET_ADMIN".
std::string UnknownReason(Missing why, std::string_view detail);
// Its inverse: the kind and the detail of a reason string; a reason in words this nicbench does
// not know (a newer peer's) is kError with the whole text as detail.
std::pair<Missing, std::string> ParseUnknownReason(std::string_view text);

// Trust-boundary readers: never throw; a bad document gives an Error naming the member path.
Result<EndpointRecord> EndpointFromJson(const nlohmann::json& j);
Result<RunRecord> RunRecordFromJson(const nlohmann::json& j);
Result<NicFacts> NicFactsFromJson(const nlohmann::json& j);
Result<HostInterval> HostIntervalFromJson(const nlohmann::json& j);

}  // namespace nicbench::record
