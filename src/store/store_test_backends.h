// Test-only: fresh, empty store locations for the shared store suite, one kind per backend.
// SQLite: a file in a temporary directory. PostgreSQL: a database on a real server this process
// starts itself (pg_ctl in a temporary directory, as an unprivileged user when the tests run as
// root, on a free port of 127.0.0.1; its data directory a copy of one initdb made per build
// tree), stopped when the test program ends. Header-only.
#pragma once

#include <fcntl.h>
#include <glob.h>
#include <pwd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "store/backends.h"
#include "store/store.h"
#include "support/run_binary.h"

namespace nicbench::store::test {

class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/nicbench-store-test-XXXXXX";
    path_ = mkdtemp(pattern);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The directory holding initdb and pg_ctl: Debian's /usr/lib/postgresql/<version>/bin (the
// newest), else PATH. Empty when PostgreSQL's server binaries are not installed.
inline std::string PostgresBinDir() {
  glob_t g{};
  std::string found;
  if (glob("/usr/lib/postgresql/*/bin/pg_ctl", 0, nullptr, &g) == 0 && g.gl_pathc > 0) {
    found = std::filesystem::path(g.gl_pathv[g.gl_pathc - 1]).parent_path();
  }
  globfree(&g);
  if (found.empty() && nicbench::testing::HaveProgram("pg_ctl") &&
      nicbench::testing::HaveProgram("initdb")) {
    found = "PATH";
  }
  return found;
}

// One PostgreSQL server for the whole test program, started on first use.
class TestPostgres {
 public:
  static TestPostgres& Instance() {
    static TestPostgres* server = new TestPostgres();  // stopped by the environment below
    return *server;
  }

  // Starts the server on first call; why it is not available ("" when it is).
  const std::string& Ensure() {
    if (!tried_) {
      tried_ = true;
      Init();
    }
    return unavailable_;
  }

  // A URL of a new empty database on the server.
  std::string FreshDatabase() {
    std::string name = fmt::format("t{}_{}", getpid(), ++databases_);
    auto admin = OpenPostgres(Url("postgres"), std::chrono::seconds(10));
    if (!admin) {
      ADD_FAILURE() << admin.error().message;
      return "";
    }
    if (auto s = (*admin)->Exec("CREATE DATABASE " + name); !s) ADD_FAILURE() << s.error().message;
    return Url(name);
  }

  std::string Url(const std::string& db) const {
    return fmt::format("postgresql://nicbench@127.0.0.1:{}/{}", port_, db);
  }

  // Before the first Ensure(): the server also listens on `address` (an address of this
  // namespace, e.g. one a test stand's hosts reach) and trusts connections from 198.18.0.0/15.
  void ListenAlso(const std::string& address) { also_ = address; }
  // A URL of database `db` at the ListenAlso address.
  std::string UrlAt(const std::string& db) const {
    return fmt::format("postgresql://nicbench@{}:{}/{}", also_, port_, db);
  }

  // Stops the server at once (as a crash would) and starts it again on the same port and data.
  bool Restart() {
    auto r = Run({pg_ctl_, "-D", dir_ + "/data", "-m", "immediate", "-w", "restart"});
    return r.exit_code == 0;
  }

  void Stop() {
    if (!started_) return;
    started_ = false;
    (void)Run({pg_ctl_, "-D", dir_ + "/data", "-m", "immediate", "-w", "stop"});
    std::filesystem::remove_all(dir_);
  }

 private:
  TestPostgres() = default;

  void Init() {
    std::string bin = PostgresBinDir();
    if (bin.empty()) {
      unavailable_ =
          "PostgreSQL server binaries (initdb, pg_ctl) are not installed: apt-get "
          "install postgresql (scripts/install-deps does)";
      return;
    }
    if (!HavePostgres()) {
      unavailable_ = "this build has no PostgreSQL backend";
      return;
    }
    pg_ctl_ = bin == "PATH" ? "pg_ctl" : bin + "/pg_ctl";
    initdb_ = bin == "PATH" ? "initdb" : bin + "/initdb";
    Start();
  }

  // As root, the server must run as another user (PostgreSQL refuses root): the postgres user
  // when it exists, else nobody.
  std::vector<std::string> AsServerUser(std::vector<std::string> argv) const {
    if (geteuid() != 0) return argv;
    std::vector<std::string> wrapped = {"setpriv", fmt::format("--reuid={}", uid_),
                                        fmt::format("--regid={}", gid_), "--clear-groups", "--"};
    wrapped.insert(wrapped.end(), argv.begin(), argv.end());
    return wrapped;
  }

  nicbench::testing::ProcessResult Run(const std::vector<std::string>& argv) const {
    return nicbench::testing::RunProcess(AsServerUser(argv), "", std::chrono::seconds(120));
  }

  void Start() {
    char pattern[] = "/tmp/nicbench-pg-XXXXXX";
    dir_ = mkdtemp(pattern);
    if (geteuid() == 0) {
      const passwd* pw = getpwnam("postgres");
      uid_ = pw ? pw->pw_uid : 65534;
      gid_ = pw ? pw->pw_gid : 65534;
      if (chown(dir_.c_str(), uid_, gid_) != 0) {
        unavailable_ = "cannot chown the server's directory to an unprivileged user";
        return;
      }
    }
    if (!MakeDataDirectory()) return;
    if (!also_.empty()) {
      std::ofstream(dir_ + "/data/pg_hba.conf", std::ios::app)
          << "host all all 198.18.0.0/15 trust\n";
    }
    for (int attempt = 0; attempt < 5 && !started_; ++attempt) {
      port_ = nicbench::testing::FreeTcpPort();
      std::string options = fmt::format(
          "-p {} -k {} -c listen_addresses=127.0.0.1{} -c fsync=off -c max_connections=200", port_,
          dir_, also_.empty() ? "" : "," + also_);
      auto start =
          Run({pg_ctl_, "-D", dir_ + "/data", "-l", dir_ + "/log", "-o", options, "-w", "start"});
      started_ = start.exit_code == 0;
      if (!started_) unavailable_ = "pg_ctl start failed: " + start.err + start.out;
    }
    if (started_) unavailable_.clear();
  }

  // The server's data directory, copied from a cluster initdb made once per build tree
  // (initdb takes 5-15 s, a copy well under one; every test program starts its own server). The
  // first program to need it makes it under a lock, so two running at once do not race.
  bool MakeDataDirectory() {
    const std::filesystem::path scratch =
        std::filesystem::path(nicbench::testing::NicbenchPath()).parent_path() / "test-scratch";
    std::error_code ec;
    std::filesystem::create_directories(scratch, ec);
    const std::string cluster = (scratch / "pg-cluster").string();
    const int lock =
        open((scratch / "pg-cluster.lock").c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0600);
    if (lock >= 0) flock(lock, LOCK_EX);
    if (!std::filesystem::exists(cluster + "/PG_VERSION")) {
      auto init = Run({initdb_, "-D", dir_ + "/data", "-U", "nicbench", "--auth=trust", "-E",
                       "UTF8", "--no-sync", "--no-instructions"});
      if (init.exit_code != 0) {
        unavailable_ = "initdb failed: " + init.err + init.out;
      } else {
        std::filesystem::remove_all(cluster + ".new", ec);
        auto copy = nicbench::testing::RunProcess({"cp", "-a", dir_ + "/data", cluster + ".new"});
        if (copy.exit_code == 0) std::filesystem::rename(cluster + ".new", cluster, ec);
      }
    } else {
      auto copy = nicbench::testing::RunProcess({"cp", "-a", cluster, dir_ + "/data"});
      if (copy.exit_code != 0) unavailable_ = "copying the initdb cluster failed: " + copy.err;
    }
    if (lock >= 0) close(lock);  // also releases the lock
    return unavailable_.empty();
  }

  std::string pg_ctl_, initdb_, dir_, unavailable_, also_;
  uid_t uid_ = 0;
  gid_t gid_ = 0;
  int port_ = 0;
  bool started_ = false;
  bool tried_ = false;
  int databases_ = 0;
};

// Stops the server (if one was started) when the test program ends.
class PostgresEnvironment : public ::testing::Environment {
 public:
  void TearDown() override { TestPostgres::Instance().Stop(); }
};

}  // namespace nicbench::store::test
