// Bug: the server wrote TEST_START and TEST_RUNNING on a control socket without TCP_NODELAY, so
// Nagle held TEST_RUNNING until the client's delayed ACK of TEST_START (40 ms). The server's
// clock had started, the client's had not: in a 2 s loopback test without omit the two ends'
// byte counts differed by 1.5-2%. With TCP_NODELAY on the server's control socket they agree
// within 0.2% (what is left is the data in the socket buffers at the two ends of the window).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "server_test_util.h"

namespace nicbench::regress {
namespace {

// Well above what the buffers leave (0.2%), well below what a 40 ms offset makes of 2 s (2%).
constexpr double kAgreement = 0.01;

double Disagreement(const nlohmann::json& doc) {
  const double sent = static_cast<double>(SumBytes(doc, "sum_sent"));
  const double received = static_cast<double>(SumBytes(doc, "sum_received"));
  return std::fabs(received - sent) / sent;
}

// The Nagle delay offset the two ends' windows every time; a busy host's scheduling offsets them
// now and then (up to 16% in one -R run at load 10). So each direction gets a few tries: the bug
// fails all of them, a busy host's noise not.
constexpr int kTries = 5;

TEST(TimedTestEndsAgree, ForwardAndReverseByteCountsMatchWithoutOmit) {
  ServeChild serve = StartServe();
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"-t", "2"}, std::vector<std::string>{"-t", "2", "-R"}}) {
    double best = 1.0;
    for (int i = 0; i < kTries && best >= kAgreement; ++i) {
      nlohmann::json doc = NormalTest(serve.port, args);
      ASSERT_TRUE(doc.contains("end")) << doc.dump();
      const double d = Disagreement(doc);
      std::printf("%s try %d: sent %lld received %lld (%.2f%%)\n", args.back().c_str(), i + 1,
                  static_cast<long long>(SumBytes(doc, "sum_sent")),
                  static_cast<long long>(SumBytes(doc, "sum_received")), 100 * d);
      best = std::min(best, d);
    }
    EXPECT_LT(best, kAgreement) << args.back() << ": the ends disagreed in every try";
  }
}

}  // namespace
}  // namespace nicbench::regress
