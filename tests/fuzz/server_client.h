// The fuzzed client of the server_conversation target: a protocol client whose every choice is
// read from a Script, one state of the server at a time. Single-threaded; one per input.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "net/socket_address.h"
#include "net/unique_fd.h"
#include "protocol/params.h"
#include "protocol/wire.h"
#include "record/test_spec.h"
#include "script.h"

namespace nicbench::fuzz {

// The parameters as fuzzed fields (docs/fuzzing.md gives the byte layout).
struct FuzzedParams {
  record::TestSpec spec;
  std::optional<protocol::Extension> ext;  // none = a stock iperf3 client
};
FuzzedParams ReadParams(Script& in);
// Sets, replaces or erases a few keys of `doc` (known keys, fuzzed types and values).
void OverrideKeys(Script& in, nlohmann::ordered_json& doc);

class ServerClient {
 public:
  ServerClient(Script& in, const net::SocketAddress& server) : in_(in), server_(server) {}
  // Connects, sends the cookie, then answers the server's states until either end stops.
  void Run();

 private:
  enum class Next { kGoOn, kStop };
  bool SendCookie();
  Next OnState(protocol::State state);
  Next OnParams();
  Next SendParamsText(const std::string& text);
  Next OnCreateStreams();
  void ConnectStream(bool own_cookie);
  Next OnRunning();
  void SendData(size_t stream);
  Next OnExchangeResults();
  std::string BuildResults(bool fuzzed);
  Next ReadServerResults();
  Next OnServerError();
  // Bytes that are no message: sent, then the write side is shut so the server reads EOF
  // instead of waiting for the rest.
  Next SendRawAndShut();
  Next Close();

  Script& in_;
  net::SocketAddress server_;
  net::UniqueFd control_;
  std::string cookie_;
  record::TestSpec spec_;  // what the server decoded, as far as the client knows
  bool nicbench_ = false;  // the parameters carried our extension
  std::vector<net::UniqueFd> streams_;
  std::vector<uint64_t> sent_bytes_, sent_datagrams_;
};

}  // namespace nicbench::fuzz
