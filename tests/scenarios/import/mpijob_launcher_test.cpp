// An MPIJob's ranks are its launcher's: mpirun's -np, -N, --map-by ppr:N:node against the workers'
// slots (scenarios/import/job_command.cpp mpi_ranks, k8s_controllers.cpp mpi_launch).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "scenarios/import/job_command.hpp"
#include "scenarios/import/k8s_job.hpp"
#include "scenarios/load/loader.hpp"
#include "tests/scenarios/command_runner.hpp"

using scenarios::UserError;

namespace {
const std::string kMpiJob = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/examples/inputs/mpijob_p4d_2x8.yaml";
}

TEST_CASE("import k8s: an MPIJob's mpirun -np and -N decide its ranks", "[scenarios]") {
  const std::string text = scenarios_test::slurp(kMpiJob);
  auto with_launch = [&](const std::string& flags) {
    std::string t = text;
    const std::string from = R"("-np", "16")";
    const auto at = t.find(from);
    REQUIRE(at != std::string::npos);
    t.replace(at, from.size(), flags);
    return t;
  };
  SECTION("-np equal to the slots: as written") {
    const auto job = scenarios::parse_k8s_job(text, "m.yaml");
    CHECK(job.pods == 2);
    CHECK(job.procs_per_pod == 8);
  }
  SECTION("-np 8 fills the first worker's 8 slots; the second is idle") {
    const auto job = scenarios::parse_k8s_job(with_launch(R"("-np", "8")"), "m.yaml");
    CHECK(job.pods == 1);
    CHECK(job.procs_per_pod == 8);
    REQUIRE_FALSE(job.notes.empty());
    CHECK(job.notes.back().find("1 of the 2 pods of 8 ranks run ranks") != std::string::npos);
  }
  SECTION("-np 4 runs 4 ranks on one pod") {
    const auto job = scenarios::parse_k8s_job(with_launch(R"("-n", "4")"), "m.yaml");
    CHECK(job.pods == 1);
    CHECK(job.procs_per_pod == 4);
  }
  SECTION("-N 4 puts 4 ranks on each worker, --map-by ppr:2:node 2") {
    const auto four = scenarios::parse_k8s_job(with_launch(R"("-x", "NCCL_DEBUG=INFO", "-N", "4")"), "m.yaml");
    CHECK(four.pods == 2);
    CHECK(four.procs_per_pod == 4);
    const auto two =
        scenarios::parse_k8s_job(with_launch(R"("--mca", "btl", "tcp,self", "--map-by", "ppr:2:node")"), "m.yaml");
    CHECK(two.procs_per_pod == 2);
    CHECK(two.pods == 2);
  }
  SECTION("Hydra's -genv NAME VALUE is skipped whole; a count set where the job runs is said, not read") {
    const auto genv = scenarios::parse_k8s_job(with_launch(R"("-genv", "I_MPI_DEBUG", "5", "-n", "8")"), "m.yaml");
    CHECK(genv.pods == 1);
    const auto var = scenarios::parse_k8s_job(with_launch(R"("-np", "$NP")"), "m.yaml");
    CHECK(var.pods == 2);
    REQUIRE_FALSE(var.notes.empty());
    CHECK(var.notes.back().find("mpirun -np $NP is not a number here") != std::string::npos);
  }
  SECTION("without slotsPerWorker a worker has the MPI operator's one slot") {
    std::string t = with_launch(R"("-N", "1")");
    t.erase(t.find("  slotsPerWorker: 8\n"), std::string("  slotsPerWorker: 8\n").size());
    const auto job = scenarios::parse_k8s_job(t, "m.yaml");
    CHECK(job.procs_per_pod == 1);
    CHECK(job.pods == 2);
    bool said = false;
    for (const auto& n : job.notes) said = said || n.find("slotsPerWorker not given") != std::string::npos;
    CHECK(said);
  }
  SECTION("runLauncherAsWorker: the launcher is one more pod, with the workers' GPUs or refused") {
    std::string t = with_launch(R"("-np", "24")");
    t.insert(t.find("  slotsPerWorker: 8"), "  runLauncherAsWorker: true\n");
    try {
      scenarios::parse_k8s_job(t, "m.yaml");  // the example's launcher asks for no GPU
      FAIL("no error");
    } catch (const UserError& e) {
      CHECK(std::string(e.what()).find("runLauncherAsWorker: the launcher pod runs ranks but requests 0 GPUs") !=
            std::string::npos);
    }
    const std::string launcher = "- name: launcher\n";
    REQUIRE(t.find(launcher) != std::string::npos);
    t.insert(t.find(launcher) + launcher.size(), "              resources: {limits: {nvidia.com/gpu: 8}}\n");
    const auto job = scenarios::parse_k8s_job(t, "m.yaml");
    CHECK(job.pods == 3);
    CHECK(job.procs_per_pod == 8);
  }
  SECTION("the program's own -n is not mpirun's") {
    const auto job = scenarios::parse_k8s_job(
        with_launch(R"("--allow-run-as-root", "/opt/nccl-tests/build/all_reduce_perf", "-n", "4")"), "m.yaml");
    CHECK(job.pods == 2);
    CHECK(job.procs_per_pod == 8);
  }
  SECTION("more ranks than slots, or pods filled unevenly, are refused at the launcher's command") {
    for (const char* flags : {R"("-np", "24")", R"("-np", "12")", R"("-N", "9")"}) {
      INFO(flags);
      try {
        scenarios::parse_k8s_job(with_launch(flags), "m.yaml");
        FAIL("no error");
      } catch (const UserError& e) {
        CHECK(std::string(e.what()).find("m.yaml:19:") == 0);
        CHECK(std::string(e.what()).find("the launcher's mpirun -") != std::string::npos);
      }
    }
  }
}

TEST_CASE("import k8s: NCCL variables set by mpirun -x, -genv and -env are the ranks' environment", "[scenarios]") {
  const auto m = scenarios::mpi_ranks(
      "mpirun -np 16 -x NCCL_ALGO=Ring -x NCCL_DEBUG -genv NCCL_PROTO Simple -env FI_PROVIDER=efa python t.py -x 3");
  REQUIRE(m.env.size() == 4);
  CHECK(m.env[0].name == "NCCL_ALGO");
  CHECK(m.env[0].value == "Ring");
  CHECK(m.env[1].name == "NCCL_DEBUG");
  CHECK_FALSE(m.env[1].value);
  CHECK(m.env[2].name == "NCCL_PROTO");
  CHECK(m.env[2].value == "Simple");
  CHECK(m.env[3].name == "FI_PROVIDER");
  CHECK(m.env[3].value == "efa");
  CHECK(m.total == 16);

  // Through commsim import: -x VAR=VAL is written; -x VAR takes the launcher's (else the pod's)
  // value; a variable with no value anywhere, and an envFrom, are notes in the scenario and on stderr.
  const auto dir = scenarios_test::fresh_temp_dir("import-mpirun-env");
  std::string t = scenarios_test::slurp(kMpiJob);
  t.replace(
      t.find(R"("-np", "16")"), std::string(R"("-np", "16")").size(),
      R"("-np", "16", "-x", "NCCL_ALGO=Ring", "-x", "NCCL_PROTO", "-x", "NCCL_MIN_NCHANNELS", "-x", "NCCL_BUFFSIZE")");
  const std::string launcher = "              command: [\"mpirun\"";
  REQUIRE(t.find(launcher) != std::string::npos);
  t.insert(t.find(launcher), "              env: [{name: NCCL_BUFFSIZE, value: \"8388608\"}]\n");
  const std::string worker_env = "                - {name: NCCL_PROTO, value: simple}\n";
  REQUIRE(t.find(worker_env) != std::string::npos);
  t.insert(t.find(worker_env) + worker_env.size(),
           "              envFrom:\n                - configMapRef: {name: nccl-tuning}\n");
  const std::string job = (dir / "m.yaml").string(), out = (dir / "s.toml").string();
  std::ofstream(job) << t;
  const auto r = scenarios_test::run_commsim({"import", "k8s", job, "--out", out});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string toml = scenarios_test::slurp(out);
  CHECK(toml.find("NCCL_ALGO = \"Ring\"  # the launcher's mpirun -x NCCL_ALGO=Ring") != std::string::npos);
  CHECK(toml.find("NCCL_PROTO = \"simple\"  # the launcher's mpirun -x NCCL_PROTO, the container env") !=
        std::string::npos);
  CHECK(toml.find("NCCL_BUFFSIZE = \"8388608\"  # the launcher's mpirun -x NCCL_BUFFSIZE, the launcher's container "
                  "env") != std::string::npos);
  const std::string unknown =
      "NCCL_MIN_NCHANNELS is passed by the launcher's mpirun -x NCCL_MIN_NCHANNELS from an "
      "environment this file does not show: not in [nccl.env] (add it by hand)";
  CHECK(toml.find("# note: " + unknown) != std::string::npos);
  CHECK(r.err.find("commsim import: note: " + unknown + "\n") != std::string::npos);
  const std::string env_from = "envFrom configMapRef nccl-tuning (line 33): its variables are not in this file";
  CHECK(toml.find("# note: " + env_from) != std::string::npos);
  CHECK(r.err.find("commsim import: note: " + env_from) != std::string::npos);
  const auto s = scenarios::load_scenario(out).spec;
  CHECK(s.nccl_env.at("NCCL_ALGO") == "Ring");
  std::filesystem::remove_all(dir);
}
