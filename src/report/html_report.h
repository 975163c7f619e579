// The HTML report: one self-contained page per run (or per set of runs) that needs nothing else:
// the data, the styles, the page's script and Chart.js (compiled into the binary) are all inline,
// and a Content-Security-Policy forbids every request, so it opens from file:// with the network
// off, mails as one attachment and archives as one file. What each part shows: docs/report.md.
// Pure (record in, text out); thread-safe.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "record/run_record.h"
#include "report/compare_report.h"

namespace nicbench::report {

// The page's Content-Security-Policy: no request of any kind; inline script and style only.
inline constexpr const char* kHtmlCsp =
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; "
    "base-uri 'none'; form-action 'none'";

// One run: findings, throughput, CPU per core, interrupts, TCP, both ends' facts.
std::string RenderHtml(const record::RunRecord& run);
// Several runs of one invocation (loopback: forward then reverse) on one page, one after the
// other, each with its own findings, charts and facts. `directions` (DirectionsJson of
// json_report.h; null for none): the two directions side by side and the pair's findings, as the
// page's first section (plain HTML, no script needed).
std::string RenderHtml(const std::vector<const record::RunRecord*>& runs,
                       const nlohmann::ordered_json& directions = nullptr);

// An experiment or several sets of runs: a bar chart per metric, one bar per variant with its
// min, max and n; each variant against the first (change or `~`, p) as compare prints it; what
// differs from the first variant, and what differs inside one variant (compare_html.cc). The
// header names the experiment and its seed when t.experiment is set, else `sets`: the sets as
// the user named them, in t.variants' order (the first is the baseline, compare's A).
std::string RenderHtmlMatrix(const MatrixTable& t, const std::string& title,
                             const std::vector<SetName>& sets = {});

// The page around a prepared model (html_model.h shape, or the several-runs shape of
// compare_html.cc): `body` is the server-rendered HTML of the sections that need no script
// (summary, findings, tables), the charts are drawn from `model["sections"]`.
std::string RenderHtmlPage(const std::string& title, const std::string& body,
                           const nlohmann::ordered_json& model);

// Text made safe for HTML element content and attribute values.
std::string HtmlEscape(const std::string& text);

}  // namespace nicbench::report
