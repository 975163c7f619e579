#include "protocol/udp_stats.h"

#include <cmath>

namespace nicbench::protocol {

void UdpReceiveStats::OnPacket(uint64_t seq, double sent_seconds, double arrival_seconds) {
  ++datagrams_;
  if (seq > highest_seq_) {
    if (seq > highest_seq_ + 1) lost_ += seq - highest_seq_ - 1;
    highest_seq_ = seq;
  } else {
    // A late or duplicated datagram. iperf3 assumes it was one of those it counted lost, and
    // both ends must agree on the figure, so count it the same way.
    ++out_of_order_;
    if (lost_ > 0) --lost_;
  }
  // RFC 1889 section 6.3.1 and A.8. The first datagram only sets the reference transit time
  // (as iperf3 does), so the offset between the two hosts' clocks never enters the jitter.
  const double transit = arrival_seconds - sent_seconds;
  if (datagrams_ > 1) {
    const double d = std::fabs(transit - prev_transit_);
    jitter_seconds_ += (d - jitter_seconds_) / 16.0;
  }
  prev_transit_ = transit;
}

}  // namespace nicbench::protocol
