// The JSON report: one document per test keeping iperf3's -J shape (start / intervals / end,
// iperf3's member names and units) so scripts that parse `iperf3 -J` read it unchanged, and
// beside it what iperf3 lacks: "nicbench" {version, schema_version, spec}, "local" and "remote"
// (each end's facts, per-interval host samples and per-stream view), "findings", and "error".
// Schema: docs/json-schema.md. Rendering is pure (record in, text out); thread-safe.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/directions.h"
#include "record/run_record.h"

namespace nicbench::report {

// The document as a value (members in iperf3's order). No NaN or infinity anywhere: a rate
// whose duration is not > 0 is null, with its reason in the enclosing object's "unknown".
nlohmann::ordered_json BuildJson(const record::RunRecord& run);

// BuildJson serialised: indented, one trailing newline. Invalid UTF-8 in strings (an IRQ
// name, a peer's hostname) is replaced, never an exception.
std::string RenderJson(const record::RunRecord& run);
// The same bytes written to `out` as they are made, one top-level member at a time: the
// document is never whole in memory, neither as a value nor as text (with 1,000 streams both
// were a large part of a client's peak memory).
void WriteJson(const record::RunRecord& run, std::FILE* out);

// The document for an invocation that never started a test (a usage error, a server that could
// not listen): iperf3's empty "start", "intervals" and "end", the error, and this binary's
// version; no timestamp, spec or host facts, since none were taken.
std::string RenderJsonError(const std::string& message);

// Several tests of one invocation (e.g. forward then reverse):
// JSON Lines: one RenderJson document per line (compact), in order, so each direction of the
// main job is a document an iperf3 -J parser reads (docs/json-schema.md).
std::string RenderJsonLines(const std::vector<record::RunRecord>& runs);

// The two directions side by side (analysis::CompareDirections) and the findings that need both
// directions (diagnosis::DiagnosePair): {"rows": [{"id", "figure", "unit", "forward",
// "reverse"}...], "findings": [...]}; an unknown value is null with its reason in the row's
// "unknown" object ({"forward": "absent: no CPU samples"}). docs/json-schema.md, "directions".
nlohmann::ordered_json DirectionsJson(const std::vector<analysis::DirectionRow>& rows,
                                      const std::vector<record::Finding>& pair_findings);
// RenderJsonLines with `directions` added to the last document as its top-level "directions"
// member, so each line stays a document an iperf3 -J parser reads (the main job and
// --both-directions).
std::string RenderJsonLines(const std::vector<record::RunRecord>& runs,
                            const nlohmann::ordered_json& directions);

}  // namespace nicbench::report
