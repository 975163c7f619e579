// A mesh's grid as a small self-contained HTML page (no script): rows send, columns receive;
// each cell coloured by its state, linked to its run's report, with the run's top finding.
#include <fmt/format.h>

#include "base/units.h"
#include "report/fleet_report.h"
#include "report/html_report.h"

namespace nicbench::report {
namespace {

constexpr const char* kGridStyle =
    "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
    "th,td{border:1px solid #999;padding:.4em .7em;text-align:center;vertical-align:top}"
    "td small{display:block;color:#333;max-width:16em}.ok{background:#d7f5d7}"
    ".warn{background:#fff1b8}.crit{background:#f8c4c4}.failed{background:#e0b0b0}"
    ".stale,.pending,.none{background:#e4e4e4;color:#555}.self{background:#fff}"
    ".asym{outline:3px dashed #b00;outline-offset:-3px}";

std::string CellHtml(const GridCell& c, const std::string& link_prefix) {
  std::string rate = c.bits_per_second ? FormatBitRate(*c.bits_per_second) : "-";
  if (c.run_id) {
    rate = fmt::format("<a href=\"{}{}.html\">{}</a>", HtmlEscape(link_prefix), *c.run_id,
                       HtmlEscape(rate));
  }
  std::string body = rate + fmt::format("<small>{}{}</small>", CellStateName(c.state),
                                        c.asymmetric ? ", asymmetric" : "");
  if (!c.top_finding.empty()) {
    body +=
        fmt::format("<small>{} {}</small>", HtmlEscape(c.top_severity), HtmlEscape(c.top_finding));
  }
  if (!c.note.empty()) body += fmt::format("<small>{}</small>", HtmlEscape(c.note));
  return fmt::format("<td class=\"{}{}\" title=\"{} -> {}\">{}</td>", CellStateName(c.state),
                     c.asymmetric ? " asym" : "", HtmlEscape(c.sender), HtmlEscape(c.receiver),
                     body);
}

}  // namespace

std::string RenderGridHtml(const Grid& grid, const std::string& link_prefix) {
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src "
      "'unsafe-inline'\">\n<title>mesh {}</title>\n<style>{}</style>\n</head>\n<body>\n"
      "<h1>mesh {}</h1>\n<p>Rows send, columns receive: the goodput the receiver counted. A "
      "dashed cell is one direction of an asymmetric pair.</p>\n<table>\n<tr><th></th>",
      HtmlEscape(grid.mesh), kGridStyle, HtmlEscape(grid.mesh));
  for (const std::string& h : grid.hosts) out += "<th>" + HtmlEscape(h) + "</th>";
  out += "</tr>\n";
  for (const std::string& from : grid.hosts) {
    out += "<tr><th>" + HtmlEscape(from) + "</th>";
    for (const std::string& to : grid.hosts) {
      const GridCell* c = CellOf(grid, from, to);
      out += c ? CellHtml(*c, link_prefix) : std::string("<td class=\"self\"></td>");
    }
    out += "</tr>\n";
  }
  out += "</table>\n</body>\n</html>\n";
  return out;
}

}  // namespace nicbench::report
