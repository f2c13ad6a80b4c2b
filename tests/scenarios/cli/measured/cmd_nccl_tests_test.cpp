// `commsim nccl-tests` through the real binary: a pasted nccl-tests command line is accepted
// (flags that cannot change a prediction get a note), -d changes the type and count columns,
// a multi-node prediction looks like an mpirun run (one Pid per rank, nGpus 1, node names),
// -g N gives one process per pod, did-you-mean for --op and -d, and a single-process table is
// byte for byte the one models::calibrate::format_nccl_tests prints.
#include <catch2/catch.hpp>

#include <fstream>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "models/calibrate/nccl_tests.hpp"
#include "scenarios/load/loader.hpp"
#include "tests/scenarios/command_runner.hpp"

using scenarios_test::run_commsim;

namespace {
const std::string kNcclTestsSource = COMMSIM_SOURCE_DIR;
const std::string kH200x4 = kNcclTestsSource + "/scenarios/validation/h200x4.toml";                 // single_process = true
const std::string kP4dNodes = kNcclTestsSource + "/scenarios/validation/p4d_nodes_allreduce.toml";  // 4 nodes x 8 GPUs

std::vector<std::string> lines_starting(const std::string& text, const std::string& prefix) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    if (l.rfind(prefix, 0) == 0) out.push_back(l);
  return out;
}
}  // namespace

TEST_CASE("scenarios: nccl-tests accepts a pasted nccl-tests command line", "[scenarios]") {
  const auto r = run_commsim({"nccl-tests", kH200x4,    "./build/all_gather_perf",
                              "-b",         "8",        "-e",
                              "128M",       "-f",       "2",
                              "-g",         "4",        "-n",
                              "50",         "-w",       "5",
                              "-d",         "bfloat16", "-c",
                              "0",          "-t",       "1",
                              "-z",         "0",        "-a",
                              "1",          "-o",       "sum",
                              "-m",         "1",        "-p",
                              "0",          "-N",       "1",
                              "-G",         "0",        "-C",
                              "0",          "-R",       "0",
                              "-T",         "100"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("# Collective test starting: all_gather_perf") != std::string::npos);
  CHECK(r.out.find("# nThread 1 nGpus 4 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 50 agg "
                   "iters: 1 validation: 0 graph: 0") != std::string::npos);
  // Notes only for values that differ from nccl-tests' defaults and cannot change a prediction.
  CHECK(r.err ==
        "commsim nccl-tests: note: -n 50: shown in the header (a predicted iteration does not depend on it)\n"
        "commsim nccl-tests: note: -c 0: shown in the header (a prediction has no data to check)\n"
        "commsim nccl-tests: note: -T 100: ignored (a prediction has no timeout)\n");
  // -g 1 (as under mpirun) on a scenario that runs a pod's GPUs in one process: the scenario's
  // layout, said on stderr, and the override that gives one process per GPU.
  const std::string one_per_gpu_note =
      "commsim nccl-tests: note: -t x -g = 1: the scenario runs the 4 GPUs of a pod in one process "
      "(placement.single_process); --set placement.single_process=false predicts one process per GPU, as mpirun "
      "-np N runs -g 1\n";
  const auto g1 = run_commsim({"nccl-tests", kH200x4, "-g", "1", "-b", "1M", "-e", "1M"});
  REQUIRE(g1.exit_code == 0);
  CHECK(g1.out.find("# nThread 1 nGpus 4 ") != std::string::npos);
  CHECK(g1.err == one_per_gpu_note);
  const auto mp = run_commsim(
      {"nccl-tests", kH200x4, "-g", "1", "-b", "1M", "-e", "1M", "--set", "placement.single_process=false"});
  REQUIRE(mp.exit_code == 0);
  CHECK(mp.out.find("# nThread 1 nGpus 1 ") != std::string::npos);
  CHECK(mp.out.find("#  Rank  3 Group  0 Pid   1003 ") != std::string::npos);
  CHECK(mp.err.empty());
  // nccl-tests' --op is the reduction, as in a pasted line.
  const auto op = run_commsim({"nccl-tests", kH200x4, "all_reduce_perf", "--op", "max", "-b", "1M", "-e", "1M"});
  REQUIRE(op.exit_code == 0);
  CHECK(op.out.find("     1048576        262144     float     max      -1") != std::string::npos);
  CHECK(op.err == "commsim nccl-tests: note: -o max: every reduction costs the same in the model\n");
}

TEST_CASE("scenarios: nccl-tests -d changes the type and count columns as nccl-tests does", "[scenarios]") {
  auto row_of = [](const std::string& type) {
    const auto r = run_commsim({"nccl-tests", kH200x4, "-b", "1M", "-e", "1M", "-d", type});
    REQUIRE(r.exit_code == 0);
    return lines_starting(r.out, "     1048576").at(0);
  };
  // count = size / sizeof(type); the time depends on bytes only.
  CHECK(row_of("float").rfind("     1048576        262144     float     sum", 0) == 0);
  CHECK(row_of("bfloat16").rfind("     1048576        524288  bfloat16     sum", 0) == 0);
  CHECK(row_of("half").rfind("     1048576        524288      half     sum", 0) == 0);
  CHECK(row_of("int8").rfind("     1048576       1048576      int8     sum", 0) == 0);
  CHECK(row_of("double").rfind("     1048576        131072    double     sum", 0) == 0);
  CHECK(row_of("float").substr(50) == row_of("double").substr(50));
  // -d all: one size sweep per type, as nccl-tests repeats it.
  const auto all = run_commsim({"nccl-tests", kH200x4, "-b", "1M", "-e", "2M", "-d", "all"});
  CHECK(lines_starting(all.out, "     ").size() == 20);
  const auto bad = run_commsim({"nccl-tests", kH200x4, "-d", "bf16"});
  CHECK(bad.exit_code == 2);
  CHECK(bad.err == "-d:1:1: unknown data type 'bf16' (did you mean 'bfloat16'?)\n");
}

TEST_CASE("scenarios: a multi-node nccl-tests prediction looks like an mpirun run", "[scenarios]") {
  const auto r = run_commsim({"nccl-tests", kP4dNodes, "-b", "1M", "-e", "1M"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("# nThread 1 nGpus 1 minBytes") != std::string::npos);
  const auto ranks = lines_starting(r.out, "#  Rank");
  REQUIRE(ranks.size() == 32);
  std::set<std::string> pids;
  for (const auto& l : ranks) pids.insert(l.substr(l.find("Pid"), 11));
  CHECK(pids.size() == 32);  // one process per rank
  CHECK(ranks[8].find("on      node1 device  0") != std::string::npos);
  CHECK(ranks[31].find("on      node3 device  7") != std::string::npos);
  // -g 8: one process drives the 8 GPUs of each node (mpirun -np 4 ... -g 8).
  const auto g8 = run_commsim({"nccl-tests", kP4dNodes, "-b", "1M", "-e", "1M", "-g", "8"});
  REQUIRE(g8.exit_code == 0);
  CHECK(g8.out.find("# nThread 1 nGpus 8 minBytes") != std::string::npos);
  pids.clear();
  for (const auto& l : lines_starting(g8.out, "#  Rank")) pids.insert(l.substr(l.find("Pid"), 11));
  CHECK(pids.size() == 4);
  const auto g16 = run_commsim({"nccl-tests", kP4dNodes, "-g", "16"});
  CHECK(g16.exit_code == 2);
  CHECK(g16.err.rfind("-g:1:1: 16 GPUs per process (-t x -g) but a pod has 8", 0) == 0);
  // --json says the same.
  const auto j = nlohmann::json::parse(run_commsim({"nccl-tests", kP4dNodes, "-b", "1M", "-e", "1M", "--json"}).out);
  CHECK(j["command"] == "nccl-tests");
  CHECK(j["processes"] == 32);
  CHECK(j["ranks"][31]["host"] == "node3");
  CHECK(j["rows"][0]["size_bytes"] == 1048576);
}

TEST_CASE("scenarios: nccl-tests --op and the program name get a did-you-mean", "[scenarios]") {
  const auto r = run_commsim({"nccl-tests", kH200x4, "--op", "allreduce"});
  CHECK(r.exit_code == 2);
  CHECK(r.err == "--op:1:1: unknown collective 'allreduce' (did you mean 'all_reduce'?)\n");
  const auto p = run_commsim({"nccl-tests", kH200x4, "all_gahter_perf"});
  CHECK(p.exit_code == 2);
  CHECK(p.err == "program:1:1: unknown nccl-tests program 'all_gahter_perf' (did you mean 'all_gather_perf'?)\n");
  // A mistyped suffix is matched too, and a name far from every program lists them as programs.
  CHECK(run_commsim({"nccl-tests", kH200x4, "all_reduce_perff"}).err ==
        "program:1:1: unknown nccl-tests program 'all_reduce_perff' (did you mean 'all_reduce_perf'?)\n");
  CHECK(run_commsim({"nccl-tests", kH200x4, "foo"}).err.find("expected all_reduce_perf, all_gather_perf") !=
        std::string::npos);
}

TEST_CASE("scenarios: a single-process nccl-tests table is the one models::calibrate::format_nccl_tests prints",
          "[scenarios]") {
  const auto loaded = scenarios::load_scenario(kH200x4);
  models::calibrate::NcclTestsOptions o;
  o.min_bytes = 8;
  o.max_bytes = 1 << 30;
  o.factor = 4;
  const auto expected = models::calibrate::format_nccl_tests(models::calibrate::run_nccl_tests(loaded.spec, o), o);
  const auto r = run_commsim({"nccl-tests", kH200x4, "-b", "8", "-e", "1G", "-f", "4"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == expected);
}

TEST_CASE("scenarios: nccl-tests --compare says what it takes for a bare table's collective and ranks", "[scenarios]") {
  const std::string v = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/p5_2node_efa/";
  const auto bare = scenarios_test::run_commsim(
      {"nccl-tests", v + "scenario.toml", "--compare", v + "measured/all_reduce_perf.txt", "-e", "1M"});
  REQUIRE(bare.exit_code == 0);
  CHECK(bare.err.find("all_reduce_perf.txt does not say which collective it measured") != std::string::npos);
  CHECK(bare.err.find("compared as all_reduce, the default (give the program or --op)") != std::string::npos);
  CHECK(bare.err.find("all_reduce_perf.txt does not say how many ranks ran it") != std::string::npos);
  CHECK(bare.err.find("compared as the scenario's 16") != std::string::npos);
  // Named on the command line: only the ranks are left to say.
  const auto named = scenarios_test::run_commsim({"nccl-tests", v + "scenario.toml", "all_reduce_perf", "--compare",
                                                  v + "measured/all_reduce_perf.txt", "-e", "1M"});
  REQUIRE(named.exit_code == 0);
  CHECK(named.err.find("does not say which collective") == std::string::npos);
}

TEST_CASE("scenarios: nccl-tests --compare says where the scenario's NCCL variable overrides the file's",
          "[scenarios]") {
  const std::string s = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/h200x4.toml";
  const std::string sock =
      std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/h200x4/measured/nccl-tests/ar_g4_sock.txt";
  const auto r = scenarios_test::run_commsim(
      {"nccl-tests", s, "--set", "nccl.env.NCCL_P2P_DISABLE=\"0\"", "--compare", sock, "-e", "1M"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("ar_g4_sock.txt ran with NCCL_P2P_DISABLE=1 (the scenario's 0): the scenario's values are kept") !=
        std::string::npos);
}

TEST_CASE("scenarios: a measured row nccl-tests found wrong results in is warned about, at its line", "[scenarios]") {
  const std::string dir = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/";
  std::string text = scenarios_test::slurp(dir + "h200x4/measured/nccl-tests/ar_g4.txt");
  const std::string row = "   30.67       0    30.42";
  REQUIRE(text.find(row) != std::string::npos);
  text.replace(text.find(row), row.size(), "   30.67       3    30.42");  // the 1 MiB row, line 31
  const auto tmp = scenarios_test::fresh_temp_dir("wrong-rows");
  const std::string file = (tmp / "ar_wrong.txt").string();
  std::ofstream(file) << text;
  const auto r = scenarios_test::run_commsim({"nccl-tests", dir + "h200x4.toml", "--compare", file, "-e", "1M"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find(file + ":31: 1 row of this table reports wrong results (#wrong > 0)") != std::string::npos);
  std::filesystem::remove_all(tmp);
}

// nccl-tests outputs appended into one file (all_reduce_perf, then all_gather_perf): --op picks the
// run compared and the other is named in a note; without --op the file's own collective is taken
// where it has one, and a file of two is refused, naming both.
TEST_CASE("nccl-tests --compare: a file holding two collectives compares the one --op names", "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("nccl-tests-two-ops");
  const std::string two = (dir / "two.txt").string();
  const auto ar = run_commsim({"nccl-tests", kH200x4, "--op", "all_reduce", "-b", "1M", "-e", "4M"});
  const auto ag = run_commsim({"nccl-tests", kH200x4, "--op", "all_gather", "-b", "1M", "-e", "4M"});
  REQUIRE((ar.exit_code == 0 && ag.exit_code == 0));
  std::ofstream(two) << ar.out << ag.out;
  const auto gather = run_commsim({"nccl-tests", kH200x4, "--op", "all_gather", "--compare", two});
  INFO(gather.err);
  REQUIRE(gather.exit_code == 0);
  CHECK(gather.out.find("# 3 sizes compared: median |error| 0.0 %") != std::string::npos);
  CHECK(gather.err.find("two.txt also holds 1 run of other collectives, not compared") != std::string::npos);
  const auto both = run_commsim({"nccl-tests", kH200x4, "--compare", two});
  CHECK(both.exit_code == 2);
  CHECK(both.err.find(two + ":1:1: ") == 0);
  CHECK(both.err.find("holds runs of all_reduce_perf, all_gather_perf (expected --op all_reduce or --op all_gather") !=
        std::string::npos);
  // One collective, not all_reduce, no --op: the file's own.
  const std::string one = (dir / "gather.txt").string();
  std::ofstream(one) << ag.out;
  const auto own = run_commsim({"nccl-tests", kH200x4, "--compare", one});
  INFO(own.err);
  REQUIRE(own.exit_code == 0);
  CHECK(own.out.find("# Collective test starting: all_gather_perf") != std::string::npos);
  std::filesystem::remove_all(dir);
}

// The sizes the host's loop binds are named where that loop's cost is a default (a host's own,
// from a profile or --set, is not questioned), with the largest such size and the cost.
TEST_CASE("nccl-tests: the sizes bound by a default host loop get a note", "[scenarios]") {
  const std::string p5 = kNcclTestsSource + "/scenarios/validation/p5_1node/scenario.toml";
  const auto small = run_commsim({"nccl-tests", p5, "-b", "8", "-e", "16M", "-f", "4", "--json"});
  REQUIRE(small.exit_code == 0);
  const auto j = nlohmann::json::parse(small.out);
  std::string note;
  for (const auto& n : j.at("notes"))
    if (n.get<std::string>().find("host's loop") != std::string::npos) note = n.get<std::string>();
  REQUIRE(!note.empty());
  // The largest size whose device time is below the loop's 25 us: the loop time (L^4 + D^4)^(1/4)
  // is below 2^(1/4) L exactly there (LinkParams::loop_time).
  int64_t largest = -1;
  for (const auto& r : j.at("rows"))
    if (r.at("time_us").get<double>() < std::pow(2.0, 0.25) * 25.0)
      largest = std::max(largest, r.at("size_bytes").get<int64_t>());
  REQUIRE(largest > 0);
  CHECK(note.find("sizes up to " + std::to_string(largest) + " B are bound") == 0);
  CHECK(note.rfind("sizes up to ", 0) == 0);
  CHECK(note.find("25.0 us per call (nccl.launch_overhead, a default)") != std::string::npos);
  CHECK(note.find("commsim calibrate") != std::string::npos);
  // The host's own loop: no note.
  const auto own = run_commsim(
      {"nccl-tests", p5, "-b", "8", "-e", "16M", "-f", "4", "--set", "cluster.params.nccl.launch_overhead=8e-6"});
  REQUIRE(own.exit_code == 0);
  CHECK(own.err.find("host's loop") == std::string::npos);
  // Sizes the GPUs bind alone: no note.
  const auto large = run_commsim({"nccl-tests", p5, "-b", "64M", "-e", "1G"});
  REQUIRE(large.exit_code == 0);
  CHECK(large.err.find("host's loop") == std::string::npos);
}
