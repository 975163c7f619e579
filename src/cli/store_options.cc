#include "cli/store_options.h"

#include <cstdio>
#include <cstdlib>
#include <ctime>

#include <fmt/format.h>

#include "base/log.h"
#include "base/units.h"
#include "cli/option_tables.h"

namespace nicbench::cli {

void AddStoreOption(CLI::App& app, StoreArgs& args) { AddRows(app, args, StoreRows().first(1)); }

void AddStoreWriteOptions(CLI::App& app, StoreArgs& args) { AddRows(app, args, StoreRows()); }

Result<StorePlan> MakeStorePlan(const StoreArgs& args) {
  StorePlan plan;
  if (args.no_store && !args.store.empty()) return Fail("--no-store and --store contradict");
  if (args.no_store && !args.labels.empty())
    return Fail("--label needs a stored run, not --no-store");
  for (const std::string& text : args.labels) {
    auto label = store::ParseLabel(text);
    if (!label) return Fail("--label: " + label.error().message);
    if (!plan.labels.emplace(label->first, label->second).second) {
      return Fail(fmt::format("--label: the key '{}' is given twice", label->first));
    }
  }
  if (args.no_store) return plan;
  auto location = ReadLocation(args);
  if (!location) return tl::unexpected(location.error());
  plan.location = *location;
  return plan;
}

Result<std::string> ReadLocation(const StoreArgs& args) {
  if (!args.store.empty()) return args.store;
  return store::DefaultLocation();
}

std::chrono::milliseconds StoreBusyTimeout() {
  const char* text = std::getenv("NICBENCH_STORE_TIMEOUT_MS");
  if (text == nullptr || text[0] == '\0') return store::kDefaultBusyTimeout;
  auto ms = ParseUnsigned(text);
  if (!ms || *ms > 3600000) {
    LogWarning(fmt::format("NICBENCH_STORE_TIMEOUT_MS='{}' is not 0..3600000; using {} ms", text,
                           store::kDefaultBusyTimeout.count()));
    return store::kDefaultBusyTimeout;
  }
  return std::chrono::milliseconds(*ms);
}

Result<std::unique_ptr<store::Store>> OpenForReading(const StoreArgs& args) {
  auto location = ReadLocation(args);
  if (!location) return tl::unexpected(location.error());
  return store::OpenStore(*location, store::OpenMode::kExisting, StoreBusyTimeout());
}

namespace {

// "12h" -> 43200; nullopt when the text is not a number and one of s, m, h, d.
std::optional<int64_t> Ago(std::string_view text) {
  if (text.size() < 2) return std::nullopt;
  const char unit = text.back();
  const int64_t scale = unit == 's'   ? 1
                        : unit == 'm' ? 60
                        : unit == 'h' ? 3600
                        : unit == 'd' ? 86400
                                      : 0;
  if (scale == 0) return std::nullopt;
  auto n = ParseUnsigned(text.substr(0, text.size() - 1));
  if (!n || *n > 100ull * 365 * 86400 / scale) return std::nullopt;
  return static_cast<int64_t>(*n) * scale;
}

}  // namespace

Result<int64_t> ParseSince(std::string_view text, int64_t now) {
  if (auto ago = Ago(text)) return now - *ago;
  std::string t(text);
  if (!t.empty() && t.back() == 'Z') t.pop_back();
  std::tm tm{};
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  char sep = 0, tail = 0;
  const int n = std::sscanf(t.c_str(), "%4d-%2d-%2d%c%2d:%2d:%2d%c", &year, &month, &day, &sep,
                            &hour, &minute, &second, &tail);
  const bool date_only = n == 3 && t.size() == 10;
  const bool with_time = (n == 6 || n == 7) && (sep == 'T' || sep == ' ');
  if (!date_only && !with_time) {
    return Fail(
        fmt::format("'{}' is not a date (2026-11-30, '2026-11-30 09:00', "
                    "2026-11-30T09:00:00Z) nor a time ago (90m, 12h, 7d)",
                    text));
  }
  if (year < 1970 || month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 ||
      second > 60) {
    return Fail(fmt::format("'{}' is not a valid date and time", text));
  }
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  const std::tm asked = tm;
  const time_t secs = timegm(&tm);
  // timegm normalizes 2026-02-31 to March 3rd; a date that moved did not exist.
  if (tm.tm_mday != asked.tm_mday || tm.tm_mon != asked.tm_mon) {
    return Fail(fmt::format("'{}' is not a valid date", text));
  }
  return static_cast<int64_t>(secs);
}

Status CheckStoreBeforeTheRun(const StorePlan& plan) {
  if (!plan.location) return Ok();
  auto store = store::OpenStore(*plan.location, store::OpenMode::kCreate, StoreBusyTimeout());
  if (!store) return tl::unexpected(store.error());
  return Ok();
}

}  // namespace nicbench::cli
