#include "net/tcp_info.h"

#include <linux/tcp.h>

#include <chrono>
#include <cstddef>
#include <cstring>

#include <gtest/gtest.h>

#include "net/socket.h"

namespace nicbench::net {
namespace {

TEST(TcpInfoTest, ReadsALiveConnection) {
  auto listener = Listen(*SocketAddress::FromNumeric("127.0.0.1", 0), 1, SocketOptions{});
  ASSERT_TRUE(listener);
  auto client = Connect(*SocketAddress::Local(listener->get()), "", 0, SocketOptions{},
                        std::chrono::milliseconds(2000));
  ASSERT_TRUE(client);
  TcpInfoFields present;
  auto info = ReadTcpInfo(client->get(), &present);
  ASSERT_TRUE(info) << info.error().ToString();
  EXPECT_GT(info->snd_mss, 0u);
  EXPECT_GT(info->pmtu, 0u);  // 65536 on loopback
  EXPECT_GT(info->snd_cwnd, 0u);
  EXPECT_TRUE(present.pacing_rate);  // every kernel this builds on has these
  EXPECT_TRUE(present.delivery_rate);
}

TEST(TcpInfoTest, FailsOnANonTcpSocket) {
  auto udp = OpenUdp(AF_INET, SocketOptions{});
  ASSERT_TRUE(udp);
  auto info = ReadTcpInfo(udp->get());
  ASSERT_FALSE(info);
  EXPECT_NE(info.error().message.find("TCP_INFO"), std::string::npos);
}

TEST(TcpInfoTest, ShortStructLeavesLaterFieldsAbsent) {
  tcp_info raw{};
  raw.tcpi_snd_mss = 1448;
  raw.tcpi_rtt = 250;
  raw.tcpi_total_retrans = 7;
  raw.tcpi_pacing_rate = 123;
  raw.tcpi_delivery_rate = 456;
  raw.tcpi_busy_time = 9;
  // What a 3.x kernel returns: up to and including tcpi_total_retrans.
  const size_t old_length = offsetof(tcp_info, tcpi_total_retrans) + sizeof(raw.tcpi_total_retrans);
  TcpInfoFields present;
  auto s = DecodeTcpInfo(&raw, old_length, &present);
  EXPECT_EQ(s.snd_mss, 1448u);
  EXPECT_EQ(s.rtt_us, 250u);
  EXPECT_EQ(s.total_retrans, 7u);
  EXPECT_FALSE(present.pacing_rate);
  EXPECT_EQ(s.pacing_rate_bytes_per_second, 0u);
  EXPECT_FALSE(present.busy_time);

  // Up to delivery_rate (4.9): that is present, busy_time (4.10) is not.
  const size_t v49 = offsetof(tcp_info, tcpi_delivery_rate) + sizeof(raw.tcpi_delivery_rate);
  s = DecodeTcpInfo(&raw, v49, &present);
  EXPECT_TRUE(present.pacing_rate);
  EXPECT_TRUE(present.delivery_rate);
  EXPECT_EQ(s.delivery_rate_bytes_per_second, 456u);
  EXPECT_FALSE(present.busy_time);
  EXPECT_EQ(s.busy_time_us, 0u);

  s = DecodeTcpInfo(&raw, sizeof(raw), &present);
  EXPECT_TRUE(present.busy_time);
  EXPECT_EQ(s.busy_time_us, 9u);
}

TEST(TcpInfoTest, ReorderingAndDsackCountsFrom419On) {
  tcp_info raw{};
  raw.tcpi_reordering = 300;
  raw.tcpi_reord_seen = 12;
  raw.tcpi_dsack_dups = 345;
  // 4.18 stopped before tcpi_delivered; 4.19 added tcpi_dsack_dups and tcpi_reord_seen.
  const size_t v418 = offsetof(tcp_info, tcpi_dsack_dups);
  TcpInfoFields present;
  auto s = DecodeTcpInfo(&raw, v418, &present);
  EXPECT_FALSE(present.reordering);
  EXPECT_EQ(s.dsack_dups, 0u);
  EXPECT_EQ(s.reordering, 300u);  // in every kernel
  const size_t v419 = offsetof(tcp_info, tcpi_reord_seen) + sizeof(raw.tcpi_reord_seen);
  s = DecodeTcpInfo(&raw, v419, &present);
  EXPECT_TRUE(present.reordering);
  EXPECT_EQ(s.dsack_dups, 345u);
  EXPECT_EQ(s.reord_seen, 12u);
}

}  // namespace
}  // namespace nicbench::net
