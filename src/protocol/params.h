// The parameter JSON a client sends after PARAM_EXCHANGE (spec section 6), both ways:
// EncodeParams writes what a 3.12 client writes, key for key and in its order, plus one key of
// our own ("nicbench") that stock iperf3 servers ignore; DecodeParams reads what any client sent
// and type-checks every field, so a hostile document is a clean error, never a crash or an
// escaping exception (CVE-2024-53580 was a type confusion in exactly this message).
// After DecodeParams the caller runs record::Validate(spec, limits): the one range check shared
// with argv. Pure functions; thread-safe.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "record/test_spec.h"

namespace nicbench::protocol {

// The version we claim in "client_version": the iperf3 release whose wire we speak.
inline constexpr std::string_view kIperfClientVersion = "3.12";

// Top-level key of our extension inside the parameter JSON and the results JSON.
inline constexpr std::string_view kExtensionKey = "nicbench";
inline constexpr int kExtensionVersion = 1;

// What a nicbench client asks of a nicbench server beyond iperf3. On the wire:
//   "nicbench":{"version":1,"want_samples":true,"interval_ms":1000,"time_ms":10000,"omit_ms":0}
// plus "skip_rx_copy":true, "msg_zerocopy":true and "udp_offload":true when the spec asks for
// them (a stock iperf3 server ignores the object, so its end runs without offload). interval_ms,
// time_ms, omit_ms and those two flags come from the TestSpec (iperf3 carries only whole seconds
// and has no such flags); DecodeParams puts them back into the TestSpec.
struct Extension {
  int version = kExtensionVersion;  // the peer's extension version (we speak 1)
  bool want_samples = true;         // the server returns its EndpointRecord in the results
  // The server also sends each interval's host sample as the interval closes
  // (State::kNicbenchSample), so the client can show both ends live.
  bool live_samples = false;
  // The client reads State::kNicbenchReady before CREATE_STREAMS of a bulk test: the server
  // says it is nicbench before the data goes (an older client does not ask, and never sees it).
  bool announce = false;
  // run --server-key: a fresh nonce the server signs with its key before anything else of the
  // test (server_proof.h, State::kNicbenchServerProof); empty = not asked. On the wire
  // "prove_key": base64 of 32 random bytes.
  std::string prove_key;
  // A CRR test's token: kCrrTokenChars lowercase hex digits from the client, with which each of
  // the test's CRR connections begins, so the per-flow listener counts this test's connections
  // only (State::kNicbenchCrrTokenReady). Empty = none (an older client). "crr_token" on the wire.
  std::string crr_token;
  // A TCP request/response client asks for this many clock exchanges (clock_exchange.h) and
  // timestamped responses; 0 = none. "clock_exchanges" on the wire, 1..kMaxClockExchanges.
  uint32_t clock_exchanges = 0;
};

// Hex digits of a CRR token (16 random bytes).
inline constexpr size_t kCrrTokenChars = 32;
// A fresh CRR token from getrandom(2).
std::string MakeCrrToken();

// Encodes `spec` as a 3.12 client would: one of "tcp"/"udp", then omit, time, num,
// blockcount, MSS, nodelay, parallel, reverse, bidirectional, window, len, bandwidth, fqrate,
// pacing_timer, burst, TOS, title, extra_data, congestion, get_server_output,
// udp_counters_64bit, repeating_payload, zerocopy, client_version; flags only when true,
// optional numbers only when nonzero. "time" is 0 when bytes or blocks end the test; whole
// seconds are rounded up. "len" is EffectiveBlockBytes(spec) (the caller sets block_bytes for
// UDP from the path MTU first). With `ext`, the "nicbench" object follows client_version; without
// it the text is byte-identical to a 3.12 client's.
// An ordered_json, because a 3.12 peer's key order is part of "byte-identical"; SendJson takes it.
// A non-empty `authtoken` (auth_token.h) goes just before client_version, where 3.12 puts it.
nlohmann::ordered_json EncodeParams(const record::TestSpec& spec,
                                    const std::optional<Extension>& ext = std::nullopt,
                                    std::string_view authtoken = {});

struct DecodedParams {
  record::TestSpec spec;
  std::optional<Extension> ext;  // set when the peer is nicbench (it sent the "nicbench" key)
  bool peer_is_nicbench() const { return ext.has_value(); }
  std::string client_version;  // "" when absent (pre-3.1 clients)
  // Keys a 3.12 client may send that TestSpec does not model; the server decides what to do.
  std::optional<int> server_affinity;  // -1 (or 2^64-1) = none
  int flowlabel = 0;
  bool dont_fragment = false;
  bool has_authtoken = false;  // the key is present (whatever its value)
  std::string authtoken;       // its text: base64 of an RSA-encrypted token (auth_token.h)
  std::string congestion_used;
};

// Parses and type-checks a parameter document. Errors name the field ("parameter \"len\":
// expected an integer, got string"). Unknown keys are ignored. Flag keys (tcp, udp, nodelay,
// reverse, bidirectional, get_server_output, udp_counters_64bit, repeating_payload) count as on
// when present, whatever their value, as 3.12 does; "zerocopy" and "dont_fragment" are read as
// integers (nonzero = on), also as 3.12 does. More than one of tcp/udp/sctp, or sctp at all, is
// refused; none means TCP; "reverse" with "bidirectional" is refused. The 3.19 key
// "skip_rx_copy" is read as a flag too. Where -1 means "none" an integer >= 2^63 is read as -1
// (3.12 prints -1 as 18446744073709551615). A "nicbench" key that is not an object is an error.
Result<DecodedParams> DecodeParams(std::string_view json_text);
// The same on an already parsed document (ReadJson gives one). A separate name, because a
// json is constructible from a string and an overload would be ambiguous.
Result<DecodedParams> DecodeParamsJson(const nlohmann::json& doc);

}  // namespace nicbench::protocol
