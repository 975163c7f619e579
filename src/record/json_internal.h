// Internal to record/json*.cc: the type-checked value readers and the writers' NaN guard that the
// generic codec (record/json_codec.h) applies to every member. Not for other layers.
#pragma once

#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "record/json.h"

namespace nicbench::record::json_detail {

using nlohmann::json;

// A document that does not have the schema's shape. Carries the member path, built up as the
// error unwinds through the nested readers, so the final message says where.
class ShapeError : public std::runtime_error {
 public:
  ShapeError(std::string path, std::string problem)
      : std::runtime_error(path.empty() ? problem : path + ": " + problem),
        path_(std::move(path)),
        problem_(std::move(problem)) {}
  ShapeError Within(const std::string& outer) const {
    std::string joined = outer;
    if (!path_.empty()) joined += (path_[0] == '[' ? "" : ".") + path_;
    return ShapeError(joined, problem_);
  }

 private:
  std::string path_, problem_;
};

// A double as JSON: the number, or null when it is NaN or infinite (never written as such).
inline json Num(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

template <typename T>
struct IsVector : std::false_type {};
template <typename T>
struct IsVector<std::vector<T>> : std::true_type {};
template <typename T>
struct IsStringMap : std::false_type {};
template <typename T>
struct IsStringMap<std::map<std::string, T>> : std::true_type {};

// Names a type for overload lookup: FieldsOf(Type<NicFacts>{}), NamesOf(Type<Severity>{}).
template <typename T>
struct Type {};

// Enums as strings through a small table; NamesOf(Type<E>{}) returns E's (record/json_schema.h).
template <typename E>
struct EnumName {
  E value;
  const char* name;
};

template <typename E, size_t N>
const char* NameOf(const EnumName<E> (&table)[N], E value) {
  for (const auto& entry : table) {
    if (entry.value == value) return entry.name;
  }
  return "unknown";
}

template <typename E, size_t N>
void ReadEnum(const json& j, const EnumName<E> (&table)[N], E& out) {
  if (!j.is_string()) throw ShapeError("", "expected a string");
  const std::string& text = j.get_ref<const std::string&>();
  for (const auto& entry : table) {
    if (text == entry.name) {
      out = entry.value;
      return;
    }
  }
  throw ShapeError("", "unexpected value \"" + text.substr(0, 40) + "\"");
}

inline void RequireObject(const json& j) {
  if (!j.is_object()) throw ShapeError("", "expected an object");
}

template <typename T>
void ReadValue(const json& j, T& out);

template <typename T>
void ReadUnsigned(const json& j, T& out) {
  if (j.is_number_unsigned()) {
    const uint64_t v = j.get<uint64_t>();
    if (v > std::numeric_limits<T>::max()) throw ShapeError("", "number out of range");
    out = static_cast<T>(v);
    return;
  }
  if (!j.is_number_integer()) throw ShapeError("", "expected an unsigned integer");
  // A document built in memory holds small non-negative values as signed integers.
  const int64_t v = j.get<int64_t>();
  if (v < 0) throw ShapeError("", "expected a non-negative integer");
  if (static_cast<uint64_t>(v) > std::numeric_limits<T>::max()) {
    throw ShapeError("", "number out of range");
  }
  out = static_cast<T>(v);
}

template <typename T>
void ReadSigned(const json& j, T& out) {
  if (j.is_number_unsigned()) {
    const uint64_t v = j.get<uint64_t>();
    if (v > static_cast<uint64_t>(std::numeric_limits<T>::max())) {
      throw ShapeError("", "number out of range");
    }
    out = static_cast<T>(v);
    return;
  }
  if (!j.is_number_integer()) throw ShapeError("", "expected an integer");
  const int64_t v = j.get<int64_t>();
  if (v < std::numeric_limits<T>::min() || v > std::numeric_limits<T>::max()) {
    throw ShapeError("", "number out of range");
  }
  out = static_cast<T>(v);
}

template <typename T>
void ReadVector(const json& j, std::vector<T>& out) {
  if (!j.is_array()) throw ShapeError("", "expected an array");
  if (j.size() > kMaxJsonElements) throw ShapeError("", "too many elements");
  out.clear();
  out.reserve(j.size());
  for (size_t i = 0; i < j.size(); ++i) {
    T item{};
    try {
      ReadValue(j[i], item);
    } catch (const ShapeError& e) {
      throw e.Within("[" + std::to_string(i) + "]");
    }
    out.push_back(std::move(item));
  }
}

template <typename T>
void ReadMap(const json& j, std::map<std::string, T>& out) {
  if (!j.is_object()) throw ShapeError("", "expected an object");
  if (j.size() > kMaxJsonElements) throw ShapeError("", "too many elements");
  out.clear();
  for (const auto& [key, value] : j.items()) {
    try {
      ReadValue(value, out[key]);
    } catch (const ShapeError& e) {
      throw e.Within(key);
    }
  }
}

template <typename T>
void ReadValue(const json& j, T& out) {
  if constexpr (std::is_same_v<T, bool>) {
    if (!j.is_boolean()) throw ShapeError("", "expected true or false");
    out = j.get<bool>();
  } else if constexpr (std::is_integral_v<T> && std::is_unsigned_v<T>) {
    ReadUnsigned(j, out);
  } else if constexpr (std::is_integral_v<T>) {
    ReadSigned(j, out);
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!j.is_number()) throw ShapeError("", "expected a finite number");
    const double v = j.get<double>();
    if (!std::isfinite(v)) throw ShapeError("", "expected a finite number");
    out = v;
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!j.is_string()) throw ShapeError("", "expected a string");
    out = j.get<std::string>();
  } else if constexpr (std::is_enum_v<T>) {
    ReadEnum(j, NamesOf(Type<T>{}), out);
  } else if constexpr (std::is_same_v<T, std::chrono::milliseconds>) {
    int64_t ms = 0;
    ReadSigned(j, ms);
    out = std::chrono::milliseconds(ms);
  } else if constexpr (IsVector<T>::value) {
    ReadVector(j, out);
  } else if constexpr (IsStringMap<T>::value) {
    ReadMap(j, out);
  } else {
    from_json(j, out);  // a record type: its own from_json, found by ADL
  }
}

// Reads the required member `key` of object `obj` into out.
template <typename T>
void ReadRequired(const json& obj, const char* key, T& out) {
  const auto it = obj.find(key);
  if (it == obj.end()) throw ShapeError(key, "missing");
  try {
    ReadValue(*it, out);
  } catch (const ShapeError& e) {
    throw e.Within(key);
  }
}

// The reason recorded for an unknown member: obj["unknown"][key], parsed back into Missing and
// detail. A null member without a reason reads as not reported.
std::pair<Missing, std::string> ReadUnknownReason(const json& obj, const char* key);

// Reads a Measured member under the unknown rule (record/json.h). Absent -> kNotReported.
template <typename T>
void ReadMeasured(const json& obj, const char* key, Measured<T>& out) {
  const auto it = obj.find(key);
  if (it == obj.end()) {
    out = Measured<T>::Unknown(Missing::kNotReported, "absent from the record");
    return;
  }
  if (it->is_null()) {
    auto [why, detail] = ReadUnknownReason(obj, key);
    out = Measured<T>::Unknown(why, std::move(detail));
    return;
  }
  T value{};
  try {
    ReadValue(*it, value);
  } catch (const ShapeError& e) {
    throw e.Within(key);
  }
  out = Measured<T>(std::move(value));
}

// optional<string>: null or absent = nullopt.
void ReadOptionalString(const json& obj, const char* key, std::optional<std::string>& out);

// Runs a from_json at a trust boundary: any exception becomes an Error.
template <typename T>
Result<T> Decode(const json& j, const char* what) {
  try {
    T value{};
    from_json(j, value);
    return value;
  } catch (const std::exception& e) {
    return Fail(std::string("malformed ") + what + ": " + e.what());
  }
}

}  // namespace nicbench::record::json_detail
