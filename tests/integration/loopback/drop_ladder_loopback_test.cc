// The drop ladder and the per-stream limits on real sockets: UDP sent far faster than a tiny
// receive buffer (-w) takes drops at the socket, and the socket row of the receiver's ladder
// counts them; a TCP stream through a tiny window is limited by the receiver's window. Uses the
// loopback main job, so both ends are nicbench and both directions run.
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/json_lines.h"
#include "support/run_binary.h"

namespace nicbench {
namespace {

using nlohmann::json;

json RunLoopback(const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"run", "-t", "2", "--json", "--no-store"};
  args.insert(args.end(), extra.begin(), extra.end());
  testing::ProcessResult r = testing::RunNicbench(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return testing::ParseJsonLines(r.out);
}

const json& Rung(const json& ladder, const std::string& layer) {
  for (const json& rung : ladder) {
    if (rung.at("layer") == layer) return rung;
  }
  ADD_FAILURE() << "no rung " << layer << " in " << ladder.dump();
  static const json kNone;
  return kNone;
}

TEST(DropLadderLoopback, UdpBeyondATinyReceiveBufferDropsAtTheSocket) {
  // 2 Gbit/s of 1400-byte datagrams into an 8 KB receive buffer: the receiver cannot keep up.
  const json doc = RunLoopback({"-u", "-b", "2G", "-l", "1400", "-w", "8K"});
  ASSERT_EQ(doc.at("runs").size(), 2u);
  for (const json& run : doc.at("runs")) {
    const json& ladder = run.at("nicbench").at("drop_ladder");
    // Whichever end receives: both ends share this host, so both read the socket counters.
    for (const char* end : {"local", "remote"}) {
      SCOPED_TRACE(end);
      const json& socket = Rung(ladder.at(end), "socket");
      ASSERT_TRUE(socket.at("dropped").is_number()) << socket.dump();
      EXPECT_GT(socket.at("dropped").get<uint64_t>(), 0u) << socket.dump();
      EXPECT_GT(socket.at("parts").at("RcvbufErrors").get<uint64_t>(), 0u);
      // Loopback has no NIC: unknown with the reason, never 0.
      const json& nic = Rung(ladder.at(end), "NIC");
      EXPECT_TRUE(nic.at("dropped").is_null());
      EXPECT_NE(nic.at("unknown").at("dropped").get<std::string>().find("loopback"),
                std::string::npos);
    }
    bool named_socket = false;
    for (const json& f : run.at("findings")) {
      if (f.at("id") == "drop-ladder") {
        named_socket = f.at("title").get<std::string>().find("the socket") != std::string::npos;
      }
    }
    EXPECT_TRUE(named_socket) << run.at("findings").dump();
  }
}

TEST(DropLadderLoopback, ATinyWindowLimitsTheStreamByTheReceiveWindow) {
  const json doc = RunLoopback({"-w", "8K"});
  ASSERT_EQ(doc.at("runs").size(), 2u);
  int by_window = 0;
  for (const json& run : doc.at("runs")) {
    const json& limits = run.at("nicbench").at("stream_limits");
    ASSERT_EQ(limits.size(), 1u) << limits.dump();
    const json& s = limits[0];
    // The sender waited on the window far longer than on its own buffer. On a busy host a
    // descheduled receiver turns window time into "network" time (data in flight, nobody
    // reading), so beating the network and naming the window are required of one direction.
    EXPECT_GT(s.at("rwnd_limited_seconds").get<double>(),
              s.at("sndbuf_limited_seconds").get<double>())
        << s.dump();
    const bool window_first =
        s.at("rwnd_limited_seconds").get<double>() > s.at("network_seconds").get<double>();
    if (window_first && s.at("limited_by") == "receive window") ++by_window;
  }
  EXPECT_GE(by_window, 1);
}

}  // namespace
}  // namespace nicbench
