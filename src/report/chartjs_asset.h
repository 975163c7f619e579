// Chart.js (Debian's libjs-chart.js, MIT licence), compiled into the binary by
// src/report/CMakeLists.txt so HTML reports embed it without reading any file at run time.
#pragma once

#include <string_view>

namespace nicbench::report {

// The library's minified UMD build, whole, with its licence header.
std::string_view ChartJs();

}  // namespace nicbench::report
