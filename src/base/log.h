// Warnings and errors for people go to stderr, never stdout: stdout carries only the chosen
// output format (text report, JSON, or ttcp data). Thread-safe (one fprintf per line).
#pragma once

#include <string_view>

namespace nicbench {

void LogInfo(std::string_view message);     // "nicbench: ...": what a long-running job says
void LogWarning(std::string_view message);  // "nicbench: warning: ..."
void LogError(std::string_view message);    // "nicbench: error: ..."

}  // namespace nicbench
