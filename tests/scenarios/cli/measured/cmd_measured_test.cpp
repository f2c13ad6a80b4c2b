// `commsim profile` and `commsim diff` from the command line, on the one-H200 measured run
// (scenarios/validation/h200x1/measured_run/): a profile that a scenario then reads, a diff whose
// rows name the largest differences, and broken inputs as one FILE:LINE:COL line with exit 2 and
// nothing written.
#include <catch2/catch.hpp>

#include <cstdio>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "scenarios/cli/nccl_tests_support.hpp"
#include "tests/scenarios/command_runner.hpp"

using scenarios_test::run_commsim;

namespace {
const std::string kRun = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/h200x1/measured_run/";
}  // namespace

TEST_CASE("commsim profile: the trace's compute becomes a profile a scenario reads", "[scenarios][measured]") {
  const auto dir = scenarios_test::fresh_temp_dir("profile-ok");
  const std::string out = (dir / "c.toml").string();
  auto r = run_commsim({"profile", kRun + "kineto_plain_step.json", "--scenario", kRun + "plain_step.toml", "--out", out});
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("gemm") && Catch::Contains("with this profile 114.875 ms"));
  // The profile, read by the traced scenario, gives the trace's mean GPU span (the fit's closed form).
  auto run = run_commsim({"run", kRun + "plain_step.toml", "--set", "cluster.profile=\"" + out + "\""});
  CHECK(run.exit_code == 0);
  CHECK_THAT(run.out, Catch::Contains("step time  114.875 ms"));
  CHECK(r.err.find("warning") == std::string::npos);  // an H200 trace for an H200 scenario
  // The same trace for an H100 scenario: written, with a warning that its rates are an H200's.
  const auto other = run_commsim({"profile", kRun + "kineto_plain_step.json", "--scenario", kRun + "plain_step.toml",
                                  "--set", "cluster.instance=\"p5.48xlarge\"", "--out", (dir / "h100.toml").string()});
  INFO(other.err);
  CHECK(other.exit_code == 0);
  CHECK(other.err.find("ran on NVIDIA H200, the scenario's GPU is H100: the profile's rates are that GPU's") !=
        std::string::npos);
}

TEST_CASE("commsim diff: the largest differences on the shipped fixtures", "[scenarios][measured]") {
  auto r = run_commsim({"diff", kRun + "kineto_plain_step.json", kRun + "nccl_tests_all_reduce.json",
                        kRun + "plain_step.toml", "--step-time", "0.11470981"});
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("1 GPU: 1 node h200x4"));
  // Per class (ms, the trace's means against the default laws): gemm 67.300 / 68.164 is the largest.
  CHECK_THAT(r.out, Catch::Contains("  1. compute gemm: +864.783 us"));
  CHECK_THAT(r.out, Catch::Contains("all_reduce 536870912 B on 1 rank"));
}

// --html: the same rows as a page (a bar and a table row each, with the parameter), the text
// output unchanged; a page over an input is refused before any work and the input kept.
TEST_CASE("commsim diff --html: the rows as a page, the table unchanged", "[scenarios][measured]") {
  const auto dir = scenarios_test::fresh_temp_dir("diff-html");
  const std::string page = (dir / "diff.html").string();
  const std::vector<std::string> args = {"diff", kRun + "kineto_plain_step.json", kRun + "nccl_tests_all_reduce.json",
                                         kRun + "plain_step.toml", "--step-time", "0.11470981"};
  auto plain = run_commsim(args);
  auto with_page = args;
  with_page.insert(with_page.end(), {"--html", page});
  auto r = run_commsim(with_page);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == plain.out);
  const std::string html = scenarios_test::slurp(page);
  CHECK_THAT(html, Catch::StartsWith("<!DOCTYPE html>"));
  CHECK_THAT(html, Catch::Contains("chart-diff") && Catch::Contains("model fast") && Catch::Contains("model slow"));
  // One bar (a tooltip per row) and one table row per row of the text table; gemm's +1.3 % on both.
  CHECK_THAT(html, Catch::Contains("compute gemm: measured "));
  CHECK_THAT(html, Catch::Contains("<td>gemm</td>"));
  CHECK_THAT(html, Catch::Contains("+1.3%"));       // as the text table prints it
  CHECK_THAT(html, Catch::Contains("<td>1</td>"));  // the GPU count in the summary
  // Over one of its inputs: refused, exit 2, the input untouched.
  const std::string copy = (dir / "plain_step.toml").string();
  std::filesystem::copy_file(kRun + "plain_step.toml", copy);
  const std::string before = scenarios_test::slurp(copy);
  auto over = run_commsim({"diff", kRun + "kineto_plain_step.json", copy, "--html", copy});
  CHECK(over.exit_code == 2);
  CHECK(scenarios_test::slurp(copy) == before);
  std::filesystem::remove_all(dir);
}

// A bare nccl-tests table (rows copied from a page) names neither its collective nor its ranks: diff
// says so and where to compare it; nccl-tests --compare takes it at the scenario's ranks, silently.
TEST_CASE("commsim diff and nccl-tests --compare: a bare nccl-tests table", "[scenarios][measured]") {
  const std::string dir = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/gb300_oci/";
  const std::string bare = dir + "measured/all_reduce_1rack.txt";
  auto d = run_commsim({"diff", bare, dir + "scenario.toml"});
  CHECK(d.exit_code == 2);
  CHECK_THAT(d.err, Catch::StartsWith(bare + ":1:1: the file does not say which collective it measured"));
  auto c = run_commsim(
      {"nccl-tests", dir + "scenario.toml", "--op", "all_reduce", "-b", "512K", "-e", "1M", "--compare", bare});
  REQUIRE(c.exit_code == 0);
  CHECK_THAT(c.out, Catch::Contains("2 sizes compared"));
  CHECK_THAT(c.err, !Catch::Contains("ran on"));
  // diff --op names its collective, as calibrate's does; a header naming another is refused.
  const std::string p5 = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/p5_2node_efa/";
  auto op = run_commsim({"diff", p5 + "measured/all_reduce_perf.txt", p5 + "scenario.toml", "--op", "all_reduce"});
  INFO(op.err);
  REQUIRE(op.exit_code == 0);
  CHECK_THAT(op.out, Catch::Contains("all_reduce 65536 B on 16 ranks"));
  const std::string h4 = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/h200x4";
  auto other = run_commsim({"diff", h4 + "/measured/nccl-tests/ar_g4.txt", h4 + ".toml", "--op", "all_gather"});
  CHECK(other.exit_code == 2);
  CHECK_THAT(other.err, Catch::Contains("ar_g4.txt is all_reduce, not --op all_gather"));
}

TEST_CASE("commsim profile and diff: broken inputs are one FILE:LINE:COL line, exit 2", "[scenarios][measured]") {
  const auto dir = scenarios_test::fresh_temp_dir("measured-bad");
  const std::string bad = (dir / "bad.json").string();
  {
    std::ofstream f(bad);
    f << "{\"traceEvents\": [\n {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1, \"dur\": null}]}\n";
  }
  const std::string out = (dir / "c.toml").string();
  auto p = run_commsim({"profile", bad, "--scenario", kRun + "plain_step.toml", "--out", out});
  CHECK(p.exit_code == 2);
  CHECK(p.err == bad + ":2:60: traceEvents[0].dur: expected a number, found null\n");
  CHECK_FALSE(std::filesystem::exists(out));
  auto d = run_commsim({"diff", bad, kRun + "plain_step.toml"});
  CHECK(d.exit_code == 2);
  CHECK(d.err == p.err);
  const std::string lines = (dir / "insp.jsonl").string();
  {
    std::ofstream f(lines);
    f << "{\"header\":{\"id\":\"0x1\",\"rank\":0,\"n_ranks\":2,\"nnodes\":1},\"coll_perf\":{\"coll\":\"AllGather\"}}\n";
  }
  auto i = run_commsim({"diff", lines, kRun + "plain_step.toml"});
  CHECK(i.exit_code == 2);
  CHECK_THAT(i.err, Catch::StartsWith(lines + ":1:") && Catch::Contains("coll_perf: no \"coll_sn\" member"));
}

TEST_CASE("nccl-tests JSON: the variables of its env list are the run's, as an INFO log's", "[scenarios][measured]") {
  // NCCL_NVLS_ENABLE is modelled (models/nccl/env.cpp); NCCL_VERSION, a container's label, is not.
  const auto env = scenarios::nccl_env_from_log(
      R"({"version":3,"args":["./all_reduce_perf"],"env":["NCCL_VERSION=2.28.3-1","NCCL_NVLS_ENABLE=0","PATH=/bin"]})");
  CHECK(env == std::map<std::string, std::string>{{"NCCL_NVLS_ENABLE", "0"}});
  // As jq or Python's json.dump write it: spaces after the colon and inside the list.
  const auto spaced = scenarios::nccl_env_from_log(
      "{\n  \"version\": 3,\n  \"env\": [\n    \"NCCL_ALGO=Ring\",\n    \"PATH=/bin\"\n  ]\n}\n");
  CHECK(spaced == std::map<std::string, std::string>{{"NCCL_ALGO", "Ring"}});
}

TEST_CASE("nccl-tests output: the NCCL release it states, and one outside the tuner tables", "[scenarios][measured]") {
  scenarios::NcclTestsFile banner;
  banner.text = "vm:1:1 [0] NCCL INFO NCCL version 2.28.9+cuda13.0\n";
  CHECK(scenarios::stated_nccl_version(banner).number == 22809);
  scenarios::NcclTestsFile header;  // nccl-tests' own header (text; -J JSON's nccl_version reads the same)
  header.runs.emplace_back().version = "2.19.6 nccl-headers=22809 nccl-library=22501";
  CHECK(scenarios::stated_nccl_version(header).number == 22501);
  CHECK(scenarios::stated_nccl_version(header).text == "2.25.1");
  scenarios::NcclTestsFile none;
  none.text = "# nThread 1 nGpus 4\n";
  CHECK(scenarios::stated_nccl_version(none).number == 0);
  scenarios::NcclTestsFile old;
  old.text = "h:1:1 [0] NCCL INFO NCCL version 2.16.5+cuda12.0\n";
  std::string note;
  CHECK(scenarios::usable_nccl_version(old, "old.txt", &note) == 0);
  CHECK(note.find("old.txt ran NCCL 2.16.5, outside the tuner tables") == 0);
}

TEST_CASE("commsim diff and nccl-tests --compare: the measured run's NCCL variables are the prediction's",
          "[scenarios][measured]") {
  // ar_g4_sock.txt ran with NCCL_P2P_DISABLE=1 and NCCL_SHM_DISABLE=1 (its INFO lines): both tools
  // predict that run (Socket), not the scenario's NVLink, and name the Socket class's parameter.
  const std::string v = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/";
  const std::string sock = v + "h200x4/measured/nccl-tests/ar_g4_sock.txt", machine = v + "h200x4.toml";
  const auto d = nlohmann::json::parse(run_commsim({"diff", sock, machine, "--json"}).out);
  int rows = 0;
  for (const auto& r : d["rows"]) {
    if (r["kind"] != "collective") continue;
    ++rows;
    INFO(r["name"]);
    CHECK(std::abs(r["relative"].get<double>()) < 0.5);  // NVLink would be ~-99 %
    CHECK(r["parameter"].get<std::string>().find("<link>") == std::string::npos);
    if (r["parameter"].get<std::string>().find("efficiency") != std::string::npos)
      CHECK(r["parameter"].get<std::string>().rfind("socket.", 0) == 0);
  }
  CHECK(rows > 10);
  const auto c = run_commsim({"nccl-tests", machine, "all_reduce_perf", "-b", "8", "-e", "1G", "-f", "2", "-g", "4",
                              "--compare", sock});
  REQUIRE(c.exit_code == 0);
  CHECK(c.err.find("NCCL_P2P_DISABLE=1, NCCL_SHM_DISABLE=1: applied to the prediction") != std::string::npos);
  // ... and its release (its INFO banner: NCCL version 2.28.9+cuda13.0) where the scenario names none.
  const auto dir = scenarios_test::fresh_temp_dir("compare-version");
  std::string text = scenarios_test::slurp(machine);
  text.erase(text.find("nccl.version"), text.find('\n', text.find("nccl.version")) - text.find("nccl.version") + 1);
  const std::string unnamed_path = (dir / "h200x4.toml").string();
  std::filesystem::copy_file(v + "h200x4.profile.toml", dir / "h200x4.profile.toml");
  std::ofstream(unnamed_path) << text;
  const auto unnamed = run_commsim(
      {"nccl-tests", unnamed_path, "all_reduce_perf", "-b", "8", "-e", "1M", "-f", "2", "-g", "4", "--compare", sock});
  REQUIRE(unnamed.exit_code == 0);
  CHECK(unnamed.err.find("NCCL_SHM_DISABLE=1, NCCL 2.28.9's tuner: applied to the prediction") != std::string::npos);
  std::filesystem::remove_all(dir);
  CHECK(c.out.find("median |error| 6.2 %") != std::string::npos);
}

TEST_CASE("commsim diff: each collective row names what sets its simulated time", "[scenarios][measured]") {
  // Out of place on both sides on one rank (in place is no work there): the 512 MiB local copy
  // within a few percent, not the in-place column's launch floor (-90 %).
  auto one = run_commsim({"diff", kRun + "nccl_tests_all_reduce.txt", kRun + "plain_step.toml", "--json"});
  REQUIRE(one.exit_code == 0);
  const auto j = nlohmann::json::parse(one.out);
  bool seen = false;
  for (const auto& row : j["rows"])
    if (row["name"] == "all_reduce 536870912 B on 1 rank") {
      seen = true;
      CHECK(std::fabs(row["relative"].get<double>()) < 0.05);
    }
  CHECK(seen);
  // 4 x H200: rows inside the launch floor name the launch overhead (256 KiB: the device's work ends
  // well before it), bandwidth-bound rows the protocol's efficiency.
  const std::string h4 = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/h200x4";
  auto four = run_commsim({"diff", h4 + "/measured/nccl-tests/ar_g4.txt", h4 + ".toml", "--json"});
  REQUIRE(four.exit_code == 0);
  std::map<std::string, std::string> parameter;
  const auto rows = nlohmann::json::parse(four.out).at("rows");
  for (const auto& row : rows) parameter[row["name"].get<std::string>()] = row["parameter"].get<std::string>();
  CHECK(parameter["all_reduce 262144 B on 4 ranks"] == "nccl.launch_overhead");
  CHECK(parameter["all_reduce 1073741824 B on 4 ranks"] == "nvlink.efficiency.simple");
  // The name is the engine's: the first of the row's effects, each the time's change when that
  // parameter is 10 % worse (a ring bound by NVLink's bytes follows its efficiency one for one).
  // 2 MiB: the model's tuner keeps Ring/LL where the run measured what Ring/LL128 gives (the
  // tuner's pick from 4 MiB, a switch point away): the row names the choice, not LL's efficiency.
  // The smallest rows, slow by the sweep's start, are not put on Simple (picked from 16 MiB only).
  CHECK(parameter["all_reduce 2097152 B on 4 ranks"] == "nccl.env.NCCL_PROTO");
  CHECK(parameter["all_reduce 8 B on 4 ranks"] == "nccl.launch_overhead");
  for (const auto& row : rows) {
    REQUIRE(row.contains("effects"));
    REQUIRE(row.contains("alternatives"));
    if (row["parameter"].get<std::string>().rfind("nccl.env.", 0) == 0) {
      CHECK(row["explain"].get<std::string>().find("the engine runs Ring/LL128 at") != std::string::npos);
      continue;
    }
    CHECK(row["effects"].at(0)["parameter"] == row["parameter"]);
    if (row["name"] == "all_reduce 1073741824 B on 4 ranks")
      CHECK(row["effects"].at(0)["effect"].get<double>() == Approx(0.10).margin(0.005));
    // How far the parameter alone would move to close the row: kProbeStep x (measured / simulated
    // - 1) / effect, higher for a cost where the run was slower (4 KiB: the sweep's slow start).
    if (row["name"] == "all_reduce 4096 B on 4 ranks") {
      const double gap = 1 / (1 + row["relative"].get<double>()) - 1;
      const double move = 0.1 * gap / row["effects"].at(0)["effect"].get<double>();
      char text[96];
      std::snprintf(text, sizeof text, "measured slower: nccl.launch_overhead about %.0f %% higher alone closes it",
                    100 * move);
      INFO(row["explain"].get<std::string>());
      CHECK(row["explain"].get<std::string>().find(text) != std::string::npos);
    }
  }
}
