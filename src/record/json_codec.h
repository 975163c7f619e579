// Internal to record/json*.cc: the one generic writer and the one generic reader that every
// record type's field list (record/json_schema.h) drives. Both directions walk the same list, so
// a member cannot be written without being read, and the rules of record/json.h (no NaN, unknown
// as null with a reason, members an older peer lacks, type checks, size caps, error paths) live
// here once instead of once per type. Not for other layers.
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "record/json_internal.h"

namespace nicbench::record::json_detail {

enum class Presence {
  kRequired,  // a document without the member is an error
  kLater,     // added after schema 1 shipped: absent (an older peer) keeps the default
};

// One member of a record type as it appears in JSON. Measured<T> and optional<string> members
// need no flag: absent or null is already their unknown.
template <typename S, typename M>
struct Member {
  const char* name;
  M S::*ptr;
  Presence presence = Presence::kRequired;
  void (*check)(const M&) = nullptr;  // throws ShapeError("", problem) to refuse a value
  bool null_when_unset = false;       // an optional non-string member: null, not left out
};

// A member that is deliberately not part of the JSON form (it must say why at its line). Listed
// so that the completeness check below counts it.
template <typename S, typename M>
struct NotInJson {
  M S::*ptr;
};

template <typename S, typename M>
constexpr Member<S, M> Field(const char* name, M S::*ptr) {
  return {name, ptr};
}
template <typename S, typename M>
constexpr Member<S, M> LaterField(const char* name, M S::*ptr) {
  return {name, ptr, Presence::kLater};
}
template <typename S, typename M>
constexpr Member<S, M> CheckedField(const char* name, M S::*ptr, void (*check)(const M&)) {
  return {name, ptr, Presence::kRequired, check};
}
// An optional member written as null when unset (left out, with Field, when it is a member
// most records never have, like -F's file).
template <typename S, typename M>
constexpr Member<S, M> NullableField(const char* name, M S::*ptr) {
  return {name, ptr, Presence::kRequired, nullptr, true};
}
template <typename S, typename M>
constexpr NotInJson<S, M> Unserialized(M S::*ptr) {
  return {ptr};
}

template <typename... F>
constexpr std::tuple<F...> Fields(F... fields) {
  return {fields...};
}

// ---- completeness: an aggregate record type must list every one of its members.

// Converts to anything, so T{Any{}, ...} tells how many members an aggregate has.
struct AnyMember {
  template <typename U>
  operator U() const;  // NOLINT: implicit on purpose; never defined, only used unevaluated
};

template <typename T, size_t... I>
constexpr bool BracesWith(std::index_sequence<I...>) {
  return requires { T{(void(I), AnyMember{})...}; };
}

template <typename T, size_t N = 0>
constexpr size_t MemberCount() {
  if constexpr (BracesWith<T>(std::make_index_sequence<N + 1>{})) {
    return MemberCount<T, N + 1>();
  } else {
    return N;
  }
}

template <typename T>
constexpr bool ListsEveryMember() {
  if constexpr (std::is_aggregate_v<T>) {
    return MemberCount<T>() == std::tuple_size_v<decltype(FieldsOf(Type<T>{}))>;
  } else {
    return true;  // a type with constructors (PciIdentity) cannot be counted this way
  }
}

// ---- writing

template <typename T>
struct IsMeasured : std::false_type {};
template <typename T>
struct IsMeasured<Measured<T>> : std::true_type {};

// An optional value (not a string): written only when set (or as null, NullableField); an
// absent or null member reads as none.
template <typename T>
struct IsOptionalRecord : std::false_type {};
template <typename T>
struct IsOptionalRecord<std::optional<T>> : std::bool_constant<!std::is_same_v<T, std::string>> {};

template <typename T>
json ToJson(const T& v) {
  if constexpr (std::is_floating_point_v<T>) {
    return Num(v);
  } else if constexpr (std::is_enum_v<T>) {
    return NameOf(NamesOf(Type<T>{}), v);
  } else if constexpr (std::is_same_v<T, std::chrono::milliseconds>) {
    return v.count();
  } else if constexpr (IsVector<T>::value) {
    json out = json::array();
    for (const auto& item : v) out.push_back(ToJson(item));
    return out;
  } else if constexpr (IsStringMap<T>::value) {
    json out = json::object();
    for (const auto& [key, item] : v) out[key] = ToJson(item);
    return out;
  } else {
    return json(v);  // bool, integers, strings; a record type through its to_json
  }
}

template <typename S, typename M>
void WriteMember(json& obj, const Member<S, M>& f, const S& v) {
  const M& m = v.*f.ptr;
  if constexpr (IsMeasured<M>::value) {
    if (m.known()) {
      obj[f.name] = ToJson(m.value());
    } else {
      obj[f.name] = nullptr;
      obj["unknown"][f.name] = UnknownReason(m.why(), m.detail());
    }
  } else if constexpr (std::is_same_v<M, std::optional<std::string>>) {
    obj[f.name] = m ? json(*m) : json(nullptr);
  } else if constexpr (IsOptionalRecord<M>::value) {
    if (m) {
      obj[f.name] = ToJson(*m);
    } else if (f.null_when_unset) {
      obj[f.name] = nullptr;
    }
  } else {
    obj[f.name] = ToJson(m);
  }
}

template <typename S, typename M>
void WriteMember(json&, const NotInJson<S, M>&, const S&) {}

template <typename S>
json WriteFields(const S& v) {
  static_assert(
      ListsEveryMember<S>(),
      "a member of this record type has no line in its field list (record/json_schema.h)");
  json obj = json::object();
  std::apply([&](const auto&... f) { (WriteMember(obj, f, v), ...); }, FieldsOf(Type<S>{}));
  return obj;
}

// ---- reading

template <typename S, typename M>
void ReadMember(const json& obj, const Member<S, M>& f, S& v) {
  M& m = v.*f.ptr;
  if constexpr (IsMeasured<M>::value) {
    ReadMeasured(obj, f.name, m);
  } else if constexpr (std::is_same_v<M, std::optional<std::string>>) {
    ReadOptionalString(obj, f.name, m);
  } else if constexpr (IsOptionalRecord<M>::value) {
    const auto it = obj.find(f.name);
    if (it == obj.end() || it->is_null()) return;
    typename M::value_type value{};
    ReadRequired(obj, f.name, value);
    m = std::move(value);
  } else {
    if (f.presence == Presence::kLater && !obj.contains(f.name)) return;
    ReadRequired(obj, f.name, m);
    if (f.check == nullptr) return;
    try {
      f.check(m);
    } catch (const ShapeError& e) {
      throw e.Within(f.name);
    }
  }
}

template <typename S, typename M>
void ReadMember(const json&, const NotInJson<S, M>&, S&) {}

template <typename S>
void ReadFields(const json& obj, S& v) {
  RequireObject(obj);
  std::apply([&](const auto&... f) { (ReadMember(obj, f, v), ...); }, FieldsOf(Type<S>{}));
}

}  // namespace nicbench::record::json_detail
