// run_scenario's pipeline options (models/run/run.hpp).
#include <catch2/catch.hpp>

#include "models/calibrate/nccl_tests.hpp"
#include "models/run/run.hpp"

// --time-limit counts the set-up (World, plans, programs) too: a budget the set-up already spent
// stops the run at the next set-up stage boundary, before its first op, marked partial.
TEST_CASE("run: --time-limit covers the set-up", "[models]") {
  models::ScenarioSpec s;
  s.cluster.instance = "h200x4";
  s.collective = models::CollectiveSpec{};
  s.collective->op = "all_reduce";
  s.collective->bytes = 1 << 20;
  models::RunOptions options;
  options.time_limit_s = 1e-9;
  const auto stopped = models::run_scenario(s, options);
  CHECK(stopped.partial);
  // Stopped at the first stage boundary, before anything else was built, and the notes say so.
  REQUIRE(stopped.notes.size() == 1);
  CHECK(stopped.notes[0].find("of set-up, while building the world") != std::string::npos);
  CHECK(stopped.notes[0].find("no operation simulated") != std::string::npos);
  CHECK(stopped.ranks.empty());
  CHECK(stopped.breakdown.at("simulated_fraction") == 0);
  options.time_limit_s = 60;
  const auto done = models::run_scenario(s, options);
  CHECK_FALSE(done.partial);
  CHECK(done.step_time_s > 0);
}

// RunOptions::progress: each set-up stage once, in the pipeline's order, then the share of the
// step's operations simulated, never going back within one simulation and ending at 1.
TEST_CASE("run: progress reports the set-up stages, then the share simulated up to 1", "[models]") {
  models::ScenarioSpec s;
  s.cluster.instance = "h200x4";
  s.collective = models::CollectiveSpec{};
  s.collective->op = "all_reduce";
  s.collective->bytes = 1 << 20;
  std::vector<std::string> stages;
  std::vector<double> fractions;
  models::RunOptions options;
  options.progress = [&](std::string_view stage, double fraction) {
    if (fraction < 0)
      stages.emplace_back(stage);
    else
      fractions.push_back(fraction);
  };
  const auto done = models::run_scenario(s, options);
  CHECK_FALSE(done.partial);
  REQUIRE(stages.size() >= 4);
  CHECK(stages[0] == "building the world (placement, transports, links)");
  CHECK(stages[1] == "building the collective engine");
  CHECK(stages[2] == "writing every rank's step program");
  CHECK(stages[3] == "estimating every rank's memory");
  REQUIRE_FALSE(fractions.empty());
  for (std::size_t i = 1; i < fractions.size(); ++i) CHECK(fractions[i] >= fractions[i - 1]);
  CHECK(fractions.back() == 1.0);
  // Without a listener nothing changes: the same step.
  CHECK(models::run_scenario(s).step_time_s == done.step_time_s);
}

// The network plugin's variables the scenario did not set are named in the notes: a user whose
// plugin is older (no NCCL_BUFFSIZE of its own) sees what differs; one the scenario sets is not.
TEST_CASE("run: the notes name the aws-ofi-nccl variables applied under [nccl.env]", "[models]") {
  models::ScenarioSpec s;
  s.cluster.instance = "p4d.24xlarge";
  s.cluster.nodes = 2;
  s.placement.pods_per_node = 1;
  s.placement.gpus_per_pod = 8;
  s.collective = models::CollectiveSpec{};
  s.collective->op = "all_reduce";
  s.collective->bytes = 1 << 20;
  const auto note_of = [](const models::RunResult& r) {
    for (const auto& n : r.notes)
      if (n.find("aws-ofi-nccl") != std::string::npos) return n;
    return std::string();
  };
  const std::string note = note_of(models::run_scenario(s, {}));
  CHECK(note.find("NCCL_BUFFSIZE=8388608") != std::string::npos);
  CHECK(note.find("NCCL_P2P_NET_CHUNKSIZE=524288") != std::string::npos);
  CHECK(note.find("NVLS") == std::string::npos);  // p4d: no NVLS chunk sizes
  s.nccl_env["NCCL_BUFFSIZE"] = "4194304";
  CHECK(note_of(models::run_scenario(s, {})).find("NCCL_BUFFSIZE") == std::string::npos);
  s.cluster.instance = "h200x4";
  s.cluster.nodes = 1;
  s.placement.gpus_per_pod = 4;
  CHECK(note_of(models::run_scenario(s, {})).empty());
}

// RunResult::links keeps the 32 busiest; link_classes counts every link by kind, so a class whose
// links all fall below the 32nd (EFA under NVLink here) is still reported, with its mean.
TEST_CASE("run: link classes cover every link, the busiest-links list only 32", "[models]") {
  models::ScenarioSpec s;
  s.cluster.instance = "p5.48xlarge";
  s.cluster.nodes = 2;
  s.collective = models::CollectiveSpec{};
  s.collective->op = "all_reduce";
  s.collective->bytes = 1 << 26;
  const auto r = models::run_scenario(s, {});
  CHECK(r.links.size() <= 32);
  int64_t total = 0;
  bool efa = false, nvlink = false;
  for (const auto& c : r.link_classes) {
    total += c.links;
    efa = efa || c.kind == "efa";
    nvlink = nvlink || c.kind == "nvlink";
    CHECK(c.mean_utilization <= c.max_utilization + 1e-12);
    CHECK(c.max_utilization <= 1.0 + 1e-9);
  }
  CHECK(total > static_cast<int64_t>(r.links.size()));
  CHECK(efa);
  CHECK(nvlink);
  for (size_t i = 1; i < r.link_classes.size(); ++i)
    CHECK(r.link_classes[i - 1].max_utilization >= r.link_classes[i].max_utilization);
}

// [collective] op = "sendrecv" is nccl-tests' sendrecv_perf: every rank sends to the next and
// receives from the previous at once, in a communicator of every rank, so the step is the
// emulated nccl-tests row's time, on one node (NVLink) and on four (EFA between nodes), and no
// rank idles.
TEST_CASE("run: a bare sendrecv is every rank's ring exchange, as nccl-tests runs it", "[models]") {
  for (int nodes : {1, 4}) {
    INFO(nodes);
    models::ScenarioSpec s;
    s.cluster.instance = "p5.48xlarge";
    s.cluster.nodes = nodes;
    s.collective = models::CollectiveSpec{};
    s.collective->op = "sendrecv";
    s.collective->bytes = int64_t{64} << 20;
    const auto r = models::run_scenario(s, {});
    models::calibrate::NcclTestsOptions o;
    o.op = models::nccl::CollOp::SendRecv;
    o.min_bytes = o.max_bytes = s.collective->bytes;
    o.iters = 1;
    const auto t = models::calibrate::run_nccl_tests(s, o);
    REQUIRE(t.rows.size() == 1);
    CHECK(r.step_time_s == Approx(t.rows[0].time_us * 1e-6).epsilon(1e-6));  // the clock's picoseconds
    REQUIRE(r.ranks.size() == size_t(8 * nodes));
    for (const auto& rank : r.ranks) CHECK(rank.comm_s > 0);
  }
}

TEST_CASE("run: a mixture-of-experts step says what routing it assumed and that no whole MoE step checks it",
          "[models]") {
  models::ScenarioSpec s;
  s.cluster.instance = "dgx-h100";
  s.cluster.nodes = 1;
  s.model = models::ModelSpec{};
  s.model->preset = "qwen3-30b-a3b";
  s.model->seq = 2048;
  s.training.grad_accum = 2;
  s.parallel.strategy = "megatron";
  s.parallel.ep = 8;
  const auto caveat_of = [](const models::RunResult& r) {
    for (const std::string& c : r.caveats)
      if (c.rfind("mixture of experts: ", 0) == 0) return c;
    return std::string();
  };
  const std::string balanced = caveat_of(models::run_scenario(s, {}));
  CHECK(balanced.find("tokens are routed evenly (model.token_skew = 1") != std::string::npos);
  CHECK(balanced.find("no measured multi-GPU MoE training step checks a whole step") != std::string::npos);
  s.model->token_skew = 1.5;
  CHECK(
      caveat_of(models::run_scenario(s, {})).rfind("mixture of experts: model.token_skew = 1.5 gives every rank", 0) ==
      0);
  // A dense model has none.
  s.model->preset = "llama-3-8b";
  s.model->token_skew.reset();
  s.parallel.ep = 1;
  CHECK(caveat_of(models::run_scenario(s, {})).empty());
}
