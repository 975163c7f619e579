// JSON form of the run record types (run_record.h), the unknown rule's reason strings, and the
// trust-boundary readers. Host and NIC types are in json_host.cc.
#include "record/json.h"

#include <string>
#include <utility>

#include "record/json_internal.h"
#include "record/json_rr.h"

namespace nicbench::record {

using json_detail::EnumField;
using json_detail::EnumName;
using json_detail::Field;
using json_detail::LaterField;
using json_detail::MeasuredField;
using json_detail::NameOf;
using json_detail::Num;
using json_detail::OptionalStringField;
using json_detail::RequireObject;
using json_detail::ShapeError;
using nlohmann::json;

namespace {

constexpr Missing kAllMissing[] = {Missing::kNotSupported, Missing::kPermissionDenied,
                                   Missing::kAbsent, Missing::kNotReported, Missing::kError};

constexpr EnumName<Severity> kSeverities[] = {{Severity::kInfo, "info"},
                                              {Severity::kNotice, "notice"},
                                              {Severity::kWarning, "warning"},
                                              {Severity::kCritical, "critical"}};

}  // namespace

const char* SeverityName(Severity s) { return NameOf(kSeverities, s); }

const char* MissingToken(Missing why) { return MissingName(why); }

std::string UnknownReason(Missing why, std::string_view detail) {
  std::string text = MissingName(why);
  if (!detail.empty()) {
    text += ": ";
    text += detail;
  }
  return text;
}

namespace json_detail {

std::pair<Missing, std::string> ReadUnknownReason(const json& obj, const char* key) {
  const auto unknown = obj.find("unknown");
  if (unknown == obj.end()) return {Missing::kNotReported, "no reason given"};
  if (!unknown->is_object()) throw ShapeError("unknown", "expected an object");
  const auto reason = unknown->find(key);
  if (reason == unknown->end()) return {Missing::kNotReported, "no reason given"};
  if (!reason->is_string()) throw ShapeError(std::string("unknown.") + key, "expected a string");
  const std::string& text = reason->get_ref<const std::string&>();
  for (Missing why : kAllMissing) {
    const std::string_view name = MissingName(why);
    if (text == name) return {why, {}};
    if (text.size() > name.size() + 2 && text.compare(0, name.size(), name) == 0 &&
        text.compare(name.size(), 2, ": ") == 0) {
      return {why, text.substr(name.size() + 2)};
    }
  }
  // A reason we do not recognise (a newer peer's wording) is still a reason: keep its text.
  return {Missing::kError, text};
}

void OptionalStringField(const json& obj, const char* key, std::optional<std::string>& out) {
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) {
    out.reset();
    return;
  }
  std::string value;
  Field(obj, key, value);
  out = std::move(value);
}

}  // namespace json_detail

void to_json(json& j, const TcpInfoSample& v) {
  j = json{{"rtt_us", v.rtt_us},
           {"rttvar_us", v.rttvar_us},
           {"snd_cwnd", v.snd_cwnd},
           {"snd_mss", v.snd_mss},
           {"pmtu", v.pmtu},
           {"total_retrans", v.total_retrans},
           {"pacing_rate_bytes_per_second", v.pacing_rate_bytes_per_second},
           {"delivery_rate_bytes_per_second", v.delivery_rate_bytes_per_second},
           {"busy_time_us", v.busy_time_us},
           {"rwnd_limited_us", v.rwnd_limited_us},
           {"sndbuf_limited_us", v.sndbuf_limited_us},
           {"snd_wnd", v.snd_wnd},
           {"reordering", v.reordering},
           {"reord_seen", v.reord_seen},
           {"dsack_dups", v.dsack_dups}};
}

void from_json(const json& j, TcpInfoSample& v) {
  RequireObject(j);
  Field(j, "rtt_us", v.rtt_us);
  Field(j, "rttvar_us", v.rttvar_us);
  Field(j, "snd_cwnd", v.snd_cwnd);
  Field(j, "snd_mss", v.snd_mss);
  Field(j, "pmtu", v.pmtu);
  Field(j, "total_retrans", v.total_retrans);
  Field(j, "pacing_rate_bytes_per_second", v.pacing_rate_bytes_per_second);
  Field(j, "delivery_rate_bytes_per_second", v.delivery_rate_bytes_per_second);
  Field(j, "busy_time_us", v.busy_time_us);
  Field(j, "rwnd_limited_us", v.rwnd_limited_us);
  Field(j, "sndbuf_limited_us", v.sndbuf_limited_us);
  Field(j, "snd_wnd", v.snd_wnd);
  LaterField(j, "reordering", v.reordering);
  LaterField(j, "reord_seen", v.reord_seen);
  LaterField(j, "dsack_dups", v.dsack_dups);
}

void to_json(json& j, const StreamInterval& v) {
  j = json{{"id", v.id},
           {"sender", v.sender},
           {"start", Num(v.start)},
           {"end", Num(v.end)},
           {"bytes", v.bytes},
           {"omitted", v.omitted},
           {"retransmits", v.retransmits},
           {"packets", v.packets},
           {"lost", v.lost},
           {"out_of_order", v.out_of_order},
           {"jitter_seconds", Num(v.jitter_seconds)}};
  PutMeasured(j, "tcp_info", v.tcp_info);
  if (v.transactions != 0) j["transactions"] = v.transactions;
}

void from_json(const json& j, StreamInterval& v) {
  RequireObject(j);
  Field(j, "id", v.id);
  Field(j, "sender", v.sender);
  Field(j, "start", v.start);
  Field(j, "end", v.end);
  Field(j, "bytes", v.bytes);
  Field(j, "omitted", v.omitted);
  Field(j, "retransmits", v.retransmits);
  MeasuredField(j, "tcp_info", v.tcp_info);
  Field(j, "packets", v.packets);
  Field(j, "lost", v.lost);
  Field(j, "out_of_order", v.out_of_order);
  Field(j, "jitter_seconds", v.jitter_seconds);
  LaterField(j, "transactions", v.transactions);
}

void to_json(json& j, const IntervalRecord& v) {
  j = json{{"start", Num(v.start)},
           {"end", Num(v.end)},
           {"omitted", v.omitted},
           {"streams", v.streams}};
  PutOptionalRr(j, v.rr);
}

void from_json(const json& j, IntervalRecord& v) {
  RequireObject(j);
  Field(j, "start", v.start);
  Field(j, "end", v.end);
  Field(j, "omitted", v.omitted);
  Field(j, "streams", v.streams);
  ReadOptionalRr(j, v.rr);
}

void to_json(json& j, const StreamTotals& v) {
  j = json{{"id", v.id},
           {"sender", v.sender},
           {"bytes_sent", v.bytes_sent},
           {"bytes_received", v.bytes_received},
           {"seconds_sent", Num(v.seconds_sent)},
           {"seconds_received", Num(v.seconds_received)},
           {"packets", v.packets},
           {"lost", v.lost},
           {"out_of_order", v.out_of_order},
           {"jitter_seconds", Num(v.jitter_seconds)}};
  PutMeasured(j, "retransmits", v.retransmits);
  PutMeasured(j, "max_snd_cwnd", v.max_snd_cwnd);
  PutMeasured(j, "min_rtt_us", v.min_rtt_us);
  PutMeasured(j, "max_rtt_us", v.max_rtt_us);
  PutMeasured(j, "mean_rtt_us", v.mean_rtt_us);
}

void from_json(const json& j, StreamTotals& v) {
  RequireObject(j);
  Field(j, "id", v.id);
  Field(j, "sender", v.sender);
  Field(j, "bytes_sent", v.bytes_sent);
  Field(j, "bytes_received", v.bytes_received);
  Field(j, "seconds_sent", v.seconds_sent);
  Field(j, "seconds_received", v.seconds_received);
  MeasuredField(j, "retransmits", v.retransmits);
  Field(j, "packets", v.packets);
  Field(j, "lost", v.lost);
  Field(j, "out_of_order", v.out_of_order);
  Field(j, "jitter_seconds", v.jitter_seconds);
  MeasuredField(j, "max_snd_cwnd", v.max_snd_cwnd);
  MeasuredField(j, "min_rtt_us", v.min_rtt_us);
  MeasuredField(j, "max_rtt_us", v.max_rtt_us);
  MeasuredField(j, "mean_rtt_us", v.mean_rtt_us);
}

void to_json(json& j, const CpuUtilization& v) {
  j = json{{"total_percent", Num(v.total_percent)},
           {"user_percent", Num(v.user_percent)},
           {"system_percent", Num(v.system_percent)}};
}

void from_json(const json& j, CpuUtilization& v) {
  RequireObject(j);
  Field(j, "total_percent", v.total_percent);
  Field(j, "user_percent", v.user_percent);
  Field(j, "system_percent", v.system_percent);
}

void to_json(json& j, const EndpointRecord& v) {
  j = json{{"role", v.role},
           {"software", v.software},
           {"host", v.host},
           {"nic", v.nic},
           {"samples", v.samples},
           {"intervals", v.intervals},
           {"congestion_used", v.congestion_used}};
  PutMeasured(j, "cpu", v.cpu);
}

void from_json(const json& j, EndpointRecord& v) {
  RequireObject(j);
  Field(j, "role", v.role);
  Field(j, "software", v.software);
  Field(j, "host", v.host);
  Field(j, "nic", v.nic);
  Field(j, "samples", v.samples);
  Field(j, "intervals", v.intervals);
  MeasuredField(j, "cpu", v.cpu);
  Field(j, "congestion_used", v.congestion_used);
}

void to_json(json& j, const Finding& v) {
  j = json{{"id", v.id},
           {"severity", SeverityName(v.severity)},
           {"title", v.title},
           {"evidence", v.evidence},
           {"meaning", v.meaning},
           {"next_step", v.next_step}};
}

void from_json(const json& j, Finding& v) {
  RequireObject(j);
  Field(j, "id", v.id);
  EnumField(j, "severity", kSeverities, v.severity);
  Field(j, "title", v.title);
  Field(j, "evidence", v.evidence);
  Field(j, "meaning", v.meaning);
  Field(j, "next_step", v.next_step);
}

void to_json(json& j, const ConnectionInfo& v) {
  j = json{{"local_host", v.local_host},
           {"local_port", v.local_port},
           {"remote_host", v.remote_host},
           {"remote_port", v.remote_port}};
}

void from_json(const json& j, ConnectionInfo& v) {
  RequireObject(j);
  Field(j, "local_host", v.local_host);
  Field(j, "local_port", v.local_port);
  Field(j, "remote_host", v.remote_host);
  Field(j, "remote_port", v.remote_port);
}

void to_json(json& j, const PeerReport& v) {
  j = json::object();
  PutMeasured(j, "cpu", v.cpu);
  j["congestion_used"] = v.congestion_used;
  j["server_output_text"] = v.server_output_text ? json(*v.server_output_text) : json(nullptr);
  j["server_output_json"] = v.server_output_json ? json(*v.server_output_json) : json(nullptr);
}

void from_json(const json& j, PeerReport& v) {
  RequireObject(j);
  MeasuredField(j, "cpu", v.cpu);
  Field(j, "congestion_used", v.congestion_used);
  OptionalStringField(j, "server_output_text", v.server_output_text);
  OptionalStringField(j, "server_output_json", v.server_output_json);
}

void to_json(json& j, const RunRecord& v) {
  j = json{{"version", v.version},
           {"schema_version", v.schema_version},
           {"timestamp", v.timestamp},
           {"timestamp_secs", v.timestamp_secs},
           {"cookie", v.cookie},
           {"spec", v.spec},
           {"server_host", v.server_host},
           {"server_port", v.server_port},
           {"connections", v.connections},
           {"label", v.label},
           {"local", v.local},
           {"intervals", v.intervals},
           {"streams", v.streams},
           {"test_seconds", Num(v.test_seconds)},
           {"findings", v.findings}};
  j["stand_profile"] = v.stand_profile ? json(*v.stand_profile) : json(nullptr);
  j["error"] = v.error ? json(*v.error) : json(nullptr);
  PutMeasured(j, "remote", v.remote);
  j["sndbuf_actual"] = v.sndbuf_actual;
  j["rcvbuf_actual"] = v.rcvbuf_actual;
  j["incomplete"] = v.incomplete;
  j["peer"] = v.peer;
  PutOptionalRr(j, v.rr);
}

void from_json(const json& j, RunRecord& v) {
  RequireObject(j);
  Field(j, "version", v.version);
  Field(j, "schema_version", v.schema_version);
  if (v.schema_version < 1 || v.schema_version > kJsonSchemaVersion) {
    throw ShapeError("schema_version", "unsupported version " + std::to_string(v.schema_version));
  }
  Field(j, "timestamp", v.timestamp);
  Field(j, "timestamp_secs", v.timestamp_secs);
  Field(j, "cookie", v.cookie);
  Field(j, "spec", v.spec);
  Field(j, "server_host", v.server_host);
  Field(j, "server_port", v.server_port);
  Field(j, "connections", v.connections);
  Field(j, "label", v.label);
  OptionalStringField(j, "stand_profile", v.stand_profile);
  Field(j, "local", v.local);
  MeasuredField(j, "remote", v.remote);
  Field(j, "intervals", v.intervals);
  Field(j, "streams", v.streams);
  Field(j, "test_seconds", v.test_seconds);
  Field(j, "findings", v.findings);
  OptionalStringField(j, "error", v.error);
  LaterField(j, "sndbuf_actual", v.sndbuf_actual);
  LaterField(j, "rcvbuf_actual", v.rcvbuf_actual);
  LaterField(j, "incomplete", v.incomplete);
  LaterField(j, "peer", v.peer);
  ReadOptionalRr(j, v.rr);
}

Result<EndpointRecord> EndpointFromJson(const json& j) {
  return json_detail::Decode<EndpointRecord>(j, "endpoint record");
}

Result<RunRecord> RunRecordFromJson(const json& j) {
  return json_detail::Decode<RunRecord>(j, "run record");
}

Result<NicFacts> NicFactsFromJson(const json& j) {
  return json_detail::Decode<NicFacts>(j, "NIC facts");
}

Result<HostInterval> HostIntervalFromJson(const json& j) {
  return json_detail::Decode<HostInterval>(j, "host interval");
}

}  // namespace nicbench::record
