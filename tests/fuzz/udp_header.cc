// UDP data datagrams as a receiver takes them (protocol/wire.h, protocol/udp_stats.h): the input
// is a run of datagrams, each a length byte and that many bytes, so the header decoder sees every
// length, and the loss/reordering/jitter accounting sees any sequence of numbers and clocks a
// sender can put in the headers. Also the 4-byte UDP "connect" reply a client checks.
#include "fuzz_input.h"
#include "protocol/udp_stats.h"
#include "protocol/wire.h"

namespace wire = nicbench::protocol;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  (void)wire::IsAcceptedUdpReply(data, size < 8 ? size : 8);
  const bool counters64 = data[0] & 1;
  wire::UdpReceiveStats stats;
  uint64_t handed = 0;
  for (size_t off = 1; off < size;) {
    const size_t len = data[off++];
    const size_t take = len < size - off ? len : size - off;
    auto header = wire::DecodeUdpHeader(data + off, take, counters64);
    off += take;
    if (!header) {
      NICBENCH_FUZZ_CHECK(take < wire::UdpHeaderBytes(counters64));
      continue;
    }
    // The arrival clock is the sender's, shifted: the transit times vary only with the headers.
    const double sent = header->sec + header->usec / 1e6;
    stats.OnPacket(header->seq, sent, sent + 0.001 * static_cast<double>(handed % 7));
    ++handed;
    uint8_t encoded[16];
    wire::EncodeUdpHeader(*header, counters64, encoded);
    auto again = wire::DecodeUdpHeader(encoded, sizeof encoded, counters64);
    NICBENCH_FUZZ_CHECK(again && again->seq == header->seq && again->sec == header->sec);
  }
  NICBENCH_FUZZ_CHECK(stats.datagrams() == handed);
  NICBENCH_FUZZ_CHECK(stats.lost() <= stats.packets());
  return 0;
}
