// [nccl.env] NCCL_TUNER_CONFIG_FILE: the CSV of NCCL's example tuner plugin, a path relative to the
// scenario's folder (to the current one from --set), read and checked at load, so a row the plugin
// would misread is refused at its own line and column; then what nccl-tests predicts with it.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "scenarios/load/loader.hpp"
#include "tests/scenarios/command_runner.hpp"

namespace fs = std::filesystem;

namespace {
void write_text(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

const std::string kTunerScenario = R"(name = "2 x a4-highgpu-8g with NCCL's example tuner"
nccl.version = "2.28.9"
[cluster]
instance = "a4-highgpu-8g"
nodes = 2
[nccl.env]
NCCL_TUNER_PLUGIN = "example"
NCCL_TUNER_CONFIG_FILE = "tuner.csv"
[collective]
op = "all_gather"
bytes = "4 MiB"
)";

std::string load_error(const fs::path& scenario, const std::vector<std::string>& sets = {}) {
  try {
    scenarios::load_scenario(scenario.string(), sets);
  } catch (const scenarios::UserError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("loader: NCCL_TUNER_CONFIG_FILE is read beside the scenario and recorded as an input", "[scenarios]") {
  const fs::path dir = scenarios_test::fresh_temp_dir("tuner");
  write_text(dir / "s.toml", kTunerScenario);
  write_text(dir / "tuner.csv",
             "# 1-32 MiB: Ring/Simple on NCCL's channels\nallgather,1048576,33554432,ring,simple,0,2,-1\n");
  const auto s = scenarios::load_scenario((dir / "s.toml").string());
  CHECK(s.spec.nccl_env.at("NCCL_TUNER_CONFIG_FILE") == (dir / "tuner.csv").string());
  CHECK(s.spec.nccl_tuner_config.find("allgather,1048576") != std::string::npos);
  CHECK(std::find(s.files.begin(), s.files.end(), (dir / "tuner.csv").string()) != s.files.end());
  fs::remove_all(dir);
}

TEST_CASE("loader: a tuner row the plugin would misread is an error at its line and column", "[scenarios]") {
  const fs::path dir = scenarios_test::fresh_temp_dir("tuner");
  write_text(dir / "s.toml", kTunerScenario);
  write_text(dir / "tuner.csv", "# rows\nallgather,1048576,33554432,Ring,simple,0,2,-1\n");
  CHECK(load_error(dir / "s.toml")
            .starts_with((dir / "tuner.csv").string() + ":2:28: unknown algorithm 'Ring': the example tuner plugin "
                                                        "compares names exactly and reads this one as ring"));
  // A file that is not there: at the key that names it.
  fs::remove(dir / "tuner.csv");
  const std::string missing = load_error(dir / "s.toml");
  CHECK(missing.starts_with((dir / "s.toml").string() + ":8:26: cannot read NCCL tuner config"));
  // From --set, relative to the current folder (here an absolute path).
  write_text(dir / "other.csv", "allgather,0,7,ring,simple,-1,-1,-1\n");
  const auto s = scenarios::load_scenario((dir / "s.toml").string(),
                                          {"nccl.env.NCCL_TUNER_CONFIG_FILE=" + (dir / "other.csv").string()});
  CHECK(s.spec.nccl_tuner_config == "allgather,0,7,ring,simple,-1,-1,-1\n");
  fs::remove_all(dir);
}

TEST_CASE("nccl-tests: NCCL's example tuner picks the rows' protocol and channels, and the run says so",
          "[scenarios]") {
  const fs::path dir = scenarios_test::fresh_temp_dir("tuner");
  write_text(dir / "s.toml", kTunerScenario);
  write_text(dir / "tuner.csv", "allgather,1048576,33554432,ring,simple,0,2,-1\n");
  const auto rows_of = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> args{
        "nccl-tests", (dir / "s.toml").string(), "--op", "all_gather", "-b", "512K", "-e", "4M", "-f", "2", "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = scenarios_test::run_commsim(args);
    REQUIRE(r.exit_code == 0);
    return std::make_pair(nlohmann::json::parse(r.out)["rows"], r.err);
  };
  const auto [tuned, notes] = rows_of({});
  const auto [simple, _] =
      rows_of({"--set", "nccl.env.NCCL_PROTO=\"Simple\"", "--set", "nccl.env.NCCL_TUNER_PLUGIN=\"none\""});
  const auto [nccl, __] = rows_of({"--set", "nccl.env.NCCL_TUNER_PLUGIN=\"none\""});
  REQUIRE(tuned.size() == 4);
  // 1-4 MiB: the row's Ring/Simple on NCCL's own channels, as NCCL_PROTO=Simple alone gives.
  for (int i = 1; i < 4; ++i) {
    CHECK(tuned[i]["proto"] == "Simple");
    CHECK(tuned[i]["channels"] == simple[i]["channels"]);
    CHECK(tuned[i]["time_us"].get<double>() == Approx(simple[i]["time_us"].get<double>()));
    CHECK(nccl[i]["proto"] != "Simple");  // NCCL's tuner alone runs LL or LL128 there
  }
  // 512 KiB: no row, so NCCL's choice on the plugin's one channel.
  CHECK(tuned[0]["proto"] == nccl[0]["proto"]);
  CHECK(tuned[0]["channels"] == 1);
  CHECK(nccl[0]["channels"].get<int>() > 1);
  CHECK(notes.find("NCCL_TUNER_PLUGIN=example: a collective no row of NCCL_TUNER_CONFIG_FILE matches, and a row "
                   "whose channels are -1, run on 1 channel") != std::string::npos);
  // The file without the plugin: nothing reads it, and the run says that instead.
  const auto unread = scenarios_test::run_commsim(
      {"nccl-tests", (dir / "s.toml").string(), "--set", "nccl.env.NCCL_TUNER_PLUGIN=\"none\""});
  CHECK(unread.err.find("NCCL_TUNER_CONFIG_FILE is read by NCCL's example tuner plugin alone") != std::string::npos);
  fs::remove_all(dir);
}
