// Control characters from a peer reached the terminal raw: a server whose host name held
// `ESC ] 0;...BEL` retitled the terminal of whoever ran `nicbench run` against it and, later,
// `nicbench history`; and the server's output text (up to 16 MiB) was printed even when
// --get-server-output was not asked for. Now every text rendering escapes what it did not write
// itself, and the server's output is kept only when asked for.
#include "regress/hostile_client.h"

#include <thread>

#include "record/json.h"

namespace nicbench::regress {
namespace {

constexpr char kEvilHost[] = "\x1b]0;pwned\x07host\x1b[2J";
constexpr char kEvilOutput[] = "server says \x1b]0;owned\x07\x1b[31mred\r\n";

std::string ReadJsonText(int fd) {
  unsigned char len[4];
  if (recv(fd, len, 4, MSG_WAITALL) != 4) return "";
  std::string text((len[0] << 24) | (len[1] << 16) | (len[2] << 8) | len[3], '\0');
  if (recv(fd, text.data(), text.size(), MSG_WAITALL) != static_cast<ssize_t>(text.size())) {
    return "";
  }
  return text;
}

// Plays a server for one one-stream test and answers with a hostile host name in our
// extension and a hostile output text, asked for or not.
void HostileServer(int listener) {
  int control = accept(listener, nullptr, nullptr);
  char cookie[37];
  recv(control, cookie, sizeof cookie, MSG_WAITALL);
  const char param_exchange = 9;
  SendAll(control, &param_exchange, 1);
  ReadJsonText(control);
  const char create_streams = 10;
  SendAll(control, &create_streams, 1);
  int stream = accept(listener, nullptr, nullptr);
  recv(stream, cookie, sizeof cookie, MSG_WAITALL);
  const char running[2] = {1, 2};
  SendAll(control, running, 2);
  // Drain the data until the client says TEST_END (4).
  std::vector<char> sink(1 << 16);
  for (;;) {
    pollfd p[2] = {{control, POLLIN, 0}, {stream, POLLIN, 0}};
    if (poll(p, 2, 20000) <= 0) break;
    if (p[1].revents != 0 && recv(stream, sink.data(), sink.size(), 0) <= 0) p[1].fd = -1;
    if (p[0].revents != 0) {
      ReadStateByte(control);
      break;
    }
  }
  const char exchange = 13;
  SendAll(control, &exchange, 1);
  auto theirs = nlohmann::json::parse(ReadJsonText(control), nullptr, false);
  record::EndpointRecord end;
  end.role = record::Role::kServer;
  end.software = "nicbench 0.1.0";
  end.host.hostname = std::string(kEvilHost);
  nlohmann::json ours = {{"cpu_util_total", 1.0},
                         {"cpu_util_user", 0.5},
                         {"cpu_util_system", 0.5},
                         {"sender_has_retransmits", -1},
                         {"congestion_used", "cubic"},
                         {"streams", theirs.is_object() ? theirs["streams"] : nlohmann::json()},
                         {"server_output_text", kEvilOutput},
                         {"nicbench", end}};
  SendJsonText(control, ours.dump());
  const char display = 14;
  SendAll(control, &display, 1);
  ReadStateByte(control, 5000);  // IPERF_DONE
  close(stream);
  close(control);
}

testing::ProcessResult RunAgainstHostile(const std::vector<std::string>& extra) {
  int port = 0;
  int listener = ListenLoopback(&port);
  std::thread server([listener] { HostileServer(listener); });
  std::vector<std::string> argv = {testing::NicbenchPath(), "run", "127.0.0.1", "-p",
                                   std::to_string(port),    "-t",  "0.5"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  testing::ProcessResult r = testing::RunProcess(argv, "", std::chrono::seconds(60));
  server.join();
  close(listener);
  return r;
}

bool HasRawControl(const std::string& text) {
  for (char c : text) {
    if (c == '\x1b' || c == '\x07' || c == '\r') return true;
  }
  return false;
}

TEST(PeerControlCharacters, RunAndHistoryEscapeThePeersWordsAndOutputOnlyWhenAsked) {
  testing::ProcessResult plain = RunAgainstHostile({});
  ASSERT_EQ(plain.exit_code, 0) << plain.out << plain.err;
  EXPECT_FALSE(HasRawControl(plain.out)) << plain.out;
  // The host name is shown, escaped.
  EXPECT_NE(plain.out.find("\\x1b]0;pwned\\x07host"), std::string::npos) << plain.out;
  EXPECT_EQ(plain.out.find("server says"), std::string::npos)
      << "the server's output was printed without --get-server-output:\n"
      << plain.out;

  testing::ProcessResult asked = RunAgainstHostile({"--get-server-output"});
  ASSERT_EQ(asked.exit_code, 0) << asked.out << asked.err;
  EXPECT_FALSE(HasRawControl(asked.out)) << asked.out;
  EXPECT_NE(asked.out.find("server says \\x1b]0;owned\\x07\\x1b[31mred\\x0d"), std::string::npos)
      << asked.out;

  testing::ProcessResult history = testing::RunNicbench({"history"});
  ASSERT_EQ(history.exit_code, 0) << history.err;
  EXPECT_FALSE(HasRawControl(history.out)) << history.out;
  EXPECT_NE(history.out.find("\\x1b]0;pwned"), std::string::npos) << history.out;
}

}  // namespace
}  // namespace nicbench::regress
