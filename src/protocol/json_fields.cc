#include "protocol/json_fields.h"

#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace nicbench::protocol::internal {
namespace {

constexpr uint64_t kTwoTo63 = uint64_t{1} << 63;

const nlohmann::json* Find(const nlohmann::json& obj, std::string_view key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

tl::unexpected<Error> FieldError(std::string_view where, std::string_view key,
                                 std::string_view problem) {
  return Fail(fmt::format("{} \"{}\": {}", where, key, problem));
}

}  // namespace

const char* TypeName(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::null: return "null";
    case nlohmann::json::value_t::object: return "object";
    case nlohmann::json::value_t::array: return "array";
    case nlohmann::json::value_t::string: return "string";
    case nlohmann::json::value_t::boolean: return "boolean";
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned: return "integer";
    case nlohmann::json::value_t::number_float: return "floating-point number";
    case nlohmann::json::value_t::binary: return "binary";
    case nlohmann::json::value_t::discarded: return "invalid value";
  }
  return "unknown";
}

Result<std::optional<int64_t>> ReadInt(const nlohmann::json& obj, std::string_view key, int64_t min,
                                       int64_t max, MinusOne minus_one, std::string_view where) {
  const nlohmann::json* value = Find(obj, key);
  if (value == nullptr) return std::optional<int64_t>();
  int64_t v = 0;
  if (value->is_number_unsigned()) {
    const uint64_t u = value->get<uint64_t>();
    if (u >= kTwoTo63) {
      if (minus_one == MinusOne::kRefuse) {
        return FieldError(where, key, fmt::format("{} is out of range {}..{}", u, min, max));
      }
      v = -1;
    } else {
      v = static_cast<int64_t>(u);
    }
  } else if (value->is_number_integer()) {
    v = value->get<int64_t>();
  } else {
    return FieldError(where, key, fmt::format("expected an integer, got {}", TypeName(*value)));
  }
  if (v < min || v > max) {
    return FieldError(where, key, fmt::format("{} is out of range {}..{}", v, min, max));
  }
  return std::optional<int64_t>(v);
}

Result<std::optional<double>> ReadNumber(const nlohmann::json& obj, std::string_view key,
                                         double min, double max, std::string_view where) {
  const nlohmann::json* value = Find(obj, key);
  if (value == nullptr) return std::optional<double>();
  if (!value->is_number()) {
    return FieldError(where, key, fmt::format("expected a number, got {}", TypeName(*value)));
  }
  const double v = value->get<double>();
  if (!std::isfinite(v) || v < min || v > max) {
    return FieldError(where, key, fmt::format("{} is out of range {}..{}", v, min, max));
  }
  return std::optional<double>(v);
}

Result<std::optional<std::string>> ReadString(const nlohmann::json& obj, std::string_view key,
                                              size_t max_bytes, std::string_view where) {
  const nlohmann::json* value = Find(obj, key);
  if (value == nullptr) return std::optional<std::string>();
  if (!value->is_string()) {
    return FieldError(where, key, fmt::format("expected a string, got {}", TypeName(*value)));
  }
  const auto& text = value->get_ref<const std::string&>();
  if (text.size() > max_bytes) {
    return FieldError(where, key,
                      fmt::format("string of {} bytes exceeds {} bytes", text.size(), max_bytes));
  }
  return std::optional<std::string>(text);
}

Result<std::optional<bool>> ReadBool(const nlohmann::json& obj, std::string_view key,
                                     std::string_view where) {
  const nlohmann::json* value = Find(obj, key);
  if (value == nullptr) return std::optional<bool>();
  if (!value->is_boolean()) {
    return FieldError(where, key, fmt::format("expected true or false, got {}", TypeName(*value)));
  }
  return std::optional<bool>(value->get<bool>());
}

bool Present(const nlohmann::json& obj, std::string_view key) { return Find(obj, key) != nullptr; }

}  // namespace nicbench::protocol::internal
