// What every subcommand shares (cli_support: parse_cli), through the real binary: --help exits 0,
// a missing argument exits 2.
#include <catch2/catch.hpp>

#include <string>

#include "tests/scenarios/command_runner.hpp"

using scenarios_test::run_commsim;

TEST_CASE("scenarios: every subcommand of this folder answers --help", "[scenarios]") {
  for (const char* cmd : {"run", "compare", "sweep"}) {
    const auto r = run_commsim({cmd, "--help"});
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("--set") != std::string::npos);
  }
  const auto bad = run_commsim({"run"});
  CHECK(bad.exit_code == 2);
}
