// `commsim params`: the registry as a table, every registered name on its own line.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>

#include "command_runner.hpp"
#include "models/params.hpp"

using scenarios_test::run_commsim;

TEST_CASE("scenarios: params lists every registered name with its unit, default, range and owner", "[scenarios]") {
  const auto r = run_commsim({"params"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  for (const models::ParamSpec& p : models::param_registry()) {
    INFO(p.name);
    const std::string name(p.name);
    const auto at = r.out.find("\n" + name + " ");
    REQUIRE(at != std::string::npos);
    const std::string line = r.out.substr(at + 1, r.out.find('\n', at + 1) - at - 1);
    CHECK(line.find(p.range.text()) != std::string::npos);
    CHECK(line.find(models::param_owner_name(p.owner)) != std::string::npos);
  }
  // One row, in full: nvlink.efficiency.simple is a fraction, 0.79 by default, in (0, 1].
  std::istringstream row(r.out.substr(r.out.find("\nnvlink.efficiency.simple ") + 1));
  std::string name, unit, def, range_lo, range_hi, owner;
  row >> name >> unit >> def >> range_lo >> range_hi >> owner;
  CHECK(unit == "1");
  CHECK(def == "0.79");
  CHECK(range_lo + " " + range_hi == "(0, 1]");
  CHECK(owner == "models/collectives");
}

TEST_CASE("scenarios: params --owner keeps one model's rows", "[scenarios]") {
  const auto r = run_commsim({"params", "--owner", "world"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("\nnvlink.bandwidth ") != std::string::npos);
  CHECK(r.out.find("\nnvlink.efficiency.simple ") == std::string::npos);
  CHECK(run_commsim({"params", "--owner", "nccl"}).exit_code == 2);
}
