// A long run's progress line (scenarios/cli/output/run_progress.hpp): the set-up stage, then the
// share simulated with an ETA; a terminal gets nothing for a quick run, a log gets every line.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <string>

#include "scenarios/cli/output/run_progress.hpp"

namespace {
std::string read_all_run_progress(std::FILE* f) {
  std::rewind(f);
  std::string s;
  for (int c = std::fgetc(f); c != EOF; c = std::fgetc(f)) s += static_cast<char>(c);
  return s;
}
using Clock = scenarios::RunProgressLine::Clock;
}  // namespace

TEST_CASE("scenarios: the run progress line names the set-up stage, then the share simulated", "[scenarios]") {
  std::FILE* log = std::tmpfile();
  REQUIRE(log);
  const auto t0 = Clock::now();
  scenarios::RunProgressLine line(log, /*terminal=*/false, "commsim run", t0);
  line.report("building the world", -1);
  CHECK(line.text(t0 + std::chrono::milliseconds(1500)) == "commsim run: 1.5 s, done building the world");
  line.report({}, 0.25);
  // A quarter simulated: 3 quarters remain at the rate so far, so the ETA is 3 x the time spent.
  const std::string quarter = line.text(Clock::now() + std::chrono::seconds(2));
  CHECK(quarter.rfind("commsim run: 25 % of the step simulated, ", 0) == 0);
  CHECK(quarter.find(", ETA 6.0 s") != std::string::npos);
  line.report({}, 1.0);
  CHECK(line.text(Clock::now()).find("ETA") == std::string::npos);  // nothing left
  // A second simulation of the same run (the fraction goes back) is numbered.
  line.report({}, 0.5);
  CHECK(line.text(Clock::now()).find("50 % of the step simulated (simulation 2)") != std::string::npos);
  line.finish();
  // A log file: the first report at once (later ones at most once a second), and a last line.
  const std::string out = read_all_run_progress(log);
  CHECK(out.rfind("commsim run: ", 0) == 0);
  CHECK(out.find("done building the world\n") != std::string::npos);
  CHECK(out.find('\r') == std::string::npos);
  CHECK(out.find("commsim run: done in ") != std::string::npos);
  std::fclose(log);
}

TEST_CASE("scenarios: on a terminal a run shorter than a second draws no progress line", "[scenarios]") {
  std::FILE* tty = std::tmpfile();
  REQUIRE(tty);
  {
    scenarios::RunProgressLine line(tty, /*terminal=*/true, "commsim run");
    line.report("building the world", -1);
    line.report({}, 0.5);
    line.report({}, 1.0);
    line.finish();
  }
  CHECK(read_all_run_progress(tty).empty());
  std::fclose(tty);
}

TEST_CASE("scenarios: on a terminal a long run's line is rewritten in place and erased at the end", "[scenarios]") {
  std::FILE* tty = std::tmpfile();
  REQUIRE(tty);
  {
    // Started two seconds ago: past the one-second wait.
    scenarios::RunProgressLine line(tty, /*terminal=*/true, "commsim run", Clock::now() - std::chrono::seconds(2));
    line.report({}, 0.5);
  }  // destroyed without finish() (the run failed): the line is erased for the error that follows
  const std::string out = read_all_run_progress(tty);
  CHECK(out.rfind("\rcommsim run: 50 % of the step simulated, 2.", 0) == 0);
  CHECK(out.size() > 6);
  CHECK(out.substr(out.size() - 4) == "\r\033[K");
  std::fclose(tty);
}
