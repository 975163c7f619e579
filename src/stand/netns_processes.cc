#include "stand/netns_processes.h"

#include <charconv>

#include <fmt/format.h>

namespace nicbench::stand {

std::string CommandLineText(std::string_view cmdline, std::string_view comm) {
  while (!cmdline.empty() && cmdline.back() == '\0') cmdline.remove_suffix(1);
  if (cmdline.empty()) {
    while (!comm.empty() && comm.back() == '\n') comm.remove_suffix(1);
    return fmt::format("[{}]", comm);
  }
  std::string text(cmdline);
  for (char& c : text) {
    // The words as one line: NUL separators and any control byte a program put in its own
    // argv become spaces, so a message stays one readable line.
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  return text;
}

std::optional<uint64_t> ParseNamespaceLink(std::string_view link) {
  const auto open = link.find(":[");
  if (open == std::string_view::npos || link.empty() || link.back() != ']') return std::nullopt;
  std::string_view digits = link.substr(open + 2, link.size() - open - 3);
  uint64_t inode = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), inode);
  if (ec != std::errc() || end != digits.data() + digits.size() || digits.empty()) {
    return std::nullopt;
  }
  return inode;
}

std::string FormatProcesses(const std::vector<NetnsProcess>& processes) {
  std::string text;
  for (const auto& p : processes) {
    if (!text.empty()) text += ", ";
    text += fmt::format("pid {} in {} ({})", p.pid, p.netns, p.command);
  }
  return text;
}

}  // namespace nicbench::stand
