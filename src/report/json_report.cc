#include "report/json_report.h"

#include <cmath>
#include <cstdio>
#include <ctime>
#include <memory>
#include <type_traits>
#include <utility>

#include "base/version.h"
#include "record/json.h"
#include "report/json_parts.h"
#include "report/sums.h"

namespace nicbench::report {

using json_parts::Json;

namespace json_parts {

void PutNumber(Json& obj, const char* key, std::optional<double> value, const std::string& reason) {
  if (value && std::isfinite(*value)) {
    obj[key] = *value;
    return;
  }
  obj[key] = nullptr;
  obj["unknown"][key] = reason;
}

void PutIperf3Number(Json& obj, const char* key, std::optional<double> value,
                     const std::string& reason) {
  if (value && std::isfinite(*value)) {
    obj[key] = *value;
    return;
  }
  obj[key] = 0;
  obj["unknown"][key] = reason;
}

}  // namespace json_parts

namespace {

// iperf3's start.timestamp.time: RFC 1123 in GMT ("Mon, 30 Nov 2026 09:02:48 GMT").
std::string Rfc1123(int64_t secs) {
  const std::time_t t = static_cast<std::time_t>(secs);
  std::tm tm{};
  if (gmtime_r(&t, &tm) == nullptr) return {};
  char text[64];
  const size_t n = std::strftime(text, sizeof text, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return std::string(text, n);
}

// iperf3 prints uname -a here; we have the parts the probes read.
std::string SystemInfo(const record::HostFacts& host) {
  std::string info = "Linux";
  if (host.hostname.known()) info += " " + host.hostname.value();
  if (host.kernel.known()) info += " " + host.kernel.value();
  return info;
}

// Whole seconds as an integer (iperf3's type), fractions as a number.
Json Seconds(std::chrono::milliseconds ms) {
  if (ms.count() % 1000 == 0) return Json(ms.count() / 1000);
  return Json(ms.count() / 1000.0);
}

Json TestStartJson(const record::RunRecord& run) {
  const record::TestSpec& spec = run.spec;
  return Json{{"protocol", record::TransportName(spec.transport)},
              {"num_streams", spec.parallel},
              {"blksize", record::EffectiveBlockBytes(spec)},
              {"omit", Seconds(spec.omit)},
              {"duration", Seconds(spec.duration)},
              {"bytes", spec.bytes},
              {"blocks", spec.blocks},
              {"reverse", spec.direction == record::Direction::kReverse ? 1 : 0},
              {"tos", spec.tos},
              {"target_bitrate", spec.rate_bits_per_second},
              {"bidir", spec.direction == record::Direction::kBidirectional ? 1 : 0},
              {"fqrate", spec.fq_rate_bits_per_second},
              // iperf3 3.19+'s UDP GSO/GRO (--gsro); nicbench sends one datagram per call.
              {"gso", 0},
              {"gro", 0},
              {"interval", spec.interval.count() / 1000.0}};
}

Json ConnectedJson(const record::RunRecord& run) {
  Json connected = Json::array();
  // connections[0] is the control connection; iperf3 lists only the data streams.
  for (size_t i = 1; i < run.connections.size(); ++i) {
    const record::ConnectionInfo& c = run.connections[i];
    const int socket = i - 1 < run.streams.size() ? run.streams[i - 1].id : static_cast<int>(i);
    connected.push_back(Json{{"socket", socket},
                             {"local_host", c.local_host},
                             {"local_port", c.local_port},
                             {"remote_host", c.remote_host},
                             {"remote_port", c.remote_port}});
  }
  return connected;
}

// The MSS iperf3 reports: -M when given, else the control connection's default as iperf3
// reads it (a client's record), else what the kernel chose for the first stream.
void PutMss(Json& start, const record::RunRecord& run) {
  if (run.spec.mss_bytes != 0) {
    start["tcp_mss"] = run.spec.mss_bytes;
    return;
  }
  if (run.control_mss_bytes != 0) {
    start["tcp_mss_default"] = run.control_mss_bytes;
    return;
  }
  for (const record::IntervalRecord& interval : run.intervals) {
    for (const record::StreamInterval& s : interval.streams) {
      if (s.tcp_info.known() && s.tcp_info.value().snd_mss != 0) {
        start["tcp_mss_default"] = s.tcp_info.value().snd_mss;
        return;
      }
    }
  }
  start["tcp_mss_default"] = 0;
  start["unknown"]["tcp_mss_default"] = "not present: no TCP_INFO sample";
}

// --get-server-output: iperf3's server_output_text, or server_output_json from a -J server.
void PutServerOutput(Json& doc, const record::PeerReport& peer) {
  if (peer.server_output_text) doc["server_output_text"] = *peer.server_output_text;
  if (peer.server_output_json) {
    Json parsed = Json::parse(*peer.server_output_json, nullptr, false);
    if (!parsed.is_discarded()) doc["server_output_json"] = std::move(parsed);
  }
}

// nicbench.version is the bare version ("0.1.0") in every document; start.version names the
// program as iperf3's does ("nicbench 0.1.0").
std::string BareVersion(const std::string& version) {
  constexpr std::string_view kPrefix = "nicbench ";
  return version.starts_with(kPrefix) ? version.substr(kPrefix.size()) : version;
}

}  // namespace

namespace json_parts {

Json StartJson(const record::RunRecord& run) {
  Json start;
  start["connected"] = ConnectedJson(run);
  start["version"] = run.local.software.empty() ? "nicbench " + run.version : run.local.software;
  start["system_info"] = SystemInfo(run.local.host);
  start["timestamp"] = Json{{"time", Rfc1123(run.timestamp_secs)},
                            {"timesecs", run.timestamp_secs},
                            {"timemillisecs", run.timestamp_secs * 1000},  // iperf3 3.17+
                            {"rfc3339", run.timestamp}};
  if (run.local.role == record::Role::kServer && !run.connections.empty()) {
    start["accepted_connection"] =
        Json{{"host", run.connections[0].remote_host}, {"port", run.connections[0].remote_port}};
  } else {
    start["connecting_to"] = Json{{"host", run.server_host}, {"port", run.server_port}};
  }
  start["cookie"] = run.cookie;
  if (run.spec.transport == record::Transport::kTcp) PutMss(start, run);
  start["target_bitrate"] = run.spec.rate_bits_per_second;
  start["sock_bufsize"] = run.spec.window_bytes;
  start["sndbuf_actual"] = run.sndbuf_actual;
  start["rcvbuf_actual"] = run.rcvbuf_actual;
  start["fq_rate"] = run.spec.fq_rate_bits_per_second;  // iperf3 3.17+
  start["test_start"] = TestStartJson(run);
  return start;
}

}  // namespace json_parts

namespace {

// One direction's slowest stream against an even share (sums.h), as its receiver counted it
// (the sender's count when the receiver's is unknown); null with fewer than two streams.
Json SlowestJson(const record::RunRecord& run, StreamSet set) {
  EndSum side = SumReceived(run.streams, set);
  const char* counted_by = "receiver";
  if (side.streams == 0) {
    side = SumSent(run.streams, set);
    counted_by = "sender";
  }
  if (side.streams < 2 || !side.slowest_share) return nullptr;
  return Json{{"id", side.slowest_id},
              {"bytes", side.slowest_bytes},
              {"share_of_even", *side.slowest_share},
              {"streams", side.streams},
              {"counted_by", counted_by}};
}

Json SlowestStreams(const record::RunRecord& run) {
  if (!IsBidirectional(run)) return Json{{"all", SlowestJson(run, StreamSet::kAll)}};
  return Json{{"local_sends", SlowestJson(run, StreamSet::kLocalSends)},
              {"local_receives", SlowestJson(run, StreamSet::kLocalReceives)}};
}

}  // namespace

namespace {

// Hands `put` the document's top-level members (a Json, or an nlohmann::json) one at a time, in
// iperf3's order, each built only when its turn comes, so a caller that writes each one out and
// drops it never holds the whole document (1,000 streams' intervals at both ends are tens of MB as
// a DOM).
template <typename Put>
void ForEachMember(const record::RunRecord& run, Put put) {
  put("start", json_parts::StartJson(run));
  put("intervals", json_parts::IntervalsJson(run));
  put("end", json_parts::EndJson(run));
  if (!run.spec.title.empty()) put("title", Json(run.spec.title));
  if (!run.spec.extra_data.empty()) put("extra_data", Json(run.spec.extra_data));
  Json server_output = Json::object();
  PutServerOutput(server_output, run.peer);
  for (auto it = server_output.begin(); it != server_output.end(); ++it)
    put(it.key(), std::move(*it));
  Json nb{{"version", BareVersion(run.version)},
          {"schema_version", record::kJsonSchemaVersion},
          {"label", run.label},
          {"stand_profile", run.stand_profile ? Json(*run.stand_profile) : Json(nullptr)}};
  json_parts::PutNumber(nb, "test_seconds", run.test_seconds, "not present: not a finite number");
  nb["spec"] = Json(nlohmann::json(run.spec));
  nb["slowest_stream"] = SlowestStreams(run);
  nb["stream_limits"] = json_parts::StreamLimitsJson(run);
  if (!run.rr) nb["drop_ladder"] = json_parts::DropLaddersJson(run);
  if (run.under_load) nb["under_load"] = json_parts::UnderLoadJson(run);
  put("nicbench", std::move(nb));
  // Each end's record as the record layer makes it (its members sorted): as a value, converting
  // it to the ordered kind would hold it twice.
  put("local", nlohmann::json(run.local));
  if (run.remote.known()) {
    put("remote", nlohmann::json(run.remote.value()));
  } else {
    put("remote", Json(nullptr));
    put("unknown", Json{{"remote", record::UnknownReason(run.remote.why(), run.remote.detail())}});
  }
  Json findings = Json::array();
  for (const record::Finding& f : run.findings) findings.push_back(Json(nlohmann::json(f)));
  put("findings", std::move(findings));
  if (run.error) put("error", Json(*run.error));
}

std::string Dump(const Json& doc) {
  return doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

// nlohmann's serializer writing straight into a stdio stream (its public dump builds a string;
// operator<< cannot replace invalid UTF-8).
class FileOutput final : public nlohmann::detail::output_adapter_protocol<char> {
 public:
  explicit FileOutput(std::FILE* out) : out_(out) {}
  void write_character(char c) override { std::fputc(c, out_); }
  void write_characters(const char* s, std::size_t n) override { std::fwrite(s, 1, n, out_); }

 private:
  std::FILE* out_;
};

}  // namespace

Json BuildJson(const record::RunRecord& run) {
  Json doc = Json::object();
  ForEachMember(run, [&](const std::string& key, auto&& value) {
    doc[key] = Json(std::forward<decltype(value)>(value));
  });
  return doc;
}

std::string RenderJson(const record::RunRecord& run) { return Dump(BuildJson(run)); }

void WriteJson(const record::RunRecord& run, std::FILE* out) {
  // The same bytes as RenderJson: an object indented by 2, each member serialised at depth 1.
  const auto file = std::make_shared<FileOutput>(out);
  nlohmann::detail::serializer<Json> ordered(file, ' ', nlohmann::detail::error_handler_t::replace);
  nlohmann::detail::serializer<nlohmann::json> sorted(file, ' ',
                                                      nlohmann::detail::error_handler_t::replace);
  bool first = true;
  std::fputs("{", out);
  ForEachMember(run, [&](const std::string& key, const auto& value) {
    std::fputs(first ? "\n  " : ",\n  ", out);
    first = false;
    ordered.dump(Json(key), true, false, 2, 2);
    std::fputs(": ", out);
    if constexpr (std::is_same_v<std::decay_t<decltype(value)>, Json>) {
      ordered.dump(value, true, false, 2, 2);
    } else {
      sorted.dump(value, true, false, 2, 2);
    }
  });
  std::fputs(first ? "}\n" : "\n}\n", out);
}

std::string RenderJsonError(const std::string& message) {
  Json doc;
  doc["start"] = Json::object();
  doc["intervals"] = Json::array();
  doc["end"] = Json::object();
  doc["nicbench"] = Json{{"version", kVersion}, {"schema_version", record::kJsonSchemaVersion}};
  doc["error"] = message;
  return Dump(doc);
}

std::string RenderJsonLines(const std::vector<record::RunRecord>& runs) {
  std::string out;
  for (const record::RunRecord& run : runs) {
    out += BuildJson(run).dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
  }
  return out;
}

namespace {

void PutDirectionValue(Json& row, const char* key, const analysis::DirectionValue& v) {
  if (v.value && std::isfinite(*v.value)) {
    row[key] = *v.value;
  } else {
    row[key] = nullptr;
    row["unknown"][key] = v.value ? "not present: not a finite number" : v.why;
  }
}

}  // namespace

Json DirectionsJson(const std::vector<analysis::DirectionRow>& rows,
                    const std::vector<record::Finding>& pair_findings) {
  Json out{{"rows", Json::array()}, {"findings", Json::array()}};
  for (const analysis::DirectionRow& r : rows) {
    Json row{{"id", r.id}, {"figure", r.figure}, {"unit", r.unit}, {"part_of_above", r.part}};
    PutDirectionValue(row, "forward", r.forward);
    PutDirectionValue(row, "reverse", r.reverse);
    out["rows"].push_back(std::move(row));
  }
  for (const record::Finding& f : pair_findings) {
    out["findings"].push_back(Json(nlohmann::json(f)));
  }
  return out;
}

std::string RenderJsonLines(const std::vector<record::RunRecord>& runs, const Json& directions) {
  std::string out;
  for (size_t i = 0; i < runs.size(); ++i) {
    Json doc = BuildJson(runs[i]);
    if (i + 1 == runs.size()) doc["directions"] = directions;
    out += doc.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
  }
  return out;
}

}  // namespace nicbench::report
