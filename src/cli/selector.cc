#include "cli/selector.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "base/units.h"
#include "record/json.h"

namespace nicbench::cli {
namespace {

constexpr const char kForms[] =
    "a selector is a run id (42), label:KEY=VALUE[,KEY=VALUE...], last:N, id:A..B or "
    "experiment:ID";

Result<int64_t> PositiveId(std::string_view text, std::string_view selector) {
  auto value = ParseUnsigned(text);
  if (!value || *value == 0 || *value > static_cast<uint64_t>(INT64_MAX)) {
    return Fail(
        fmt::format("selector '{}': '{}' is not a run id (a positive integer)", selector, text));
  }
  return static_cast<int64_t>(*value);
}

Result<Selector> ParseLabels(std::string_view body, Selector s) {
  if (body.empty()) return Fail(fmt::format("selector '{}': label: needs KEY=VALUE", s.text));
  size_t start = 0;
  while (start <= body.size()) {
    const size_t comma = body.find(',', start);
    const std::string_view pair = body.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    auto label = store::ParseLabel(pair);
    if (!label) return Fail(fmt::format("selector '{}': {}", s.text, label.error().message));
    s.query.labels[label->first] = label->second;
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return s;
}

Result<Selector> ParseRange(std::string_view body, Selector s) {
  const size_t dots = body.find("..");
  if (dots == std::string_view::npos) {
    return Fail(fmt::format("selector '{}': id: needs a range A..B", s.text));
  }
  auto from = PositiveId(body.substr(0, dots), s.text);
  if (!from) return tl::unexpected(from.error());
  auto to = PositiveId(body.substr(dots + 2), s.text);
  if (!to) return tl::unexpected(to.error());
  if (*to < *from)
    return Fail(fmt::format("selector '{}': the range ends before it starts", s.text));
  s.query.min_id = *from;
  s.query.max_id = *to;
  return s;
}

}  // namespace

Result<Selector> ParseSelector(std::string_view text) {
  Selector s;
  s.text = std::string(text);
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos) {
    auto id = PositiveId(text, text);
    if (!id) return Fail(fmt::format("selector '{}': not a run id; {}", text, kForms));
    s.query.min_id = s.query.max_id = *id;
    s.single = true;
    return s;
  }
  const std::string_view kind = text.substr(0, colon), body = text.substr(colon + 1);
  if (kind == "label") return ParseLabels(body, std::move(s));
  if (kind == "id") return ParseRange(body, std::move(s));
  if (kind == "last") {
    auto n = ParseUnsigned(body);
    if (!n || *n == 0 || *n > 10000000) {
      return Fail(fmt::format("selector '{}': last: needs a count of runs, 1..10000000", text));
    }
    s.query.limit = static_cast<size_t>(*n);
    return s;
  }
  if (kind == "experiment") {
    auto id = PositiveId(body, text);
    if (!id) return tl::unexpected(id.error());
    s.query.experiment = *id;
    return s;
  }
  return Fail(fmt::format("selector '{}': unknown kind '{}'; {}", text, kind, kForms));
}

Result<ResolvedRuns> Resolve(store::Store& store, const Selector& selector,
                             bool include_incomplete) {
  store::RunQuery query = selector.query;
  query.include_incomplete = true;
  auto picked = store.Find(query);
  if (!picked) return tl::unexpected(picked.error());
  ResolvedRuns out;
  if (!include_incomplete) {
    for (const store::RunSummary& run : *picked) {
      if (run.incomplete) out.left_out.push_back(run);
    }
  }
  if (out.left_out.empty()) {
    out.runs = std::move(*picked);
    return out;
  }
  // Asked again without them, so that last:N is N complete runs.
  query.include_incomplete = false;
  auto complete = store.Find(query);
  if (!complete) return tl::unexpected(complete.error());
  out.runs = std::move(*complete);
  return out;
}

namespace {

// "run 12 (interrupted after 4.20 s)", "runs 12, 15 (interrupted)".
std::string LeftOutRuns(const std::vector<store::RunSummary>& left_out) {
  if (left_out.size() == 1) {
    return fmt::format("run {} (interrupted after {:.2f} s)", left_out[0].id,
                       left_out[0].duration_seconds);
  }
  std::string ids;
  for (const store::RunSummary& run : left_out) {
    ids += (ids.empty() ? "" : ", ") + std::to_string(run.id);
  }
  return "runs " + ids + " (interrupted)";
}

}  // namespace

std::string NoRunsMessage(const store::Store& store, const Selector& selector,
                          const std::vector<store::RunSummary>& left_out) {
  if (!left_out.empty()) {
    const char* them = left_out.size() == 1 ? "it" : "them";
    if (selector.single) {
      return fmt::format(
          "run {} is incomplete (interrupted after {:.2f} s): compare leaves incomplete runs "
          "out; --incomplete includes it",
          left_out[0].id, left_out[0].duration_seconds);
    }
    return fmt::format(
        "selector '{}' matches only incomplete {}: compare leaves incomplete runs out; "
        "--incomplete includes {}",
        selector.text, LeftOutRuns(left_out), them);
  }
  if (selector.single)
    return fmt::format("no run with id {} in {}", selector.text, store.Describe());
  return fmt::format("selector '{}' matches no run in {}", selector.text, store.Describe());
}

std::string LeftOutMessage(const Selector& selector,
                           const std::vector<store::RunSummary>& left_out) {
  return fmt::format("selector '{}' leaves out incomplete {}; --incomplete includes {}",
                     selector.text, LeftOutRuns(left_out), left_out.size() == 1 ? "it" : "them");
}

std::vector<int64_t> IdsOf(const std::vector<store::RunSummary>& runs) {
  std::vector<int64_t> ids;
  ids.reserve(runs.size());
  for (const auto& r : runs) ids.push_back(r.id);
  return ids;
}

}  // namespace nicbench::cli
