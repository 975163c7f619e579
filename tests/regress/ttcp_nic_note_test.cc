// Bug: `nicbench ttcp`, chosen for its simplicity, said nothing about the link or the NIC it
// ran over, so its rate could not be read against anything. With --nic-note it adds one stderr
// line after its classic lines (unchanged) with the interface's facts and what the rate says;
// without the flag its output is the original's.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/run_binary.h"
#include "support/text.h"
#include "support/wait.h"

namespace nicbench::regress {
namespace {

using testing::Lines;

testing::ProcessResult Transmit(bool note) {
  const std::string port = std::to_string(testing::FreeTcpPort());
  testing::BackgroundProcess receiver({testing::NicbenchPath(), "ttcp", "-r", "-s", "-p", port});
  EXPECT_TRUE(testing::WaitListening(std::stoi(port)));
  std::vector<std::string> args = {"ttcp", "-t", "-s", "-n", "256", "-p", port};
  if (note) args.push_back("--nic-note");
  args.push_back("127.0.0.1");
  testing::ProcessResult r = testing::RunNicbench(args);
  receiver.Wait();
  return r;
}

TEST(TtcpNicNote, OneNoteLineAfterTheClassicOnes) {
  testing::ProcessResult plain = Transmit(false);
  testing::ProcessResult noted = Transmit(true);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  ASSERT_EQ(noted.exit_code, 0) << noted.err;
  const std::vector<std::string> a = Lines(plain.err), b = Lines(noted.err);
  EXPECT_EQ(plain.err.find("note:"), std::string::npos) << plain.err;
  ASSERT_EQ(b.size(), a.size() + 1) << noted.err;
  // The classic lines keep their shape (the figures differ run to run, the words do not).
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].substr(0, a[i].find_first_of("0123456789")),
              b[i].substr(0, b[i].find_first_of("0123456789")))
        << i;
  }
  EXPECT_EQ(b.back().rfind("ttcp-t: note: lo (", 0), 0u) << b.back();
  EXPECT_NE(b.back().find("loopback"), std::string::npos) << b.back();
}

}  // namespace
}  // namespace nicbench::regress
