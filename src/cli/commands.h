// The subcommands of nicbench. Each takes the arguments after its own name (argv[0] is the
// command name) and returns the process exit code (base/exit_code.h). Only the cli layer knows
// argv; each command turns it into a spec value and calls the layer that does the work.
#pragma once

namespace nicbench::cli {

int RunTtcpCommand(int argc, char** argv);     // ttcp_command.cc: invoked as `ttcp`
int RunTtcpSubcommand(int argc, char** argv);  // `nicbench ttcp`: also --help, exit 0
int RunServeCommand(int argc, char** argv);    // serve_command.cc
int RunRunCommand(int argc, char** argv);      // run_command.cc
int RunInspectCommand(int argc, char** argv);  // inspect_command.cc
int RunStandCommand(int argc, char** argv);    // stand_command.cc
int RunHistoryCommand(int argc, char** argv);  // history_command.cc
int RunShowCommand(int argc, char** argv);     // history_command.cc
int RunCompareCommand(int argc, char** argv);  // compare_command.cc
int RunMatrixCommand(int argc, char** argv);   // matrix_command.cc
int RunReportCommand(int argc, char** argv);   // report_command.cc
int RunDiskCommand(int argc, char** argv);     // disk_command.cc
int RunCollectCommand(int argc, char** argv);  // collect_command.cc
int RunMonitorCommand(int argc, char** argv);  // monitor_command.cc
int RunAgentCommand(int argc, char** argv);    // agent_command.cc
int RunMeshCommand(int argc, char** argv);     // mesh_command.cc
int RunStoreCommand(int argc, char** argv);    // store_command.cc

}  // namespace nicbench::cli
