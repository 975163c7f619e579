// The JSON form of every record type: each type's to_json and from_json are the generic writer
// and reader (record/json_codec.h) walking its field list (record/json_schema.h). Also the unknown
// rule's reason strings and the trust-boundary readers.
#include "record/json.h"

#include <string>
#include <utility>

#include "record/json_codec.h"
#include "record/json_internal.h"
#include "record/json_rr.h"
#include "record/json_schema.h"

namespace nicbench::record {

using json_detail::NameOf;
using json_detail::ShapeError;
using nlohmann::json;

namespace {

constexpr Missing kAllMissing[] = {Missing::kNotSupported, Missing::kPermissionDenied,
                                   Missing::kAbsent, Missing::kNotReported, Missing::kError};

}  // namespace

const char* SeverityName(Severity s) { return NameOf(json_detail::kSeverities, s); }

const char* DirectionName(Direction d) { return NameOf(json_detail::kDirections, d); }

const char* RoleName(Role r) { return NameOf(json_detail::kRoles, r); }

const char* MissingToken(Missing why) { return MissingName(why); }

std::string UnknownReason(Missing why, std::string_view detail) {
  std::string text = MissingName(why);
  if (!detail.empty()) {
    text += ": ";
    text += detail;
  }
  return text;
}

std::pair<Missing, std::string> ParseUnknownReason(std::string_view text) {
  for (Missing why : kAllMissing) {
    const std::string_view name = MissingName(why);
    if (text == name) return {why, {}};
    if (text.size() > name.size() + 2 && text.substr(0, name.size()) == name &&
        text.substr(name.size(), 2) == ": ") {
      return {why, std::string(text.substr(name.size() + 2))};
    }
  }
  // A reason we do not recognise (a newer peer's wording) is still a reason: keep its text.
  return {Missing::kError, std::string(text)};
}

namespace json_detail {

std::pair<Missing, std::string> ReadUnknownReason(const json& obj, const char* key) {
  const auto unknown = obj.find("unknown");
  if (unknown == obj.end()) return {Missing::kNotReported, "no reason given"};
  if (!unknown->is_object()) throw ShapeError("unknown", "expected an object");
  const auto reason = unknown->find(key);
  if (reason == unknown->end()) return {Missing::kNotReported, "no reason given"};
  if (!reason->is_string()) throw ShapeError(std::string("unknown.") + key, "expected a string");
  return ParseUnknownReason(reason->get_ref<const std::string&>());
}

void ReadOptionalString(const json& obj, const char* key, std::optional<std::string>& out) {
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) {
    out.reset();
    return;
  }
  std::string value;
  ReadRequired(obj, key, value);
  out = std::move(value);
}

void CheckSchemaVersion(const int& version) {
  if (version < 1 || version > kJsonSchemaVersion) {
    throw ShapeError("", "unsupported version " + std::to_string(version));
  }
}

}  // namespace json_detail

// A member whose JSON is not a plain field: TestSpec's rr, written only for a request/response
// test so a bulk test's spec keeps its shape, and RrStats' rate, derived from its counts
// (json_rr.cc).
template <typename T>
void WriteExtra(json&, const T&) {}
template <typename T>
void ReadExtra(const json&, T&) {}
void WriteExtra(json& j, const TestSpec& v) { PutRrSpec(j, v.rr); }
void ReadExtra(const json& j, TestSpec& v) { ReadRrSpec(j, v.rr); }
void WriteExtra(json& j, const RrStats& v) { PutRrRate(j, v); }
void ReadExtra(const json& j, RrStats& v) { ReadRrRate(j, v); }

// The macro's T is a type name, which cannot be parenthesized.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define NICBENCH_RECORD_JSON_DEFINE(T)  \
  void to_json(json& j, const T& v) {   \
    j = json_detail::WriteFields(v);    \
    WriteExtra(j, v);                   \
  }                                     \
  void from_json(const json& j, T& v) { \
    json_detail::ReadFields(j, v);      \
    ReadExtra(j, v);                    \
  }
// NOLINTEND(bugprone-macro-parentheses)

NICBENCH_RECORD_JSON_TYPES(NICBENCH_RECORD_JSON_DEFINE)
#undef NICBENCH_RECORD_JSON_DEFINE

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
