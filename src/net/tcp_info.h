// TCP_INFO reader: the kernel's per-socket TCP state (struct tcp_info, <linux/tcp.h>) as a
// record::TcpInfoSample. Fields the running kernel does not provide (it returns a shorter
// struct) stay 0 and are flagged absent in TcpInfoFields, so callers can report them as
// unknown rather than zero. Free functions; thread-safe.
#pragma once

#include <cstddef>

#include "base/result.h"
#include "record/run_record.h"

namespace nicbench::net {

// Which of the later additions to struct tcp_info the kernel filled in.
struct TcpInfoFields {
  bool pacing_rate = false;    // kernel >= 3.15
  bool delivery_rate = false;  // kernel >= 4.9
  bool busy_time = false;      // busy/rwnd_limited/sndbuf_limited, kernel >= 4.10
  bool snd_wnd = false;        // kernel >= 6.2
  bool reordering = false;     // reord_seen and dsack_dups, kernel >= 4.19
};

// getsockopt(fd, IPPROTO_TCP, TCP_INFO). `present` may be null.
Result<record::TcpInfoSample> ReadTcpInfo(int fd, TcpInfoFields* present = nullptr);

// Decodes the first `length` bytes of a struct tcp_info as the kernel returned them; only
// fields wholly inside `length` are read. Exposed for tests of short (older-kernel) structs.
record::TcpInfoSample DecodeTcpInfo(const void* data, size_t length,
                                    TcpInfoFields* present = nullptr);

}  // namespace nicbench::net
