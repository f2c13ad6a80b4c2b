// Two processes given the same output (two sweep shards with one --csv) used to replace each
// other's file, both exit 0, half the rows gone (issue 21). The second now fails at once.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "scenarios/cli/output_lock.hpp"
#include "scenarios/load/loader.hpp"
#include "tests/scenarios/command_runner.hpp"

namespace fs = std::filesystem;
using scenarios_test::run_commsim;

TEST_CASE("output lock: a second sweep writing the same --csv is refused, the first's file kept", "[scenarios]") {
  const fs::path dir = scenarios_test::fresh_temp_dir("lock");
  const std::string csv = (dir / "rows.csv").string();
  const std::string s = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/examples/allreduce_h200x4.toml";
  std::ofstream(csv) << "earlier rows\n";
  {
    // This process holds the claim, as a running shard would.
    const scenarios::OutputLock held(csv, "--csv");
    CHECK(fs::exists(dir / ".rows.csv.commsim-lock"));
    const auto r = run_commsim({"sweep", s, "--vary", "collective.bytes=1MB,2MB", "--shard", "1/2", "--csv", csv});
    CHECK(r.exit_code == 2);
    CHECK(r.err == csv + ":1:1: --csv: cannot write: another commsim (pid " + std::to_string(::getpid()) +
                       ") is writing this file (expected an output of its own for each process, e.g. one --csv per "
                       "shard, concatenated afterwards)\n");
    CHECK(scenarios_test::slurp(csv) == "earlier rows\n");
    // The same claim from this process is refused too (flock is per open file).
    CHECK_THROWS_AS(scenarios::OutputLock(csv, "--csv"), scenarios::UserError);
  }
  // Released: the lock file is gone and a sweep writes its rows.
  CHECK_FALSE(fs::exists(dir / ".rows.csv.commsim-lock"));
  const auto ok = run_commsim({"sweep", s, "--vary", "collective.bytes=1MB,2MB", "--shard", "1/2", "--csv", csv});
  CHECK(ok.exit_code == 0);
  CHECK(scenarios_test::slurp(csv).rfind("index,collective.bytes,", 0) == 0);
  CHECK_FALSE(fs::exists(dir / ".rows.csv.commsim-lock"));
  // Devices and pipes are not claimed.
  { const scenarios::OutputLock dev("/dev/null", "--csv"); }
  fs::remove_all(dir);
}
