#include "protocol/results.h"

#include <climits>
#include <cmath>
#include <limits>
#include <set>
#include <type_traits>
#include <utility>

#include <fmt/format.h>

#include "protocol/control_channel.h"
#include "protocol/json_fields.h"
#include "protocol/params.h"

namespace nicbench::protocol {
namespace {

using internal::MinusOne;
using nlohmann::json;
using nlohmann::ordered_json;

using internal::kInt64Max;
constexpr double kHuge = std::numeric_limits<double>::max();
using internal::kMaxNameBytes;

// cJSON writes an integral double without a decimal point ("cpu_util_user":0); so do we, and a
// NaN or infinity (which JSON cannot carry) becomes 0.
ordered_json Number(double value) {
  if (!std::isfinite(value)) return 0;
  if (value == std::floor(value) && std::fabs(value) < 9007199254740992.0) {
    return static_cast<int64_t>(value);
  }
  return value;
}

template <typename T>
Result<T> Required(Result<std::optional<T>> field, std::string_view where, std::string_view key) {
  if (!field) return tl::unexpected(field.error());
  if (!*field) return Fail(fmt::format("{} \"{}\": missing", where, key));
  return **field;
}

Result<int64_t> RequiredInt(const json& obj, std::string_view key, int64_t min, MinusOne minus_one,
                            std::string_view where) {
  return Required(internal::ReadInt(obj, key, min, kInt64Max, minus_one, where), where, key);
}

Result<PeerStream> DecodeStream(const json& item, size_t index) {
  const std::string where = fmt::format("results streams[{}]", index);
  if (!item.is_object()) {
    return Fail(fmt::format("{}: expected an object, got {}", where, internal::TypeName(item)));
  }
  auto id =
      Required(internal::ReadInt(item, "id", 1, INT_MAX, MinusOne::kRefuse, where), where, "id");
  NB_PROTO_TRY(id);
  auto bytes = RequiredInt(item, "bytes", 0, MinusOne::kRefuse, where);
  NB_PROTO_TRY(bytes);
  auto retransmits = RequiredInt(item, "retransmits", -1, MinusOne::kAccept, where);
  NB_PROTO_TRY(retransmits);
  auto jitter = Required(internal::ReadNumber(item, "jitter", 0, kHuge, where), where, "jitter");
  NB_PROTO_TRY(jitter);
  auto errors = RequiredInt(item, "errors", 0, MinusOne::kRefuse, where);
  NB_PROTO_TRY(errors);
  auto packets = RequiredInt(item, "packets", 0, MinusOne::kRefuse, where);
  NB_PROTO_TRY(packets);
  auto start = internal::ReadNumber(item, "start_time", -kHuge, kHuge, where);
  NB_PROTO_TRY(start);
  auto end = internal::ReadNumber(item, "end_time", -kHuge, kHuge, where);
  NB_PROTO_TRY(end);
  PeerStream s;
  s.id = static_cast<int>(*id);
  s.bytes = static_cast<uint64_t>(*bytes);
  s.retransmits = *retransmits;
  s.jitter = *jitter;
  s.errors = *errors;
  s.packets = *packets;
  s.start_time = start->value_or(0);
  s.end_time = end->value_or(0);
  return s;
}

Status DecodeStreams(const json& doc, PeerResults* out) {
  auto it = doc.find("streams");
  if (it == doc.end()) return Fail("results \"streams\": missing");
  if (!it->is_array()) {
    return Fail(
        fmt::format("results \"streams\": expected an array, got {}", internal::TypeName(*it)));
  }
  if (it->size() > kMaxResultStreams) {
    return Fail(fmt::format("results \"streams\": {} streams exceed the limit of {}", it->size(),
                            kMaxResultStreams));
  }
  std::set<int> ids;
  for (size_t i = 0; i < it->size(); ++i) {
    auto stream = DecodeStream((*it)[i], i);
    if (!stream) return tl::unexpected(stream.error());
    if (!ids.insert(stream->id).second) {
      return Fail(fmt::format("results streams[{}]: id {} repeated", i, stream->id));
    }
    out->streams.push_back(*stream);
  }
  return Ok();
}

Status DecodeHeader(const json& doc, PeerResults* out) {
  constexpr std::string_view kResults = "results";
  auto total = Required(internal::ReadNumber(doc, "cpu_util_total", -kHuge, kHuge, kResults),
                        kResults, "cpu_util_total");
  if (!total) return tl::unexpected(total.error());
  auto user = Required(internal::ReadNumber(doc, "cpu_util_user", -kHuge, kHuge, kResults),
                       kResults, "cpu_util_user");
  if (!user) return tl::unexpected(user.error());
  auto system = Required(internal::ReadNumber(doc, "cpu_util_system", -kHuge, kHuge, kResults),
                         kResults, "cpu_util_system");
  if (!system) return tl::unexpected(system.error());
  auto has_retransmits =
      Required(internal::ReadInt(doc, "sender_has_retransmits", -1, 1, MinusOne::kAccept, kResults),
               kResults, "sender_has_retransmits");
  if (!has_retransmits) return tl::unexpected(has_retransmits.error());
  auto congestion = internal::ReadString(doc, "congestion_used", kMaxNameBytes, kResults);
  if (!congestion) return tl::unexpected(congestion.error());
  // Bounded by the message size limit of ReadJson, not here.
  auto output = internal::ReadString(doc, "server_output_text", SIZE_MAX, kResults);
  if (!output) return tl::unexpected(output.error());
  out->cpu_util_total = *total;
  out->cpu_util_user = *user;
  out->cpu_util_system = *system;
  out->sender_has_retransmits = static_cast<int>(*has_retransmits);
  out->congestion_used = congestion->value_or("");
  out->server_output_text = *output;
  return Ok();
}

// `doc` is const (the objects are copied) or an rvalue's (they are moved out of it).
template <typename Doc>
Status DecodeObjects(Doc& doc, PeerResults* out) {
  for (std::string_view key : {std::string_view("server_output_json"), kExtensionKey}) {
    auto it = doc.find(key);
    if (it == doc.end()) continue;
    if (!it->is_object()) {
      return Fail(
          fmt::format("results \"{}\": expected an object, got {}", key, internal::TypeName(*it)));
    }
    auto& slot = key == kExtensionKey ? out->extension : out->server_output_json;
    if constexpr (std::is_const_v<Doc>) {
      slot = *it;
    } else {
      slot = std::move(*it);
    }
  }
  return Ok();
}

}  // namespace

ordered_json EncodeResults(const PeerResults& results) {
  ordered_json j = ordered_json::object();
  j["cpu_util_total"] = Number(results.cpu_util_total);
  j["cpu_util_user"] = Number(results.cpu_util_user);
  j["cpu_util_system"] = Number(results.cpu_util_system);
  j["sender_has_retransmits"] = results.sender_has_retransmits;
  if (!results.congestion_used.empty()) j["congestion_used"] = results.congestion_used;
  ordered_json streams = ordered_json::array();
  for (const PeerStream& s : results.streams) {
    ordered_json item;
    item["id"] = s.id;
    item["bytes"] = s.bytes;
    item["retransmits"] = s.retransmits;
    item["jitter"] = Number(s.jitter);
    item["errors"] = s.errors;
    item["packets"] = s.packets;
    item["start_time"] = Number(s.start_time);
    item["end_time"] = Number(s.end_time);
    streams.push_back(std::move(item));
  }
  j["streams"] = std::move(streams);
  if (results.server_output_text) j["server_output_text"] = *results.server_output_text;
  if (results.server_output_json) j["server_output_json"] = *results.server_output_json;
  if (results.extension) j[kExtensionKey] = *results.extension;
  return j;
}

namespace {

template <typename Doc>
Result<PeerResults> Decode(Doc& doc) {
  if (!doc.is_object()) {
    return Fail(fmt::format("results: expected a JSON object, got {}", internal::TypeName(doc)));
  }
  PeerResults out;
  if (auto st = DecodeHeader(doc, &out); !st) return tl::unexpected(st.error());
  if (auto st = DecodeStreams(doc, &out); !st) return tl::unexpected(st.error());
  if (auto st = DecodeObjects(doc, &out); !st) return tl::unexpected(st.error());
  return out;
}

}  // namespace

Result<PeerResults> DecodeResultsJson(const json& doc) { return Decode(doc); }

Result<PeerResults> DecodeResultsJson(json&& doc) { return Decode(doc); }

Result<PeerResults> DecodeResults(std::string_view json_text) {
  auto doc = ParseJsonText(json_text);
  if (!doc) return Fail("results: " + doc.error().message);
  return DecodeResultsJson(std::move(*doc));
}

}  // namespace nicbench::protocol
