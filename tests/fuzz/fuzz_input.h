// Helpers shared by the libFuzzer targets of this folder (docs/fuzzing.md). A target aborts
// (NICBENCH_FUZZ_CHECK) when an invariant of the code under test breaks, so libFuzzer keeps the
// input as a crash, as it does for the sanitizers' findings.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace nicbench::fuzz {

inline std::string_view Text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

[[noreturn]] inline void Broken(const char* file, int line, const char* what) {
  std::fprintf(stderr, "%s:%d: fuzz invariant broken: %s\n", file, line, what);
  std::abort();
}

}  // namespace nicbench::fuzz

#define NICBENCH_FUZZ_CHECK(cond) \
  ((cond) ? (void)0 : ::nicbench::fuzz::Broken(__FILE__, __LINE__, #cond))
