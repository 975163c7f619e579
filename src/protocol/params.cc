#include "protocol/params.h"

#include <sys/random.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <limits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/check.h"
#include "protocol/clock_exchange.h"
#include "protocol/control_channel.h"
#include "protocol/json_fields.h"
#include "protocol/server_proof.h"

namespace nicbench::protocol {
namespace {

using internal::MinusOne;
using nlohmann::json;
using record::Direction;
using record::TestSpec;
using record::Transport;
using record::ZeroCopy;
using std::chrono::milliseconds;

constexpr std::string_view kWhere = "parameter";
constexpr std::string_view kExtWhere = "parameter nicbench";
constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
using internal::kInt64Max;
constexpr size_t kMaxTextBytes = size_t{16} * 1024;  // title, extra_data
using internal::kMaxNameBytes;
constexpr size_t kMaxTokenBytes = 4096;  // authtoken: a 16384-bit key's token has 2,732

// iperf3 carries whole seconds; a fraction rounds up so a test is never shortened.
int64_t CeilSeconds(milliseconds ms) { return (ms.count() + 999) / 1000; }

template <typename T>
Status SetInt(const json& doc, std::string_view key, int64_t min, int64_t max, T* field,
              std::string_view where = kWhere, MinusOne minus_one = MinusOne::kRefuse) {
  auto value = internal::ReadInt(doc, key, min, max, minus_one, where);
  if (!value) return tl::unexpected(value.error());
  if (*value) *field = static_cast<T>(**value);
  return Ok();
}

Status SetMillis(const json& doc, std::string_view key, int64_t scale, milliseconds* field,
                 std::string_view where = kWhere) {
  int64_t count = -1;
  NB_PROTO_TRY(SetInt(doc, key, 0, kInt32Max * int64_t{1000} / scale, &count, where));
  if (count >= 0) *field = milliseconds(count * scale);
  return Ok();
}

Status SetString(const json& doc, std::string_view key, size_t max_bytes, std::string* field) {
  auto value = internal::ReadString(doc, key, max_bytes, kWhere);
  if (!value) return tl::unexpected(value.error());
  if (*value) *field = std::move(**value);
  return Ok();
}

Status DecodeTransport(const json& doc, TestSpec* spec) {
  if (internal::Present(doc, "sctp")) return Fail("parameters: SCTP is not supported");
  const bool tcp = internal::Present(doc, "tcp");
  const bool udp = internal::Present(doc, "udp");
  if (tcp && udp) return Fail("parameters: both \"tcp\" and \"udp\" are present");
  // No protocol key at all: 3.12 keeps its default, TCP.
  spec->transport = udp ? Transport::kUdp : Transport::kTcp;
  return Ok();
}

Status DecodeEndAndStreams(const json& doc, TestSpec* spec) {
  NB_PROTO_TRY(SetMillis(doc, "omit", 1000, &spec->omit));
  NB_PROTO_TRY(SetMillis(doc, "time", 1000, &spec->duration));
  NB_PROTO_TRY(SetInt(doc, "num", 0, kInt64Max, &spec->bytes));
  NB_PROTO_TRY(SetInt(doc, "blockcount", 0, kInt64Max, &spec->blocks));
  NB_PROTO_TRY(SetInt(doc, "parallel", 0, kInt32Max, &spec->parallel));
  const bool reverse = internal::Present(doc, "reverse");
  const bool bidir = internal::Present(doc, "bidirectional");
  if (reverse && bidir)
    return Fail("parameters: both \"reverse\" and \"bidirectional\" are present");
  spec->direction =
      bidir ? Direction::kBidirectional : (reverse ? Direction::kReverse : Direction::kForward);
  return Ok();
}

Status DecodeSocketOptions(const json& doc, TestSpec* spec) {
  NB_PROTO_TRY(SetInt(doc, "MSS", 0, kInt32Max, &spec->mss_bytes));
  spec->no_delay = internal::Present(doc, "nodelay");
  NB_PROTO_TRY(SetInt(doc, "window", 0, kInt32Max, &spec->window_bytes));
  NB_PROTO_TRY(SetInt(doc, "len", 0, kInt32Max, &spec->block_bytes));
  NB_PROTO_TRY(SetInt(doc, "bandwidth", 0, kInt64Max, &spec->rate_bits_per_second));
  NB_PROTO_TRY(SetInt(doc, "fqrate", 0, kInt64Max, &spec->fq_rate_bits_per_second));
  NB_PROTO_TRY(SetInt(doc, "pacing_timer", 0, kInt32Max, &spec->pacing_timer_us));
  NB_PROTO_TRY(SetInt(doc, "burst", 0, kInt32Max, &spec->burst));
  NB_PROTO_TRY(SetInt(doc, "TOS", 0, kInt32Max, &spec->tos));
  NB_PROTO_TRY(SetString(doc, "congestion", kMaxNameBytes, &spec->congestion));
  return Ok();
}

Status DecodeFlagsAndText(const json& doc, DecodedParams* out) {
  TestSpec* spec = &out->spec;
  NB_PROTO_TRY(SetString(doc, "title", kMaxTextBytes, &spec->title));
  NB_PROTO_TRY(SetString(doc, "extra_data", kMaxTextBytes, &spec->extra_data));
  NB_PROTO_TRY(SetString(doc, "congestion_used", kMaxNameBytes, &out->congestion_used));
  NB_PROTO_TRY(SetString(doc, "client_version", kMaxNameBytes, &out->client_version));
  spec->get_server_output = internal::Present(doc, "get_server_output");
  spec->udp_counters_64bit = internal::Present(doc, "udp_counters_64bit");
  spec->repeating_payload = internal::Present(doc, "repeating_payload");
  spec->skip_rx_copy = internal::Present(doc, "skip_rx_copy");  // 3.19 clients
  // 3.12 reads these two as integers rather than as presence flags.
  int64_t zerocopy = 0, dont_fragment = 0;
  constexpr int64_t kInt32Min = std::numeric_limits<int32_t>::min();
  NB_PROTO_TRY(SetInt(doc, "zerocopy", kInt32Min, kInt32Max, &zerocopy));
  NB_PROTO_TRY(SetInt(doc, "dont_fragment", kInt32Min, kInt32Max, &dont_fragment));
  spec->zero_copy = zerocopy != 0 ? ZeroCopy::kSendfile : ZeroCopy::kOff;
  out->dont_fragment = dont_fragment != 0;
  int64_t affinity = -1;
  NB_PROTO_TRY(SetInt(doc, "server_affinity", -1, kInt32Max, &affinity, kWhere, MinusOne::kAccept));
  if (internal::Present(doc, "server_affinity")) out->server_affinity = static_cast<int>(affinity);
  NB_PROTO_TRY(SetInt(doc, "flowlabel", 0, 0xFFFFF, &out->flowlabel));
  spec->dont_fragment = out->dont_fragment;
  spec->server_affinity = out->server_affinity.value_or(-1);
  spec->flowlabel = static_cast<uint32_t>(out->flowlabel);
  out->has_authtoken = internal::Present(doc, "authtoken");
  NB_PROTO_TRY(SetString(doc, "authtoken", kMaxTokenBytes, &out->authtoken));
  return Ok();
}

// "rr":{"mode":"rr"|"crr","request_bytes":N,"response_bytes":N,"burst":N,"timeout_ms":N,
// "spin_us":N}; spin_us is left out when 0 (an older nicbench sends none).
// Ranges are Validate's business; here only types and the mode's spelling.
Status DecodeRr(const json& ext, TestSpec* spec) {
  auto it = ext.find("rr");
  if (it == ext.end()) return Ok();
  constexpr std::string_view kRrWhere = "parameter nicbench.rr";
  if (!it->is_object()) {
    return Fail(fmt::format("parameter nicbench \"rr\": expected an object, got {}",
                            internal::TypeName(*it)));
  }
  auto mode = internal::ReadString(*it, "mode", 16, kRrWhere);
  if (!mode) return tl::unexpected(mode.error());
  if (!*mode || (**mode != "rr" && **mode != "crr")) {
    return Fail("parameter nicbench.rr \"mode\": expected \"rr\" or \"crr\"");
  }
  record::RrSpec& rr = spec->rr;
  rr.mode = **mode == "rr" ? record::RrMode::kRr : record::RrMode::kCrr;
  NB_PROTO_TRY(SetInt(*it, "request_bytes", 0, kInt32Max, &rr.request_bytes, kRrWhere));
  NB_PROTO_TRY(SetInt(*it, "response_bytes", 0, kInt32Max, &rr.response_bytes, kRrWhere));
  NB_PROTO_TRY(SetInt(*it, "burst", 0, kInt32Max, &rr.burst, kRrWhere));
  NB_PROTO_TRY(SetInt(*it, "timeout_ms", 0, kInt32Max, &rr.timeout_ms, kRrWhere));
  NB_PROTO_TRY(SetInt(*it, "spin_us", 0, kInt32Max, &rr.spin_us, kRrWhere));
  return Ok();
}

// "prove_key" and "crr_token": strings of an exact shape, or absent (a longer one is refused
// before it is copied).
constexpr size_t kMaxProofNonceText = 64;
Status DecodeExtensionTokens(const json& ext, Extension* decoded) {
  auto nonce = internal::ReadString(ext, "prove_key", kMaxProofNonceText, kExtWhere);
  if (!nonce) return tl::unexpected(nonce.error());
  if (*nonce) {
    if ((*nonce)->size() != kProofNonceChars || !Base64Decode(**nonce)) {
      return Fail(fmt::format("parameter nicbench \"prove_key\": expected {} base64 characters",
                              kProofNonceChars));
    }
    decoded->prove_key = std::move(**nonce);
  }
  auto token = internal::ReadString(ext, "crr_token", kMaxProofNonceText, kExtWhere);
  if (!token) return tl::unexpected(token.error());
  if (*token) {
    const bool hex = std::all_of((*token)->begin(), (*token)->end(), [](char c) {
      return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
    });
    if ((*token)->size() != kCrrTokenChars || !hex) {
      return Fail(fmt::format("parameter nicbench \"crr_token\": expected {} lowercase hex digits",
                              kCrrTokenChars));
    }
    decoded->crr_token = std::move(**token);
  }
  NB_PROTO_TRY(
      SetInt(ext, "clock_exchanges", 0, kMaxClockExchanges, &decoded->clock_exchanges, kExtWhere));
  return Ok();
}

Status DecodeExtension(const json& doc, DecodedParams* out) {
  auto it = doc.find(kExtensionKey);
  if (it == doc.end()) return Ok();
  const json& ext = *it;
  if (!ext.is_object()) {
    return Fail(
        fmt::format("parameter \"nicbench\": expected an object, got {}", internal::TypeName(ext)));
  }
  Extension decoded;
  int64_t version = 0;
  NB_PROTO_TRY(SetInt(ext, "version", 1, kInt32Max, &version, kExtWhere));
  if (version == 0) return Fail("parameter nicbench \"version\": missing");
  decoded.version = static_cast<int>(version);
  auto want = internal::ReadBool(ext, "want_samples", kExtWhere);
  if (!want) return tl::unexpected(want.error());
  decoded.want_samples = want->value_or(false);
  auto live = internal::ReadBool(ext, "live_samples", kExtWhere);
  if (!live) return tl::unexpected(live.error());
  decoded.live_samples = live->value_or(false);
  auto announce = internal::ReadBool(ext, "announce", kExtWhere);
  if (!announce) return tl::unexpected(announce.error());
  decoded.announce = announce->value_or(false);
  TestSpec* spec = &out->spec;
  NB_PROTO_TRY(SetMillis(ext, "interval_ms", 1, &spec->interval, kExtWhere));
  NB_PROTO_TRY(SetMillis(ext, "time_ms", 1, &spec->duration, kExtWhere));
  NB_PROTO_TRY(SetMillis(ext, "omit_ms", 1, &spec->omit, kExtWhere));
  auto skip = internal::ReadBool(ext, "skip_rx_copy", kExtWhere);
  if (!skip) return tl::unexpected(skip.error());
  if (skip->value_or(false)) spec->skip_rx_copy = true;
  auto msg_zerocopy = internal::ReadBool(ext, "msg_zerocopy", kExtWhere);
  if (!msg_zerocopy) return tl::unexpected(msg_zerocopy.error());
  if (msg_zerocopy->value_or(false)) spec->zero_copy = ZeroCopy::kMsgZerocopy;
  auto udp_offload = internal::ReadBool(ext, "udp_offload", kExtWhere);
  if (!udp_offload) return tl::unexpected(udp_offload.error());
  spec->udp_offload = udp_offload->value_or(false);
  NB_PROTO_TRY(DecodeRr(ext, spec));
  NB_PROTO_TRY(DecodeExtensionTokens(ext, &decoded));
  out->ext = std::move(decoded);
  return Ok();
}

nlohmann::ordered_json EncodeExtension(const TestSpec& spec, const Extension& ext) {
  nlohmann::ordered_json j;
  j["version"] = ext.version;
  j["want_samples"] = ext.want_samples;
  if (ext.live_samples) j["live_samples"] = true;
  if (ext.announce) j["announce"] = true;
  if (!ext.prove_key.empty()) j["prove_key"] = ext.prove_key;
  if (!ext.crr_token.empty()) j["crr_token"] = ext.crr_token;
  if (ext.clock_exchanges != 0) j["clock_exchanges"] = ext.clock_exchanges;
  j["interval_ms"] = spec.interval.count();
  j["time_ms"] = spec.duration.count();
  j["omit_ms"] = spec.omit.count();
  if (spec.skip_rx_copy) j["skip_rx_copy"] = true;
  if (spec.zero_copy == ZeroCopy::kMsgZerocopy) j["msg_zerocopy"] = true;
  if (spec.udp_offload) j["udp_offload"] = true;
  if (spec.rr.enabled()) {
    nlohmann::ordered_json rr;
    rr["mode"] = record::RrModeName(spec.rr.mode);
    rr["request_bytes"] = spec.rr.request_bytes;
    rr["response_bytes"] = spec.rr.response_bytes;
    rr["burst"] = spec.rr.burst;
    rr["timeout_ms"] = spec.rr.timeout_ms;
    if (spec.rr.spin_us != 0) rr["spin_us"] = spec.rr.spin_us;
    j["rr"] = std::move(rr);
  }
  return j;
}

void EncodeOptionalKeys(const TestSpec& spec, nlohmann::ordered_json& j) {
  if (spec.rate_bits_per_second != 0) j["bandwidth"] = spec.rate_bits_per_second;
  if (spec.fq_rate_bits_per_second != 0) j["fqrate"] = spec.fq_rate_bits_per_second;
  if (spec.pacing_timer_us != 0) j["pacing_timer"] = spec.pacing_timer_us;
  if (spec.burst != 0) j["burst"] = spec.burst;
  if (spec.tos != 0) j["TOS"] = spec.tos;
  if (!spec.title.empty()) j["title"] = spec.title;
  if (!spec.extra_data.empty()) j["extra_data"] = spec.extra_data;
  if (!spec.congestion.empty()) j["congestion"] = spec.congestion;
  if (spec.get_server_output) j["get_server_output"] = 1;
  if (spec.udp_counters_64bit) j["udp_counters_64bit"] = 1;
  if (spec.repeating_payload) j["repeating_payload"] = 1;
  if (spec.zero_copy != ZeroCopy::kOff) j["zerocopy"] = 1;
  if (spec.dont_fragment) j["dont_fragment"] = 1;
  if (spec.server_affinity >= 0) j["server_affinity"] = spec.server_affinity;
  if (spec.flowlabel != 0) j["flowlabel"] = spec.flowlabel;
}

}  // namespace

std::string MakeCrrToken() {
  unsigned char random[kCrrTokenChars / 2];
  size_t filled = 0;
  while (filled < sizeof random) {
    const ssize_t n = getrandom(random + filled, sizeof random - filled, 0);
    if (n > 0) filled += static_cast<size_t>(n);
    NB_CHECK(n > 0 || errno == EINTR);
  }
  return fmt::format("{:02x}", fmt::join(random, ""));
}

nlohmann::ordered_json EncodeParams(const TestSpec& spec, const std::optional<Extension>& ext,
                                    std::string_view authtoken) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  j[spec.transport == Transport::kUdp ? "udp" : "tcp"] = true;
  j["omit"] = CeilSeconds(spec.omit);
  // As a 3.12 client: a byte or block count ends the test, and time is then sent as 0.
  j["time"] = (spec.bytes != 0 || spec.blocks != 0) ? 0 : CeilSeconds(spec.duration);
  j["num"] = spec.bytes;
  j["blockcount"] = spec.blocks;
  if (spec.mss_bytes != 0) j["MSS"] = spec.mss_bytes;
  if (spec.no_delay) j["nodelay"] = true;
  j["parallel"] = spec.parallel;
  if (spec.direction == Direction::kReverse) j["reverse"] = true;
  if (spec.direction == Direction::kBidirectional) j["bidirectional"] = true;
  if (spec.window_bytes != 0) j["window"] = spec.window_bytes;
  j["len"] = record::EffectiveBlockBytes(spec);
  EncodeOptionalKeys(spec, j);
  if (!authtoken.empty()) j["authtoken"] = authtoken;
  j["client_version"] = kIperfClientVersion;
  if (ext) j[kExtensionKey] = EncodeExtension(spec, *ext);
  return j;
}

Result<DecodedParams> DecodeParamsJson(const nlohmann::json& doc) {
  if (!doc.is_object()) {
    return Fail(fmt::format("parameters: expected a JSON object, got {}", internal::TypeName(doc)));
  }
  DecodedParams out;
  NB_PROTO_TRY(DecodeTransport(doc, &out.spec));
  NB_PROTO_TRY(DecodeEndAndStreams(doc, &out.spec));
  NB_PROTO_TRY(DecodeSocketOptions(doc, &out.spec));
  NB_PROTO_TRY(DecodeFlagsAndText(doc, &out));
  NB_PROTO_TRY(DecodeExtension(doc, &out));
  return out;
}

Result<DecodedParams> DecodeParams(std::string_view json_text) {
  auto doc = ParseJsonText(json_text);
  if (!doc) return Fail("parameters: " + doc.error().message);
  return DecodeParamsJson(*doc);
}

}  // namespace nicbench::protocol
