// The server's state machine driven through whole conversations: a real `nicbench serve`
// (engine::Server: the acceptor, ServerSession and the measuring loop) listens on 127.0.0.1, and a
// client whose every decision comes from the fuzzer talks to it over real sockets: the cookie,
// the parameters (built from fuzzed fields, with fuzzed keys overridden, or raw text), the data
// streams (TCP with their cookie, or UDP hellos), a few data bytes or datagrams, the state byte
// that ends the test, the results, IPERF_DONE, and early closes at every step.
//
// The input is a script (script.h) read as the conversation goes: each time the server sends a
// state byte the client reads the next decisions for that state. Where the script has run out
// every decision is 0, which is the well-behaved answer, so an empty input is a whole, good
// TCP test. The format, step by step, is in docs/fuzzing.md; tests/fuzz/make_server_seeds.py
// writes the seeds.
//
// The server is started once per process (a test is a thread, a server is an acceptor thread
// and a port) with short set-up and control timeouts, so a client that stalls costs a second,
// not ten; each input waits until every test it started has ended, so no test outlives its
// input.
#include <thread>

#include "engine/server.h"
#include "fuzz_input.h"
#include "net/socket_address.h"
#include "record/json.h"
#include "script.h"
#include "server_client.h"

namespace engine = nicbench::engine;
using nicbench::fuzz::Script;
using std::chrono::milliseconds;

namespace {

engine::ServerConfig FuzzServerConfig() {
  engine::ServerConfig config;
  config.bind_address = "127.0.0.1";
  config.port = 0;
  config.max_tests = 16;
  config.max_tests_per_address = 16;
  config.limits.max_parallel = 8;  // more is refused (kIeNumStreams)
  config.limits.max_duration = std::chrono::seconds(60);
  config.limits.max_block_bytes = 1u << 20;
  config.limits.max_rr_flows = 8;
  config.setup_timeout = milliseconds(500);
  config.control_timeout = milliseconds(1000);
  config.receive_timeout = milliseconds(1000);
  config.grace = milliseconds(500);
  config.threads = 1;
  config.memory_budget_bytes = 64u << 20;
  config.log_tests = false;
  config.total_rate_limit_bits_per_second = 0;
  // --get-server-output as a -J server renders it: our record as a JSON document.
  config.render_output = [](const nicbench::record::RunRecord& r) {
    return nlohmann::json(r).dump();
  };
  config.render_output_json = true;
  return config;
}

// One server for the process; never destroyed (its acceptor thread runs until exit).
class FuzzServer {
 public:
  FuzzServer() {
    auto server = engine::Server::Create(FuzzServerConfig());
    NICBENCH_FUZZ_CHECK(server.has_value());
    server_ = std::move(*server);
    auto address = nicbench::net::SocketAddress::FromNumeric("127.0.0.1", server_->port());
    NICBENCH_FUZZ_CHECK(address.has_value());
    address_ = *address;
    std::thread([this] { (void)server_->Run(); }).detach();
  }

  const nicbench::net::SocketAddress& address() const { return address_; }

  // Waits until every test started so far has ended (libFuzzer's -timeout catches a test
  // that never does: a slot held forever is a finding).
  void Settle() const {
    for (;;) {
      const engine::ServerStats s = server_->stats();
      if (s.tests_ok + s.tests_failed >= s.tests_started) return;
      std::this_thread::sleep_for(milliseconds(1));
    }
  }

 private:
  std::unique_ptr<engine::Server> server_;
  nicbench::net::SocketAddress address_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Seeds are a few hundred bytes; a longer script only repeats steps.
  if (size > 16 * 1024) return 0;
  static FuzzServer* server = new FuzzServer();
  Script script(data, size);
  {
    nicbench::fuzz::ServerClient client(script, server->address());
    client.Run();
  }  // every socket of the client is closed here
  server->Settle();
  return 0;
}
