// Small text helpers the test tiers share: a file's whole content, the lines of a program's
// output, a substring test, the interface of the host's default route.
#pragma once

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace nicbench::testing {

// The whole content of the file at `path`, byte for byte; "" when it cannot be read.
inline std::string FileText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The lines of `text`, without their newlines (a last line without one included).
inline std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

inline bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The interface of the IPv4 default route (/proc/net/route), or "" when there is none.
inline std::string DefaultRouteInterface() {
  std::ifstream in("/proc/net/route");
  std::string line, iface, destination;
  std::getline(in, line);
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    if (fields >> iface >> destination && destination == "00000000") return iface;
  }
  return {};
}

}  // namespace nicbench::testing
