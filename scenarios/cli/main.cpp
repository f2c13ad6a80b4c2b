// commsim: the command. scenarios/cli/commands.cpp dispatches to one subcommand per file
// (scenarios/cli/cmd_*.cpp).
#include "scenarios/cli/command.hpp"

int main(int argc, char** argv) { return scenarios::dispatch(argc, argv); }
