// The HTML report's own style sheet and script (html_assets.cc), inlined into every page.
#pragma once

namespace nicbench::report {

extern const char kHtmlStyle[];
// Reads the model from #nb-data, draws every chart of model.sections with Chart.js with the same
// numbers as a table under a disclosure, and writes what it drew into #nb-check (hidden) as
// JSON: {charts: [{id, nonblank, datasets: [{label, data}]}], errors, violations, resources}.
extern const char kHtmlScript[];

}  // namespace nicbench::report
