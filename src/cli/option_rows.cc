#include "cli/option_rows.h"

#include <cmath>

#include <fmt/format.h>

namespace nicbench::cli {

std::string_view FirstName(std::string_view names) { return names.substr(0, names.find(',')); }

Result<uint64_t> ParseInRange(std::string_view name, const std::string& text, Range range) {
  auto value = range.reading == Reading::kByteSize  ? ParseByteSize(text)
               : range.reading == Reading::kBitRate ? ParseBitRate(text)
                                                    : ParseUnsigned(text);
  if (range.max != UINT64_MAX) {
    if (!value || *value < range.min || *value > range.max) {
      return Fail(fmt::format("{}: expected {}..{}, got '{}'", name, range.min, range.max, text));
    }
    return *value;
  }
  if (!value) return Fail(fmt::format("{}: {}", name, value.error().message));
  if (*value < range.min) return Fail(fmt::format("{}: must be at least {}", name, range.min));
  return *value;
}

Result<std::chrono::milliseconds> ParseMillis(std::string_view name, const std::string& text) {
  auto seconds = ParseSeconds(text);
  if (!seconds) return Fail(fmt::format("{}: {}", name, seconds.error().message));
  return std::chrono::milliseconds(std::llround(*seconds * 1000.0));  // >= 0: ParseSeconds
}

Result<std::chrono::milliseconds> ParseDurationIn(std::string_view name, const std::string& text,
                                                  std::chrono::milliseconds low,
                                                  std::chrono::milliseconds high) {
  auto d = ParseDuration(text);
  if (!d) return Fail(fmt::format("{} {}", name, d.error().message));
  if (*d < low || *d > high) {
    return Fail(fmt::format("{} {}: expected {} s .. {} s", name, text, low.count() / 1000.0,
                            high.count() / 1000.0));
  }
  return *d;
}

Result<double> ParseNumberIn(std::string_view name, const std::string& text, double low,
                             double high) {
  auto v = ParseSeconds(text);  // a non-negative decimal number
  if (!v || *v < low || *v > high) {
    return Fail(fmt::format("{} {}: expected a number {}..{}", name, text, low, high));
  }
  return *v;
}

namespace detail {

CLI::Option* AddRow(CLI::App& app, const char* names, const char* help, unsigned traits,
                    std::variant<bool*, std::string*, std::vector<std::string>*> where,
                    const char* excludes) {
  CLI::Option* option = nullptr;
  if (bool** flag = std::get_if<bool*>(&where)) {
    option = app.add_flag(names, **flag, help);
  } else if (std::string** text = std::get_if<std::string*>(&where)) {
    option = (traits & kValueFlag) ? app.add_flag(names, **text, help)
                                   : app.add_option(names, **text, help);
  } else {
    option = app.add_option(names, *std::get<std::vector<std::string>*>(where), help);
  }
  // One value per occurrence: `--label A --label B`, never `--label A B` (which would take a
  // positional HOST for a value).
  if (traits & kRepeatable) option->expected(1)->allow_extra_args(false)->take_all();
  if (traits & kOptionalValue) option->expected(0, 1);
  if (traits & kExistingDirectory) option->check(CLI::ExistingDirectory);
  if (traits & kRequired) option->required();
  if (traits & kIntValue) option->type_name("INT");
  if (traits & kTakeAll) option->take_all();
  if (excludes != nullptr) option->excludes(app.get_option(excludes));
  return option;
}

}  // namespace detail
}  // namespace nicbench::cli
