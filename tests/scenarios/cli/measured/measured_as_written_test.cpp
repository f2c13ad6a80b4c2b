// Measured files as their tools write them, through the commands that read them: NCCL Inspector's
// per-rank AllGather size (diff simulates nccl-tests' whole buffer), nccl-tests -C 1 (commsim's own
// prediction read back by --compare and calibrate), and a profiler trace of two GPUs (per-GPU
// means: the one-GPU trace's profile, no negative idle).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/scenarios/command_runner.hpp"

using scenarios_test::run_commsim;

namespace {
const std::string kWrittenRun = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/h200x1/measured_run/";
const std::string kWrittenH200x4 = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/h200x4.toml";
}  // namespace

TEST_CASE("diff: an Inspector AllGather of 32 MiB per rank is nccl-tests' 256 MiB", "[scenarios][measured]") {
  const auto dir = scenarios_test::fresh_temp_dir("inspector-per-rank");
  const std::string lines = (dir / "ag.jsonl").string();
  // As the plugin writes it: 8 ranks, 32 MiB per rank, 700 us; algbw = 32 MiB x 8 / 700 us.
  const std::string head = R"({"header":{"id":"0x7f","rank":0,"n_ranks":8,"nnodes":1},"coll_perf":{"coll":")";
  const std::string tail = R"(","coll_sn":3,"coll_msg_size_bytes":33554432,"coll_exec_time_us":700,)"
                           R"("coll_timing_source":"kernel_gpu","coll_algobw_gbs":383.479,"coll_busbw_gbs":335.544}})";
  std::ofstream(lines) << head << "AllGather" << tail << "\n" << head << "ReduceScatter" << tail << "\n";
  const auto r = run_commsim({"diff", lines, kWrittenRun + "inspector_node.toml"});
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("collective all_gather 268435456 B on 8 ranks         700.000 us  689.506 us  "
                                    "-10.494 us    -1.5%  nvlink.efficiency.simple"));
  CHECK_THAT(r.out, Catch::Contains("collective reduce_scatter 268435456 B on 8 ranks     700.000 us  712.289 us  "
                                    "+12.289 us    +1.8%  nvlink.efficiency.simple"));
  // The shipped hand-written lines: the AllGather of 4 MiB per rank is nccl-tests' 32 MiB.
  const auto f =
      run_commsim({"diff", kWrittenRun + "inspector_handwritten.jsonl", kWrittenRun + "inspector_node.toml"});
  REQUIRE(f.exit_code == 0);
  CHECK_THAT(f.out, Catch::Contains("collective all_gather 33554432 B on 8 ranks          121.000 us  111.459 us"));
  CHECK_THAT(f.out, Catch::Contains("collective reduce_scatter 268435456 B on 8 ranks     880.000 us  712.289 us"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("nccl-tests -C 1: commsim's own cputime table reads back through --compare and calibrate",
          "[scenarios][measured]") {
  const auto dir = scenarios_test::fresh_temp_dir("cputime-round-trip");
  const std::string table = (dir / "ar_cpu.txt").string();
  const std::vector<std::string> sweep = {"all_reduce_perf", "-b", "1M", "-e", "64M", "-f", "2", "-g", "4"};
  std::vector<std::string> predict = {"nccl-tests", kWrittenH200x4};
  predict.insert(predict.end(), sweep.begin(), sweep.end());
  auto p = predict;
  p.insert(p.end(), {"-C", "1"});
  const auto written = run_commsim(p);
  REQUIRE(written.exit_code == 0);
  CHECK_THAT(written.out, Catch::Contains("  cputime   algbw   busbw  #wrong  cputime   algbw"));
  std::ofstream(table) << written.out;
  const std::string note = "commsim: note: " + table +
                           ":14: the time columns are nccl-tests' cputime (-C 1), the host's time to launch an "
                           "iteration, not the collective's: each row's time is read as size / algbw (nccl-tests "
                           "computes algbw from the time to completion)\n";
  auto c = predict;
  c.insert(c.end(), {"--compare", table});
  const auto compared = run_commsim(c);
  REQUIRE(compared.exit_code == 0);
  CHECK(compared.err == note);  // once, though --compare reads the file twice
  // 2 MiB: 2097152 B / 52.16 GB/s = 40.21 us against the 40.20 printed; algbw's print is the precision.
  CHECK_THAT(compared.out, Catch::Contains("     2097152       40.21       40.20     -0.0%    Ring LL"));
  CHECK_THAT(compared.out, Catch::Contains("# 7 sizes compared: median |error| 0.0 %, max |error| 0.0 %"));
  const std::string profile = (dir / "fit.toml").string();
  const auto fit = run_commsim({"calibrate", "--scenario", kWrittenH200x4, table, "--out", profile, "--json"});
  REQUIRE(fit.exit_code == 0);
  CHECK(fit.err == note);
  const auto j = nlohmann::json::parse(fit.out);
  // The profile's own NVLink parameters come back to 0.1 % (h200x4.profile.toml: ll 0.26, ll128
  // 0.670343, simple 0.777274), as from a table with time columns.
  CHECK(j["params"]["nvlink.efficiency.ll"].get<double>() == Approx(0.26).epsilon(0.001));
  CHECK(j["params"]["nvlink.efficiency.ll128"].get<double>() == Approx(0.670343).epsilon(0.001));
  CHECK(j["params"]["nvlink.efficiency.simple"].get<double>() == Approx(0.777274).epsilon(0.001));
  std::filesystem::remove_all(dir);
}

TEST_CASE("profile and diff: a trace of two GPUs doing the same work is read per GPU", "[scenarios][measured]") {
  // The shipped one-GPU trace with every GPU event repeated on device 1 (one process driving two
  // GPUs, or two ranks' traces merged).
  const auto dir = scenarios_test::fresh_temp_dir("two-gpu-trace");
  auto trace = nlohmann::json::parse(scenarios_test::slurp(kWrittenRun + "kineto_plain_step.json"));
  nlohmann::json more = nlohmann::json::array();
  for (const auto& e : trace["traceEvents"]) {
    const std::string cat = e.value("cat", "");
    if (cat != "kernel" && cat != "gpu_memcpy" && cat != "gpu_memset") continue;
    auto copy = e;
    copy["args"]["device"] = 1;
    more.push_back(copy);
  }
  for (auto& e : more) trace["traceEvents"].push_back(e);
  const std::string two = (dir / "two_gpu.json").string();
  std::ofstream(two) << trace.dump();
  const std::string out = (dir / "two.profile.toml").string();
  const auto p = run_commsim({"profile", two, "--scenario", kWrittenRun + "plain_step.toml", "--out", out});
  REQUIRE(p.exit_code == 0);
  // The one-GPU trace's numbers (docs/measured-runs.md), not twice them.
  CHECK_THAT(p.out, Catch::Contains("gemm                      67.300 ms    68.164 ms   0.9923"));
  CHECK_THAT(p.out, Catch::Contains("GPU idle / gaps            2.815 ms     3.011 ms   0.9351"));
  CHECK_THAT(p.out, Catch::Contains("with this profile 114.875 ms (-0.5 %)"));
  CHECK(p.err == "commsim profile: note: " + two +
                     ": the trace holds 2 GPUs: every time is the mean per GPU (fitted as one rank's; their work "
                     "should be alike, as data-parallel ranks')\n");
  const auto d = run_commsim({"diff", two, kWrittenRun + "plain_step.toml"});
  REQUIRE(d.exit_code == 0);
  CHECK_THAT(d.out, Catch::Contains("idle       GPU idle between kernels                    2.815 ms    3.011 ms "
                                    "+195.392 us    +6.9%  compute.launch_gap"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("profile and diff: kernels that overlap give no idle time, never a negative one", "[scenarios][measured]") {
  // The shipped trace with its kernels also on a second stream of the same GPU, 1 us later: busy
  // doubles while the span grows by 1 us, so busy exceeds span.
  const auto dir = scenarios_test::fresh_temp_dir("overlap-trace");
  auto trace = nlohmann::json::parse(scenarios_test::slurp(kWrittenRun + "kineto_plain_step.json"));
  nlohmann::json more = nlohmann::json::array();
  for (const auto& e : trace["traceEvents"]) {
    if (e.value("cat", "") != "kernel") continue;
    auto copy = e;
    copy["ts"] = e["ts"].get<double>() + 1;
    more.push_back(copy);
  }
  for (auto& e : more) trace["traceEvents"].push_back(e);
  const std::string path = (dir / "overlap.json").string();
  std::ofstream(path) << trace.dump();
  const std::string out = (dir / "o.profile.toml").string();
  const auto p = run_commsim({"profile", path, "--scenario", kWrittenRun + "plain_step.toml", "--out", out, "--json"});
  REQUIRE(p.exit_code == 0);
  const auto j = nlohmann::json::parse(p.out);
  CHECK(j["idle_s"].is_null());
  CHECK(j["trace_gpus"] == 1);
  CHECK_FALSE(j["gaps_fitted"].get<bool>());
  CHECK_THAT(p.err,
             Catch::Contains("the GPU's kernels overlap (busy ") && Catch::Contains("its idle time is not measured"));
  CHECK_THAT(scenarios_test::slurp(out), Catch::Contains("#   idle (gaps): not fitted (the trace's kernels overlap"));
  const auto t = run_commsim({"profile", path, "--scenario", kWrittenRun + "plain_step.toml", "--out", out});
  REQUIRE(t.exit_code == 0);
  CHECK_THAT(t.out, Catch::Contains("GPU idle / gaps             overlap     3.011 ms        -"));
  const auto d = run_commsim({"diff", path, kWrittenRun + "plain_step.toml"});
  REQUIRE(d.exit_code == 0);
  CHECK_THAT(d.out, !Catch::Contains("GPU idle between kernels"));
  CHECK_THAT(d.out, Catch::Contains("compute    gemm"));
  std::filesystem::remove_all(dir);
}
