// The EXCHANGE_RESULTS JSON (spec section 10), which both ends send: the client first, then the
// server. EncodeResults writes what the 3.12 reader requires; DecodeResults requires the same
// keys the 3.12 reader requires and type-checks each one, accepting -1 printed as 2^64-1.
// Our extension rides along as "nicbench": the sender's EndpointRecord as JSON (made by
// record/json.h; this layer only carries it). Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "record/test_spec.h"

namespace nicbench::protocol {

// Bidirectional with nicbench's maximum of streams per direction (iperf3's is 128).
inline constexpr size_t kMaxResultStreams = size_t{2} * record::kMaxParallelStreams;

// One stream as the sending end of the results saw it.
struct PeerStream {
  int id = 0;                // iperf3 numbering: 1, 3, 4, ...
  uint64_t bytes = 0;        // sent (sender) or received (receiver), omit excluded
  int64_t retransmits = -1;  // TCP sender: total retransmits; -1 = not a TCP sender
  double jitter = 0;         // seconds (UDP receiver)
  int64_t errors = 0;        // UDP: packets lost
  int64_t packets = 0;       // UDP: sent, or the highest sequence received
  double start_time = 0;     // seconds since the stream started (3.2+; 0 when absent)
  double end_time = 0;
};

struct PeerResults {
  double cpu_util_total = 0;  // percent of one CPU, as iperf3 reports it
  double cpu_util_user = 0;
  double cpu_util_system = 0;
  // 1 = TCP sender with tcp_info, 0 = a sender without (UDP), -1 = this end only receives.
  int sender_has_retransmits = -1;
  std::string congestion_used;  // "" = not sent
  std::vector<PeerStream> streams;
  std::optional<std::string> server_output_text;     // server, with get_server_output
  std::optional<nlohmann::json> server_output_json;  // server in -J mode, with get_server_output
  std::optional<nlohmann::json> extension;           // our "nicbench" value, when the peer sent it
};

// Keys in the order 3.12 writes them; integers without a decimal point (an integral double such
// as a 0 jitter is written as 0, as cJSON does); -1 as -1; a NaN or infinite double as 0 (JSON
// has no NaN and the 3.12 reader would reject null).
// An ordered_json so the keys keep 3.12's order; SendJson takes it.
nlohmann::ordered_json EncodeResults(const PeerResults& results);

// Requires cpu_util_total, cpu_util_user, cpu_util_system, sender_has_retransmits, streams and in
// each stream id, bytes, retransmits, jitter, errors, packets; start_time/end_time optional.
// Unknown keys are ignored; wrong types, negative counts, an "id" outside 1..INT_MAX, a repeated
// id and more than kMaxResultStreams streams are errors naming the field.
Result<PeerResults> DecodeResults(std::string_view json_text);
Result<PeerResults> DecodeResultsJson(const nlohmann::json& doc);
// The same, moving the extension and server_output_json out of `doc` instead of copying them
// (a results document can carry a whole record of 1,000 streams).
Result<PeerResults> DecodeResultsJson(nlohmann::json&& doc);

}  // namespace nicbench::protocol
