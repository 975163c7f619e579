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
//              "speed_mbps": null, "unknown": {"speed_mbps": "permission denied: needs CAP_NET_ADMIN"}
// A script can thus test `x["speed_mbps"] is None` and print `x["unknown"]["speed_mbps"]`.
//
// No NaN or infinity is ever written: a non-finite double becomes null (and is rejected when
// read back, since it can only come from a bug upstream).
//
// Reading: from_json is type-checked member by member (an unsigned field rejects -1 and 1e300, a
// string field rejects 5, arrays and maps are capped at kMaxJsonElements), and signals a bad
// document by throwing (a std::exception). At a trust boundary call it through one of the
// *FromJson functions below, which catch everything and return an Error naming the member path
// ("samples[3].cpus[1].user: expected a finite number"). A Measured member that is absent from
// the document reads as unknown (kNotReported), so an older peer's record still reads; every
// other member is required.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

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

// file_record.h (json_file.cc)
void to_json(nlohmann::json& j, const FileRecord& v);
void from_json(const nlohmann::json& j, FileRecord& v);

// facts.h
void to_json(nlohmann::json& j, const HostFacts& v);
void from_json(const nlohmann::json& j, HostFacts& v);
void to_json(nlohmann::json& j, const OffloadState& v);
void from_json(const nlohmann::json& j, OffloadState& v);
void to_json(nlohmann::json& j, const RingSizes& v);
void from_json(const nlohmann::json& j, RingSizes& v);
void to_json(nlohmann::json& j, const ChannelCounts& v);
void from_json(const nlohmann::json& j, ChannelCounts& v);
void to_json(nlohmann::json& j, const Coalescing& v);
void from_json(const nlohmann::json& j, Coalescing& v);
void to_json(nlohmann::json& j, const IrqVector& v);
void from_json(const nlohmann::json& j, IrqVector& v);
void to_json(nlohmann::json& j, const Qdisc& v);
void from_json(const nlohmann::json& j, Qdisc& v);
void to_json(nlohmann::json& j, const PciLink& v);
void from_json(const nlohmann::json& j, PciLink& v);
void to_json(nlohmann::json& j, const PciLinkState& v);
void from_json(const nlohmann::json& j, PciLinkState& v);
void to_json(nlohmann::json& j, const PciInterruptCap& v);
void from_json(const nlohmann::json& j, PciInterruptCap& v);
void to_json(nlohmann::json& j, const PciIdentity& v);
void from_json(const nlohmann::json& j, PciIdentity& v);
void to_json(nlohmann::json& j, const NicFacts& v);
void from_json(const nlohmann::json& j, NicFacts& v);

// host_sample.h
void to_json(nlohmann::json& j, const CpuShare& v);
void from_json(const nlohmann::json& j, CpuShare& v);
void to_json(nlohmann::json& j, const IrqRate& v);
void from_json(const nlohmann::json& j, IrqRate& v);
void to_json(nlohmann::json& j, const SoftnetDelta& v);
void from_json(const nlohmann::json& j, SoftnetDelta& v);
void to_json(nlohmann::json& j, const ProcessUsage& v);
void from_json(const nlohmann::json& j, ProcessUsage& v);
void to_json(nlohmann::json& j, const HostInterval& v);
void from_json(const nlohmann::json& j, HostInterval& v);

// run_record.h
void to_json(nlohmann::json& j, const TcpInfoSample& v);
void from_json(const nlohmann::json& j, TcpInfoSample& v);
void to_json(nlohmann::json& j, const StreamInterval& v);
void from_json(const nlohmann::json& j, StreamInterval& v);
void to_json(nlohmann::json& j, const IntervalRecord& v);
void from_json(const nlohmann::json& j, IntervalRecord& v);
void to_json(nlohmann::json& j, const StreamTotals& v);
void from_json(const nlohmann::json& j, StreamTotals& v);
void to_json(nlohmann::json& j, const CpuUtilization& v);
void from_json(const nlohmann::json& j, CpuUtilization& v);
void to_json(nlohmann::json& j, const EndpointRecord& v);
void from_json(const nlohmann::json& j, EndpointRecord& v);
void to_json(nlohmann::json& j, const Finding& v);
void from_json(const nlohmann::json& j, Finding& v);
void to_json(nlohmann::json& j, const PeerReport& v);
void from_json(const nlohmann::json& j, PeerReport& v);
void to_json(nlohmann::json& j, const ConnectionInfo& v);
void from_json(const nlohmann::json& j, ConnectionInfo& v);
// The whole record in field-name form (for the store; the iperf3-shaped report is
// report::RenderJson).
void to_json(nlohmann::json& j, const RunRecord& v);
void from_json(const nlohmann::json& j, RunRecord& v);

// test_spec.h. Durations are integer milliseconds (duration_ms, omit_ms, interval_ms). Reading
// does not Validate(); the caller does, with its own limits.
void to_json(nlohmann::json& j, const TestSpec& v);
void from_json(const nlohmann::json& j, TestSpec& v);

// Enum names as written in JSON.
const char* SeverityName(Severity s);         // "info", "notice", "warning", "critical"
const char* DirectionName(Direction d);       // "forward", "reverse", "bidirectional"
const char* MissingToken(Missing why);        // same text as MissingName()

// The reason string of the unknown rule: "permission denied: needs CAP_NET_ADMIN".
std::string UnknownReason(Missing why, std::string_view detail);

// Writes a Measured member under the unknown rule (see top of file).
template <typename T>
void PutMeasured(nlohmann::json& obj, const char* key, const Measured<T>& m) {
  if (m.known()) {
    obj[key] = m.value();
  } else {
    obj[key] = nullptr;
    obj["unknown"][key] = UnknownReason(m.why(), m.detail());
  }
}

// Trust-boundary readers: never throw; a bad document gives an Error naming the member path.
Result<EndpointRecord> EndpointFromJson(const nlohmann::json& j);
Result<RunRecord> RunRecordFromJson(const nlohmann::json& j);
Result<NicFacts> NicFactsFromJson(const nlohmann::json& j);
Result<HostInterval> HostIntervalFromJson(const nlohmann::json& j);

}  // namespace nicbench::record
