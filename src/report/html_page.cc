// The HTML page around a report's model, and the one-run report's server-rendered parts
// (summary, findings, facts): they read without the script and print as text.
#include <fmt/format.h>

#include "report/chartjs_asset.h"
#include "report/html_assets.h"
#include "report/html_model.h"
#include "report/html_report.h"
#include "report/text_lines.h"

namespace nicbench::report {
namespace {

using Json = nlohmann::ordered_json;

// JSON that cannot end its <script> element: every '<' is written \u003c (valid JSON, since a
// '<' can only be inside a string).
std::string ScriptSafeJson(const Json& model) {
  const std::string text = model.dump(-1, ' ', false, Json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    if (ch == '<') {
      out += "\\u003c";
    } else {
      out += ch;
    }
  }
  return out;
}

std::string SummaryHtml(const Json& rows) {
  std::string out = "<dl class=\"summary\">";
  for (const auto& row : rows) {
    out += fmt::format("<div><dt>{}</dt><dd>{}</dd></div>", HtmlEscape(row[0].get<std::string>()),
                       HtmlEscape(row[1].get<std::string>()));
  }
  return out + "</dl>";
}

std::string FindingsHtml(const Json& findings, const std::string& prefix,
                         const char* title = "What limits the transfer",
                         const char* none = "No findings (diagnosis did not run).") {
  std::string out = fmt::format(
      "<section id=\"{0}findings\" aria-labelledby=\"{0}findings-h\">"
      "<h2 id=\"{0}findings-h\">{1}</h2>",
      prefix, title);
  if (findings.empty()) return out + "<p class=\"empty\">" + none + "</p></section>";
  out += "<ol class=\"findings\">";
  for (const auto& f : findings) {
    const std::string sev = f["severity"].get<std::string>();
    out += fmt::format("<li class=\"{0}\"><h3><span class=\"sev {0}\">{0}</span>{1}</h3>", sev,
                       HtmlEscape(f["title"].get<std::string>()));
    if (!f["evidence"].empty()) {
      out += "<ul>";
      for (const auto& e : f["evidence"])
        out += "<li>" + HtmlEscape(e.get<std::string>()) + "</li>";
      out += "</ul>";
    }
    if (!f["meaning"].get<std::string>().empty()) {
      out += "<p>" + HtmlEscape(f["meaning"].get<std::string>()) + "</p>";
    }
    if (!f["next_step"].get<std::string>().empty()) {
      out += "<p><span class=\"next\">Next step:</span> " +
             HtmlEscape(f["next_step"].get<std::string>()) + "</p>";
    }
    out += "</li>";
  }
  return out + "</ol></section>";
}

std::string FactsHtml(const Json& facts, const std::string& prefix) {
  std::string out = fmt::format(
      "<section id=\"{2}facts\" aria-labelledby=\"{2}facts-h\"><h2 id=\"{2}facts-h\">Both ends' "
      "host and "
      "NIC facts</h2><p class=\"note\">Rows where the ends differ are highlighted and marked "
      "\u2260; counters kept since the interface came up (nic.counters, nic.driver_stats) "
      "never are.</p><div class=\"table-wrap facts-wrap\" tabindex=\"0\"><table class=\"facts\">"
      "<caption>Facts of each end</caption><thead><tr><th scope=\"col\">fact</th>"
      "<th scope=\"col\">{0}</th><th scope=\"col\">{1}</th></tr></thead><tbody>",
      HtmlEscape(facts["ends"][0].get<std::string>()),
      HtmlEscape(facts["ends"][1].get<std::string>()), prefix);
  for (const auto& row : facts["rows"]) {
    out += fmt::format("<tr{}><td>{}</td><td>{}</td><td>{}</td></tr>",
                       row[3].get<bool>() ? " class=\"differs\"" : "",
                       HtmlEscape(row[0].get<std::string>()), HtmlEscape(row[1].get<std::string>()),
                       HtmlEscape(row[2].get<std::string>()));
  }
  return out + "</tbody></table></div></section>";
}

// A plain table of text rows: the drop ladder and the stream limits.
std::string RowsHtml(const std::string& id, const std::string& title, const std::string& note,
                     const std::vector<std::string>& heads, const Json& rows) {
  std::string out = fmt::format(
      "<section id=\"{0}\" aria-labelledby=\"{0}-h\"><h2 id=\"{0}-h\">{1}</h2><p "
      "class=\"note\">{2}</p><div class=\"table-wrap\" tabindex=\"0\"><table class=\"facts\">"
      "<caption>{1}</caption><thead><tr>",
      id, HtmlEscape(title), HtmlEscape(note));
  for (const std::string& h : heads) out += "<th scope=\"col\">" + HtmlEscape(h) + "</th>";
  out += "</tr></thead><tbody>";
  for (const auto& row : rows) {
    out += "<tr>";
    for (const auto& cell : row) out += "<td>" + HtmlEscape(cell.get<std::string>()) + "</td>";
    out += "</tr>";
  }
  return out + "</tbody></table></div></section>";
}

std::string LadderAndLimitsHtml(const Json& model, const std::string& prefix) {
  std::string out;
  if (model.contains("drop_ladder")) {
    const Json& ladder = model["drop_ladder"];
    out += RowsHtml(
        prefix + "drop-ladder", "Drop ladder",
        "Packets each layer of the receive path dropped during the test, bottom up, "
        "and the TCP retransmissions that followed; unknown says why.",
        {"layer", ladder["ends"][0].get<std::string>(), ladder["ends"][1].get<std::string>()},
        ladder["rows"]);
  }
  if (model.contains("figures")) {
    out += RowsHtml(prefix + "figures", "Figures",
                    "Every figure the result store keeps of this run, as history, compare and "
                    "matrix read them; unknown says why.",
                    {"figure", "value", "unit", "key"}, model["figures"]);
  }
  if (model.contains("stream_limits") && !model["stream_limits"].empty()) {
    out += RowsHtml(prefix + "stream-limits", "What limited each TCP stream",
                    "From the sender's TCP_INFO busy, rwnd-limited and sndbuf-limited times.",
                    {"stream", "sender", "limited by", "times"}, model["stream_limits"]);
  }
  return out;
}

}  // namespace

std::string HtmlEscape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += ch;
    }
  }
  return out;
}

std::string RenderHtmlPage(const std::string& title, const std::string& body, const Json& model) {
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<meta name=\"referrer\" content=\"no-referrer\">\n<title>{}</title>\n<style>{}</style>\n"
      "</head>\n<body>\n<a class=\"skip\" href=\"#main\">Skip to the report</a>\n",
      kHtmlCsp, HtmlEscape(title), kHtmlStyle);
  out += body;
  out += "\n<pre id=\"nb-check\" hidden></pre>\n<script type=\"application/json\" id=\"nb-data\">";
  out += ScriptSafeJson(model);
  out += "</script>\n<script>\n";
  out += ChartJs();
  out += "\n</script>\n<script>";
  out += kHtmlScript;
  out += "</script>\n</body>\n</html>\n";
  return out;
}

namespace {

// Gives every section and chart id a prefix, so several runs on one page keep ids unique.
void PrefixIds(Json& sections, const std::string& prefix) {
  for (auto& s : sections) {
    s["id"] = prefix + s["id"].get<std::string>();
    for (auto& c : s["charts"]) c["id"] = prefix + c["id"].get<std::string>();
  }
}

// One run's part of the page: its findings, the place of its charts, its facts.
std::string RunBody(const Json& model, const std::string& anchor, bool own_heading,
                    const std::string& prefix) {
  std::string out;
  if (own_heading) {
    out += "<h2 class=\"run\">" + HtmlEscape(model["title"].get<std::string>()) + "</h2>" +
           SummaryHtml(model["summary"]);
  }
  out += FindingsHtml(model["findings"], prefix) + "\n<div id=\"" + anchor +
         "\"><p class=\"empty\">The charts need the page's script.</p></div>\n" +
         LadderAndLimitsHtml(model, prefix) + FactsHtml(model["facts"], prefix);
  return out;
}

// The two directions side by side (DirectionsJson) and the pair's findings: one table, figure by
// figure, as the terminal prints it under the two summaries.
std::string DirectionsHtml(const Json& directions) {
  Json rows = Json::array();
  for (const auto& row : directions["rows"]) {
    const std::string unit = row["unit"].get<std::string>();
    Json cells = {row["figure"], unit == "bit/s" ? "" : unit};
    for (const char* key : {"forward", "reverse"}) {
      cells.push_back(row[key].is_number()
                          ? text::DirectionValueText(unit, row[key].get<double>())
                          : "unknown (" + row["unknown"][key].get<std::string>() + ")");
    }
    rows.push_back(std::move(cells));
  }
  std::string out = RowsHtml(
      "directions", "Both directions side by side",
      "Forward: the client sends; reverse: the server sends. Each end's CPU is per GB moved "
      "through that end; an unknown value says why.",
      {"figure", "unit", "forward", "reverse"}, rows);
  // The pair's findings (asymmetry, interrupt cost across directions), in the findings' form.
  return out + FindingsHtml(directions["findings"], "directions-", "The two directions compared",
                            "No finding from comparing the directions (asymmetry, interrupt "
                            "cost).");
}

}  // namespace

std::string RenderHtml(const std::vector<const record::RunRecord*>& runs, const Json& directions) {
  Json page{{"runs", Json::array()}};
  std::string main;
  std::string title = "nicbench: no runs";
  std::string header;
  for (size_t i = 0; i < runs.size(); ++i) {
    Json model = BuildHtmlModel(*runs[i]);
    const std::string anchor = fmt::format("nb-charts-{}", i);
    Json sections = model["sections"];
    if (runs.size() > 1) PrefixIds(sections, fmt::format("r{}-", i));
    page["runs"].push_back({{"anchor", anchor}, {"sections", std::move(sections)}});
    if (i == 0) {
      title = model["title"].get<std::string>();
      header = SummaryHtml(model["summary"]);
    }
    const std::string prefix = runs.size() > 1 ? fmt::format("r{}-", i) : "";
    main += "<article>" + RunBody(model, anchor, runs.size() > 1, prefix) + "</article>\n";
  }
  if (runs.size() > 1) {
    title = fmt::format("nicbench: {} runs from {}", runs.size(), runs[0]->timestamp);
    header.clear();
  }
  if (directions.is_object())
    main = "<article>" + DirectionsHtml(directions) + "</article>\n" + main;
  std::string body = "<header><h1>" + HtmlEscape(title) + "</h1>" + header +
                     "</header>\n<main id=\"main\">\n" + main + "</main>";
  return RenderHtmlPage(title, body, page);
}

std::string RenderHtml(const record::RunRecord& run) { return RenderHtml({&run}); }

}  // namespace nicbench::report
