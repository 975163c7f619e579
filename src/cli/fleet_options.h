// What `nicbench agent` and `nicbench mesh` share (docs/fleet.md): where the fleet's database
// is, read so its password never shows in `ps`, and the check of a mesh's test options, the
// same for `mesh create` (before a job is written) and the agent (before a job is run).
// Internal to the cli layer; thread-safe (no shared state).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "engine/client.h"

namespace nicbench::cli {

// --store and --store-file (their rows: cli/option_tables_fleet.h).
struct FleetArgs {
  std::string store;       // --store URL (without a password)
  std::string store_file;  // --store-file FILE: the URL in the file's first line
};

// The fleet's PostgreSQL URL: --store-file's first line, else --store, else $NICBENCH_STORE.
// A --store whose URL holds a password is refused (every user of the machine can read a
// process's arguments): put it in a file, the environment, or ~/.pgpass. TLS is libpq's: a
// URL with `sslmode=require` (or verify-full) gets it.
Result<std::string> FleetUrl(const FleetArgs& args);

// True when the URL names a password (user:PASSWORD@ or password=).
bool UrlHasPassword(const std::string& url);

// White-space separated words, as monitor --test splits them.
std::vector<std::string> SplitWords(const std::string& text);

// A mesh's test against `peer`: run's own parser and checks (record::Validate among them), a
// timed test (-t), one direction, sender to receiver (-R, --bidir and --both-directions are
// the mesh's to say), no files, no output options. The error says why, after `what` and the
// words ("test '-t 1 -R': ...").
Result<engine::ClientConfig> MeshTest(const std::string& peer,
                                      const std::vector<std::string>& words,
                                      std::string_view what = "test");

}  // namespace nicbench::cli
