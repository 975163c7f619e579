#include "report/csv.h"

#include <cmath>

#include <fmt/format.h>

namespace nicbench::report {

std::string CsvField(std::string_view text) {
  const bool quote = text.find_first_of(",\"\r\n") != std::string_view::npos ||
                     (!text.empty() && (text.front() == ' ' || text.back() == ' '));
  if (!quote) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string CsvRow(const std::vector<std::string>& fields) {
  std::string row;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i) row += ',';
    row += CsvField(fields[i]);
  }
  return row + "\n";
}

std::string CsvNumber(std::optional<double> value) {
  if (!value || !std::isfinite(*value)) return "";
  return fmt::format("{}", *value);
}

}  // namespace nicbench::report
