// CVE-2023-38403 class: a parameter length of 0xFFFFFFFF is refused before anything is
// allocated; the connection is closed and the server keeps serving.
#include "regress/server_test_util.h"

namespace nicbench::regress {
namespace {

TEST(ServerHugeJsonLength, RefusedAndServerKeepsServing) {
  ServeChild server = StartServe();
  for (int round = 0; round < 3; ++round) {
    int fd = ConnectRaw(server.port);
    ASSERT_GE(fd, 0);
    std::string cookie(kCookie, 36);
    cookie[0] = static_cast<char>('a' + round);
    cookie.push_back('\0');
    ASSERT_TRUE(SendAll(fd, cookie.data(), cookie.size()));
    char state = 0;
    ASSERT_EQ(recv(fd, &state, 1, MSG_WAITALL), 1);
    EXPECT_EQ(state, 9);  // PARAM_EXCHANGE
    const unsigned char huge[4] = {0xFF, 0xFF, 0xFF, 0xFF};
    ASSERT_TRUE(SendAll(fd, huge, sizeof huge));
    EXPECT_TRUE(ServerCloses(fd));
    close(fd);
    auto doc = NormalTest(server.port);
    EXPECT_EQ(SumBytes(doc, "sum_received"), 1048576u);
  }
}

}  // namespace
}  // namespace nicbench::regress
