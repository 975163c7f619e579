#include "cli/rr_options.h"

#include <fmt/format.h>

#include "base/units.h"
#include "cli/option_tables.h"

namespace nicbench::cli {
namespace {

Result<uint32_t> Size(std::string_view text, const char* what) {
  auto v = ParseByteSize(text);
  if (!v) return Fail(fmt::format("-l: {} size: {}", what, v.error().message));
  if (*v == 0) return Fail(fmt::format("-l: {} size must be at least 1 byte", what));
  if (*v > UINT32_MAX) return Fail(fmt::format("-l: {} size {} is too large", what, text));
  return static_cast<uint32_t>(*v);
}

}  // namespace

void AddRrOptions(CLI::App& app, RrArgs& a) { AddRows(app, a, RrRows()); }

Status ApplyRrArgs(const RrArgs& a, std::string& length, std::string& count,
                   record::TestSpec& spec) {
  if (!a.rr && !a.crr) {
    if (!a.burst.empty() || !a.timeout.empty() || !a.spin.empty() || !a.rate.empty()) {
      return Fail("--rr-burst, --rr-timeout, --rr-spin and --rr-rate need --rr or --crr");
    }
    return Ok();
  }
  if (a.rr && a.crr) return Fail("--rr and --crr cannot be used together");
  spec.rr.mode = a.crr ? record::RrMode::kCrr : record::RrMode::kRr;
  if (!length.empty()) {
    const size_t comma = length.find(',');
    auto req = Size(std::string_view(length).substr(0, comma), "request");
    if (!req) return tl::unexpected(req.error());
    spec.rr.request_bytes = spec.rr.response_bytes = *req;
    if (comma != std::string::npos) {
      auto resp = Size(std::string_view(length).substr(comma + 1), "response");
      if (!resp) return tl::unexpected(resp.error());
      spec.rr.response_bytes = *resp;
    }
    length.clear();
  }
  if (!count.empty()) {
    auto n = ParseUnsigned(count);
    if (!n) return Fail(fmt::format("-n: {} (a number of transactions)", n.error().message));
    if (*n == 0) return Fail("-n: must be at least 1 transaction");
    spec.blocks = *n;
    count.clear();
  }
  if (auto s = ApplyRows(a, RrRows(), spec); !s) return s;
  if (!a.rate.empty() && spec.rr.rate_per_second == 0) {
    return Fail("--rr-rate: must be at least 1 transaction a second");
  }
  // The message sizes stand in for the block size where the bulk code reads one (the memory
  // budgets, the parameters' "len").
  spec.block_bytes = std::max(spec.rr.request_bytes, spec.rr.response_bytes);
  return Ok();
}

}  // namespace nicbench::cli
