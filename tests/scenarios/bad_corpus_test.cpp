// The bad-input corpus (tests/scenarios/bad/*.toml): each file names, in its first lines, the
// exact message it must produce (`# expect:`), where (`# at: LINE:COL`), in which file when not
// itself (`# file:`, "--set" for command-line overrides) and extra arguments (`# args:`).
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "scenarios/cli/cli_support.hpp"
#include "scenarios/load/loader.hpp"
#include "tests/scenarios/command_runner.hpp"

namespace fs = std::filesystem;

namespace {

struct BadCase {
  fs::path path;
  std::string expect, at, file;
  bool from_models = false;       // `# from: models`: the loader accepts it, run_scenario refuses
  std::vector<std::string> args;  // as given to `commsim run`
  std::vector<std::string> sets;  // the --set values among them
  std::string expected_line() const { return file + ":" + at + ": " + expect; }
};

std::vector<BadCase> bad_cases() {
  const fs::path dir = fs::path(COMMSIM_SOURCE_DIR) / "tests/scenarios/bad";
  std::vector<BadCase> cases;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".toml") continue;
    BadCase c;
    c.path = entry.path();
    c.file = c.path.string();
    std::ifstream in(c.path);
    std::string line;
    while (std::getline(in, line) && line.rfind("# ", 0) == 0) {
      auto value = [&](const char* tag) { return line.substr(std::string(tag).size()); };
      if (line.rfind("# expect: ", 0) == 0) {
        c.expect = value("# expect: ");
        // {dir} stands for this corpus folder, wherever the checkout lives.
        for (auto at = c.expect.find("{dir}"); at != std::string::npos; at = c.expect.find("{dir}"))
          c.expect.replace(at, 5, dir.string());
      } else if (line.rfind("# at: ", 0) == 0)
        c.at = value("# at: ");
      else if (line.rfind("# from: models", 0) == 0)
        c.from_models = true;
      else if (line.rfind("# file: ", 0) == 0)
        c.file = value("# file: ") == "--set" ? "--set" : (dir / value("# file: ")).string();
      else if (line.rfind("# args: ", 0) == 0) {
        std::istringstream words(value("# args: "));
        for (std::string w; words >> w;) c.args.push_back(w);
      }
    }
    for (size_t i = 0; i + 1 < c.args.size(); ++i)
      if (c.args[i] == "--set") c.sets.push_back(c.args[i + 1]);
    cases.push_back(c);
  }
  std::sort(cases.begin(), cases.end(), [](const BadCase& a, const BadCase& b) { return a.path < b.path; });
  return cases;
}

}  // namespace

TEST_CASE("scenarios: the bad-input corpus is large and every case names its error", "[scenarios]") {
  const auto cases = bad_cases();
  CHECK(cases.size() >= 25);
  for (const auto& c : cases) {
    INFO(c.path);
    CHECK_FALSE(c.expect.empty());
    CHECK(c.at.find(':') != std::string::npos);
  }
}

// Errors found by the models (SpecError naming a key) must come out at that key's place too.
TEST_CASE("scenarios: the loader rejects every bad input with its exact message and place", "[scenarios]") {
  for (const auto& c : bad_cases()) {
    INFO(c.path);
    std::string got;
    try {
      const auto loaded = scenarios::load_scenario(c.path.string(), c.sets);
      CHECK(c.from_models);  // only layout and value checks of the models may get past the loader
      scenarios::run_loaded(loaded, {});
    } catch (const scenarios::UserError& e) {
      got = e.what();
    }
    CHECK(got == c.expected_line());
  }
}

TEST_CASE("scenarios: commsim run exits 2 with one stderr line and leaves no output behind", "[scenarios]") {
  for (const auto& c : bad_cases()) {
    INFO(c.path);
    const fs::path out_dir = scenarios_test::fresh_temp_dir("bad") / "out";
    std::vector<std::string> args = {"run", c.path.string(), "--out", out_dir.string()};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const auto r = scenarios_test::run_commsim(args);
    CHECK(r.exit_code == 2);
    CHECK(r.err == c.expected_line() + "\n");  // exactly one line
    CHECK(r.out.empty());
    CHECK_FALSE(fs::exists(out_dir));
    fs::remove_all(out_dir.parent_path());
  }
}

namespace {
// The contract's "(what was expected)": the message ends with a parenthesis saying what was
// expected, or offering the near name ("did you mean").
bool says_what_was_expected(const std::string& message) {
  return !message.empty() && message.back() == ')' &&
         (message.find(" (expected ") != std::string::npos || message.find(" (did you mean ") != std::string::npos);
}
}  // namespace

TEST_CASE("scenarios: every message of the bad-input corpus says what was expected", "[scenarios]") {
  for (const auto& c : bad_cases()) {
    INFO(c.path);
    CHECK(says_what_was_expected(c.expect));
  }
}
