// `commsim run` through the real binary: deterministic JSON with the contract's keys, atomic --out.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "scenarios/cli/output/goodput_format.hpp"
#include "scenarios/cli/output/result_format.hpp"
#include "tests/scenarios/command_runner.hpp"

namespace fs = std::filesystem;
using scenarios_test::run_commsim;

namespace {
const std::string kAllReduceOfCmdRun = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/examples/allreduce_h200x4.toml";
}

TEST_CASE("scenarios: run --json prints one object with the contract's keys, identical across runs", "[scenarios]") {
  const auto a = run_commsim({"run", kAllReduceOfCmdRun, "--json"});
  REQUIRE(a.exit_code == 0);
  const auto b = run_commsim({"run", kAllReduceOfCmdRun, "--json"});
  CHECK(a.out == b.out);  // byte-identical
  const auto j = nlohmann::json::parse(a.out);
  for (const char* key : {"step_time_s", "run_time_s", "ranks", "links", "transports"}) CHECK(j.contains(key));
  REQUIRE(j["ranks"].size() == 4);
  for (const char* key : {"rank", "node", "pod", "gpu", "compute_s", "comm_s", "exposed_comm_s", "barrier_wait_s"})
    CHECK(j["ranks"][0].contains(key));
  CHECK(j["step_time_s"].get<double>() > 0);
  for (const auto& l : j["links"])
    for (const char* key : {"name", "kind", "bytes", "busy_s", "utilization"}) CHECK(l.contains(key));
  for (const auto& t : j["transports"]) CHECK((t.contains("label") && t.contains("pairs")));
}

TEST_CASE("scenarios: run --out writes result.json and summary.txt", "[scenarios]") {
  const fs::path dir = scenarios_test::fresh_temp_dir("out") / "res";
  const auto r = run_commsim({"run", kAllReduceOfCmdRun, "--out", dir.string()});
  REQUIRE(r.exit_code == 0);
  CHECK(scenarios_test::slurp(dir / "summary.txt") == r.out);
  CHECK(nlohmann::json::parse(scenarios_test::slurp(dir / "result.json")).contains("step_time_s"));
  size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++files;
  CHECK(files == 2);  // no temporary left over
  fs::remove_all(dir.parent_path());
}

namespace {
const std::string kP5 = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/seeds/p5_1pod_8gpu.toml";
}

TEST_CASE("scenarios: run --json carries the memory estimate per rank and fits", "[scenarios]") {
  const auto r = run_commsim({"run", kP5, "--json"});
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["fits"] == true);
  const auto& m = j["memory"];
  CHECK(m["gpu"] == "H100");
  CHECK(m["capacity_bytes"].get<double>() == 85017493504.0);  // what an H100 gives a process (hw/gpu_memory.hpp)
  CHECK(m["peak_bytes"].get<double>() < 80e9);
  double sum = 0;
  for (const auto& [name, bytes] : m["terms"].items()) sum += bytes.get<double>();
  CHECK(sum == Approx(m["peak_bytes"].get<double>()));
  for (const auto& k : j["ranks"]) CHECK(k["memory_peak_bytes"].get<double>() > 0);
  // Throughput: 8 ranks x micro-batch 1 x grad_accum 4 = 32 samples of 2048 tokens per step.
  const auto& t = j["throughput"];
  CHECK(t["samples_per_step"].get<double>() == 32);
  CHECK(t["tokens_per_s"].get<double>() == Approx(32 * 2048 / j["step_time_s"].get<double>()));
  CHECK(t["mfu"].get<double>() > 0);
  CHECK(t["mfu"].get<double>() < 1);
  CHECK(t["hardware_flops_per_step"].get<double>() > t["model_flops_per_step"].get<double>());  // recompute
  // A bare collective has no memory estimate.
  const auto bare = nlohmann::json::parse(run_commsim({"run", kAllReduceOfCmdRun, "--json"}).out);
  CHECK(bare["memory"].is_null());
  CHECK(bare["fits"] == true);
  CHECK(bare["throughput"].is_null());
}

TEST_CASE("scenarios: a layout that does not fit is flagged in run, run --json, compare and sweep", "[scenarios]") {
  // Llama-3-8B in plain DDP on 8 x H100 80 GB: 2 + 2 + 4 B per parameter of model
  // states alone, plus foreach AdamW's temporary and DDP's buckets, is over 80 GB.
  const auto text = run_commsim({"run", kP5, "--set", "parallel.strategy=ddp"});
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("DOES NOT FIT") != std::string::npos);
  CHECK(text.out.find("optimizer_states") != std::string::npos);
  CHECK(text.out.find("85.02 GB") != std::string::npos);  // what an H100 exposes (models/hw/gpu_memory)
  const auto j = nlohmann::json::parse(run_commsim({"run", kP5, "--set", "parallel.strategy=ddp", "--json"}).out);
  CHECK(j["fits"] == false);
  CHECK(j["memory"]["peak_bytes"].get<double>() > 80e9);
  const auto cmp = run_commsim({"compare", kP5, kP5, "--set", "parallel.strategy=ddp"});
  REQUIRE(cmp.exit_code == 0);
  CHECK(cmp.out.find("WARNING [1]") != std::string::npos);
  const auto sweep = run_commsim({"sweep", kP5, "--vary", "parallel.strategy=zero3,ddp", "--jobs", "1"});
  REQUIRE(sweep.exit_code == 0);
  CHECK(sweep.out.find(
            ",fits,memory_peak_bytes,memory_capacity_bytes,tokens_per_s,samples_per_s,"
            "model_tflops_per_gpu,mfu,tokens_per_s_per_gpu,gpus,nodes,pods,layout,step_mean_s,step_median_s,step_p99_s,"
            "step_max_s,tokens_per_s_sampled,interruptions_per_day,checkpoint_interval_s,goodput,expected_wall_s,"
            "expected_cost_usd,"
            "usd_per_hour,cost_per_step_usd,cost_per_run_usd,cost_per_million_tokens_usd,price_source,pricing,billed_s,"
            "samples,seed,inputs_digest\n") != std::string::npos);
  CHECK(sweep.err.find("1 of 2 points do not fit") != std::string::npos);
  // One GPU count throughout: no scaling to show (scaling_efficiency_test.cpp has the line's cases).
  CHECK(sweep.err.find("scaling efficiency") == std::string::npos);
  // Two --vary keys: no single first point to compare with (the --html page draws one line each).
  const auto two = run_commsim({"sweep", kP5, "--vary", "parallel.strategy=zero3,ddp", "--vary",
                                "training.micro_batch=1,2", "--jobs", "1"});
  REQUIRE(two.exit_code == 0);
  CHECK(two.err.find("scaling efficiency") == std::string::npos);
}

// --progress: the run's progress on standard error even into a file (a quick run: its set-up
// stages, the share simulated, a last line), and standard output unchanged.
TEST_CASE("scenarios: run --progress draws the progress on standard error, not on standard output", "[scenarios]") {
  const auto quiet = run_commsim({"run", kAllReduceOfCmdRun, "--json"});
  const auto loud = run_commsim({"run", kAllReduceOfCmdRun, "--json", "--progress"});
  REQUIRE(loud.exit_code == 0);
  CHECK(loud.out == quiet.out);
  CHECK(quiet.err.empty());  // not a terminal, not asked: nothing
  CHECK(loud.err.rfind("commsim run: ", 0) == 0);
  CHECK(loud.err.find("commsim run: done in ") != std::string::npos);
  CHECK(loud.err.find('\r') == std::string::npos);
}

TEST_CASE("scenarios: run notes what padding an unaligned vocabulary would save, and only then", "[scenarios]") {
  // GPT-2's 50257 rows: cuBLAS's fallback kernels for the head (models/compute/gemm.hpp).
  const std::string gpt2 = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/h200x1/gpt2.toml";
  const auto odd = run_commsim({"run", gpt2});
  REQUIRE(odd.exit_code == 0);
  CHECK(odd.out.find("the LM head's 50257 rows are not a multiple of 8") != std::string::npos);
  CHECK(odd.out.find("model.vocab = 50304 would save about") != std::string::npos);
  const auto padded = run_commsim({"run", gpt2, "--set", "model.vocab=50304"});
  REQUIRE(padded.exit_code == 0);
  CHECK(padded.out.find("LM head") == std::string::npos);
  // Megatron pads to 128 x tp itself: no note.
  const auto megatron = run_commsim({"run", gpt2, "--set", "parallel.strategy=\"megatron\""});
  REQUIRE(megatron.exit_code == 0);
  CHECK(megatron.out.find("LM head") == std::string::npos);
}

// hidden / heads and heads / kv_heads are pairs: the --set that broke one is what the error names,
// not the preset's other half in the file.
TEST_CASE("scenarios: a model shape error points at the --set that broke the pair", "[scenarios]") {
  const auto hidden = run_commsim({"run", kP5, "--set", "model.hidden=1"});
  CHECK(hidden.exit_code == 2);
  CHECK(hidden.err == "--set:1:14: hidden size 1 is not divisible by 32 heads (expected heads dividing hidden)\n");
  const auto heads = run_commsim({"run", kP5, "--set", "model.heads=4"});
  CHECK(heads.exit_code == 2);
  CHECK(heads.err.rfind("--set:1:13: 4 heads are not a multiple of 8 kv_heads", 0) == 0);
}

TEST_CASE("scenarios: Ethernet NICs of a custom node are NET/Socket's interfaces, nics x nic_bandwidth in all",
          "[scenarios]") {
  // nic_kind = "eth": the Socket plugin opens one device per interface, so 2 x 25 Gb/s runs as a
  // node whose interface has 50 Gb/s, and 2 NICs of no given rate as 2 x 10 Gb/s (NCCL's default).
  const fs::path dir = scenarios_test::fresh_temp_dir("eth");
  auto scenario = [&](const std::string& name, const std::string& node_lines) {
    const fs::path p = dir / (name + ".toml");
    std::ofstream(p) << "[cluster]\nnodes = 2\n[cluster.node]\ngpu = \"H200\"\ngpus = 8\n"
                     << node_lines << "[collective]\nop = \"all_reduce\"\nbytes = \"256 MiB\"\n";
    const auto r = run_commsim({"run", p.string(), "--json"});
    REQUIRE(r.exit_code == 0);
    return nlohmann::json::parse(r.out)["step_time_s"].get<double>();
  };
  CHECK(scenario("nics", "nics = 2\nnic_kind = \"eth\"\nnic_bandwidth = \"25 Gb/s\"\n") ==
        scenario("eth", "eth_bandwidth = \"50 Gb/s\"\n"));
  CHECK(scenario("default", "nics = 2\nnic_kind = \"eth\"\n") == scenario("eth20", "eth_bandwidth = \"20 Gb/s\"\n"));
  // One node without nic_bandwidth once built NIC links of no capacity and aborted: it runs.
  const fs::path one = dir / "one.toml";
  std::ofstream(one) << "[cluster]\nnodes = 1\n[cluster.node]\ngpu = \"H200\"\ngpus = 8\nnics = 2\nnic_kind = \"eth\"\n"
                        "[collective]\nop = \"all_reduce\"\nbytes = \"1 GiB\"\n";
  for (const char* cmd : {"run", "topo"}) CHECK(run_commsim({cmd, one.string()}).exit_code == 0);
  fs::remove_all(dir);
}

TEST_CASE("scenarios: a layout that fits with under 5 % of the GPU's memory left says it may not fit", "[scenarios]") {
  // Llama-3-8B at 2,304 tokens, Megatron tp 1 pp 1 dp 16, micro-batch 2 on 2 x p5: 83.90 of 85.02 GB.
  const std::string s = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/examples/plan_llama3_8b.toml";
  const std::vector<std::string> tight = {"run",   s,
                                          "--set", "cluster.nodes=2",
                                          "--set", "model.seq=2304",
                                          "--set", "training.micro_batch=2",
                                          "--set", "parallel.tp=1",
                                          "--set", "parallel.pp=1",
                                          "--set", "parallel.sequence_parallel=false"};
  const auto r = run_commsim(tight);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("DOES NOT FIT") == std::string::npos);
  CHECK(r.out.find("WARNING    TIGHT: rank 0's peak leaves") != std::string::npos);
  CHECK(r.out.find("0.4-17 GB") != std::string::npos);
  // The shipped layout (tp 2 pp 4, 27 of 85 GB) says nothing of the kind.
  CHECK(run_commsim({"run", s}).out.find("TIGHT") == std::string::npos);
}

// A run of days says so in days, as the goodput line's wall time does, with its hours beside;
// a shorter one keeps hours and minutes alone.
TEST_CASE("scenarios: run prints a run of days in days and hours, as its goodput line", "[scenarios]") {
  const std::string example = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/examples/plan_llama3_8b.toml";
  for (const char* tokens : {"training.tokens=1e12", "training.tokens=1e9"}) {
    const auto js = run_commsim({"run", example, "--set", tokens, "--json"});
    REQUIRE(js.exit_code == 0);
    const auto j = nlohmann::json::parse(js.out);
    const double run_s = j["run_time_s"].get<double>();
    const auto r = run_commsim({"run", example, "--set", tokens});
    REQUIRE(r.exit_code == 0);
    INFO(tokens << "\n" << r.out);
    const std::string steps = "  (" + std::to_string(j["steps"].get<long long>()) + " steps)\n";
    // 1e12 tokens on one node take months, 1e9 hours: both forms are checked.
    REQUIRE((run_s >= 2 * 86400) == (std::string(tokens) == "training.tokens=1e12"));
    if (run_s >= 2 * 86400) {
      const std::string days = scenarios::goodput_duration(run_s);
      CHECK(r.out.find("run time   " + days + " = " + scenarios::format_seconds(run_s) + steps) != std::string::npos);
      CHECK(r.out.find("for " + days + " of steps") != std::string::npos);  // the goodput line's words
    } else {
      CHECK(r.out.find("run time   " + scenarios::format_seconds(run_s) + steps) != std::string::npos);
    }
  }
}
