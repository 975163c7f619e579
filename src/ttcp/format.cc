#include "ttcp/format.h"

#include <fmt/format.h>
#include <fmt/printf.h>

namespace nicbench::ttcp {
namespace {

const char* Prefix(bool transmit) { return transmit ? "ttcp-t" : "ttcp-r"; }

// a - b with a microsecond borrow.
timeval TvSub(const timeval& a, const timeval& b) {
  timeval d{};
  d.tv_sec = a.tv_sec - b.tv_sec;
  d.tv_usec = a.tv_usec - b.tv_usec;
  if (d.tv_usec < 0) {
    d.tv_sec--;
    d.tv_usec += 1000000;
  }
  return d;
}

// Hundredths of a second in a timeval difference, each part divided separately and truncated,
// the way prusage computes both its CPU and its elapsed quantity.
long Hundredths(const timeval& a, const timeval& b) {
  return static_cast<long>((a.tv_sec - b.tv_sec) * 100 + (a.tv_usec - b.tv_usec) / 10000);
}

// "%ld.%01ld": whole seconds and the first digit of the fraction, truncated.
std::string Tenths(const timeval& a, const timeval& b) {
  timeval d = TvSub(a, b);
  return fmt::format("{}.{}", static_cast<long>(d.tv_sec), static_cast<long>(d.tv_usec / 100000));
}

// One %-directive of the prusage template. `cpu` and `elapsed` are in hundredths of a second.
std::string Directive(char c, const rusage& r0, const rusage& r1, long cpu, long elapsed) {
  switch (c) {
    case 'U': return Tenths(r1.ru_utime, r0.ru_utime);
    case 'S': return Tenths(r1.ru_stime, r0.ru_stime);
    case 'E': return Psecs(elapsed / 100);
    case 'P': return fmt::format("{}%", static_cast<int>(cpu * 100 / (elapsed ? elapsed : 1)));
    case 'X': return fmt::format("{}", cpu == 0 ? 0 : (r1.ru_ixrss - r0.ru_ixrss) / cpu);
    case 'D':
      return fmt::format(
          "{}", cpu == 0 ? 0 : ((r1.ru_idrss + r1.ru_isrss) - (r0.ru_idrss + r0.ru_isrss)) / cpu);
    // Historical page-to-KB conversion; Linux already reports KB, so this prints half.
    case 'M': return fmt::format("{}", r1.ru_maxrss / 2);
    case 'F': return fmt::format("{}", r1.ru_majflt - r0.ru_majflt);
    case 'R': return fmt::format("{}", r1.ru_minflt - r0.ru_minflt);
    case 'C': return fmt::format("{}+{}", r1.ru_nvcsw - r0.ru_nvcsw, r1.ru_nivcsw - r0.ru_nivcsw);
    default: return std::string();
  }
}

}  // namespace

std::string OutFmt(double b, char format) {
  constexpr double kKi = 1024.0;
  switch (format) {
    case 'k': return fmt::sprintf("%.2f Kbit", b * 8.0 / kKi);
    case 'm': return fmt::sprintf("%.2f Mbit", b * 8.0 / kKi / kKi);
    case 'M': return fmt::sprintf("%.2f MB", b / kKi / kKi);
    case 'g': return fmt::sprintf("%.2f Gbit", b * 8.0 / kKi / kKi / kKi);
    case 'G': return fmt::sprintf("%.2f GB", b / kKi / kKi / kKi);
    case 'K':
    default: return fmt::sprintf("%.2f KB", b / kKi);
  }
}

std::string Psecs(long seconds) {
  long hours = seconds / 3600;
  long rest = seconds % 3600;
  std::string out =
      hours ? fmt::format("{}:{:02}", hours, rest / 60) : fmt::format("{}", rest / 60);
  return out + fmt::format(":{:02}", rest % 60);
}

std::string Prusage(const rusage& r0, const rusage& r1, const timeval& end, const timeval& begin) {
  long cpu = Hundredths(r1.ru_utime, r0.ru_utime) + Hundredths(r1.ru_stime, r0.ru_stime);
  long elapsed = Hundredths(end, begin);
  static constexpr std::string_view kTemplate =
      "%Uuser %Ssys %Ereal %P %Xi+%Dd %Mmaxrss %F+%Rpf %Ccsw";
  std::string out;
  for (size_t i = 0; i < kTemplate.size(); ++i) {
    if (kTemplate[i] != '%') {
      out += kTemplate[i];
    } else if (i + 1 < kTemplate.size()) {
      out += Directive(kTemplate[++i], r0, r1, cpu, elapsed);
    }
  }
  return out;
}

double RealSeconds(const timeval& end, const timeval& begin) {
  timeval d = TvSub(end, begin);
  return static_cast<double>(d.tv_sec) + static_cast<double>(d.tv_usec) / 1000000.0;
}

double CpuSeconds(const rusage& r0, const rusage& r1) {
  double before = RealSeconds(r0.ru_utime, timeval{}) + RealSeconds(r0.ru_stime, timeval{});
  double after = RealSeconds(r1.ru_utime, timeval{}) + RealSeconds(r1.ru_stime, timeval{});
  double cpu = after - before;
  return cpu < 0.00001 ? 0.00001 : cpu;
}

std::string HeaderLine(const TtcpOptions& o) {
  std::string line = fmt::format("{}: buflen={}, nbuf={}, align={}/{}, port={}", Prefix(o.transmit),
                                 o.buflen, o.nbuf, o.align, o.offset, o.port);
  if (o.sockbufsize) line += fmt::format(", sockbufsize={}", o.sockbufsize);
  const char* proto = o.udp ? "udp" : "tcp";
  if (o.transmit) return line + fmt::format("  {}  -> {}\n", proto, o.host);
  return line + fmt::format("  {}\n", proto);
}

double MsecPerCall(double real_seconds, int64_t num_calls) {
  return 1024.0 * real_seconds / static_cast<double>(num_calls);
}

std::string StatsLines(const StatsInput& in) {
  const char* p = Prefix(in.transmit);
  double cput = in.cpu_seconds <= 0.0 ? 0.001 : in.cpu_seconds;
  double realt = in.real_seconds <= 0.0 ? 0.001 : in.real_seconds;
  std::string out = fmt::sprintf("%s: %.0f bytes in %.2f real seconds = %s/sec +++\n", p, in.nbytes,
                                 realt, OutFmt(in.nbytes / realt, in.rate_format));
  if (in.verbose) {
    out += fmt::sprintf("%s: %.0f bytes in %.2f CPU seconds = %s/cpu sec\n", p, in.nbytes, cput,
                        OutFmt(in.nbytes / cput, in.rate_format));
  }
  out += fmt::sprintf("%s: %d I/O calls, msec/call = %.2f, calls/sec = %.2f\n", p, in.num_calls,
                      MsecPerCall(realt, in.num_calls), static_cast<double>(in.num_calls) / realt);
  out += fmt::sprintf("%s: %s\n", p, in.rusage_text);
  if (in.verbose) {
    out +=
        fmt::sprintf("%s: buffer address %#lx\n", p, static_cast<unsigned long>(in.buffer_address));
  }
  return out;
}

}  // namespace nicbench::ttcp
