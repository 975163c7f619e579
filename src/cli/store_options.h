// The result-store options every storing or reading command shares (--store, --no-store,
// --label); `run` hands the plan to its job (job::StoreTarget), which stores each kept run.
// docs/store.md.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "base/exit_code.h"
#include "base/result.h"
#include "record/run_record.h"
#include "store/store.h"

namespace nicbench::cli {

struct StoreArgs {
  std::string store;                // --store PATH|URL; empty = the default location
  bool no_store = false;            // --no-store
  std::vector<std::string> labels;  // --label KEY=VALUE, repeatable
};

// What argv said, checked: where runs go (nullopt with --no-store) and their labels.
struct StorePlan {
  std::optional<std::string> location;
  store::Labels labels;
};

// --store and, for a writer, --no-store and --label.
void AddStoreOption(CLI::App& app, StoreArgs& args);
void AddStoreWriteOptions(CLI::App& app, StoreArgs& args);

// Usage errors: a label without '=' or with a bad key, the same key twice, --no-store with
// --store or --label, no default location.
Result<StorePlan> MakeStorePlan(const StoreArgs& args);

// The location readers use: --store, else the default (store::DefaultLocation).
Result<std::string> ReadLocation(const StoreArgs& args);

// How long a write waits for another writer: $NICBENCH_STORE_TIMEOUT_MS, else 5000 ms.
std::chrono::milliseconds StoreBusyTimeout();

// Opens a store for reading (it must exist).
Result<std::unique_ptr<store::Store>> OpenForReading(const StoreArgs& args);

// --since text -> Unix seconds: "2026-11-30", "2026-11-30 09:00", "2026-11-30T09:00:00Z" (UTC;
// a 'T' or a space between date and time, seconds and the Z optional), or a time before `now`:
// "90m", "12h", "7d", "30s".
Result<int64_t> ParseSince(std::string_view text, int64_t now);

// Opens the plan's store before a test runs, as --html's file is opened, so a store that
// cannot take the run (a directory, a file that is not a store, a truncated one, a server that
// does not answer) is found before the test instead of after it. Ok with --no-store. What it
// cannot see (a writer holding the lock at the end, a disk that fills) is still found when the
// run job stores the runs (job/run_job.h).
Status CheckStoreBeforeTheRun(const StorePlan& plan);

}  // namespace nicbench::cli
