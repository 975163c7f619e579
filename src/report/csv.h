// CSV for spreadsheets (RFC 4180): a field is quoted when it holds a comma, a quote, a line
// break or leading/trailing space, and quotes inside are doubled; rows end with "\n", which every
// spreadsheet reads. Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nicbench::report {

std::string CsvField(std::string_view text);
// The fields quoted as needed, joined by commas, and a trailing "\n".
std::string CsvRow(const std::vector<std::string>& fields);
// A number as CSV wants it: shortest round-trip text, or "" when unknown.
std::string CsvNumber(std::optional<double> value);

}  // namespace nicbench::report
