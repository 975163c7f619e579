#include "cli/fleet_options.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "cli/run_arguments.h"
#include "store/store.h"

namespace nicbench::cli {

bool UrlHasPassword(const std::string& url) {
  if (url.find("password=") != std::string::npos) return true;
  const size_t scheme = url.find("://");
  if (scheme == std::string::npos) return false;
  const size_t authority = scheme + 3;
  const size_t end = url.find_first_of("/?", authority);
  const size_t at = url.rfind('@', end == std::string::npos ? url.size() : end);
  if (at == std::string::npos || at < authority) return false;
  const size_t colon = url.find(':', authority);
  return colon != std::string::npos && colon < at;
}

Result<std::string> FleetUrl(const FleetArgs& a) {
  std::string url;
  if (!a.store_file.empty()) {
    std::ifstream in(a.store_file);
    if (!in) return Fail("--store-file " + a.store_file + ": cannot be read");
    std::getline(in, url);
    while (!url.empty() && (url.back() == '\r' || url.back() == ' ')) url.pop_back();
    if (url.empty()) return Fail("--store-file " + a.store_file + ": the first line is empty");
  } else if (!a.store.empty()) {
    if (UrlHasPassword(a.store)) {
      return Fail(
          "--store: the URL holds a password, which every user sees in ps; put the URL in a "
          "file (--store-file FILE, mode 0600), in $NICBENCH_STORE, or the password in "
          "~/.pgpass");
    }
    url = a.store;
  } else if (const char* env = std::getenv("NICBENCH_STORE"); env != nullptr && *env) {
    url = env;
  } else {
    return Fail("no fleet database: --store-file FILE, --store URL or $NICBENCH_STORE");
  }
  if (!store::IsPostgresUrl(url)) {
    return Fail(
        "the fleet needs a PostgreSQL URL (postgresql://...), not a SQLite file: its queue "
        "claims jobs with SELECT ... FOR UPDATE SKIP LOCKED");
  }
  return url;
}

std::vector<std::string> SplitWords(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

Result<engine::ClientConfig> MeshTest(const std::string& peer,
                                      const std::vector<std::string>& words,
                                      std::string_view what) {
  std::vector<std::string> args = {peer};
  args.insert(args.end(), words.begin(), words.end());
  const std::string shown = fmt::format("{} '{}'", what, fmt::join(words, " "));
  auto tests = RunArgumentsToTests(args);
  if (!tests) return Fail(shown + ": " + tests.error().message);
  const engine::ClientConfig& t = tests->front();
  if (tests->size() != 1 || t.spec.direction != record::Direction::kForward) {
    return Fail(shown +
                ": a mesh's test runs from sender to receiver; -R, --bidir and "
                "--both-directions are the mesh's to say (mesh create --both-directions)");
  }
  if (t.spec.bytes != 0 || t.spec.blocks != 0 || t.spec.duration.count() == 0) {
    return Fail(shown + ": a mesh's tests are timed (-t SECONDS, not 0)");
  }
  return t;
}

}  // namespace nicbench::cli
