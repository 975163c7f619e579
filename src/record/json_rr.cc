// JSON of a spec's request/response member (docs/rr.md), written only for an RR test so a bulk
// test's spec keeps its shape, and of RrStats' rate. RrStats and RrSummary are on the field lists
// (json_schema.h).
#include "record/json_rr.h"

#include "record/json_internal.h"

namespace nicbench::record {

using json_detail::ReadRequired;
using json_detail::RequireObject;
using json_detail::ShapeError;
using nlohmann::json;

void PutRrSpec(json& j, const RrSpec& v) {
  if (!v.enabled()) return;  // a bulk test's spec keeps its shape
  j["rr"] = json{{"mode", RrModeName(v.mode)},
                 {"request_bytes", v.request_bytes},
                 {"response_bytes", v.response_bytes},
                 {"burst", v.burst},
                 {"timeout_ms", v.timeout_ms}};
  if (v.spin_us != 0) j["rr"]["spin_us"] = v.spin_us;  // records from before --rr-spin lack it
  if (v.rate_per_second != 0) j["rr"]["rate_per_second"] = v.rate_per_second;
}

void ReadRrSpec(const json& j, RrSpec& v) {
  const auto it = j.find("rr");
  if (it == j.end() || it->is_null()) return;
  try {
    RequireObject(*it);
    std::string mode;
    ReadRequired(*it, "mode", mode);
    if (mode == "rr")
      v.mode = RrMode::kRr;
    else if (mode == "crr")
      v.mode = RrMode::kCrr;
    else
      throw ShapeError("mode", "expected rr or crr");
    ReadRequired(*it, "request_bytes", v.request_bytes);
    ReadRequired(*it, "response_bytes", v.response_bytes);
    ReadRequired(*it, "burst", v.burst);
    ReadRequired(*it, "timeout_ms", v.timeout_ms);
    if (it->contains("spin_us")) ReadRequired(*it, "spin_us", v.spin_us);
    if (it->contains("rate_per_second")) ReadRequired(*it, "rate_per_second", v.rate_per_second);
  } catch (const ShapeError& e) {
    throw e.Within("rr");
  }
}

void PutRrRate(json& j, const RrStats& v) {
  j["transactions_per_second"] = json_detail::Num(TransactionsPerSecond(v));
}

void ReadRrRate(const json& j, RrStats& v) {
  if (j.contains("seconds")) return;  // the counts say it all
  double rate = 0;
  ReadRequired(j, "transactions_per_second", rate);
  v.seconds = rate > 0 ? static_cast<double>(v.transactions) / rate : 0;
}

}  // namespace nicbench::record
