// Measured<T>: a value that was read, or the reason it could not be. "Unknown is not zero": a
// probe that cannot read a counter says why (not supported by the driver, needs privileges, not
// present, or the peer does not report it) and reports render that reason instead of a number.
// Plain value type; thread-compatible.
#pragma once

#include <optional>
#include <string>
#include <utility>

namespace nicbench::record {

enum class Missing {
  kNotSupported,      // the driver/kernel does not offer it (EOPNOTSUPP, no such file)
  kPermissionDenied,  // needs privileges we lack (EPERM/EACCES)
  kAbsent,            // does not apply here (loopback has no NIC, no ring params on veth)
  kNotReported,       // the peer did not send it (a stock iperf3 end)
  kError              // reading failed for another reason; see detail
};

// "not supported", "permission denied", ... for reports.
const char* MissingName(Missing why);

template <typename T>
class Measured {
 public:
  Measured() : why_(Missing::kAbsent) {}
  Measured(T value) : value_(std::move(value)) {}  // NOLINT: implicit on purpose
  // Moved below; clang-tidy 14 misses a move into a member of the template's own type.
  // NOLINTNEXTLINE(performance-unnecessary-value-param)
  static Measured Unknown(Missing why, std::string detail = {}) {
    Measured m;
    m.why_ = why;
    m.detail_ = std::move(detail);
    return m;
  }

  bool known() const { return value_.has_value(); }
  const T& value() const { return *value_; }
  T& value() { return *value_; }
  // REQUIRES: !known(). Why the value is missing, and any detail (e.g. "needs CAP_NET_ADMIN").
  Missing why() const { return why_; }
  const std::string& detail() const { return detail_; }
  const T* get() const { return value_ ? &*value_ : nullptr; }
  T value_or(T fallback) const { return value_.value_or(std::move(fallback)); }

 private:
  std::optional<T> value_;
  Missing why_ = Missing::kAbsent;
  std::string detail_;
};

}  // namespace nicbench::record
