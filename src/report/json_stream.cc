#include "report/json_stream.h"

#include "record/json.h"
#include "report/json_parts.h"
#include "report/json_report.h"

namespace nicbench::report {
namespace {

using Json = nlohmann::ordered_json;

std::string Line(const char* event, Json data) {
  Json line{{"event", event}, {"data", std::move(data)}};
  return line.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
}

Json SampleOrNull(const record::HostInterval* sample) {
  return sample == nullptr ? Json(nullptr) : Json(nlohmann::json(*sample));
}

}  // namespace

std::string StreamStartEvent(const record::RunRecord& run) {
  return Line("start", json_parts::StartJson(run));
}

std::string StreamIntervalEvent(const record::RunRecord& run,
                                const record::IntervalRecord& interval,
                                const record::HostInterval* local,
                                const record::HostInterval* remote) {
  // The iperf3 shape of this one interval, from a record holding only it.
  record::RunRecord one;
  one.spec = run.spec;
  one.intervals.push_back(interval);
  Json data = json_parts::IntervalsJson(one).at(0);
  data["nicbench"] = {{"local", SampleOrNull(local)}, {"remote", SampleOrNull(remote)}};
  return Line("interval", std::move(data));
}

std::string StreamLateSampleEvent(const record::HostInterval& remote) {
  return Line("nicbench_sample", Json{{"remote", Json(nlohmann::json(remote))}});
}

std::string StreamEndEvent(const record::RunRecord& run) {
  Json doc = BuildJson(run);
  Json data = doc["end"];
  data["nicbench"] = {{"run", doc["nicbench"]},
                      {"local", doc["local"]},
                      {"remote", doc["remote"]},
                      {"findings", doc["findings"]}};
  if (doc.contains("unknown")) data["nicbench"]["unknown"] = doc["unknown"];
  if (run.error) return Line("error", *run.error) + Line("end", std::move(data));
  return Line("end", std::move(data));
}

std::string StreamErrorEvent(const std::string& message) { return Line("error", message); }

}  // namespace nicbench::report
