#pragma once
// Each `commsim` subcommand lives in its own file (cmd_<name>.cpp) and parses its own arguments.
// Exit codes: 0 success, 1 internal failure, 2 user error (one line FILE:LINE:COL: message),
// 3 not available in this build.
namespace scenarios {
int cmd_run(int argc, char** argv);
int cmd_compare(int argc, char** argv);
int cmd_sweep(int argc, char** argv);
int cmd_nccl_tests(int argc, char** argv);
int cmd_calibrate(int argc, char** argv);
int cmd_topo(int argc, char** argv);
int cmd_nccl_log(int argc, char** argv);
int cmd_report(int argc, char** argv);
int cmd_import(int argc, char** argv);
int cmd_params(int argc, char** argv);
}  // namespace scenarios
