// The plan search's progress line (scenarios/cli/plan/plan_progress.hpp): the stage, how far it
// is, the best so far and an ETA, printed by the run's printer (nothing on a terminal for a quick
// search, every line into a log file, a last line); through the real binary with --progress, on
// standard error only.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "scenarios/cli/plan/plan_progress.hpp"
#include "tests/scenarios/command_runner.hpp"

namespace {
std::string read_all_plan_progress(std::FILE* f) {
  std::rewind(f);
  std::string s;
  for (int c = std::fgetc(f); c != EOF; c = std::fgetc(f)) s += static_cast<char>(c);
  return s;
}
using Clock = scenarios::PlanProgressLine::Clock;
using Stage = models::plan::PlanProgress::Stage;
models::plan::PlanProgress at(Stage stage, int64_t done, int64_t total) {
  models::plan::PlanProgress p;
  p.stage = stage;
  p.done = done;
  p.total = total;
  return p;
}
}  // namespace

TEST_CASE("scenarios: the plan progress line names the stage, the candidates left and the best so far", "[scenarios]") {
  std::FILE* log = std::tmpfile();
  REQUIRE(log);
  const auto t0 = Clock::now();
  scenarios::PlanProgressLine line(log, /*terminal=*/false, t0);
  line.report(at(Stage::Enumerating, 0, 0));
  CHECK(line.text(t0 + std::chrono::milliseconds(400)) == "commsim plan: enumerating the space, 0.4 s");
  line.report(at(Stage::Bounding, 1200, 5852));
  CHECK(line.text(Clock::now()).rfind("commsim plan: bounding 1,200 of 5,852 candidates, ", 0) == 0);
  // Simulating: 10 of 40 still able to win after 2 s of this stage: 30 left at 5 a second.
  models::plan::PlanProgress sim = at(Stage::Simulating, 0, 40);
  line.report(sim);
  sim.done = 10;
  sim.best = 3 * 86400.0;
  line.report(sim);
  const std::string s = line.text(Clock::now() + std::chrono::seconds(2));
  CHECK(s.rfind("commsim plan: simulating 10 of 40 candidates still able to win, best so far ", 0) == 0);
  CHECK(s.find(", ETA 6.0 s") != std::string::npos);
  // Under the cost objective the best is in dollars.
  sim.cost = true;
  sim.best = 1234.0;
  line.report(sim);
  CHECK(line.text(Clock::now()).find("best so far $1,234") != std::string::npos);
  line.report(at(Stage::Auditing, 3, 500));
  CHECK(line.text(Clock::now()).rfind("commsim plan: auditing 3 of 500 skipped candidates, ", 0) == 0);
  line.finish();
  const std::string out = read_all_plan_progress(log);
  CHECK(out.rfind("commsim plan: enumerating the space, ", 0) == 0);  // the first report at once
  CHECK(out.find('\r') == std::string::npos);
  CHECK(out.find("commsim plan: done in ") != std::string::npos);
  std::fclose(log);
}

TEST_CASE("scenarios: on a terminal a plan shorter than a second draws no progress line", "[scenarios]") {
  std::FILE* tty = std::tmpfile();
  REQUIRE(tty);
  {
    scenarios::PlanProgressLine line(tty, /*terminal=*/true);
    line.report(at(Stage::Enumerating, 0, 0));
    line.report(at(Stage::Simulating, 1, 2));
    line.finish();
  }
  CHECK(read_all_plan_progress(tty).empty());
  std::fclose(tty);
}

TEST_CASE("scenarios: on a terminal a long plan's line is rewritten in place and erased at the end", "[scenarios]") {
  std::FILE* tty = std::tmpfile();
  REQUIRE(tty);
  {
    scenarios::PlanProgressLine line(tty, /*terminal=*/true, Clock::now() - std::chrono::seconds(2));
    line.report(at(Stage::Simulating, 1, 4));
    line.finish();
  }
  const std::string out = read_all_plan_progress(tty);
  CHECK(out.rfind("\rcommsim plan: simulating 1 of 4 candidates still able to win, 2.", 0) == 0);
  CHECK(out.substr(out.size() - 4) == "\r\033[K");
  CHECK(out.find('\n') == std::string::npos);
  std::fclose(tty);
}

TEST_CASE("scenarios: between the search's reports a tick redraws the last one with the time moved on", "[scenarios]") {
  // A log file: the report's line at once, then each tick a second or more after the last line
  // draws the same stage with the time as it then stands; one sooner draws nothing.
  std::FILE* log = std::tmpfile();
  REQUIRE(log);
  const auto t0 = Clock::now() - std::chrono::seconds(10);
  scenarios::PlanProgressLine line(log, /*terminal=*/false, t0);
  line.report(at(Stage::Simulating, 1, 4));
  const auto now = Clock::now();
  line.tick(now + std::chrono::milliseconds(500));  // under the log's second: nothing
  line.tick(now + std::chrono::milliseconds(2000));
  line.tick(now + std::chrono::milliseconds(4000));
  line.finish();
  std::istringstream lines(read_all_plan_progress(log));
  std::vector<std::string> got;
  for (std::string l; std::getline(lines, l);) got.push_back(l);
  REQUIRE(got.size() == 4);
  for (int i = 0; i < 3; ++i) {
    INFO(got[i]);
    CHECK(got[i].rfind("commsim plan: simulating 1 of 4 candidates still able to win, 1", 0) == 0);
  }
  CHECK(got[1] != got[2]);  // the time moved: 12.x s, then 14.x s
  CHECK(got[1].find(", 12.") != std::string::npos);
  CHECK(got[2].find(", 14.") != std::string::npos);
  CHECK(got[3].rfind("commsim plan: done in ", 0) == 0);
  std::fclose(log);
}

TEST_CASE("scenarios: the progress ticker stops at finish and leaves a terminal's line erased", "[scenarios]") {
  // Whatever the ticker drew meanwhile (nothing before the terminal's first second), the line ends
  // erased and never leaves a new line behind.
  std::FILE* tty = std::tmpfile();
  REQUIRE(tty);
  {
    scenarios::PlanProgressLine line(tty, /*terminal=*/true, Clock::now() - std::chrono::seconds(2));
    line.start_ticking(std::chrono::milliseconds(1));
    line.report(at(Stage::Simulating, 1, 4));
    line.finish();
    line.tick(Clock::now() + std::chrono::seconds(5));  // after finish: nothing
  }
  const std::string out = read_all_plan_progress(tty);
  REQUIRE(out.size() >= 4);
  CHECK(out.rfind("\rcommsim plan: ", 0) == 0);
  CHECK(out.substr(out.size() - 4) == "\r\033[K");
  CHECK(out.find('\n') == std::string::npos);
  std::fclose(tty);
}

TEST_CASE("scenarios: plan --progress writes the search's stages on standard error, not on standard output",
          "[scenarios]") {
  // The shipped example, a search of about a second: every line names a stage, the last says done.
  const std::vector<std::string> args = {"plan",
                                         std::string(COMMSIM_SOURCE_DIR) + "/scenarios/examples/plan_llama3_8b.toml",
                                         "--gpus",
                                         "8..16",
                                         "--strategies",
                                         "megatron,zero1",
                                         "--micro-batches",
                                         "1",
                                         "--jobs",
                                         "2"};
  std::vector<std::string> loud_args = args;
  loud_args.push_back("--progress");
  const auto quiet = scenarios_test::run_commsim(args);
  const auto loud = scenarios_test::run_commsim(loud_args);
  REQUIRE(quiet.exit_code == 0);
  REQUIRE(loud.exit_code == 0);
  CHECK(loud.out == quiet.out);  // the table is unchanged
  CHECK(quiet.err.empty());      // not a terminal, not asked: nothing
  CHECK(loud.err.find('\r') == std::string::npos);
  const std::regex stage(
      R"(commsim plan: (enumerating the space|bounding [0-9,]+ of [0-9,]+ candidates|simulating [0-9,]+ of [0-9,]+ )"
      R"(candidates still able to win(, best so far [^,]+)?), [0-9.]+ (s|min)(, ETA .+)?)");
  const std::regex last(R"(commsim plan: done in [0-9.]+ s)");
  std::istringstream lines(loud.err);
  std::vector<std::string> got;
  for (std::string l; std::getline(lines, l);) got.push_back(l);
  // Each stage's first line at once: enumerating, bounding, simulating; then the last line.
  REQUIRE(got.size() >= 4);
  CHECK(got[0].rfind("commsim plan: enumerating the space, ", 0) == 0);
  CHECK(got[1].rfind("commsim plan: bounding 0 of ", 0) == 0);
  CHECK(got[2].rfind("commsim plan: simulating 0 of ", 0) == 0);
  for (size_t i = 0; i + 1 < got.size(); ++i) {
    INFO(got[i]);
    CHECK(std::regex_match(got[i], stage));
  }
  INFO(got.back());
  CHECK(std::regex_match(got.back(), last));
}
