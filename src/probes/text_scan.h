// Small string_view scanning helpers shared by the /proc parsers: no allocation, no locale.
// Internal to the probes layer. Pure functions; thread-safe.
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string_view>

namespace nicbench::probes::scan {

inline bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

inline std::string_view Trim(std::string_view text) {
  while (!text.empty() && IsSpace(text.front())) text.remove_prefix(1);
  while (!text.empty() && IsSpace(text.back())) text.remove_suffix(1);
  return text;
}

// Removes and returns the next line (without '\n'); `text` keeps the rest.
inline std::string_view NextLine(std::string_view& text) {
  size_t end = text.find('\n');
  std::string_view line = text.substr(0, end);
  text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
  return line;
}

// Removes and returns the next whitespace-separated token; empty when none is left.
inline std::string_view NextToken(std::string_view& text) {
  size_t i = 0;
  while (i < text.size() && IsSpace(text[i])) ++i;
  size_t start = i;
  while (i < text.size() && !IsSpace(text[i])) ++i;
  std::string_view token = text.substr(start, i - start);
  text.remove_prefix(i);
  return token;
}

inline std::optional<uint64_t> ToU64(std::string_view token, int base = 10) {
  uint64_t value = 0;
  if (token.empty()) return std::nullopt;
  auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value, base);
  if (error != std::errc() || end != token.data() + token.size()) return std::nullopt;
  return value;
}

inline std::optional<int64_t> ToI64(std::string_view token) {
  int64_t value = 0;
  if (token.empty()) return std::nullopt;
  auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (error != std::errc() || end != token.data() + token.size()) return std::nullopt;
  return value;
}

inline bool StartsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

}  // namespace nicbench::probes::scan
