// Scenarios written from real NCCL logs load with the scenario loader and run; `commsim nccl-log`
// prints one FILE:LINE:COL line and exit code 2 on a bad log, leaving no scenario behind.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "models/readers/nccl_log.hpp"
#include "scenarios/import/nccl_log_scenario.hpp"
#include "scenarios/load/loader.hpp"
#include "tests/scenarios/command_runner.hpp"

using scenarios_test::run_commsim;

namespace {
const std::string kLogInputs = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/examples/inputs/";
const std::string kCal = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/h200x4/measured/";

scenarios::LoadedScenario from_log(const std::string& path, const std::string& instance = "") {
  const auto report = models::readers::parse_nccl_log_file(path);
  return scenarios::load_scenario_text(scenarios::scenario_from_nccl_log(report, {instance}), "from_log.toml");
}
}  // namespace

TEST_CASE("nccl-log scenario: seed 000 (4 pods x 1 GPU on one p4d.24xlarge, EFA)", "[scenarios]") {
  const auto s = from_log(kLogInputs + "seed000_p4d_4pods_efa.log").spec;
  CHECK(s.cluster.instance == "p4d.24xlarge");
  // nNodes 4 x localRanks 1 packed on one 8-GPU host, pods not sharing IPC
  CHECK(s.cluster.nodes == 1);
  CHECK(s.placement.pods_per_node == 4);
  CHECK(s.placement.gpus_per_pod == 1);
  CHECK_FALSE(s.placement.host_ipc);
  CHECK(s.placement.efa_plugin_ok);
  CHECK(s.nccl_env.at("NCCL_PROTO") == "simple");  // added by aws-ofi-nccl
  CHECK(s.nccl_env.at("NCCL_BUFFSIZE") == "8388608");
  REQUIRE(s.model.has_value());
  CHECK(s.model->preset == "llama-3-8b");  // 8,030,261,248 trainable parameters
  CHECK(s.training.micro_batch == 4);
  CHECK(s.training.grad_accum == 4);
  CHECK(s.training.steps == 50);
  CHECK(s.parallel.strategy == "zero3");
  CHECK(s.zero.offload_optimizer == "cpu");
}

TEST_CASE("nccl-log scenario: seed 004 (plugin failure on g6e.8xlarge)", "[scenarios]") {
  const auto s = from_log(kLogInputs + "seed004_g6e_4pods_socket_fallback.log").spec;
  CHECK(s.cluster.instance == "g6e.8xlarge");
  CHECK(s.cluster.nodes == 4);  // one GPU per host
  CHECK(s.placement.pods_per_node == 1);
  CHECK_FALSE(s.placement.efa_plugin_ok);
  CHECK(s.nccl_env.count("NCCL_PROTO") == 0);
}

TEST_CASE("nccl-log scenario: calibration logs need --instance, env-disabled P2P keeps one pod", "[scenarios]") {
  const auto report = models::readers::parse_nccl_log_file(kCal + "logs/p2p_n4.rank0.log");
  CHECK_THROWS_AS(scenarios::scenario_from_nccl_log(report, {}), scenarios::UserError);
  const auto p2p = from_log(kCal + "logs/p2p_n4.rank0.log", "h200x4").spec;
  CHECK(p2p.cluster.nodes == 1);
  CHECK(p2p.placement.gpus_per_pod == 4);
  REQUIRE(p2p.collective.has_value());  // no trainer lines: a 1 GiB all-reduce probe
  CHECK(p2p.collective->op == "all_reduce");
  // sock_n4: localRanks 1 because NCCL_P2P_DISABLE=1 and NCCL_SHM_DISABLE=1, not because of pods
  const auto sock = from_log(kCal + "logs/sock_n4.rank0.log", "h200x4").spec;
  CHECK(sock.placement.pods_per_node == 1);
  CHECK(sock.placement.gpus_per_pod == 4);
  CHECK(sock.nccl_env.at("NCCL_P2P_DISABLE") == "1");
  // one process drives the 4 GPUs in nccl-tests -g 4
  const auto g4 = from_log(kCal + "nccl-tests/ar_g4_info.txt", "h200x4").spec;
  CHECK(g4.placement.single_process);
  // An instance with fewer GPUs than a log's node ran ranks could not have run it: refused at
  // --instance, not written as a scenario that `run` then refuses.
  scenarios::LogScenarioOptions one_gpu;
  one_gpu.instance = "g6e.8xlarge";
  CHECK_THROWS_WITH(scenarios::scenario_from_nccl_log(report, one_gpu),
                    Catch::StartsWith("--instance:1:1: the log's NCCL nodes run 4 ranks each (localRanks), but "
                                      "g6e.8xlarge has 1 GPU"));
}

TEST_CASE("commsim nccl-log: report, JSON, and a scenario that commsim run runs", "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("nccllog");
  const std::string out = (dir / "seed004.toml").string();
  auto r = run_commsim({"nccl-log", kLogInputs + "seed004_g6e_4pods_socket_fallback.log", "--scenario", out});
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("[critical] net-plugin-failed") != std::string::npos);
  CHECK(r.out.find("NET/Socket x7") != std::string::npos);
  REQUIRE(std::filesystem::exists(out));
  auto run = run_commsim({"run", out, "--json"});
  CHECK(run.exit_code == 0);
  CHECK(run.out.find("\"step_time_s\"") != std::string::npos);

  auto js = run_commsim({"nccl-log", kLogInputs + "seed000_p4d_4pods_efa.log", "--json"});
  CHECK(js.exit_code == 0);
  CHECK(js.out.find("\"NET/Libfabric/GDRDMA\": 12") != std::string::npos);
  CHECK(js.out.find("\"ranks-isolated\"") != std::string::npos);
  // What the same job gains in one pod. The 4 isolated ranks of seed 000 talk over EFA;
  // in one pod of the same p4d.24xlarge they use NVLink, so the simulated step must be shorter.
  const auto j = nlohmann::json::parse(js.out);
  REQUIRE(j.contains("one_pod_comparison"));
  CHECK(j["one_pod_comparison"]["gpus_per_pod"] == 4);
  CHECK(j["one_pod_comparison"]["one_pod_step_s"].get<double>() <
        j["one_pod_comparison"]["logged_step_s"].get<double>());
  CHECK(j["findings"][0]["id"] == "ranks-isolated");
  std::filesystem::remove_all(dir);
}

TEST_CASE("commsim nccl-log: a garbled log is one FILE:LINE:COL line, exit 2, nothing written", "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("nccllog-bad");
  const std::string log = (dir / "cut.log").string();
  {
    std::ofstream f(log);
    f << "h:1:2 [0] NCCL INFO NCCL version 2.21.5\nh:1:2 [0] NCCL INFO comm 0x1 rank 0 nRanks\n";
  }
  const std::string out = (dir / "s.toml").string();
  auto r = run_commsim({"nccl-log", log, "--scenario", out});
  CHECK(r.exit_code == 2);
  CHECK(r.err == log +
                     ":2:21: NCCL line cut short or garbled: 'comm 0x1 rank 0 nRanks' (expected 'comm 0x... rank R "
                     "nRanks N nNodes M localRanks L localRank K')\n");
  CHECK(r.out.empty());
  CHECK_FALSE(std::filesystem::exists(out));
  // binary
  {
    std::ofstream f(log, std::ios::binary);
    f << std::string(
        "\x7f"
        "ELF\x02\x01\x01\0\0\0",
        10);
  }
  r = run_commsim({"nccl-log", log});
  CHECK(r.exit_code == 2);
  CHECK(r.err.rfind(log + ":1:1: binary data", 0) == 0);
  // no instance known and none given
  r = run_commsim({"nccl-log", kCal + "logs/p2p_n4.rank0.log", "--scenario", out});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--instance") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(out));
  std::filesystem::remove_all(dir);
}

// Older NCCL versions' logs ("Init COMPLETE" only) become scenarios when every rank's line is
// there; otherwise the message says what is missing and which log would do.
TEST_CASE("nccl-log scenario: an older NCCL log (no nNodes line)", "[scenarios]") {
  std::string log;
  for (int r = 0; r < 4; ++r)
    log += "host-" + std::to_string(r / 2) + ":" + std::to_string(10 + r) + ":1 [" + std::to_string(r % 2) +
           "] NCCL INFO comm 0x" + std::to_string(100 + r) + " rank " + std::to_string(r) + " nranks 4 cudaDev " +
           std::to_string(r % 2) + " busId 1000 - Init COMPLETE\n";
  const auto full =
      models::readers::parse_nccl_log("host-0:10:1 [0] NCCL INFO NCCL version 2.18.3+cuda12.2\n" + log, "old.log");
  const auto s =
      scenarios::load_scenario_text(scenarios::scenario_from_nccl_log(full, {"p4d.24xlarge"}), "o.toml").spec;
  CHECK(s.cluster.instance == "p4d.24xlarge");
  // 2 NCCL nodes of 2 ranks packed on one 8-GPU host (pods not sharing IPC), as for later logs
  CHECK(s.cluster.nodes * s.placement.pods_per_node == 2);
  CHECK(s.placement.gpus_per_pod == 2);
  CHECK(s.nccl_version == 21803);  // the banner's release picks the tuner's tables

  const auto half = models::readers::parse_nccl_log(
      "host-0:10:1 [0] NCCL INFO NCCL version 2.18.3+cuda12.2\n" + log.substr(0, log.find("host-1")), "half.log");
  try {
    scenarios::scenario_from_nccl_log(half, {"p4d.24xlarge"});
    FAIL("no error");
  } catch (const scenarios::UserError& e) {
    const std::string m = e.what();
    CHECK(m.find("NCCL 2.18.3+cuda12.2 prints no nNodes/localRanks, and the log shows 2 of the 4 ranks") !=
          std::string::npos);
    CHECK(m.find("(expected the log of every rank") != std::string::npos);
  }
}

TEST_CASE("nccl-log scenario: the logged rank count, on hosts of one size, and the instance used", "[scenarios]") {
  // Seed 000's log as if 6 ranks ran on 6 NCCL nodes, given a 4-GPU instance: 2 hosts of 3 pods
  // (not 2 x 4 = 8 ranks), and the diagnosis names the instance given, not the log's platform.
  const auto dir = scenarios_test::fresh_temp_dir("nccllog-six");
  std::string text = scenarios_test::slurp(kLogInputs + "seed000_p4d_4pods_efa.log");
  for (auto at = text.find("nRanks 4 nNodes 4"); at != std::string::npos; at = text.find("nRanks 4 nNodes 4"))
    text.replace(at, 17, "nRanks 6 nNodes 6");
  const std::string log = (dir / "six.log").string(), out = (dir / "six.toml").string();
  std::ofstream(log) << text;
  const auto r = run_commsim({"nccl-log", log, "--instance", "h200x4", "--scenario", out, "--no-simulate"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto s = scenarios::load_scenario(out).spec;
  CHECK(s.cluster.nodes == 2);
  CHECK(s.placement.pods_per_node == 3);
  CHECK(s.placement.gpus_per_pod == 1);
  CHECK(scenarios_test::slurp(out).find(
            "# nNodes 6 x localRanks 1 on h200x4 (4 GPUs): 3 pods packed per host on 2 hosts, not sharing IPC") !=
        std::string::npos);
  CHECK(r.out.find("(h200x4 has 4 GPUs)") != std::string::npos);
  CHECK(r.out.find("p4d.24xlarge has") == std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("nccl-log scenario: NCCL_HOSTID per rank is left out, the log's nNodes kept", "[scenarios]") {
  // Four processes of one host, each with its own NCCL_HOSTID (nNodes 4, localRanks 1, NET/Socket).
  const std::string log =
      std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/h200x1/measured/nccl_socket/nccl_rank0.log";
  const auto report = models::readers::parse_nccl_log_file(log);
  const std::string toml = scenarios::scenario_from_nccl_log(report, {"h200x4"});
  CHECK(toml.find("NCCL_HOSTID = ") == std::string::npos);
  CHECK(toml.find("# NCCL_HOSTID=host0 (line 17) left out: commsim applies it to every pod of a node, which would "
                  "join what the log counts as nNodes 4; [placement] gives those nodes\n") != std::string::npos);
  const auto s = scenarios::load_scenario_text(toml, "hostid.toml").spec;
  CHECK(s.nccl_env.count("NCCL_HOSTID") == 0);
  CHECK(s.nccl_env.at("NCCL_NVLS_ENABLE") == "0");
  CHECK(s.cluster.nodes == 1);
  CHECK(s.placement.pods_per_node == 4);
  CHECK(s.placement.gpus_per_pod == 1);
  CHECK_FALSE(s.placement.host_ipc);
  // The scenario's NCCL counts the log's nodes.
  const auto dir = scenarios_test::fresh_temp_dir("hostid-scenario");
  const std::string path = (dir / "hostid.toml").string();
  std::ofstream(path) << toml;
  const auto topo = run_commsim({"topo", path});
  REQUIRE(topo.exit_code == 0);
  CHECK(topo.out.find("NCCL counts nNodes 4\n") != std::string::npos);
  // The report's alternative is the run without the variable.
  const auto rep = run_commsim({"nccl-log", log, "--instance", "h200x4"});
  REQUIRE(rep.exit_code == 0);
  CHECK(rep.out.find("  without NCCL_HOSTID (1 host of 4 GPUs)   step 0.005 s  (105.58x faster)") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("nccl-log scenario: a log's NCCL_TUNER_CONFIG_FILE is left out, with what to do instead", "[scenarios]") {
  // The seed's log with NCCL's example tuner loaded: its file is on the run's machine, so a written
  // scenario naming it would not load here.
  std::ifstream in(kLogInputs + "seed000_p4d_4pods_efa.log");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string at = "llama-3-8b-node-0-0:188:188 [0] NCCL INFO ";
  text.insert(text.find('\n') + 1, at + "NCCL_TUNER_PLUGIN set by environment to example\n" + at +
                                       "NCCL_TUNER_CONFIG_FILE set by environment to /shared/tuner.csv\n");
  const std::string toml = scenarios::scenario_from_nccl_log(models::readers::parse_nccl_log(text, "t.log"), {""});
  CHECK(toml.find("NCCL_TUNER_CONFIG_FILE = ") == std::string::npos);
  CHECK(toml.find("# NCCL_TUNER_CONFIG_FILE=/shared/tuner.csv (line 3) left out: the file is on the run's machine") !=
        std::string::npos);
  const auto s = scenarios::load_scenario_text(toml, "tuner.toml").spec;
  CHECK(s.nccl_env.at("NCCL_TUNER_PLUGIN") == "example");
  CHECK(s.nccl_env.count("NCCL_TUNER_CONFIG_FILE") == 0);
}
