// The time a server takes to judge a password (docs/security.md): the right one, a wrong one
// whose hash differs from the stored one in its first byte or only in its last, and an unknown
// user. The comparison is constant-time (CRYPTO_memcmp against the stored hash, or a dummy
// one), so the four should agree within noise; the RSA decryption of a whole token, which comes
// first on the server, takes far longer (about a millisecond) and does not depend on them.
//   cmake --build build --target auth_bench && build/bench/auth_bench
#include <benchmark/benchmark.h>

#include <string>

#include "protocol/authenticator.h"
#include "protocol/authorized_users.h"

namespace {

using nicbench::protocol::AuthorizedUsers;
using nicbench::protocol::PasswordHashHex;
using nicbench::protocol::Secret;

// A stored hash for "alice" that equals the hash of `password` except in byte `flip` (or not
// at all when flip < 0): it lets a wrong password differ from the stored hash where we choose.
AuthorizedUsers UsersWith(const std::string& password, int flip) {
  std::string hex = PasswordHashHex("alice", Secret(password));
  if (flip >= 0)
    hex[static_cast<size_t>(flip) * 2] = hex[static_cast<size_t>(flip) * 2] == '0' ? '1' : '0';
  return *AuthorizedUsers::Parse("alice," + hex + "\n", "bench");
}

void Check(benchmark::State& state, int flip, const char* user) {
  const AuthorizedUsers users = UsersWith("s3cret", flip);
  const Secret password("s3cret");
  for (auto _ : state) benchmark::DoNotOptimize(users.Check(user, password));
}

void BM_RightPassword(benchmark::State& s) { Check(s, -1, "alice"); }
void BM_WrongInFirstByte(benchmark::State& s) { Check(s, 0, "alice"); }
void BM_WrongInLastByte(benchmark::State& s) { Check(s, 31, "alice"); }
void BM_UnknownUser(benchmark::State& s) { Check(s, -1, "bob00"); }
BENCHMARK(BM_RightPassword);
BENCHMARK(BM_WrongInFirstByte);
BENCHMARK(BM_WrongInLastByte);
BENCHMARK(BM_UnknownUser);

}  // namespace

BENCHMARK_MAIN();
