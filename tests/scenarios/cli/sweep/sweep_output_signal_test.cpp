// A sweep stopped by SIGTERM (a scheduler's time limit) or SIGINT (Ctrl-C) loses no row it wrote
// and says where its rows are (scenarios/cli/sweep/sweep_output.hpp): a file written in place
// holds them (the note counts them); a file that had rows is unchanged and the run's rows are in
// the temporary the note names, which --resume reads once moved over the file. Each case runs the
// output in a child process that signals itself after two rows, as the real command would be.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "scenarios/cli/sweep/sweep_output.hpp"
#include "tests/scenarios/command_runner.hpp"

namespace fs = std::filesystem;
using scenarios_test::slurp;

namespace {
const std::string kHeader = "index,value\n";

struct Stopped {
  int signal = 0;   // the signal the child died of (0: it did not)
  std::string err;  // its standard error
};

// Runs a sweep's output on `csv` in a child: the header, two rows, then `sig` to itself.
Stopped stop_after_two_rows(const std::string& csv, int sig, const std::string& err_path) {
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    std::freopen(err_path.c_str(), "w", stderr);
    scenarios::SweepOutput out(csv, scenarios::RowFormat::Csv);
    out.start(kHeader, false, [](int, const scenarios::Json&) { return size_t{0}; });
    out.write("0,a\n");
    out.write("1,b\n");
    ::raise(sig);
    ::_exit(0);  // not reached: the note dies of the signal
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  return {WIFSIGNALED(status) ? WTERMSIG(status) : 0, slurp(err_path)};
}
}  // namespace

TEST_CASE("scenarios: a sweep stopped by a signal writing a new file says it holds its rows", "[sweep]") {
  const fs::path dir = scenarios_test::fresh_temp_dir("sweepsig");
  const std::string csv = (dir / "rows.csv").string();
  const Stopped stopped = stop_after_two_rows(csv, SIGTERM, (dir / "err.txt").string());
  CHECK(stopped.signal == SIGTERM);  // the exit status a scheduler expects of a stopped job
  CHECK(slurp(csv) == kHeader + "0,a\n1,b\n");
  CHECK(stopped.err == "sweep: stopped by a signal; " + csv +
                           " holds 2 rows of this sweep, each whole (the same command with --resume runs only the "
                           "missing points)\n");
}

TEST_CASE("scenarios: a sweep stopped by a signal over a file with rows names the temporary holding its rows",
          "[sweep]") {
  const fs::path dir = scenarios_test::fresh_temp_dir("sweepsig");
  const std::string csv = (dir / "rows.csv").string();
  const std::string before = kHeader + "0,old\n";
  std::ofstream(csv) << before;
  const Stopped stopped = stop_after_two_rows(csv, SIGINT, (dir / "err.txt").string());
  CHECK(stopped.signal == SIGINT);
  CHECK(slurp(csv) == before);  // the file named is unchanged
  std::smatch m;
  REQUIRE(std::regex_search(stopped.err, m, std::regex("the 2 rows this run wrote are in (\\S+) \\(to keep them: mv")));
  const std::string temp = m[1].str();
  CHECK(fs::path(temp).parent_path() == fs::path(csv).parent_path());
  CHECK(slurp(temp) == kHeader + "0,a\n1,b\n");  // every row written, whole
  // The move the note proposes gives --resume the rows: both are found present.
  fs::rename(temp, csv);
  scenarios::SweepOutput again(csv, scenarios::RowFormat::Csv);
  size_t next = 0;
  const auto present = again.start(kHeader, true, [&](int, const scenarios::Json&) { return next++; });
  CHECK(present == std::set<size_t>{0, 1});
}
