// The iperf3 options that scripts pass and that `nicbench run` and `nicbench serve` take with
// iperf3's meaning (docs/engine.md, "Options iperf3 users pass"), kept beside the commands so
// their own option lists stay short: the declarations (Add*, from the rows in
// option_tables.cc), the step from text to values (Apply*, after the rows' own parsers), the
// text output's -T prefix, -V and -d lines, and the rules iperf3's getopt has (a repeated option
// takes its last value). Only cli/ includes this. Not thread-safe (argv time only).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>

#include "base/result.h"
#include "engine/client.h"
#include "engine/server.h"
#include "record/test_spec.h"

namespace nicbench::cli {

// What argv asked for, as text, before Apply turns it into values.
struct Iperf3RunArgs {
  std::string fq_rate, pacing_timer, affinity, format, logfile, dscp, bind_dev, flowlabel,
      extra_data, cntl_ka, snd_timeout;
  bool verbose = false, debug = false, dont_fragment = false, mptcp = false, sctp = false;
  CLI::Option* cntl_ka_option = nullptr;  // --cntl-ka may come without a value
  uint32_t burst = 0;                     // from -b RATE/BURST (SplitBurst)
};

struct Iperf3ServeArgs {
  std::string bitrate_limit, logfile, affinity;
  bool sctp = false, verbose = false, debug = false;
};

// The text a run prints: -T's prefix on every line, -V's and -d's extra lines.
class TextOutput {
 public:
  TextOutput() = default;
  // `timestamps`: a strftime format (--timestamps), empty = none.
  TextOutput(const std::string& title, bool verbose, bool debug, std::string timestamps = {});
  // Writes `text` to stdout and flushes (interval lines show as they happen, piped or not), each
  // line prefixed with the time when --timestamps was given, then "TITLE:  " when -T was.
  void Print(const std::string& text) const;
  bool verbose() const { return verbose_; }
  bool debug() const { return debug_; }

 private:
  std::string prefix_, timestamps_;
  bool verbose_ = false, debug_ = false;
};

void AddIperf3RunOptions(CLI::App& app, Iperf3RunArgs& args);
void AddIperf3ServeOptions(CLI::App& app, Iperf3ServeArgs& args);

// As iperf3's getopt: every option that takes a value keeps the last one when repeated
// (`-t 5 -t 1` runs 1 s); options meant to repeat (--label) keep every value. Call after every
// option is added, before parsing.
void RepeatsTakeTheLast(CLI::App& app);

// -b RATE/BURST: takes "/BURST" off `rate` into args.burst (iperf3's blocks per pacing check,
// 1..1000).
Status SplitBurst(std::string& rate, Iperf3RunArgs& args);

// A positional HOST and -c HOST together are an error (iperf3 has only -c).
Status CheckHostGivenOnce(const CLI::App& app);

// After the parse, before the plan: --logfile's redirection, the one-host rule and -b's burst.
Status PrepareIperf3Run(const CLI::App& app, std::string& rate, Iperf3RunArgs& args);

// After the plan, before the test: -A's pinning and -d's lines on stderr.
Status StartIperf3Run(int client_cpu, const TextOutput& out, const record::TestSpec& spec);

// The values of the drop-in options into the spec and the client's config. -A's client CPU
// comes back in `client_cpu` (-1 = none) for PinClient.
Status ApplyIperf3RunArgs(const Iperf3RunArgs& args, record::TestSpec& spec,
                          engine::ClientConfig& client, int* client_cpu);
Status ApplyIperf3ServeArgs(const Iperf3ServeArgs& args, engine::ServerConfig& config,
                            int* server_cpu);

// -A N: the whole process (and every thread it starts later) on CPU N, as iperf3 -A does.
Status PinProcess(int cpu);

// --logfile FILE: stdout and stderr appended to FILE from here on, as iperf3 does.
Status RedirectToLogfile(const std::string& path);

}  // namespace nicbench::cli
