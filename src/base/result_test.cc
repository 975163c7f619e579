#include "base/result.h"

#include <cerrno>

#include <gtest/gtest.h>

namespace nicbench {
namespace {

TEST(Error, KindIsOtherUnlessSaid) {
  Status plain = Fail("bad length");
  EXPECT_EQ(plain.error().kind, ErrorKind::kOther);
  Status busy = Fail(ErrorKind::kBusy, "the server is busy");
  EXPECT_EQ(busy.error().kind, ErrorKind::kBusy);
  EXPECT_EQ(busy.error().message, "the server is busy");
}

TEST(Error, KindGivenToAnErrorKeepsItsWordsAndErrno) {
  Status refused = Fail("connect", ECONNREFUSED);
  Status connect = Fail(ErrorKind::kConnect, refused.error());
  EXPECT_EQ(connect.error().kind, ErrorKind::kConnect);
  EXPECT_EQ(connect.error().sys_errno, ECONNREFUSED);
  EXPECT_EQ(connect.error().ToString(), refused.error().ToString());
}

}  // namespace
}  // namespace nicbench
