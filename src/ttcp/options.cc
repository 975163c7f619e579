#include "ttcp/options.h"

#include <getopt.h>

#include <climits>
#include <cstdlib>
#include <string_view>

#include <fmt/format.h>

#include "base/units.h"

namespace nicbench::ttcp {
namespace {

// The original's getopt string, plus -4/-6 (Savola's IPv6 variant) and -o (ours). The leading
// ':' makes getopt report a missing argument as ':' instead of printing its own message.
constexpr char kShortOptions[] = ":drstuvBDTb:f:l:n:p:A:O:46o";
constexpr int kIdleTimeoutOption = 256;
constexpr int kNicNoteOption = 257;

constexpr option kLongOptions[] = {
    {"stats-stdout", no_argument, nullptr, 'o'},
    {"idle-timeout", required_argument, nullptr, kIdleTimeoutOption},
    {"nic-note", no_argument, nullptr, kNicNoteOption},
    {nullptr, 0, nullptr, 0},
};

constexpr char kUsage[] =
    "Usage: ttcp -t [-options] host [ < in ]\n"
    "       ttcp -r [-options > out]\n"
    "Common options:\n"
    "\t-l ##\tlength of bufs read from or written to network (default 8192)\n"
    "\t-u\tuse UDP instead of TCP\n"
    "\t-p ##\tport number to send to or listen at (default 5001)\n"
    "\t-s\t-t: source a pattern to network\n"
    "\t\t-r: sink (discard) all data from network\n"
    "\t-A\talign the start of buffers to this modulus (default 16384)\n"
    "\t-O\tstart buffers at this offset from the modulus (default 0)\n"
    "\t-v\tverbose: print more statistics\n"
    "\t-d\tset SO_DEBUG socket option\n"
    "\t-b ##\tset socket buffer size (if supported)\n"
    "\t-f X\tformat for rate: k,K = kilo{bit,byte}; m,M = mega; g,G = giga\n"
    "\t-4\tuse IPv4\n"
    "\t-6\tuse IPv6\n"
    "Options specific to -t:\n"
    "\t-n##\tnumber of source bufs written to network (default 2048)\n"
    "\t-D\tdon't buffer TCP writes (sets TCP_NODELAY socket option)\n"
    "Options specific to -r:\n"
    "\t-B\tfor -s, only output full blocks as specified by -l (for TAR)\n"
    "\t-T\t\"touch\": access each byte as it's read\n"
    "Options added by nicbench:\n"
    "\t-o, --stats-stdout\tprint statistics on stdout (as SGI did) instead of stderr\n"
    "\t--idle-timeout ##\t-r -u: end after ## seconds without a datagram (default: wait)\n"
    "\t--nic-note\tafter the statistics, one stderr line: the link and NIC, and what the rate\n"
    "\t\t\tsays about them\n";

// An integer option value in [min, max]. The original used atoi, which turned "-5", "12x" or
// "abc" into silent garbage; we refuse them with one line naming the option.
tl::expected<int, ArgError> ParseInt(char option_letter, const char* text, int min, int max) {
  std::string_view view(text);
  auto value = ParseUnsigned(view);
  if (!value || *value < static_cast<uint64_t>(min) || *value > static_cast<uint64_t>(max)) {
    return tl::unexpected(
        ArgError{fmt::format("ttcp: bad value for -{}: '{}' (want an integer {}..{})",
                             option_letter, view, min, max),
                 false});
  }
  return static_cast<int>(*value);
}

tl::expected<double, ArgError> ParseIdleTimeout(const char* text) {
  auto value = ParseSeconds(text);
  if (!value || *value <= 0.0 || *value > 86400.0 * 365) {
    return tl::unexpected(ArgError{
        fmt::format("ttcp: bad value for --idle-timeout: '{}' (want seconds > 0)", text), false});
  }
  return *value;
}

// Applies one integer-valued option; returns an error for a bad value.
tl::expected<void, ArgError> SetNumber(int opt, const char* arg, TtcpOptions& o) {
  tl::expected<int, ArgError> v;
  switch (opt) {
    case 'l':
      v = ParseInt('l', arg, 1, INT_MAX);
      if (v) o.buflen = *v;
      break;
    case 'n':
      v = ParseInt('n', arg, 0, INT_MAX);
      if (v) o.nbuf = *v;
      break;
    case 'p':
      v = ParseInt('p', arg, 1, 65535);
      if (v) o.port = *v;
      break;
    // Bounded so that buflen + align cannot overflow the allocation size arithmetic.
    case 'A':
      v = ParseInt('A', arg, 0, 1 << 30);
      if (v) o.align = *v;
      break;
    case 'O':
      v = ParseInt('O', arg, 0, INT_MAX);
      if (v) o.offset = *v;
      break;
    case 'b':
      v = ParseInt('b', arg, 0, INT_MAX);
      if (v) o.sockbufsize = *v;
      break;
    default: break;
  }
  if (!v) return tl::unexpected(v.error());
  return {};
}

ArgError UsageError(std::string message) { return ArgError{std::move(message), true}; }

// Mirrors glibc's own wording for the two getopt failures, then the usage text follows.
ArgError GetoptFailure(int opt, char** argv) {
  std::string_view bad = argv[optind - 1] ? argv[optind - 1] : "";
  if (opt == ':') {
    if (optopt == 0 || optopt == kIdleTimeoutOption) {
      return UsageError(fmt::format("ttcp: option '{}' requires an argument", bad));
    }
    return UsageError(
        fmt::format("ttcp: option requires an argument -- '{}'", static_cast<char>(optopt)));
  }
  if (optopt == 0) return UsageError(fmt::format("ttcp: unrecognized option '{}'", bad));
  return UsageError(fmt::format("ttcp: invalid option -- '{}'", static_cast<char>(optopt)));
}

}  // namespace

const char* UsageText() { return kUsage; }

tl::expected<TtcpOptions, ArgError> ParseTtcpArgs(int argc, char** argv) {
  if (argc < 2) return tl::unexpected(UsageError(""));
  TtcpOptions o;
  optind = 0;  // glibc: 0 re-initialises getopt completely, so repeated calls start afresh
  opterr = 0;  // failures are reported by us, as one value
  int opt;
  while ((opt = getopt_long(argc, argv, kShortOptions, kLongOptions, nullptr)) != -1) {
    switch (opt) {
      case 't': o.transmit = true; break;
      case 'r': o.transmit = false; break;
      case 'd': o.so_debug = true; break;
      case 'D': o.nodelay = true; break;
      case 'B': o.full_blocks = true; break;
      case 'T': o.touch = true; break;
      case 's': o.sink_mode = !o.sink_mode; break;
      case 'u': o.udp = true; break;
      case 'v': o.verbose = true; break;
      case 'f': o.rate_format = optarg[0]; break;
      case '4': o.family = Family::kInet; break;
      case '6': o.family = Family::kInet6; break;
      case 'o': o.stats_to_stdout = true; break;
      case kNicNoteOption: o.nic_note = true; break;
      case kIdleTimeoutOption: {
        auto seconds = ParseIdleTimeout(optarg);
        if (!seconds) return tl::unexpected(seconds.error());
        o.idle_timeout_seconds = *seconds;
        break;
      }
      case 'l':
      case 'n':
      case 'p':
      case 'A':
      case 'O':
      case 'b': {
        auto set = SetNumber(opt, optarg, o);
        if (!set) return tl::unexpected(set.error());
        break;
      }
      default: return tl::unexpected(GetoptFailure(opt, argv));
    }
  }
  if (o.transmit) {
    if (optind == argc) return tl::unexpected(UsageError(""));
    o.host = argv[optind];
  }
  // UDP data datagrams must be longer than the 4-byte sentinels.
  if (o.udp && o.buflen < 5) o.buflen = 5;
  return o;
}

}  // namespace nicbench::ttcp
