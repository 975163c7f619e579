// The pure parts of finding a stand's processes: command lines and namespace links as /proc
// gives them (kernel 6.18), and the words of a message.
#include "stand/netns_processes.h"

#include <gtest/gtest.h>

namespace nicbench::stand {
namespace {

TEST(NetnsProcessesTest, CommandLineIsOneLineOfWords) {
  using namespace std::string_literals;
  EXPECT_EQ(CommandLineText("iperf3\0-s\0-p\0005201\0"s, "iperf3\n"), "iperf3 -s -p 5201");
  EXPECT_EQ(CommandLineText("sh\0-c\0echo a\nb\0"s, "sh\n"), "sh -c echo a b");
  EXPECT_EQ(CommandLineText("", "kworker/0:1\n"), "[kworker/0:1]");
}

TEST(NetnsProcessesTest, NamespaceLinkGivesTheInode) {
  EXPECT_EQ(ParseNamespaceLink("net:[4026532290]"), 4026532290u);
  EXPECT_EQ(ParseNamespaceLink("net:[]"), std::nullopt);
  EXPECT_EQ(ParseNamespaceLink("net:[12x]"), std::nullopt);
  EXPECT_EQ(ParseNamespaceLink("net:[12"), std::nullopt);
  EXPECT_EQ(ParseNamespaceLink(""), std::nullopt);
}

TEST(NetnsProcessesTest, MessageNamesPidNamespaceAndCommand) {
  EXPECT_EQ(FormatProcesses({{12, "nb-h2", 1, "iperf3 -s"}, {15, "nb-h1", 2, "sleep 9"}}),
            "pid 12 in nb-h2 (iperf3 -s), pid 15 in nb-h1 (sleep 9)");
}

}  // namespace
}  // namespace nicbench::stand
