#pragma once
// The shorthand the figure files share for a figure that could not be computed, and why.
#include <string>
#include <string_view>

#include "record/measured.h"

namespace nicbench::analysis {

inline record::Measured<double> UnknownFigure(record::Missing why, std::string_view detail) {
  return record::Measured<double>::Unknown(why, std::string(detail));
}

}  // namespace nicbench::analysis
