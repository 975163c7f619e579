#include "cli/rr_options.h"

#include <fmt/format.h>

#include "base/units.h"

namespace nicbench::cli {
namespace {

Result<uint32_t> Size(std::string_view text, const char* what) {
  auto v = ParseByteSize(text);
  if (!v) return Fail(fmt::format("-l: {} size: {}", what, v.error().message));
  if (*v == 0) return Fail(fmt::format("-l: {} size must be at least 1 byte", what));
  if (*v > UINT32_MAX) return Fail(fmt::format("-l: {} size {} is too large", what, text));
  return static_cast<uint32_t>(*v);
}

Result<uint32_t> Number(const std::string& text, const char* what) {
  auto v = ParseUnsigned(text);
  if (!v) return Fail(fmt::format("{}: {}", what, v.error().message));
  if (*v > UINT32_MAX) return Fail(fmt::format("{}: {} is too large", what, text));
  return static_cast<uint32_t>(*v);
}

}  // namespace

void AddRrOptions(CLI::App& app, RrArgs& a) {
  app.add_flag("--rr", a.rr,
               "request/response test: each flow sends a request and waits for the response\n"
               "(netperf's TCP_RR; with -u UDP_RR); needs `nicbench serve` on HOST. -l REQ[,RESP]\n"
               "sets the message sizes (default 1,1), -n N a number of transactions, -P flows\n"
               "(up to 1024)");
  app.add_flag("--crr", a.crr,
               "connect, request, response, close for every transaction (netperf's TCP_CRR)");
  app.add_option("--rr-burst", a.burst,
                 "transactions in flight per flow in --rr/--crr (default 1, up to 1024)");
  app.add_option("--rr-timeout", a.timeout,
                 "UDP --rr: a request without a response this long is lost, ms (default 1000)");
  app.add_option("--rr-spin", a.spin,
                 "--rr/--crr: both ends poll the socket up to this many microseconds before\n"
                 "they sleep in a wait (0..10000, default 0: sleep at once, as netperf does);\n"
                 "takes a sleeping core's wake-up out of each transaction, costs busy cores");
  app.add_option("--rr-rate", a.rate,
                 "--rr/--crr: start transactions on a schedule of N a second (1..10000, one TCP\n"
                 "flow; up to --rr-burst waiting for answers) instead of back to back: a probe of\n"
                 "the path's latency, not of its rate");
}

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
  if (!a.burst.empty()) {
    auto b = Number(a.burst, "--rr-burst");
    if (!b) return tl::unexpected(b.error());
    spec.rr.burst = *b;
  }
  if (!a.timeout.empty()) {
    auto t = Number(a.timeout, "--rr-timeout");
    if (!t) return tl::unexpected(t.error());
    spec.rr.timeout_ms = *t;
  }
  if (!a.spin.empty()) {
    auto t = Number(a.spin, "--rr-spin");
    if (!t) return tl::unexpected(t.error());
    spec.rr.spin_us = *t;
  }
  if (!a.rate.empty()) {
    auto r = Number(a.rate, "--rr-rate");
    if (!r) return tl::unexpected(r.error());
    if (*r == 0) return Fail("--rr-rate: must be at least 1 transaction a second");
    spec.rr.rate_per_second = *r;
  }
  // The message sizes stand in for the block size where the bulk code reads one (the memory
  // budgets, the parameters' "len").
  spec.block_bytes = std::max(spec.rr.request_bytes, spec.rr.response_bytes);
  return Ok();
}

}  // namespace nicbench::cli
