// `commsim calibrate` from the command line: a fit written as a profile, and a broken nccl-tests
// file reported as one FILE:LINE:COL line with exit code 2 and nothing written.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "tests/scenarios/command_runner.hpp"

using scenarios_test::run_commsim;

namespace {
const std::string kScenario = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/h200x4.toml";
const std::string kNcclTests = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/h200x4/measured/nccl-tests/";

// `text` with every line for which `drop` is true left out.
std::string without_lines(const std::string& text, const std::function<bool(const std::string&)>& drop) {
  std::istringstream in(text);
  std::string out, line;
  while (std::getline(in, line))
    if (!drop(line)) out += line + "\n";
  return out;
}

// ar_g4.txt as if run with -g 2: the header and the Rank lines of two GPUs (same times).
std::string two_rank_copy(const std::string& text) {
  std::string t = std::regex_replace(text, std::regex("nGpus 4"), "nGpus 2");
  return without_lines(t, [](const std::string& l) {
    return l.find("Rank  2") != std::string::npos || l.find("Rank  3") != std::string::npos;
  });
}

std::string write_file(const std::filesystem::path& p, const std::string& text) {
  std::ofstream(p) << text;
  return p.string();
}
}  // namespace

TEST_CASE("commsim calibrate: a fit becomes a profile file", "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("calibrate-ok");
  const std::string out = (dir / "p.toml").string();
  auto r = run_commsim({"calibrate", "--scenario", kScenario, kNcclTests + "ar_g4.txt", "--out", out});
  CHECK(r.exit_code == 0);
  CHECK(std::filesystem::exists(out));
  CHECK(r.err.empty());
}

TEST_CASE("commsim calibrate: a broken nccl-tests header is one FILE:LINE:COL line, exit 2", "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("calibrate-bad");
  const std::string in = (dir / "bad.txt").string();
  {
    std::ofstream f(in);
    f << "# nccl-tests version 2.19.6 nccl-headers=22809 nccl-library=22809\n"
         "# Collective test starting: all_reduce_perf\n"
         "# nThread 671088641 nGpus 4 minBytes 8 maxBytes 1073741824 step: 2(factor) warmup iters: 5\n";
  }
  const std::string out = (dir / "p.toml").string();
  auto r = run_commsim({"calibrate", "--scenario", kScenario, in, "--out", out});
  CHECK(r.exit_code == 2);
  // nThread x nGpus would overflow the rank count (found by fuzz_nccl_tests).
  CHECK(r.err == in + ":3:11: nThread 671088641 is out of range (expected 1..1024)\n");
  CHECK_FALSE(std::filesystem::exists(out));
}

TEST_CASE("commsim calibrate: a file whose ring crosses NVLink and a network fits the network, NVLink held",
          "[scenarios]") {
  // 2 x p5 of 8 GPUs: the ring crosses NVLink inside each node and EFA between them. EFA binds: its
  // parameters are fitted on the engine's tangent, NVLink's held at their defaults.
  const std::string v = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/p5_2node_efa/";
  const auto dir = scenarios_test::fresh_temp_dir("calibrate-two-classes");
  const std::string out = (dir / "p.toml").string();
  // The file has no nccl-tests header: its collective is given, never guessed.
  const auto bare =
      run_commsim({"calibrate", "--scenario", v + "scenario.toml", v + "measured/all_reduce_perf.txt", "--out", out});
  CHECK(bare.exit_code == 2);
  CHECK(bare.err.find("all_reduce_perf.txt:1:1: the file does not say which collective it measured") !=
        std::string::npos);
  CHECK(bare.err.find("give --op all_reduce or --op all_gather") != std::string::npos);
  const auto wrong =
      run_commsim({"calibrate", "--scenario", kScenario, kNcclTests + "ar_g4.txt", "--op", "all_gather", "--out", out});
  CHECK(wrong.exit_code == 2);
  CHECK(wrong.err.find("ar_g4.txt is all_reduce, not --op all_gather") != std::string::npos);
  const auto alltoall =
      run_commsim({"calibrate", "--scenario", kScenario, kNcclTests + "ar_g4.txt", "--op", "alltoall", "--out", out});
  CHECK(alltoall.exit_code == 2);
  CHECK(alltoall.err.find("--op alltoall is not a collective calibrate fits") != std::string::npos);

  const auto r = run_commsim({"calibrate", "--scenario", v + "scenario.toml", v + "measured/all_reduce_perf.txt",
                              "--op", "all_reduce", "--out", out});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string profile = scenarios_test::slurp(out);
  CHECK(profile.find("all_reduce_perf.txt  (efa; its nvlink steps held at their defaults or --fix)") !=
        std::string::npos);
  CHECK(profile.find("\"efa.efficiency.ll128\"") != std::string::npos);
  CHECK(profile.find("\"nvlink.") == std::string::npos);
  // Where it was measured, for the runs that use it elsewhere.
  CHECK(profile.find("[fitted]\ninstance = \"p5.48xlarge\"\ngpu = \"H100\"\nnodes = [2]\n") != std::string::npos);
  // The engine replays the file with the profile within a few percent (1.5 % median when written).
  CHECK(r.out.find("engine with the fitted parameters: median |error| 1.") != std::string::npos);
  // Fitted on 2 nodes: the output says what that profile is worth at other node counts.
  CHECK(r.err.find("all_reduce_perf.txt was fitted across 2 nodes on efa's parameters, its nvlink steps held") !=
        std::string::npos);
  std::filesystem::remove(out);
  // The Socket file of the 4 x H200 host (every GPU its own NCCL node, one class) still fits.
  const auto sock = run_commsim({"calibrate", "--scenario", kScenario, kNcclTests + "ar_g4_sock.txt", "--out", out});
  CHECK(sock.exit_code == 0);
  std::filesystem::remove_all(dir);
}

TEST_CASE("commsim calibrate: a file of fewer ranks than the scenario is fitted on its own ranks", "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("calibrate-ranks");
  const std::string g2 = write_file(dir / "ar_g2.txt", two_rank_copy(scenarios_test::slurp(kNcclTests + "ar_g4.txt")));
  const std::string out = (dir / "p.toml").string();
  const auto two = run_commsim({"calibrate", "--scenario", kScenario, g2, "--out", out, "--json"});
  INFO(two.err);
  REQUIRE(two.exit_code == 0);
  CHECK(two.err == "commsim calibrate: note: " + g2 +
                       " ran on 2 ranks, the scenario has 4: fitted on 2 (cluster.nodes = 1, placement.gpus_per_pod = "
                       "2: the node's first 2 GPUs)\n");
  const auto four =
      run_commsim({"calibrate", "--scenario", kScenario, kNcclTests + "ar_g4.txt", "--out", out, "--json"});
  REQUIRE(four.exit_code == 0);
  // The same times over 2 ranks move 1 x the bytes per link where 4 ranks move 1.5 x: the 2-rank
  // fit needs a lower efficiency for large sizes (the 4-rank busBw factor would give the same).
  const auto p2 = nlohmann::json::parse(two.out)["params"], p4 = nlohmann::json::parse(four.out)["params"];
  CHECK(p2["nvlink.efficiency.simple"].get<double>() < 0.8 * p4["nvlink.efficiency.simple"].get<double>());

  // Two ranks on two hosts do not lay out on one 4-GPU node: refused at the file's first Rank line.
  std::string hosts =
      std::regex_replace(scenarios_test::slurp(g2), std::regex("Rank  1 Group  0 Pid   2759 on         vm "),
                         "Rank  1 Group  0 Pid   2760 on        vm2 ");
  const std::string two_hosts = write_file(dir / "two_hosts.txt", hosts);
  const auto r = run_commsim({"calibrate", "--scenario", kScenario, two_hosts, "--out", out});
  CHECK(r.exit_code == 2);
  CHECK(r.err == two_hosts + ":6:4: " + two_hosts +
                     " ran on 2 ranks over 2 hosts, the scenario has 4 and calibrate cannot lay the file's ranks out "
                     "on it (expected a --scenario of 2 ranks on 2 nodes: set cluster.nodes, placement.pods_per_node "
                     "and placement.gpus_per_pod to the run's)\n");
  // One rank crosses no link: refused at its Rank line too.
  std::string one = std::regex_replace(scenarios_test::slurp(g2), std::regex("nGpus 2"), "nGpus 1");
  one = without_lines(one, [](const std::string& l) { return l.find("Rank  1") != std::string::npos; });
  const std::string one_rank = write_file(dir / "one.txt", one);
  const auto r1 = run_commsim({"calibrate", "--scenario", kScenario, one_rank, "--out", out});
  CHECK(r1.exit_code == 2);
  CHECK(r1.err == one_rank + ":6:4: " + one_rank +
                      " ran on 1 rank, which crosses no link (expected a run of at least 2 ranks)\n");
  std::filesystem::remove_all(dir);
}

TEST_CASE("commsim calibrate: --fix holds nccl.* in the fit and writes every pinned value", "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("calibrate-fix");
  const std::string out = (dir / "p.toml").string();
  const std::vector<std::string> fixes = {"--fix", "nccl.launch_overhead=2.5e-5", "--fix", "nccl.kernel_latency=1e-5",
                                          "--fix", "shm.efficiency.ll=0.2"};
  std::vector<std::string> args = {"calibrate", "--scenario", kScenario, kNcclTests + "ar_g4.txt", "--out", out};
  args.insert(args.end(), fixes.begin(), fixes.end());
  auto with_json = args;
  with_json.push_back("--json");
  const auto r = run_commsim(with_json);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["params"]["nccl.launch_overhead"].get<double>() == 2.5e-5);
  CHECK(j["params"]["nccl.kernel_latency"].get<double>() == 1e-5);
  CHECK(j["params"]["shm.efficiency.ll"].get<double>() == 0.2);
  // The pinned launch cost is the loop's floor at every size: the fit used it.
  for (const auto& p : j["points"]) CHECK(p["predicted_us"].get<double>() >= 25.0 - 1e-9);
  const std::string profile = scenarios_test::slurp(out);
  CHECK(profile.find("\"nccl.launch_overhead\" = 2.5e-05\n") != std::string::npos);
  CHECK(profile.find("\"nccl.kernel_latency\" = 1e-05\n") != std::string::npos);
  CHECK(profile.find("\"shm.efficiency.ll\" = 0.2\n") != std::string::npos);
  const auto text = run_commsim(args);
  CHECK(text.out.find("nccl.kernel_latency          1e-05  (fixed by --fix)") != std::string::npos);
  CHECK(text.out.find("shm.efficiency.ll            0.2  (fixed by --fix)") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("commsim calibrate: --out over the scenario's profile keeps what the fit does not set", "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("calibrate-carry");
  const std::string machine = (dir / "h200x4.toml").string(), profile = (dir / "h200x4.profile.toml").string();
  std::filesystem::copy_file(kScenario, machine);
  // The shipped profile (nvlink, shm, socket fitted) plus a trace's compute rate, as `commsim
  // profile` writes it.
  std::ofstream(profile) << scenarios_test::slurp(std::string(COMMSIM_SOURCE_DIR) +
                                                  "/scenarios/validation/h200x4.profile.toml")
                         << "\"compute.gemm_rate.bf16\" = 6.123456789e+14   # carried from the traced scenario\n";
  const auto r = run_commsim({"calibrate", "--scenario", machine, kNcclTests + "ar_g4.txt", "--out", profile});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string written = scenarios_test::slurp(profile);
  INFO(written);
  // Kept as it was, its comment too; the classes no file exercised keep their values, with where from.
  CHECK(written.find("\"compute.gemm_rate.bf16\" = 612345678900000.0  # carried from the traced scenario\n") !=
        std::string::npos);
  CHECK(written.find("\"shm.efficiency.simple\" = 0.489615  # carried from h200x4.profile.toml\n") !=
        std::string::npos);
  CHECK(written.find("\"socket.hop_latency.simple\" = 2.11744e-05  # carried from h200x4.profile.toml\n") !=
        std::string::npos);
  // What the fit sets is the fit's (no comment), and the profile still loads.
  CHECK(written.find("\"nvlink.efficiency.simple\" = ") != std::string::npos);
  CHECK(written.find("\"nvlink.efficiency.simple\" = 0.777274\n") == std::string::npos);
  CHECK(run_commsim({"nccl-tests", machine, "-b", "1M", "-e", "1M"}).exit_code == 0);
  std::filesystem::remove_all(dir);
}

TEST_CASE("commsim calibrate: errors point at the --fix, the FILE:VAR=VAL argument or the file's line", "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("calibrate-places");
  const std::string out = (dir / "p.toml").string(), g4 = kNcclTests + "ar_g4.txt";
  auto err = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"calibrate", "--scenario", kScenario, "--out", out};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = run_commsim(args);
    CHECK(r.exit_code == 2);
    return r.err;
  };
  // A mistyped name at the option; a value out of range at the value (not the scenario, not the
  // profile's line of the same name).
  CHECK(err({g4, "--fix", "nvlnk.efficiency.ll=0.26"}).rfind("--fix:1:1: ", 0) == 0);
  const std::string range = err({g4, "--fix", "nccl.launch_overhead=2.5e-5", "--fix", "nvlink.efficiency.ll=5"});
  CHECK(range.rfind("--fix:2:22: ", 0) == 0);
  CHECK(range.find("nvlink.efficiency.ll") != std::string::npos);
  // A variable after the file name: the argument is the input, the column its value's.
  const std::string arg = g4 + ":NCCL_P2P_DISABLE=1,NCCL_ALGO=Foo";
  const std::string bad_var = err({arg});
  INFO(bad_var);
  CHECK(bad_var.rfind(arg + ":1:" + std::to_string(g4.size() + 31) + ": ", 0) == 0);
  CHECK(bad_var.find("Foo") != std::string::npos);
  // An INFO line of the file sets an invalid value: the file's line, at the value.
  std::string text = scenarios_test::slurp(g4);
  text.insert(text.find('\n') + 1, "vm:1:1 [0] NCCL INFO NCCL_PROTO set by environment to SimpleX\n");
  const std::string with_info = write_file(dir / "info.txt", text);
  const std::string bad_line = err({with_info});
  INFO(bad_line);
  CHECK(bad_line.rfind(with_info + ":2:55: ", 0) == 0);
  CHECK(bad_line.find("SimpleX") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("commsim calibrate: points left out of the fit are marked, the engine's error is reported", "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("calibrate-engine");
  const std::string out = (dir / "p.toml").string();
  const auto j_run =
      run_commsim({"calibrate", "--scenario", kScenario, kNcclTests + "ar_g4.txt", "--out", out, "--json"});
  REQUIRE(j_run.exit_code == 0);
  const auto j = nlohmann::json::parse(j_run.out);
  const auto& first = j["points"][0];  // 8 B: slower than 8 KiB, the sweep's slow start
  CHECK(first["fitted"] == false);
  CHECK(first["note"] == "not fitted: below the envelope");
  CHECK(first["engine_us"].get<double>() > 0);
  CHECK(j["points"].back()["fitted"] == true);
  CHECK_FALSE(j["points"].back().contains("note"));
  CHECK(j["engine_median_abs_error"].get<double>() > 0);
  CHECK(j["engine_max_abs_error"].get<double>() >= j["engine_median_abs_error"].get<double>());
  const auto text = run_commsim({"calibrate", "--scenario", kScenario, kNcclTests + "ar_g4.txt", "--out", out});
  CHECK(text.out.find("Ring/LL  (not fitted: below the envelope)\n") != std::string::npos);
  CHECK(text.out.find("\nengine with the fitted parameters: median |error| ") != std::string::npos);
  CHECK(text.out.find("\nthe fit's linear model: median |error| ") != std::string::npos);
  CHECK(text.out.find(" not fitted: below the envelope)\n") != std::string::npos);
  const std::string profile = scenarios_test::slurp(out);
  CHECK(profile.find("# Fit quality (the fit's linear model): ") != std::string::npos);
  CHECK(profile.find("# The engine with these parameters: ") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("commsim calibrate: all_reduce and all_gather only, within each protocol's payload, in any row order",
          "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("calibrate-physical");
  const std::string out = (dir / "p.toml").string();
  const std::string ar = scenarios_test::slurp(kNcclTests + "ar_g4.txt");
  // Another collective: refused at the line that names it (the fit's model is a ring or tree
  // collective's; an alltoall fitted as one came out at efficiency 1 and spoiled every other op).
  const std::string a2a =
      write_file(dir / "a2a.txt", std::regex_replace(ar, std::regex("all_reduce_perf"), "alltoall_perf"));
  const auto refused = run_commsim({"calibrate", "--scenario", kScenario, a2a, "--out", out});
  CHECK(refused.exit_code == 2);
  CHECK(refused.err.rfind(a2a + ":2:3: " + a2a + " is alltoall, which calibrate does not fit (expected", 0) == 0);
  CHECK_FALSE(std::filesystem::exists(out));

  // LL moves 4 bytes of data in each 8-byte line: its efficiency stops at 0.5, and says so.
  const auto fit = [&](const std::string& file) {
    const auto r = run_commsim({"calibrate", "--scenario", kScenario, file, "--out", out, "--json"});
    REQUIRE(r.exit_code == 0);
    return nlohmann::json::parse(r.out);
  };
  const auto forward = fit(kNcclTests + "ar_g4.txt");
  const double ll = forward["params"]["nvlink.efficiency.ll"].get<double>();
  CHECK(ll <= 0.5);
  if (ll == Approx(0.5)) {
    bool flagged = false;
    for (const auto& p : forward["params_at_bounds"]) flagged |= p == "nvlink.efficiency.ll";
    CHECK(flagged);
  }
  CHECK(forward["params"]["nvlink.efficiency.ll128"].get<double>() <= 120.0 / 128);

  // The same rows from the largest size down: the same points left out, the same fit.
  std::istringstream in(ar);
  std::string header, line;
  std::vector<std::string> rows;
  while (std::getline(in, line)) {
    const bool row = !line.empty() && line[0] != '#';
    if (row)
      rows.push_back(line);
    else if (rows.empty())
      header += line + "\n";
  }
  std::string reversed = header;
  for (auto it = rows.rbegin(); it != rows.rend(); ++it) reversed += *it + "\n";
  const auto backward = fit(write_file(dir / "reversed.txt", reversed));
  for (const auto& [name, value] : forward["params"].items())
    CHECK(backward["params"][name].get<double>() == Approx(value.get<double>()).epsilon(1e-6));
  std::filesystem::remove_all(dir);
}

TEST_CASE("commsim calibrate: a run away from where its profile was measured says so", "[scenarios]") {
  // The shipped 2 x p5 profile ([fitted] nodes = [2]) at 2 nodes, then at 4.
  const std::string v = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/p5_2node_efa/";
  const std::vector<std::string> base = {"run", v + "scenario.toml", "--set",
                                         "cluster.profile=\"" + v + "p5.profile.toml\"", "--json"};
  auto at = [&](int nodes) {
    auto args = base;
    args.insert(args.end(), {"--set", "cluster.nodes=" + std::to_string(nodes)});
    const auto r = run_commsim(args);
    REQUIRE(r.exit_code == 0);
    std::string caveats;
    const auto j = nlohmann::json::parse(r.out);
    for (const auto& c : j["caveats"]) caveats += c.get<std::string>() + "\n";
    return caveats;
  };
  CHECK(at(2).find("calibration profile") == std::string::npos);
  const std::string four = at(4);
  CHECK(four.find("p5.profile.toml was fitted on p5.48xlarge (H100), its network at 2 nodes; this run has 4 nodes") !=
        std::string::npos);
}

TEST_CASE("commsim calibrate: a file of the scenario's rank count over other hosts is refused at its rank line",
          "[scenarios]") {
  // ar_g4.txt's 4 ranks, each on a host of its own, against the 4 x H200 scenario's one node: the
  // ring would cross a network the scenario does not have.
  const auto dir = scenarios_test::fresh_temp_dir("calibrate-hosts");
  std::string text = scenarios_test::slurp(kNcclTests + "ar_g4.txt");
  for (int r = 0; r < 4; ++r)
    text = std::regex_replace(text, std::regex("(Rank  " + std::to_string(r) + " Group  0 Pid   2759 on) +vm "),
                              "$1        vm" + std::to_string(r) + " ");
  const std::string four_hosts = write_file(dir / "ar_4hosts.txt", text);
  const std::string out = (dir / "p.toml").string();
  const auto r = run_commsim({"calibrate", "--scenario", kScenario, four_hosts, "--out", out});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("ar_4hosts.txt:6:4: ") != std::string::npos);
  CHECK(r.err.find("ran its 4 ranks over 4 hosts, the scenario lays them on 1 node") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(out));
  // nccl-tests --compare warns and compares.
  const auto c = run_commsim({"nccl-tests", kScenario, "--compare", four_hosts, "-e", "1M"});
  CHECK(c.exit_code == 0);
  CHECK(
      c.err.find("ran its 4 ranks over 4 hosts, the scenario lays them on 1 node: the network is crossed elsewhere") !=
      std::string::npos);
  std::filesystem::remove_all(dir);
}

// A refit of a scenario whose profile held a --fix value holds it again (the profile's [fitted]
// `fixed` lists it), and the profile's header names each file as given, with its NCCL variables.
TEST_CASE("commsim calibrate: a refit onto its profile holds the earlier --fix values", "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("calibrate-refit-fix");
  const std::string machine = (dir / "h200x4.toml").string(), profile = (dir / "h200x4.profile.toml").string();
  std::filesystem::copy_file(kScenario, machine);
  std::filesystem::copy_file(std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/h200x4.profile.toml", profile);
  const std::string shm = kNcclTests + "ar_g4_shm.txt:NCCL_P2P_DISABLE=1";
  const auto first = run_commsim({"calibrate", "--scenario", machine, kNcclTests + "ar_g4.txt", shm, "--fix",
                                  "nvlink.efficiency.ll=0.3", "--out", profile});
  INFO(first.err);
  REQUIRE(first.exit_code == 0);
  const std::string written = scenarios_test::slurp(profile);
  CHECK(written.find("#   " + shm + "  (shm)\n") != std::string::npos);
  CHECK(written.find("fixed = [\"nvlink.efficiency.ll\"]\n") != std::string::npos);
  // The refit, without --fix: held at the profile's 0.3, and said so.
  const auto again = run_commsim({"calibrate", "--scenario", machine, kNcclTests + "ar_g4.txt", "--out", profile});
  INFO(again.err);
  REQUIRE(again.exit_code == 0);
  CHECK(again.err.find("nvlink.efficiency.ll held at 0.3") != std::string::npos);
  const std::string refit = scenarios_test::slurp(profile);
  CHECK(refit.find("\"nvlink.efficiency.ll\" = 0.3\n") != std::string::npos);
  CHECK(refit.find("fixed = [\"nvlink.efficiency.ll\"]\n") != std::string::npos);
  // --fix gives another value, and a name that is not a parameter is refused at its place.
  const auto other = run_commsim({"calibrate", "--scenario", machine, kNcclTests + "ar_g4.txt", "--fix",
                                  "nvlink.efficiency.ll=0.25", "--out", profile});
  REQUIRE(other.exit_code == 0);
  CHECK(scenarios_test::slurp(profile).find("\"nvlink.efficiency.ll\" = 0.25\n") != std::string::npos);
  std::string broken = scenarios_test::slurp(profile);
  broken.replace(broken.find("fixed = [\"nvlink.efficiency.ll\"]"), 32, "fixed = [\"nvlink.eficiency.ll\"]");
  std::ofstream(profile) << broken;
  const auto bad = run_commsim({"nccl-tests", machine, "-b", "1M", "-e", "1M"});
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("h200x4.profile.toml:") != std::string::npos);
  CHECK(bad.err.find("is not a registered parameter") != std::string::npos);
  std::filesystem::remove_all(dir);
}
