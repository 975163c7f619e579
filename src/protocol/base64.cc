// Base64 as iperf3's token carries it (auth_token.h): RFC 4648's alphabet, '=' padding, no line
// breaks. Decoding is strict, so a token is either exactly what an encoder wrote or refused.
#include <array>
#include <cstdint>

#include <fmt/format.h>

#include "protocol/auth_token.h"

namespace nicbench::protocol {
namespace {

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

constexpr std::array<int8_t, 256> MakeValues() {
  std::array<int8_t, 256> values{};
  for (auto& v : values) v = -1;
  for (size_t i = 0; i < kAlphabet.size(); ++i) {
    values[static_cast<unsigned char>(kAlphabet[i])] = static_cast<int8_t>(i);
  }
  return values;
}
constexpr std::array<int8_t, 256> kValues = MakeValues();

}  // namespace

std::string Base64Encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    const size_t n = std::min<size_t>(3, bytes.size() - i);
    uint32_t group = 0;
    for (size_t k = 0; k < 3; ++k) {
      group = (group << 8) | (k < n ? static_cast<unsigned char>(bytes[i + k]) : 0u);
    }
    for (size_t k = 0; k < 4; ++k) {
      out += k <= n ? kAlphabet[(group >> (18 - 6 * k)) & 63] : '=';
    }
  }
  return out;
}

Result<std::string> Base64Decode(std::string_view text) {
  if (text.size() % 4 != 0) {
    return Fail(fmt::format("{} characters, not a multiple of 4", text.size()));
  }
  size_t padding = 0;
  while (padding < 2 && padding < text.size() && text[text.size() - 1 - padding] == '=') {
    ++padding;
  }
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    uint32_t group = 0;
    for (size_t k = 0; k < 4; ++k) {
      const size_t at = i + k;
      const bool pad = at >= text.size() - padding;
      const int8_t v = pad ? 0 : kValues[static_cast<unsigned char>(text[at])];
      if (v < 0) return Fail(fmt::format("character {} is not base64", at + 1));
      group = (group << 6) | static_cast<uint32_t>(v);
    }
    const size_t n = i + 4 == text.size() ? 3 - padding : 3;
    for (size_t k = 0; k < n; ++k) out += static_cast<char>((group >> (16 - 8 * k)) & 0xFF);
  }
  return out;
}

}  // namespace nicbench::protocol
