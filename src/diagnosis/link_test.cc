#include "diagnosis/link.h"

#include <gtest/gtest.h>

namespace nicbench::diagnosis {
namespace {

TEST(Goodput, EthernetWireFormula) {
  // 100baseTX, MTU 1500, TCP/IPv4 with timestamps: 100 x 1448 / 1538.
  EXPECT_NEAR(
      GoodputBitsPerSecond(100000000, 1500 - kTcp4HeaderBytes, 1500 + kEthernetWireOverheadBytes),
      94148244.5, 1.0);
  // Gigabit at jumbo MTU 9000: 1000 x 8948 / 9038.
  EXPECT_NEAR(GoodputBitsPerSecond(1000000000, 8948, 9038) / 1e6, 990.04, 0.01);
}

TEST(Goodput, QdiscCountsSkbLength) {
  // tbf without overhead charges MTU + 14: 100 x 1448 / 1514.
  EXPECT_NEAR(GoodputBitsPerSecond(100000000, 1448, 1500 + kEthernetHeaderBytes) / 1e6, 95.64,
              0.01);
}

}  // namespace
}  // namespace nicbench::diagnosis
