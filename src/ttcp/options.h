// Command line of classic ttcp (SGI rev 1.12) plus the few nicbench additions, parsed into one
// TtcpOptions value. Parsing uses getopt(3)/getopt_long(3) itself, so option clustering and
// `-l8192` / `-l 8192` behave exactly as in the original. Not thread-safe: getopt keeps its
// state in globals (optind, optarg), which ParseTtcpArgs resets on every call.
#pragma once

#include <optional>
#include <string>

#include <tl/expected.hpp>

namespace nicbench::ttcp {

// Address family for -4 / -6. kAuto keeps the original's IPv4 behaviour and falls back to IPv6
// only for a host that has no IPv4 address.
enum class Family { kAuto, kInet, kInet6 };

// Every option of SGI ttcp 1.12 with its original default. Effective values: buflen is already
// raised to 5 for UDP, as the original does before it prints the header.
struct TtcpOptions {
  bool transmit = false;          // -t (else -r, the default)
  bool udp = false;               // -u
  bool sink_mode = false;         // -s toggles: source a pattern (-t) / discard data (-r)
  int buflen = 8192;              // -l: bytes per network read/write
  int nbuf = 2048;                // -n: buffers written in source mode
  int port = 5001;                // -p: 1..65535
  int align = 16384;              // -A: buffer alignment modulus, 0 = none
  int offset = 0;                 // -O: buffer offset from the modulus
  bool verbose = false;           // -v
  bool so_debug = false;          // -d
  int sockbufsize = 0;            // -b: SO_SNDBUF (-t) / SO_RCVBUF (-r); 0 = leave alone
  char rate_format = 'K';         // -f: k K m M g G; other letters print as K
  bool nodelay = false;           // -D: TCP_NODELAY on the transmitter
  bool full_blocks = false;       // -B: fill each TCP read buffer completely
  bool touch = false;             // -T: read every received byte
  Family family = Family::kAuto;  // -4 / -6
  std::string host;               // transmit mode: peer as typed
  // Additions (not in any ttcp variant):
  bool stats_to_stdout = false;  // -o / --stats-stdout: SGI's channel instead of stderr
  // --idle-timeout SECS: a UDP receiver ends after this long without a datagram (once one has
  // arrived). Unset = wait forever, as the original.
  std::optional<double> idle_timeout_seconds;
  // --nic-note: after the classic lines (unchanged), one stderr line with the link and NIC
  // facts of the interface the transfer used and what the rate says about them (cli layer).
  bool nic_note = false;
};

// Why parsing stopped. `message` (may be empty) is one line without "\n"; when show_usage is set
// the usage text follows it. Either way the original exits with status 1.
struct ArgError {
  std::string message;
  bool show_usage = false;
};

// Parses argv as ttcp does. argv[0] is the program name (used in getopt's messages). getopt may
// permute argv, hence non-const.
tl::expected<TtcpOptions, ArgError> ParseTtcpArgs(int argc, char** argv);

// The SGI 1.12 usage text (tabs as in the original) plus lines for the added options.
const char* UsageText();

}  // namespace nicbench::ttcp
