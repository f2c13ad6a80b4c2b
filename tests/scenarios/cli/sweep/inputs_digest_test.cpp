// A sweep point's inputs digest: FNV-1a 64 of the named files in name order, so it follows the
// files' names and bytes, not the order the loader read them in.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "scenarios/cli/sweep/inputs_digest.hpp"
#include "tests/scenarios/command_runner.hpp"

namespace fs = std::filesystem;

TEST_CASE("scenarios: the inputs digest follows each file's bytes and name, not their order", "[scenarios]") {
  const fs::path dir = scenarios_test::fresh_temp_dir("inputs-digest");
  const std::string a = (dir / "a.toml").string(), b = (dir / "b.toml").string();
  std::ofstream(a) << "x = 1\n";
  std::ofstream(b) << "y = 2\n";
  const std::string ab = scenarios::inputs_digest({a, b});
  CHECK(ab.size() == 16);
  CHECK(ab.find_first_not_of("0123456789abcdef") == std::string::npos);
  CHECK(scenarios::inputs_digest({b, a}) == ab);     // the order read does not matter
  CHECK(scenarios::inputs_digest({a, b, a}) == ab);  // nor a file read twice
  CHECK(scenarios::inputs_digest({a}) != ab);
  std::ofstream(b) << "y = 3\n";  // one byte changed
  CHECK(scenarios::inputs_digest({a, b}) != ab);
  // FNV-1a 64 of nothing is its offset basis (Fowler, Noll, Vo): the closed form of no input.
  CHECK(scenarios::inputs_digest({}) == "cbf29ce484222325");
  fs::remove_all(dir);
}
