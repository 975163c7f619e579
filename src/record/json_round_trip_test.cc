// Every record type of NICBENCH_RECORD_JSON_TYPES, from its field list (record/json_schema.h):
// filled with a distinct value in every member, it survives write -> text -> read -> write; an
// older peer's document without a later member still reads; a missing required member and a
// wrong-typed member are errors that name the member. A member added to a field list is covered
// here without a new test.
#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "record/json.h"
#include "record/json_schema.h"

namespace nicbench::record {
namespace {

using json_detail::FieldsOf;
using json_detail::IsMeasured;
using json_detail::IsOptionalRecord;
using json_detail::IsStringMap;
using json_detail::IsVector;
using json_detail::Member;
using json_detail::NotInJson;
using json_detail::Presence;
using json_detail::Type;
using nlohmann::json;

// Which way a fill sets the Measured and optional members.
enum class Fill { kKnown, kUnknown };

// Gives each plain value a different non-default value, so a member read into the wrong place
// or not read at all shows in the comparison.
struct Filler {
  Fill mode;
  int next = 1;

  template <typename T>
  void operator()(T& v) {
    if constexpr (std::is_same_v<T, bool>) {
      v = true;
    } else if constexpr (std::is_integral_v<T>) {
      v = static_cast<T>(next++);
    } else if constexpr (std::is_floating_point_v<T>) {
      v = next++ + 0.25;
    } else if constexpr (std::is_same_v<T, std::string>) {
      v = "text " + std::to_string(next++);
    } else if constexpr (std::is_enum_v<T>) {
      const auto& names = NamesOf(Type<T>{});
      v = names[std::size(names) - 1].value;
    } else if constexpr (std::is_same_v<T, std::chrono::milliseconds>) {
      v = std::chrono::milliseconds(next++);
    } else if constexpr (IsVector<T>::value) {
      v.resize(2);
      for (auto& item : v) (*this)(item);
    } else if constexpr (IsStringMap<T>::value) {
      v.clear();
      for (int i = 0; i < 2; ++i) (*this)(v["key " + std::to_string(next++)]);
    } else if constexpr (IsMeasured<T>::value) {
      FillMeasured(v);
    } else if constexpr (std::is_same_v<T, std::optional<std::string>>) {
      if (mode == Fill::kKnown) v = "text " + std::to_string(next++);
      if (mode == Fill::kUnknown) v.reset();
    } else if constexpr (IsOptionalRecord<T>::value) {
      v.reset();
      if (mode == Fill::kKnown) v.emplace();  // its own JSON is tested beside it (json_file)
    } else {
      std::apply([&](const auto&... f) { (FillMember(v, f), ...); }, FieldsOf(Type<T>{}));
    }
  }

  template <typename T>
  void FillMeasured(Measured<T>& m) {
    if (mode == Fill::kKnown) {
      T value{};
      (*this)(value);
      m = Measured<T>(std::move(value));
      return;
    }
    constexpr Missing kWhy[] = {Missing::kNotSupported, Missing::kPermissionDenied,
                                Missing::kAbsent, Missing::kNotReported, Missing::kError};
    const Missing why = kWhy[next % std::size(kWhy)];
    m = Measured<T>::Unknown(why, next % 2 ? "" : "detail " + std::to_string(next));
    ++next;
  }

  template <typename S, typename M>
  void FillMember(S& v, const Member<S, M>& f) {
    (*this)(v.*f.ptr);
  }
  template <typename S, typename M>
  void FillMember(S&, const NotInJson<S, M>&) {}
};

template <typename T>
T Filled(Fill mode) {
  T v{};
  Filler{mode}(v);
  if constexpr (std::is_same_v<T, RunRecord>) v.schema_version = kJsonSchemaVersion;  // checked
  return v;
}

template <typename T>
Result<T> Decode(const json& j) {
  try {
    return j.get<T>();
  } catch (const std::exception& e) {
    return Fail(e.what());
  }
}

// Calls visit(name, presence, is_measured_or_optional) for each member in T's field list.
template <typename T, typename Visit>
void ForEachMember(Visit visit) {
  auto one = [&](const auto& f) {
    if constexpr (requires { f.name; }) {
      using M = std::remove_cvref_t<decltype(std::declval<T>().*f.ptr)>;
      constexpr bool unknown_able = IsMeasured<M>::value ||
                                    std::is_same_v<M, std::optional<std::string>> ||
                                    IsOptionalRecord<M>::value;
      visit(f.name, f.presence, unknown_able);
    }
  };
  std::apply([&](const auto&... f) { (one(f), ...); }, FieldsOf(Type<T>{}));
}

template <typename T>
void ExpectRoundTrip(const char* type) {
  for (Fill mode : {Fill::kKnown, Fill::kUnknown}) {
    const json written = Filled<T>(mode);
    const Result<T> read = Decode<T>(json::parse(written.dump()));
    ASSERT_TRUE(read.has_value()) << type << ": " << read.error().message;
    EXPECT_EQ(json(*read), written) << type;
  }
  std::set<std::string> names;
  ForEachMember<T>([&](const char* name, Presence, bool) {
    EXPECT_TRUE(names.insert(name).second) << type << " lists \"" << name << "\" twice";
    EXPECT_TRUE(json(Filled<T>(Fill::kKnown)).contains(name)) << type << "." << name;
  });
}

// What an older peer, or a damaged document, does to each member in turn.
template <typename T>
void ExpectEachMemberChecked(const char* type) {
  const json good = Filled<T>(Fill::kKnown);
  ForEachMember<T>([&](const char* name, Presence presence, bool unknown_able) {
    json absent = good;
    absent.erase(name);
    const Result<T> read = Decode<T>(absent);
    if (unknown_able || presence == Presence::kLater) {
      EXPECT_TRUE(read.has_value()) << type << " without " << name << ": " << read.error().message;
    } else {
      ASSERT_FALSE(read.has_value()) << type << " without " << name;
      EXPECT_EQ(read.error().message, std::string(name) + ": missing") << type;
    }
    json wrong = good;
    wrong[name] = json::array({nullptr});  // no member of any type accepts [null]
    const Result<T> bad = Decode<T>(wrong);
    ASSERT_FALSE(bad.has_value()) << type << "." << name << " = [null]";
    EXPECT_EQ(bad.error().message.rfind(name, 0), 0u) << type << ": " << bad.error().message;
  });
}

TEST(RecordJsonRoundTripTest, EveryRecordTypeSurvivesWriteAndRead) {
#define NICBENCH_ROUND_TRIP(T) ExpectRoundTrip<T>(#T);
  NICBENCH_RECORD_JSON_TYPES(NICBENCH_ROUND_TRIP)
#undef NICBENCH_ROUND_TRIP
}

TEST(RecordJsonRoundTripTest, EveryMemberIsCheckedAndOnlyLaterOnesMayBeAbsent) {
#define NICBENCH_CHECKED(T) ExpectEachMemberChecked<T>(#T);
  NICBENCH_RECORD_JSON_TYPES(NICBENCH_CHECKED)
#undef NICBENCH_CHECKED
}

TEST(RecordJsonRoundTripTest, AbsentMeasuredMembersReadAsNotReportedAndLaterOnesAsDefault) {
  json j = Filled<PciIdentity>(Fill::kKnown);
  j.erase("msix");
  j.erase("class_name");
  const Result<PciIdentity> read = Decode<PciIdentity>(j);
  ASSERT_TRUE(read.has_value()) << read.error().message;
  EXPECT_EQ(read->msix.why(), Missing::kNotReported);
  EXPECT_EQ(read->class_name, "");
  EXPECT_TRUE(read->msi.known());
}

}  // namespace
}  // namespace nicbench::record
