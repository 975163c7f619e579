// CVE-2024-53580 class: parameters with wrong JSON types are type-checked and refused with
// SERVER_ERROR, never a crash; the server keeps serving.
#include "regress/server_test_util.h"

#include <arpa/inet.h>

namespace nicbench::regress {
namespace {

void SendParams(int port, const std::string& json, char cookie_first) {
  int fd = ConnectRaw(port);
  ASSERT_GE(fd, 0);
  std::string cookie(kCookie, 36);
  cookie[0] = cookie_first;
  cookie.push_back('\0');
  ASSERT_TRUE(SendAll(fd, cookie.data(), cookie.size()));
  char state = 0;
  ASSERT_EQ(recv(fd, &state, 1, MSG_WAITALL), 1);
  ASSERT_EQ(state, 9);
  uint32_t length = htonl(static_cast<uint32_t>(json.size()));
  ASSERT_TRUE(SendAll(fd, &length, 4));
  ASSERT_TRUE(SendAll(fd, json.data(), json.size()));
  unsigned char reply = 0;
  ssize_t n = recv(fd, &reply, 1, MSG_WAITALL);
  if (n == 1) {
    EXPECT_EQ(reply, 0xFE) << json;  // SERVER_ERROR (or a plain close)
  }
  EXPECT_TRUE(ServerCloses(fd));
  close(fd);
}

TEST(ServerWrongJsonTypes, RefusedAndServerKeepsServing) {
  ServeChild server = StartServe();
  const std::vector<std::string> documents = {
      R"({"tcp":true,"time":"ten","parallel":1,"len":131072})",
      R"({"tcp":true,"time":1,"parallel":[1,2],"len":131072})",
      R"({"tcp":true,"time":1,"parallel":1,"len":{"a":1}})",
      R"({"tcp":true,"time":1,"parallel":100000,"len":131072})",
      R"({"tcp":true,"time":1,"parallel":1,"len":-5})",
      R"({"udp":true,"tcp":true,"time":1})",
      R"([1,2,3])",
      R"({"tcp":true,"time":1,"nicbench":"yes"})",
      R"({"tcp":true,"title":12,"time":1})",
      R"(not json at all)",
  };
  char first = 'a';
  for (const std::string& doc : documents) {
    SendParams(server.port, doc, first++);
  }
  auto doc = NormalTest(server.port);
  EXPECT_EQ(SumBytes(doc, "sum_sent"), 1048576u);
}

}  // namespace
}  // namespace nicbench::regress
