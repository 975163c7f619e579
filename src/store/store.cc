// Opening a store by location, the default location, and label text.
#include "store/store.h"

#include <cstdlib>

#include <fmt/format.h>

#include "store/backends.h"
#include "store/sql_store.h"

namespace nicbench::store {
namespace {

bool KeyChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '-';
}

const char* Env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && value[0] != '\0' ? value : nullptr;
}

}  // namespace

Result<std::pair<std::string, std::string>> ParseLabel(std::string_view text) {
  const size_t eq = text.find('=');
  if (eq == std::string_view::npos) {
    return Fail(fmt::format("label '{}' has no '=': write KEY=VALUE", text));
  }
  std::string key(text.substr(0, eq)), value(text.substr(eq + 1));
  if (key.empty() || key.size() > 64) {
    return Fail(fmt::format("label '{}': the key must be 1 to 64 characters", text));
  }
  for (char c : key) {
    if (!KeyChar(c)) {
      return Fail(fmt::format("label '{}': the key may hold only letters, digits, '_', '.' and '-'",
                              text));
    }
  }
  if (value.size() > 1024) return Fail(fmt::format("label '{}': the value is over 1024 bytes", key));
  return std::pair{std::move(key), std::move(value)};
}

Result<std::string> DefaultLocation() {
  if (const char* store = Env("NICBENCH_STORE")) return std::string(store);
  if (const char* data = Env("XDG_DATA_HOME")) return std::string(data) + "/nicbench/results.db";
  if (const char* home = Env("HOME")) return std::string(home) + "/.local/share/nicbench/results.db";
  return Fail("no place for the result store: set NICBENCH_STORE, XDG_DATA_HOME or HOME, or use "
              "--store PATH");
}

std::string RedactUrl(const std::string& url) {
  // scheme://user:password@host/...: the password ends at the last '@' of the authority.
  const size_t scheme = url.find("://");
  if (scheme == std::string::npos) return url;
  const size_t authority = scheme + 3;
  const size_t end = url.find_first_of("/?", authority);
  const size_t at = url.rfind('@', end == std::string::npos ? url.size() : end);
  std::string out = url;
  if (at != std::string::npos && at > authority) {
    const size_t colon = url.find(':', authority);
    if (colon != std::string::npos && colon < at) out = url.substr(0, colon + 1) + "***" + url.substr(at);
  }
  const size_t password = out.find("password=");
  if (password != std::string::npos) {
    const size_t value_end = out.find('&', password);
    out = out.substr(0, password + 9) + "***" +
          (value_end == std::string::npos ? "" : out.substr(value_end));
  }
  return out;
}

bool IsPostgresUrl(std::string_view location) {
  return location.starts_with("postgresql://") || location.starts_with("postgres://");
}

Result<std::unique_ptr<Store>> OpenStore(std::string_view location, OpenMode mode,
                                         std::chrono::milliseconds busy_timeout) {
  std::string where(location);
  auto connection = IsPostgresUrl(where) ? OpenPostgres(where, busy_timeout)
                                         : OpenSqlite(where, mode, busy_timeout);
  if (!connection) return tl::unexpected(connection.error());
  if (auto s = Migrate(**connection); !s) return tl::unexpected(s.error());
  return MakeSqlStore(std::move(*connection));
}

}  // namespace nicbench::store
