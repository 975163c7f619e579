// Result-store benchmarks (not tests; figures from a shared machine are rough):
//  1. What storing one run adds to `nicbench run`: open the store, Put one real record (from a
//     loopback run of -t 2 -i 0.2, 10 intervals), close; as cli::StoreRuns does. Median, p90, max.
//  2. `nicbench history --last 50` over 100,000 stored runs, the whole command timed from exec to
//     exit. The 100,000 runs are one real run's row cloned in SQL; history never reads records,
//     so the clones' record column holds a placeholder to keep the file small.
// Usage: store_bench NICBENCH_BINARY [RUNS=100000] [ROUNDS=200]
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "record/json.h"
#include "store/store.h"

namespace {

using Clock = std::chrono::steady_clock;
namespace store = nicbench::store;

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

double CpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

// Runs argv to its end; `cpu_ms` gets the child's user+system time.
int Run(const std::vector<std::string>& argv, double* cpu_ms = nullptr) {
  pid_t pid = fork();
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    std::vector<char*> args;
    args.reserve(argv.size() + 1);
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  if (cpu_ms != nullptr) {
    *cpu_ms = (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e3 +
              (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e3;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void Report(const char* what, std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  std::printf("%-60s median %7.2f ms  p90 %7.2f ms  max %7.2f ms  (n=%zu)\n", what,
              ms[ms.size() / 2], ms[ms.size() * 9 / 10], ms.back(), ms.size());
}

bool Exec(sqlite3* db, const std::string& sql) {
  char* error = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
    std::fprintf(stderr, "sqlite: %s\n", error ? error : "?");
    sqlite3_free(error);
    return false;
  }
  return true;
}

// Clones run 1 (and its labels, alternating tso=on/off) until the store holds `runs` runs.
bool Clone(const std::string& path, int runs) {
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) return false;
  const std::string columns =
      "stored_secs, record_schema, nicbench_version, start_time, start_secs, client_host, "
      "server_host, peer, direction, protocol, streams, duration_seconds, sender_bps, "
      "receiver_bps, client_cpu_s_per_gb, server_cpu_s_per_gb, retransmits, top_finding, "
      "top_severity, labels, client_irq_per_gb, server_irq_per_gb, mean_rtt_us";
  bool ok = Exec(db, "BEGIN") &&
            Exec(db, "WITH RECURSIVE n(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM n WHERE i < " +
                         std::to_string(runs) + ") INSERT INTO runs (id, " + columns +
                         ") SELECT i, " + columns + " FROM n, runs WHERE runs.id = 1") &&
            Exec(db,
                 "INSERT INTO run_records (run_id, record) SELECT id, '{}' FROM runs "
                 "WHERE id > 1") &&
            Exec(db,
                 "INSERT INTO run_labels (run_id, key, value) SELECT id, 'nic', 'lo' FROM runs "
                 "WHERE id > 1") &&
            Exec(db,
                 "INSERT INTO run_labels (run_id, key, value) SELECT id, 'tso', "
                 "CASE id % 2 WHEN 0 THEN 'on' ELSE 'off' END FROM runs WHERE id > 1") &&
            Exec(db, "COMMIT");
  sqlite3_close(db);
  return ok;
}

// A real record: a short loopback run stored by the binary itself; nullopt (said on stderr)
// when that run fails.
std::optional<nicbench::record::RunRecord> SeedRecord(const std::string& nicbench,
                                                      const std::string& dir) {
  const std::string seed = dir + "/seed.db";
  if (Run({nicbench, "run", "-t", "2", "-i", "0.2", "--store", seed}) != 0) {
    std::fprintf(stderr, "the seed run failed\n");
    return std::nullopt;
  }
  auto seed_store = store::OpenStore(seed, store::OpenMode::kExisting);
  if (!seed_store) {
    std::fprintf(stderr, "%s\n", seed_store.error().message.c_str());
    return std::nullopt;
  }
  auto stored = (*seed_store)->Get(1);
  if (!stored || !*stored) {
    std::fprintf(stderr, "cannot read the seed run\n");
    return std::nullopt;
  }
  return (*stored)->record;
}

// Benchmark 1: open, Put, close, `rounds` times.
bool TimePuts(const nicbench::record::RunRecord& record, const std::string& dir, int rounds) {
  const std::string put_path = dir + "/put.db";
  std::vector<double> put_ms, put_cpu_ms;
  for (int i = 0; i < rounds; ++i) {
    const auto start = Clock::now();
    const double cpu_start = CpuMs();
    auto s = store::OpenStore(put_path);
    if (!s || !(*s)->Put(record, {{"nic", "lo"}, {"round", std::to_string(i)}})) return false;
    s->reset();
    put_ms.push_back(Ms(Clock::now() - start));
    put_cpu_ms.push_back(CpuMs() - cpu_start);
  }
  Report("open + store one run + close (SQLite, WAL): wall", put_ms);
  Report("                                             cpu", put_cpu_ms);
  return true;
}

// Benchmark 2: `history` variants over `runs` stored runs, each command run 21 times.
bool TimeHistory(const std::string& nicbench, const nicbench::record::RunRecord& record,
                 const std::string& dir, int runs) {
  const std::string hist = dir + "/history.db";
  {
    auto s = store::OpenStore(hist);
    if (!s || !(*s)->Put(record, {{"nic", "lo"}, {"tso", "off"}})) return false;
  }
  const auto fill_start = Clock::now();
  if (!Clone(hist, runs)) return false;
  std::printf("filled %d runs in %.1f s; file %.1f MB\n", runs,
              Ms(Clock::now() - fill_start) / 1000, std::filesystem::file_size(hist) / 1e6);
  for (const auto& [what, extra] : std::vector<std::pair<const char*, std::vector<std::string>>>{
           {"history --last 50", {}},
           {"history --last 50 --json", {"--json"}},
           {"history --last 50 --label tso=on", {"--label", "tso=on"}},
           {"history --last 50 --since 2000-01-01 --peer 127.0.0.1",
            {"--since", "2000-01-01", "--peer", "127.0.0.1"}}}) {
    std::vector<std::string> cmd = {nicbench, "history", "--last", "50", "--store", hist};
    cmd.insert(cmd.end(), extra.begin(), extra.end());
    std::vector<double> ms, cpu;
    for (int i = 0; i < 21; ++i) {
      const auto start = Clock::now();
      double cpu_ms = 0;
      if (Run(cmd, &cpu_ms) != 0) return false;
      ms.push_back(Ms(Clock::now() - start));
      cpu.push_back(cpu_ms);
    }
    Report((std::string(what) + ": wall").c_str(), ms);
    Report("    cpu", cpu);
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s NICBENCH_BINARY [RUNS=100000] [ROUNDS=200]\n", argv[0]);
    return 2;
  }
  const std::string nicbench = argv[1];
  const int runs = argc > 2 ? std::atoi(argv[2]) : 100000;
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 200;
  char pattern[] = "/tmp/nicbench-store-bench-XXXXXX";
  const std::string dir = mkdtemp(pattern);

  const std::optional<nicbench::record::RunRecord> record = SeedRecord(nicbench, dir);
  if (!record) return 1;
  std::printf("record: %zu intervals, %zu bytes of JSON\n", record->intervals.size(),
              nlohmann::json(*record).dump().size());
  if (!TimePuts(*record, dir, rounds) || !TimeHistory(nicbench, *record, dir, runs)) return 1;
  std::filesystem::remove_all(dir);
  return 0;
}
