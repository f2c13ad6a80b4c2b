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

TEST_CASE("scenarios: a command-line error is one FILE:LINE:COL line, at the option or argument", "[scenarios]") {
  // As every user error is (the Python wrapper and editors read the position): the option CLI11
  // names, the argument it did not expect, else the command.
  CHECK(run_commsim({"run", "x.toml", "--bogus"}).err ==
        "--bogus:1:1: commsim run: The following argument was not expected: --bogus (see commsim run --help)\n");
  CHECK(run_commsim({"plan", "x.toml", "--top", "abc"}).err.rfind("--top:1:1: commsim plan: --top: 'abc'", 0) == 0);
  CHECK(run_commsim({"run"}).err == "commsim run:1:1: scenario is required (see commsim run --help)\n");
}

TEST_CASE("scenarios: a number option out of its range says so in a sentence", "[scenarios]") {
  // CLI11's own PositiveNumber printed its range up to DBL_MAX, 300 digits long.
  const auto step = run_commsim({"diff", "a.txt", "b.toml", "--step-time", "0"});
  CHECK(step.exit_code == 2);
  CHECK(step.err.find("--step-time: 0 is not above 0 (expected a positive number)") != std::string::npos);
  CHECK(step.err.size() < 200);
  const auto root = run_commsim({"nccl-tests", "-r", "-1"});
  CHECK(root.exit_code == 2);
  CHECK(root.err.find("--root: -1 is below 0 (expected 0 or more)") != std::string::npos);
  const auto word = run_commsim({"plan", "x.toml", "--max-gpus", "many"});
  CHECK(word.exit_code == 2);
  CHECK(word.err.find("--max-gpus: 'many' is not a whole number") != std::string::npos);
}

TEST_CASE("scenarios: a count option takes a whole number and says which it refused", "[scenarios]") {
  // CLI11 said "Could not convert" for 1e3 and "Value abc not in range 0 to 100000" for a word.
  const auto sci = run_commsim({"plan", "x.toml", "--top", "1e3"});
  CHECK(sci.exit_code == 2);
  CHECK(sci.err.find("--top: '1e3' is not a whole number") != std::string::npos);
  const auto frac = run_commsim({"nccl-tests", "x.toml", "-n", "2.5"});
  CHECK(frac.exit_code == 2);
  CHECK(frac.err.find("--iters: '2.5' is not a whole number") != std::string::npos);
  const auto word = run_commsim({"run", "x.toml", "--samples", "abc"});
  CHECK(word.exit_code == 2);
  CHECK(word.err.find("--samples: 'abc' is not a whole number") != std::string::npos);
  const auto high = run_commsim({"nccl-tests", "x.toml", "-g", "2000"});
  CHECK(high.exit_code == 2);
  CHECK(high.err.find("--ngpus: 2000 is above 1024 (expected 1 to 1024)") != std::string::npos);
  const auto huge = run_commsim({"nccl-tests", "x.toml", "-r", "99999999999999999999"});
  CHECK(huge.exit_code == 2);
  CHECK(huge.err.find("--root: 99999999999999999999 is too large") != std::string::npos);
  const auto zero = run_commsim({"sweep", "x.toml", "--vary", "a=1", "--jobs", "0"});
  CHECK(zero.exit_code == 2);
  CHECK(zero.err.find("--jobs: 0 is below 1 (expected 1 to 1024)") != std::string::npos);
}

TEST_CASE("scenarios: --seed takes a 64-bit unsigned number and refuses what would wrap or saturate", "[scenarios]") {
  // strtoull took -1 as 2^64 - 1 and 2^64 as 2^64 - 1 too: three "different" seeds, one draw.
  const auto neg = run_commsim({"run", "x.toml", "--samples", "5", "--seed=-1"});
  CHECK(neg.exit_code == 2);
  CHECK(neg.err.find("--seed: -1 is below 0 (expected 0 to 18446744073709551615)") != std::string::npos);
  const auto huge = run_commsim({"compare", "x.toml", "y.toml", "--seed", "18446744073709551616"});
  CHECK(huge.exit_code == 2);
  CHECK(huge.err.find("--seed: 18446744073709551616 is too large (expected 0 to 18446744073709551615)") !=
        std::string::npos);
  const auto word = run_commsim({"sweep", "x.toml", "--vary", "a=1", "--seed", "1e3"});
  CHECK(word.exit_code == 2);
  CHECK(word.err.find("--seed: '1e3' is not a whole number") != std::string::npos);
  // The largest seed is still a seed: the run goes on to the scenario (here missing).
  const auto top = run_commsim({"run", "no-such-file.toml", "--seed", "18446744073709551615"});
  CHECK(top.exit_code == 2);
  CHECK(top.err.find("--seed") == std::string::npos);
}
