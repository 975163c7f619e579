// The option tables of `run`, `serve`, `monitor` and `stand` (cli/option_rows.h says what a row
// holds) and the argument structs their rows bind to. Every table is in option_tables.cc, in
// the order --help lists its options; a command declares its own table and the shared groups'
// (iperf3's drop-in options, -F, the store, the outputs, --rr, --under-load, authentication).
// The other commands' tables are cli/option_tables_tools.h's and cli/option_tables_fleet.h's.
// Internal to the cli layer; the tables are constant.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cli/auth_options.h"
#include "cli/file_options.h"
#include "cli/iperf3_options.h"
#include "cli/option_rows.h"
#include "cli/output_options.h"
#include "cli/rr_options.h"
#include "cli/store_options.h"
#include "cli/under_load_options.h"
#include "engine/client.h"
#include "engine/server.h"
#include "job/monitor.h"

namespace nicbench::cli {

// `nicbench run`: what argv asked for, before the validation pass turns it into values.
struct RunArgs {
  std::string host, port = "5201", time, bytes, blocks, interval, omit, rate, length, window, mss,
                    congestion, zerocopy, bind, cport, title, connect_timeout, threads, parallel,
                    tos, rcv_timeout, remote_facts;
  bool reverse = false, bidir = false, udp = false, nodelay = false, sendfile = false,
       skip_rx_copy = false, ipv4 = false, ipv6 = false, server_output = false, counters64 = false,
       repeating = false, json = false, loopback = false, no_samples = false,
       both_directions = false, udp_offload = false;
  StoreArgs store;
  OutputArgs output;
  Iperf3RunArgs drop_in;     // iperf3's options, cli/iperf3_options.h
  FileArgs file;             // -F, --direct (cli/file_options.h)
  RrArgs rr;                 // --rr, --crr, cli/rr_options.h
  RunAuthArgs auth;          // --username, cli/auth_options.h
  UnderLoadArgs under_load;  // --under-load, cli/under_load_options.h
};

// `nicbench serve`.
struct ServeArgs {
  std::string port = "5201", bind, idle_timeout, max_tests, max_duration, max_rate, max_streams,
              max_rr_flows, max_block, pidfile, threads, max_memory, rcv_timeout, max_per_address,
              max_per_hour;
  // Given or not, it is parsed: an empty value is refused, not taken for the default.
  std::string max_connection_rate = std::to_string(engine::kDefaultMaxConnectionsPerSecond);
  bool once = false, daemon = false, json = false;
  Iperf3ServeArgs drop_in;  // iperf3's options, cli/iperf3_options.h
  FileArgs file;            // -F, --direct (cli/file_options.h)
  ServeAuthArgs auth;       // authentication, --allow/--deny (cli/auth_options.h)
  int cpu = -1;             // -A
};

// `nicbench monitor`.
struct MonitorArgs {
  std::string peer, port = "5201", every = "10m", test = "-t 5 --both-directions",
                    sample_interval = "1s", probe_window = "10s", probe_rate = "10", baseline,
                    baseline_tests = "3", saturated_for = "10s", saturated_percent = "90",
                    degraded_percent = "10", events, metrics_listen, record, replay, iface, id,
                    lock_dir, log;
  bool json = false;
  StoreArgs store;
};

// `nicbench stand up|down|exec`, as typed; stand_command.cc's ToSpec turns them into a StandSpec.
struct StandArgs {
  std::string name = "nb", hosts = "2", profile = "1000baseT", mtu = "1500";
  std::string tso, gso, gro, checksum;  // empty = leave the kernel default
  std::string delay_ms, queue_limit, bottleneck, queue, queue_limit_on;
  bool force = false;                // down --force
  std::string host;                  // exec HOST
  std::vector<std::string> command;  // exec -- CMD...
};

using RunRow = OptionRow<RunArgs, engine::ClientConfig>;
using ServeRow = OptionRow<ServeArgs, engine::ServerConfig>;
using MonitorRow = OptionRow<MonitorArgs, job::MonitorSpec>;
using StandRow = OptionRow<StandArgs>;

std::span<const RunRow> RunRows();
std::span<const ServeRow> ServeRows();
std::span<const MonitorRow> MonitorRows();
std::span<const StandRow> StandUpRows();
std::span<const StandRow> StandDownRows();
std::span<const StandRow> StandExecRows();

std::span<const OptionRow<Iperf3RunArgs, engine::ClientConfig>> Iperf3RunRows();
std::span<const OptionRow<Iperf3ServeArgs>> Iperf3ServeRows();
std::span<const OptionRow<RrArgs, record::TestSpec>> RrRows();
std::span<const OptionRow<FileArgs>> FileRows();
std::span<const OptionRow<OutputArgs>> OutputRows();
// --store first: a command that only reads the store declares that row alone.
std::span<const OptionRow<StoreArgs>> StoreRows();
std::span<const OptionRow<UnderLoadArgs>> UnderLoadRows();
std::span<const OptionRow<RunAuthArgs>> RunAuthRows();
std::span<const OptionRow<ServeAuthArgs>> ServeAuthRows();

// Every row of a command's App, in the order it declares them: "run", "serve", "monitor",
// "stand up", "stand down", "stand exec", and those of cli/option_tables_tools.h ("collect",
// "compare", "disk", "history", "show", "inspect", "matrix", "report") and of
// cli/option_tables_fleet.h ("agent", "mesh", "mesh create", ..., "store migrate"); empty for
// another name.
std::vector<RowView> CommandRows(std::string_view command);

}  // namespace nicbench::cli
