// UdpReceiveStats: a UDP receiver's loss, reordering and jitter accounting, counted exactly as
// iperf 3.12 counts them (spec section 8) so that both ends of a mixed nicbench/iperf3 test
// report the same numbers. Pure; one instance per receiving stream; not thread-safe (the worker
// that owns the stream updates it, the controller reads a copy).
#pragma once

#include <cstdint>

namespace nicbench::protocol {

class UdpReceiveStats {
 public:
  // One datagram: its sequence number from the header, the sender's timestamp from the header
  // and our arrival time, both in seconds of each side's monotonic clock (only differences of
  // the transit times matter, so the two clocks need not agree).
  //   seq > last+1: the gap counts as lost; seq <= last: out of order (a duplicate too), and
  //   one lost packet is taken back if any were counted. Jitter follows RFC 1889:
  //   J += (|D| - J) / 16, D the change in transit time between consecutive datagrams.
  void OnPacket(uint64_t seq, double sent_seconds, double arrival_seconds);

  // The highest sequence number seen (iperf3 reports this as the receiver's "packets").
  uint64_t packets() const { return highest_seq_; }
  uint64_t lost() const { return lost_; }
  uint64_t out_of_order() const { return out_of_order_; }
  double jitter_seconds() const { return jitter_seconds_; }
  // Datagrams actually handed to OnPacket (duplicates included).
  uint64_t datagrams() const { return datagrams_; }

 private:
  uint64_t highest_seq_ = 0;
  uint64_t lost_ = 0;
  uint64_t out_of_order_ = 0;
  uint64_t datagrams_ = 0;
  double jitter_seconds_ = 0;
  double prev_transit_ = 0;
};

}  // namespace nicbench::protocol
