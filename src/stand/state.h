// The stand's memory between runs: one small JSON file per stand (STATE_DIR/stand-NAME.json,
// by default under /run so it vanishes with the namespaces at reboot), holding the spec and
// the choices Up() made (subnet, shaper, qdiscs found). `list` and later runs read it; when it
// is missing, the stand is rediscovered from its namespaces. Also the directory lock that
// serialises Up/Down between processes. Thread safety: none needed (plain values and files).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "stand/plan.h"
#include "stand/spec.h"

namespace nicbench::stand {

// Which qdisc kinds the kernel accepted when probed; absent = not probed.
struct QdiscSupport {
  std::optional<bool> tbf;
  std::optional<bool> htb;
  std::optional<bool> netem;
  bool operator==(const QdiscSupport&) const = default;
};

struct StandState {
  StandSpec spec;
  int subnet_index = 0;
  Shaper shaper = Shaper::kNone;
  QdiscSupport qdiscs;
  bool operator==(const StandState&) const = default;
};

inline constexpr int kStateVersion = 1;

std::string StateToJson(const StandState& state);
Result<StandState> StateFromJson(std::string_view text);

// The lowest subnet index not in `used`; an error when all kSubnetCount are taken.
Result<int> ChooseSubnet(const std::vector<int>& used);

class StateDir {
 public:
  explicit StateDir(std::string dir) : dir_(std::move(dir)) {}
  const std::string& dir() const { return dir_; }
  std::string PathOf(std::string_view name) const;  // DIR/stand-NAME.json

  // Writes atomically (temp file + rename), creating the directory when needed.
  Status Save(const StandState& state) const;
  // nullopt when the stand has no state file.
  Result<std::optional<StandState>> Load(std::string_view name) const;
  Status Remove(std::string_view name) const;  // no error when already absent
  // Every readable state file; unreadable ones are skipped with a warning.
  Result<std::vector<StandState>> LoadAll() const;

  // An exclusive flock on DIR/.lock, released when the returned object dies.
  class Lock {
   public:
    explicit Lock(int fd) : fd_(fd) {}
    Lock(Lock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
    Lock& operator=(Lock&&) = delete;
    ~Lock();

   private:
    int fd_;
  };
  Result<Lock> Acquire() const;

 private:
  std::string dir_;
};

}  // namespace nicbench::stand
