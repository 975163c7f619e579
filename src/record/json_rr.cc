// JSON of the request/response members (docs/rr.md): RrSpec inside the spec, RrStats in an
// interval, RrSummary in the record. Optional members are null when absent; records written
// before these members existed read with them absent.
#include "record/json_rr.h"

#include "record/json_internal.h"

namespace nicbench::record {

using json_detail::ReadRequired;
using json_detail::Num;
using json_detail::RequireObject;
using json_detail::ShapeError;
using nlohmann::json;

namespace {

template <typename T>
json OrNull(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

json OrNullNum(const std::optional<double>& v) { return v ? Num(*v) : json(nullptr); }

template <typename T>
void OptionalField(const json& obj, const char* key, std::optional<T>& out) {
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) {
    out.reset();
    return;
  }
  T value{};
  try {
    json_detail::ReadValue(*it, value);
  } catch (const ShapeError& e) {
    throw e.Within(key);
  }
  out = std::move(value);
}

}  // namespace

void to_json(json& j, const LatencySummary& v) {
  j = json{{"count", v.count},   {"mean_us", Num(v.mean_us)}, {"min_us", Num(v.min_us)},
           {"p50_us", Num(v.p50_us)}, {"p90_us", Num(v.p90_us)}, {"p99_us", Num(v.p99_us)},
           {"p99_9_us", Num(v.p999_us)}, {"max_us", Num(v.max_us)}};
}

void from_json(const json& j, LatencySummary& v) {
  RequireObject(j);
  ReadRequired(j, "count", v.count);
  ReadRequired(j, "mean_us", v.mean_us);
  ReadRequired(j, "min_us", v.min_us);
  ReadRequired(j, "p50_us", v.p50_us);
  ReadRequired(j, "p90_us", v.p90_us);
  ReadRequired(j, "p99_us", v.p99_us);
  ReadRequired(j, "p99_9_us", v.p999_us);
  ReadRequired(j, "max_us", v.max_us);
}

void to_json(json& j, const RrStats& v) {
  j = json{{"transactions", v.transactions},
           {"transactions_per_second", Num(v.transactions_per_second)},
           {"lost", v.lost},
           {"late", v.late},
           {"latency", OrNull(v.latency)},
           {"connect", OrNull(v.connect)}};
}

void from_json(const json& j, RrStats& v) {
  RequireObject(j);
  ReadRequired(j, "transactions", v.transactions);
  ReadRequired(j, "transactions_per_second", v.transactions_per_second);
  ReadRequired(j, "lost", v.lost);
  ReadRequired(j, "late", v.late);
  OptionalField(j, "latency", v.latency);
  OptionalField(j, "connect", v.connect);
}

void to_json(json& j, const RrSummary& v) {
  j = json{{"local", v.local},
           {"peer_transactions", OrNull(v.peer_transactions)},
           {"local_process_us_per_transaction", OrNullNum(v.local_process_us_per_transaction)},
           {"remote_process_us_per_transaction", OrNullNum(v.remote_process_us_per_transaction)},
           {"local_host_us_per_transaction", OrNullNum(v.local_host_us_per_transaction)},
           {"remote_host_us_per_transaction", OrNullNum(v.remote_host_us_per_transaction)}};
}

void from_json(const json& j, RrSummary& v) {
  RequireObject(j);
  ReadRequired(j, "local", v.local);
  OptionalField(j, "peer_transactions", v.peer_transactions);
  OptionalField(j, "local_process_us_per_transaction", v.local_process_us_per_transaction);
  OptionalField(j, "remote_process_us_per_transaction", v.remote_process_us_per_transaction);
  OptionalField(j, "local_host_us_per_transaction", v.local_host_us_per_transaction);
  OptionalField(j, "remote_host_us_per_transaction", v.remote_host_us_per_transaction);
}

void PutRrSpec(json& j, const RrSpec& v) {
  if (!v.enabled()) return;  // a bulk test's spec keeps its shape
  j["rr"] = json{{"mode", RrModeName(v.mode)},
                 {"request_bytes", v.request_bytes},
                 {"response_bytes", v.response_bytes},
                 {"burst", v.burst},
                 {"timeout_ms", v.timeout_ms}};
}

void ReadRrSpec(const json& j, RrSpec& v) {
  const auto it = j.find("rr");
  if (it == j.end() || it->is_null()) return;
  try {
    RequireObject(*it);
    std::string mode;
    ReadRequired(*it, "mode", mode);
    if (mode == "rr") v.mode = RrMode::kRr;
    else if (mode == "crr") v.mode = RrMode::kCrr;
    else throw ShapeError("mode", "expected rr or crr");
    ReadRequired(*it, "request_bytes", v.request_bytes);
    ReadRequired(*it, "response_bytes", v.response_bytes);
    ReadRequired(*it, "burst", v.burst);
    ReadRequired(*it, "timeout_ms", v.timeout_ms);
  } catch (const ShapeError& e) {
    throw e.Within("rr");
  }
}

void PutOptionalRr(json& j, const std::optional<RrStats>& v) {
  if (v) j["rr"] = *v;
}
void ReadOptionalRr(const json& j, std::optional<RrStats>& v) { OptionalField(j, "rr", v); }
void PutOptionalRr(json& j, const std::optional<RrSummary>& v) {
  if (v) j["rr"] = *v;
}
void ReadOptionalRr(const json& j, std::optional<RrSummary>& v) { OptionalField(j, "rr", v); }

}  // namespace nicbench::record
