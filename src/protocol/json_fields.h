// Internal to src/protocol: type-checked reads of one member of a peer's JSON object. Each
// returns nullopt when the key is absent and an error naming the field when the value has the
// wrong type or range, so a hostile document never reaches an exception or a bad cast.
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/result.h"

// Propagates the error of a Status or Result inside the decoders. The value is bound by
// reference, so a Result variable is not copied.
#define NB_PROTO_TRY(expr)                                                \
  do {                                                                    \
    const auto& nb_proto_status = (expr);                                 \
    if (!nb_proto_status) return tl::unexpected(nb_proto_status.error()); \
  } while (0)

namespace nicbench::protocol::internal {

inline constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
inline constexpr size_t kMaxNameBytes = 256;  // congestion names, versions

// How to treat an unsigned value >= 2^63: iperf 3.12 prints -1 as 18446744073709551615.
enum class MinusOne { kRefuse, kAccept };

// `where` names the document and the field's parent for errors: "parameter", "results stream 2".
Result<std::optional<int64_t>> ReadInt(const nlohmann::json& obj, std::string_view key, int64_t min,
                                       int64_t max, MinusOne minus_one, std::string_view where);

// An integer or a floating-point number; must be finite and within [min, max].
Result<std::optional<double>> ReadNumber(const nlohmann::json& obj, std::string_view key,
                                         double min, double max, std::string_view where);

Result<std::optional<std::string>> ReadString(const nlohmann::json& obj, std::string_view key,
                                              size_t max_bytes, std::string_view where);

// A JSON true/false (our own extension is strict about types).
Result<std::optional<bool>> ReadBool(const nlohmann::json& obj, std::string_view key,
                                     std::string_view where);

// The iperf3 meaning of a flag key: present = on, whatever the value.
bool Present(const nlohmann::json& obj, std::string_view key);

// "string", "array", "float", "integer", ...: what was found instead, for error messages.
const char* TypeName(const nlohmann::json& value);

}  // namespace nicbench::protocol::internal
