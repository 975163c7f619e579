// `nicbench monitor` (docs/monitor.md): its events as NDJSON lines and as lines for people, and
// its metrics in the Prometheus text exposition format (version 0.0.4). Debian 12 packages no
// Prometheus client library for C++ (prometheus-cpp is not in it), so the exposition is written
// here: a few metric families, label values escaped as the format says, and a test that
// `promtool check metrics` accepts it. Pure functions; thread-safe.
#pragma once

#include <string>

#include "record/monitor.h"

namespace nicbench::report {

// One JSON object on one line, ending in '\n':
// {"type":"event","monitor":ID,"id":N,"kind":"core-saturated","state":"opened"|"resolved",
//  "subject":"cpu0","time":"2026-12-05T04:30:00Z","time_unix":...,"opened_unix":...,
//  "summary":"...","evidence":["..."]}
std::string RenderEventJson(const record::MonitorEvent& event);

// "2026-12-05 04:30:00Z opened #3 core-saturated cpu0: SUMMARY" and one indented line per piece
// of evidence (resolved: "resolved #3 ... after 42 s"), terminal-safe.
std::string RenderEventText(const record::MonitorEvent& event);

inline constexpr const char* kMetricsContentType = "text/plain; version=0.0.4; charset=utf-8";

// Every metric family of the monitor (docs/monitor.md, "Metrics").
std::string RenderPrometheus(const record::MonitorMetrics& metrics);

}  // namespace nicbench::report
