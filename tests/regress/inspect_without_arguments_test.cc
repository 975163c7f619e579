// Bug: `nicbench inspect` without arguments printed the host and a list of interface names,
// where a new user wants the NIC the traffic leaves by. It now describes the interface of the
// default route (and still lists the others).
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_binary.h"
#include "support/text.h"

namespace nicbench::regress {
namespace {

// The default IPv4 route's interface from /proc/net/route, as the test reads it; "" if none.
using testing::DefaultRouteInterface;

TEST(InspectWithoutArguments, DescribesTheNicOfTheDefaultRoute) {
  const std::string iface = DefaultRouteInterface();
  if (iface.empty()) GTEST_SKIP() << "this machine has no default IPv4 route";
  testing::ProcessResult r = testing::RunNicbench({"inspect", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.out;
  ASSERT_TRUE(doc.contains("nic")) << r.out;
  EXPECT_EQ(doc["nic"]["interface"], iface);
  EXPECT_TRUE(doc.contains("interfaces")) << "the other interfaces are still named";
  testing::ProcessResult text = testing::RunNicbench({"inspect"});
  EXPECT_NE(text.out.find(iface), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("interfaces:"), std::string::npos) << text.out;
}

}  // namespace
}  // namespace nicbench::regress
