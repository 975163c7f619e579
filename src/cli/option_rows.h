// The options of every command as tables (neper's one table plus one validation
// pass): one row per option with its spellings, its help text, where CLI11 keeps what was typed,
// and, for a value that becomes a member of a config as it is, the bounded parser that sets that
// member and the iperf3 parameter that carries it on the wire. AddRows declares a
// table to a CLI11 App, so --help, --help-table, the man pages and the completion all come from
// the rows; ApplyRows runs the parsers of the rows that were given; what concerns several
// options at once (-n with -k, -R with --bidir, --rr's own -l) stays in the command's one
// validation pass. The parsers here are shared by every command, so a range error reads the
// same everywhere: "NAME: expected MIN..MAX, got 'TEXT'".
//
// To add an option: add one row to its table (cli/option_tables.h lists them); an option whose
// text sets one member needs nothing more. The cli test option_rows_cli_test.cc runs a bad value
// of every row against the binary. Internal to the cli layer; the tables are constant, the
// functions reentrant.
#pragma once

#include <chrono>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "base/result.h"
#include "base/units.h"

namespace nicbench::cli {

// How a number's text reads: digits only (ParseUnsigned), a size with K/M/G (ParseByteSize), a
// rate with k/m/g (ParseBitRate).
enum class Reading { kUnsigned, kByteSize, kBitRate };

// The range a number must fall in and how its text reads. A structural type, so a row's setter
// carries its range as a template argument.
struct Range {
  uint64_t min = 0;
  uint64_t max = UINT64_MAX;
  Reading reading = Reading::kUnsigned;
};

// The name messages use for an option: its first spelling ("-t,--time" -> "-t").
std::string_view FirstName(std::string_view names);

// `text` as a number in `range`. With an upper bound every failure says the range: "NAME:
// expected MIN..MAX, got 'TEXT'"; without one, "NAME: <why it is not a number>" or "NAME: must be
// at least MIN".
Result<uint64_t> ParseInRange(std::string_view name, const std::string& text, Range range);

// Seconds as run's -t reads them ("2.5"; never negative) -> ms, "NAME: <why>".
Result<std::chrono::milliseconds> ParseMillis(std::string_view name, const std::string& text);

// A duration with its unit (500ms, 30s, 10m, 1h) in [low, high]: "NAME 'TEXT' is not a duration
// ...", "NAME TEXT: expected LOW s .. HIGH s".
Result<std::chrono::milliseconds> ParseDurationIn(std::string_view name, const std::string& text,
                                                  std::chrono::milliseconds low,
                                                  std::chrono::milliseconds high);

// A decimal number in [low, high]: "NAME TEXT: expected a number LOW..HIGH".
Result<double> ParseNumberIn(std::string_view name, const std::string& text, double low,
                             double high);

// What a row asks of CLI11 beyond the plain option or flag.
enum RowTrait : unsigned {
  kPlain = 0,
  kRepeatable = 1,         // one value per occurrence, every occurrence kept (--label K=V)
  kOptionalValue = 2,      // the value may be left out (--cntl-ka[=...])
  kExistingDirectory = 4,  // CLI11 refuses a path that is not a directory
  kRequired = 8,           // a positional that must be given
  kValueFlag = 16,         // a flag whose text (after `{`) is its value when given bare
  kParseEmpty = 32,        // an empty text is parsed (and refused), not taken as "not given"
  kIntValue = 64,          // --help shows the value as INT (the text is parsed as a number later)
  kTakeAll = 128,          // several values per occurrence, every occurrence kept (--vary A=1 B=2)
};

// Where CLI11 keeps what was typed, as text, so the validation pass sees it unchanged.
template <typename Args>
using Slot = std::variant<bool Args::*, std::string Args::*, std::vector<std::string> Args::*>;

// One option. `apply`, when set, turns the given text (a flag's: empty; a repeatable option's:
// each of its texts in turn) into the member it sets in `Target`; nullptr leaves the text to the
// command's validation pass. `bad`: a value the command refuses with exit 2 (the table-driven
// test gives it; a positional's message quotes it), nullptr when any text is taken. `wire`: the
// iperf3 parameter the member travels in, nullptr when none. `excludes`: the name of an earlier
// row of the same App this one cannot be given with (CLI11 refuses the pair, --help says so).
template <typename Args, typename Target = Args>
struct OptionRow {
  const char* names;
  const char* help;
  Slot<Args> slot;
  Status (*apply)(std::string_view name, const std::string& text, Target& target) = nullptr;
  const char* bad = nullptr;
  const char* wire = nullptr;
  unsigned traits = kPlain;
  const char* excludes = nullptr;
};

// A row without its types: what the tests and the table dump loop over.
struct RowView {
  std::string names;
  std::string bad;  // empty: any text is taken (or a flag)
  std::string wire;
};

namespace detail {

CLI::Option* AddRow(CLI::App& app, const char* names, const char* help, unsigned traits,
                    std::variant<bool*, std::string*, std::vector<std::string>*> where,
                    const char* excludes);

template <typename T>
struct MemberOf;
template <typename C, typename V>
struct MemberOf<V C::*> {
  using Class = C;
};
template <auto First, auto...>
struct FirstOf {
  using Class = typename MemberOf<decltype(First)>::Class;
};

}  // namespace detail

// Declares every row to `app`, bound to `args`.
template <typename Args, typename Target>
void AddRows(CLI::App& app, Args& args, std::span<const OptionRow<Args, Target>> rows) {
  for (const auto& row : rows) {
    std::visit(
        [&](auto member) {
          detail::AddRow(app, row.names, row.help, row.traits, &(args.*member), row.excludes);
        },
        row.slot);
  }
}

// Runs the parser of every row that was given (a flag set, a text not empty, each text of a
// repeatable option), in table order; the first error.
template <typename Args, typename Target>
Status ApplyRows(const Args& args, std::span<const OptionRow<Args, Target>> rows, Target& target) {
  for (const auto& row : rows) {
    if (row.apply == nullptr) continue;
    Status s = std::visit(
        [&](auto member) -> Status {
          const auto& value = args.*member;
          using V = std::decay_t<decltype(value)>;
          if constexpr (std::is_same_v<V, bool>) {
            return value ? row.apply(FirstName(row.names), std::string(), target) : Ok();
          } else if constexpr (std::is_same_v<V, std::string>) {
            if (value.empty() && !(row.traits & kParseEmpty)) return Ok();
            return row.apply(FirstName(row.names), value, target);
          } else {
            for (const std::string& text : value) {
              if (Status one = row.apply(FirstName(row.names), text, target); !one) return one;
            }
            return Ok();
          }
        },
        row.slot);
    if (!s) return s;
  }
  return Ok();
}

template <typename Args, typename Target>
std::vector<RowView> ViewsOf(std::span<const OptionRow<Args, Target>> rows) {
  std::vector<RowView> out;
  for (const auto& row : rows) {
    out.push_back({row.names, row.bad ? row.bad : "", row.wire ? row.wire : ""});
  }
  return out;
}

// The views of `rows`, after those `out` holds (a command's App declares several tables).
template <typename Args, typename Target>
void AppendViews(std::vector<RowView>& out, std::span<const OptionRow<Args, Target>> rows) {
  for (RowView& view : ViewsOf(rows)) out.push_back(std::move(view));
}

// The setters rows point at. `Path` is a chain of member pointers from the target to the member
// (`&ClientConfig::spec, &TestSpec::mss_bytes`); the target's type is the first one's class.
template <auto... Path>
using TargetOf = typename detail::FirstOf<Path...>::Class;

template <typename T, auto... Path>
auto& MemberAt(T& target) {
  return (target.*....*Path);
}

// A number in `R`, stored as the member's own type.
template <Range R, auto... Path>
Status SetNumber(std::string_view name, const std::string& text, TargetOf<Path...>& target) {
  auto v = ParseInRange(name, text, R);
  if (!v) return tl::unexpected(v.error());
  auto& member = MemberAt<TargetOf<Path...>, Path...>(target);
  using M = std::remove_reference_t<decltype(member)>;
  if constexpr (std::is_integral_v<M>) {
    // No upper bound in the range: the member's type bounds it.
    constexpr auto kTypeMax = static_cast<uint64_t>(std::numeric_limits<M>::max());
    if (*v > kTypeMax) {
      return Fail(fmt::format("{}: {} is too large (at most {})", name, text, kTypeMax));
    }
  }
  member = static_cast<M>(*v);
  return Ok();
}

// Seconds ("2.5") as milliseconds.
template <auto... Path>
Status SetMillis(std::string_view name, const std::string& text, TargetOf<Path...>& target) {
  auto v = ParseMillis(name, text);
  if (!v) return tl::unexpected(v.error());
  MemberAt<TargetOf<Path...>, Path...>(target) = *v;
  return Ok();
}

// The text itself.
template <auto... Path>
Status SetText(std::string_view, const std::string& text, TargetOf<Path...>& target) {
  MemberAt<TargetOf<Path...>, Path...>(target) = text;
  return Ok();
}

// A flag: true when given.
template <auto... Path>
Status SetFlag(std::string_view, const std::string&, TargetOf<Path...>& target) {
  MemberAt<TargetOf<Path...>, Path...>(target) = true;
  return Ok();
}

// A duration with its unit in [kLowMs, kHighMs] milliseconds; a `double` member takes it in
// seconds (the fleet's lease terms are seconds since the epoch apart).
template <int64_t kLowMs, int64_t kHighMs, auto... Path>
Status SetDuration(std::string_view name, const std::string& text, TargetOf<Path...>& target) {
  auto v = ParseDurationIn(name, text, std::chrono::milliseconds(kLowMs),
                           std::chrono::milliseconds(kHighMs));
  if (!v) return tl::unexpected(v.error());
  auto& member = MemberAt<TargetOf<Path...>, Path...>(target);
  if constexpr (std::is_same_v<std::remove_reference_t<decltype(member)>, double>) {
    member = std::chrono::duration<double>(*v).count();
  } else {
    member = *v;
  }
  return Ok();
}

// A decimal number in [kLow, kHigh].
template <int kLow, int kHigh, auto... Path>
Status SetDecimal(std::string_view name, const std::string& text, TargetOf<Path...>& target) {
  auto v = ParseNumberIn(name, text, kLow, kHigh);
  if (!v) return tl::unexpected(v.error());
  MemberAt<TargetOf<Path...>, Path...>(target) = *v;
  return Ok();
}

}  // namespace nicbench::cli
