#include "base/log.h"

#include <cstdio>

namespace nicbench {

void LogInfo(std::string_view message) {
  std::fprintf(stderr, "nicbench: %.*s\n", static_cast<int>(message.size()), message.data());
}

void LogWarning(std::string_view message) {
  std::fprintf(stderr, "nicbench: warning: %.*s\n", static_cast<int>(message.size()),
               message.data());
}

void LogError(std::string_view message) {
  std::fprintf(stderr, "nicbench: error: %.*s\n", static_cast<int>(message.size()), message.data());
}

}  // namespace nicbench
