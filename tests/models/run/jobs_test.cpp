// Several jobs on one fabric (models/run/jobs.hpp) through run_scenario.
//
// Closed form, two jobs sharing a spine: 6 x p4d (4 EFA of 12.5 GB/s each, 50 GB/s a node),
// fat-tree with pods of 2 nodes and ratio x, so a pod's uplink (and downlink) to the spine is
// C_pod = 2 x 50 GB/s / x. Job A holds nodes 1-2 (pods 0 and 1), job B nodes 3-4 (pods 1 and 2):
// each job's ring all-reduce over its 16 ranks crosses pod 1's uplink and downlink, the only
// links they share. Its R = 4 rings (one per NIC group) move 2(n-1)/n S over the pod boundary in
// each direction. Alone, a job's 4 ring edges share C_pod; together, 8 edges (4 per job) share it,
// so each job gets C_pod / 2 (max-min fair; fabric_ring_test.cpp has the one-job form):
//   T_alone    = latency + 2(n-1)/n S / C_pod
//   T_together = latency + 2(n-1)/n S / (C_pod / 2)
//   lost       = T_together - T_alone = 2(n-1)/n S / C_pod
// whenever C_pod / 8 is below a ring edge's own cap (12.5 GB/s per NIC).
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "models/error.hpp"
#include "models/run/jobs.hpp"
#include "models/run/run.hpp"

using namespace models;

namespace {
JobSpec all_reduce_job(const std::string& name, int first, int nodes, int64_t bytes) {
  JobSpec j;
  j.name = name;
  j.first_node = first;
  j.nodes = nodes;
  j.collective = CollectiveSpec{"all_reduce", bytes, 1};
  return j;
}
ScenarioSpec p4d_fat_tree(int nodes, int pod_nodes, double oversubscription) {
  ScenarioSpec s;
  s.cluster.instance = "p4d.24xlarge";
  s.cluster.nodes = nodes;
  s.cluster.fabric.topology = "fat_tree";
  s.cluster.fabric.pod_nodes = pod_nodes;
  s.cluster.fabric.oversubscription = oversubscription;
  s.nccl_env = {{"NCCL_ALGO", "Ring"}, {"NCCL_PROTO", "Simple"}};
  return s;
}
}  // namespace

TEST_CASE("jobs: two jobs' rings crossing one 4:1 pod uplink each get half of it", "[models]") {
  const int64_t S = int64_t{1} << 30;
  const int n = 16;
  ScenarioSpec s = p4d_fat_tree(6, 2, 4);
  s.jobs = {all_reduce_job("a", 1, 2, S), all_reduce_job("b", 3, 2, S)};
  RunOptions audit;
  audit.audit = true;
  const RunResult r = run_scenario(s, audit);
  REQUIRE(r.jobs.size() == 2);
  const double c_pod = 2 * 50e9 / 4;
  const double bw = 2.0 * (n - 1) / n * S / c_pod;
  for (const auto& job : r.jobs) {
    INFO(job.name);
    CHECK(job.gpus == 16);
    CHECK(job.step_alone_s == Approx(bw).epsilon(0.01));
    CHECK(job.step_alone_s > bw);
    CHECK(job.step_together_s == Approx(2 * bw).epsilon(0.01));
    // The latencies cancel: what a job loses is the bandwidth term once more.
    CHECK(job.lost_s() == Approx(bw).epsilon(0.01));
  }
  CHECK(r.jobs[0].first_node == 1);
  CHECK(r.jobs[1].last_node == 4);
  CHECK(r.step_time_s == Approx(std::max(r.jobs[0].step_together_s, r.jobs[1].step_together_s)));
  // Pod 1's uplink carried both jobs' edges out of it: 2 x 2(n-1)/n S.
  bool seen = false;
  for (const auto& l : r.links)
    if (l.name == "fabric/pod1/up") {
      seen = true;
      CHECK(l.bytes == Approx(2 * 2.0 * (n - 1) / n * S).epsilon(1e-6));
    }
  CHECK(seen);
}

TEST_CASE("jobs: jobs in separate pods share no link and lose nothing", "[models]") {
  const int64_t S = int64_t{1} << 30;
  ScenarioSpec s = p4d_fat_tree(4, 2, 4);
  s.jobs = {all_reduce_job("a", 0, 2, S), all_reduce_job("b", 2, 2, S / 2)};
  const RunResult r = run_scenario(s);
  REQUIRE(r.jobs.size() == 2);
  for (const auto& job : r.jobs) {
    INFO(job.name);
    CHECK(job.step_alone_s > 0);
    CHECK(job.lost_s() == 0);
  }
  // The shared run lasts the longer job's step; the shorter one's ranks wait at its end.
  CHECK(r.step_time_s == r.jobs[0].step_together_s);
  REQUIRE(r.ranks.size() == 32);
  CHECK(r.ranks[16].rank == 16);
  CHECK(r.ranks[16].node == 2);
  CHECK(r.ranks[16].breakdown.total() == Approx(r.step_time_s).epsilon(1e-9));
}

TEST_CASE("jobs: one job over the whole cluster gives the single-job scenario's step, ranks and links", "[models]") {
  ScenarioSpec single = p4d_fat_tree(2, 1, 4);
  ModelSpec m;
  m.layers = 4;
  m.hidden = 2048;
  m.heads = 16;
  m.kv_heads = 16;
  m.ffn = 8192;
  m.vocab = 32000;
  m.seq = 1024;
  single.model = m;
  single.parallel.strategy = "zero3";
  const RunResult one = run_scenario(single);
  ScenarioSpec s = p4d_fat_tree(2, 1, 4);
  JobSpec job;
  job.name = "zero3";
  job.nodes = 2;  // a count: placed first-fit, on nodes 0-1
  job.model = m;
  job.parallel.strategy = "zero3";
  s.jobs = {job};
  const RunResult r = run_scenario(s);
  REQUIRE(r.jobs.size() == 1);
  CHECK(r.jobs[0].first_node == 0);
  CHECK(r.jobs[0].step_alone_s == one.step_time_s);
  CHECK(r.jobs[0].step_together_s == one.step_time_s);
  CHECK(r.jobs[0].together.throughput.tokens_per_s == one.throughput.tokens_per_s);
  REQUIRE(r.ranks.size() == one.ranks.size());
  for (std::size_t i = 0; i < r.ranks.size(); ++i) CHECK(r.ranks[i].breakdown.total() == Approx(one.step_time_s));
}

TEST_CASE("jobs: rank classes give the full simulation's times with two jobs on one spine", "[models]") {
  ScenarioSpec s = p4d_fat_tree(6, 2, 4);
  JobSpec a = all_reduce_job("a", 1, 2, int64_t{1} << 28), b = all_reduce_job("b", 3, 2, int64_t{1} << 29);
  a.collective->iterations = 3;
  s.jobs = {a, b};
  RunOptions full;
  full.full = true;
  const RunResult sym = run_scenario(s), all = run_scenario(s, full);
  for (std::size_t i = 0; i < 2; ++i) {
    CHECK(sym.jobs[i].step_alone_s == all.jobs[i].step_alone_s);
    CHECK(sym.jobs[i].step_together_s == all.jobs[i].step_together_s);
  }
  CHECK(sym.jobs[0].lost_s() > 0);
}

TEST_CASE("jobs: node ranges beyond the cluster, overlapping or without room are refused", "[models]") {
  ScenarioSpec s = p4d_fat_tree(4, 2, 4);
  const int64_t S = int64_t{1} << 20;
  auto key_of = [](const ScenarioSpec& spec) {
    try {
      place_jobs(spec);
    } catch (const SpecError& e) {
      return e.key();
    }
    return std::string("none");
  };
  s.jobs = {all_reduce_job("a", 0, 2, S), all_reduce_job("b", 3, 2, S)};
  CHECK(key_of(s) == "jobs.1.nodes");  // nodes 3-4 of 0..3
  s.jobs = {all_reduce_job("a", 0, 3, S), all_reduce_job("b", 2, 2, S)};
  CHECK(key_of(s) == "jobs.1.nodes");  // node 2 twice
  s.jobs = {all_reduce_job("a", 1, 2, S), all_reduce_job("b", 0, 2, S)};
  s.jobs[1].first_node.reset();  // 2 nodes first-fit: 0 and 3 are free, not consecutive
  CHECK(key_of(s) == "jobs.1.nodes");
  s.jobs[0].first_node = 2;  // nodes 2-3: the count takes 0-1
  CHECK(key_of(s) == "none");
  CHECK(place_jobs(s) == std::vector<int>{2, 0});
  s.jobs[1].name = "a";
  CHECK(key_of(s) == "jobs.1.name");
}

TEST_CASE("jobs: on a mixed cluster each job runs on its group's instance, as on a cluster of it alone",
          "[models]") {
  // 2 x p5.48xlarge then 2 x p4d.24xlarge ([[cluster.groups]]), one all-reduce job on each group, on
  // the default non-blocking network: no shared link, so each job's step is its instance's alone.
  const int64_t S = int64_t{1} << 28;
  ScenarioSpec s;
  s.cluster.groups = {{"p5.48xlarge", 2}, {"p4d.24xlarge", 2}};
  s.cluster.instance = "p5.48xlarge";  // as the loader sets it: the first group's
  s.cluster.nodes = 4;
  s.jobs = {all_reduce_job("on p5", 0, 2, S), all_reduce_job("on p4d", 2, 2, S)};
  const RunResult r = run_scenario(s);
  REQUIRE(r.jobs.size() == 2);
  for (const auto& [i, instance] : {std::pair{0, "p5.48xlarge"}, std::pair{1, "p4d.24xlarge"}}) {
    ScenarioSpec alone;
    alone.cluster.instance = instance;
    alone.cluster.nodes = 2;
    alone.collective = CollectiveSpec{"all_reduce", S, 1};
    const double t = run_scenario(alone).step_time_s;
    INFO(instance);
    CHECK(r.jobs[i].step_together_s == Approx(t).epsilon(1e-12));
    CHECK(r.jobs[i].lost_s() == 0);
  }
  CHECK(r.jobs[1].step_together_s > 2 * r.jobs[0].step_together_s);  // 4 x 100 Gb/s EFA vs 32 x 100
  // A job over nodes of both groups is refused at its node range.
  s.jobs = {all_reduce_job("across", 1, 2, S)};
  try {
    run_scenario(s);
    FAIL("a job over two instances ran");
  } catch (const SpecError& e) {
    CHECK(e.key() == "jobs.0.nodes");
    CHECK(std::string(e.what()).find("span the p5.48xlarge group (nodes 0..1)") != std::string::npos);
  }
}

// Llama-3-8B DDP on nodes 0-3 and GPT-2 XL DDP on nodes 4-7 of 8 x p4d, with no [cluster.fabric]
// (a non-blocking network): the jobs share no link, so each job's step together is its step
// alone, lost is 0, and the default (rank classes, closed forms) gives what --full gives. Each
// job has its own collective engine on the one network; a closed form the network remembers is
// named by the network, so one job's collective never repeats another job's (its links, bytes
// and time) under a name both engines gave their first collective.
TEST_CASE("jobs: two jobs that share no link step together as alone, with closed forms as with --full", "[models]") {
  auto ddp = [](const std::string& name, int first, const std::string& preset) {
    JobSpec j;
    j.name = name;
    j.first_node = first;
    j.nodes = 4;
    ModelSpec m;
    m.preset = preset;
    m.seq = 1024;
    j.model = m;
    j.training.steps = 10;
    j.training.grad_checkpointing = true;
    j.parallel.strategy = "ddp";
    return j;
  };
  ScenarioSpec s;
  s.cluster.instance = "p4d.24xlarge";
  s.cluster.nodes = 8;
  s.jobs = {ddp("a", 0, "llama-3-8b"), ddp("b", 4, "gpt2-xl")};
  RunOptions full;
  full.full = true;
  const RunResult r = run_scenario(s), all = run_scenario(s, full);
  REQUIRE(r.jobs.size() == 2);
  REQUIRE(all.jobs.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    INFO(r.jobs[i].name);
    CHECK(r.jobs[i].step_together_s == r.jobs[i].step_alone_s);
    CHECK(r.jobs[i].lost_s() == 0);
    CHECK(r.jobs[i].step_alone_s == Approx(all.jobs[i].step_alone_s).epsilon(1e-12));
    CHECK(r.jobs[i].step_together_s == Approx(all.jobs[i].step_together_s).epsilon(1e-12));
  }
  CHECK(r.jobs[0].step_alone_s > 3 * r.jobs[1].step_alone_s);  // 8.0 B parameters against 1.6 B
}

TEST_CASE("jobs: a job's training.tokens sets its own number of steps", "[models]") {
  // Two ZeRO-3 jobs of Llama-3-8B at seq 2048 on 2 nodes each (16 ranks, micro-batch 1, no
  // accumulation): 16 x 2,048 = 32,768 tokens a step. Job "a" trains 1e8 tokens: ceil(1e8 / 32,768)
  // = 3,052 steps; job "b" runs its 10 steps; the run lasts as long as the longer job.
  ScenarioSpec s = p4d_fat_tree(4, 2, 1);
  s.nccl_env.clear();
  for (int i = 0; i < 2; ++i) {
    JobSpec j;
    j.name = i == 0 ? "a" : "b";
    j.first_node = 2 * i;
    j.nodes = 2;
    j.model = ModelSpec{};
    j.model->preset = "llama-3-8b";
    j.model->seq = 2048;
    j.training.micro_batch = 1;
    j.training.grad_accum = 1;
    j.training.grad_checkpointing = true;
    j.training.steps = 10;
    j.parallel.strategy = "zero3";
    s.jobs.push_back(j);
  }
  s.jobs[0].training.tokens = 1e8;
  const RunResult r = run_scenario(s);
  REQUIRE(r.jobs.size() == 2);
  CHECK(r.jobs[0].together.throughput.tokens_per_step == 32768);
  CHECK(r.jobs[0].together.steps == 3052);
  CHECK(r.jobs[0].together.run_time_s == Approx(3052 * r.jobs[0].together.step_time_s));
  CHECK(r.jobs[1].together.steps == 10);
  CHECK(r.steps == 3052);
  CHECK(r.run_time_s == Approx(r.jobs[0].together.run_time_s));
}
