// The planner's space (space.hpp): what it enumerates and what arithmetic drops.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "models/error.hpp"
#include "models/hw/instance.hpp"
#include "models/model/model_shape.hpp"
#include "models/plan/candidate.hpp"
#include "models/plan/space.hpp"
#include "tests/models/plan/plan_fixture.hpp"

using namespace models::plan;

TEST_CASE("plan: node counts cover the GPU range in whole nodes", "[models][plan]") {
  CHECK(node_counts(8, 64, 1024).front() == 8);
  CHECK(node_counts(8, 64, 1024).back() == 128);
  CHECK(node_counts(8, 64, 1024).size() == 121);
  CHECK(node_counts(8, 60, 70) == std::vector<int>{8});
  CHECK(node_counts(8, 9, 15).empty());
}

TEST_CASE("plan: every candidate divides the GPUs and the global batch", "[models][plan]") {
  const auto base = plan_test::small_base();
  const auto m = models::model::resolve_model(*base.model);
  SpaceStats st;
  const auto cands = enumerate_space(base, m, plan_test::small_options().space, &st);
  REQUIRE(!cands.empty());
  std::set<std::string> strategies;
  for (const auto& c : cands) {
    INFO(layout_text(c));
    CHECK(c.gpus() % c.model_parallel() == 0);
    CHECK(base.training.global_batch % (c.dp() * c.micro_batch) == 0);
    CHECK(m.layers % c.pp == 0);
    CHECK((c.strategy == "megatron" || (c.tp == 1 && c.pp == 1)));
    CHECK((c.tp == 1 || c.sequence_parallel));
    strategies.insert(c.strategy);
  }
  CHECK(strategies == std::set<std::string>{"megatron", "zero1", "zero3", "fsdp", "ddp"});
  // 8 and 16 GPUs, data parallel: dp x mb must divide 32 -> (8, 1), (8, 2), (16, 1), (16, 2) for
  // each of 4 strategies x 2 recompute modes = 32 candidates.
  size_t dp_only = 0;
  for (const auto& c : cands) dp_only += c.strategy != "megatron";
  CHECK(dp_only == 32);
  CHECK(st.considered > int64_t(cands.size()));
}

TEST_CASE("plan: a space needs the global batch and a catalog instance", "[models][plan]") {
  auto base = plan_test::small_base();
  const auto m = models::model::resolve_model(*base.model);
  base.training.global_batch = 0;
  CHECK_THROWS_AS(enumerate_space(base, m, {}), models::SpecError);
  base.training.global_batch = 32;
  SpaceOptions o;
  o.instances = {"p5.48xlarg"};
  CHECK_THROWS_AS(enumerate_space(base, m, o), models::SpecError);
}

TEST_CASE("plan: an NVL72 rack gives all its hosts or a power of two of them, and is paid whole", "[models][plan]") {
  const auto& rack = models::hw::find_instance("gb200-nvl72");
  REQUIRE(rack.hosts() == 18);
  CHECK(used_gpus_per_node(rack, {}) == std::vector<int>{72, 64});  // 18 and 16 trays of 4
  CHECK(used_gpus_per_node(models::hw::find_instance("u-p6e-gb200x36"), {}) == std::vector<int>{36, 32});
  CHECK(used_gpus_per_node(rack, {16}) == std::vector<int>{64});
  CHECK(used_gpus_per_node(models::hw::find_instance("p5.48xlarge"), {4}) == std::vector<int>{8});  // one host
  CHECK_THROWS_AS(used_gpus_per_node(rack, {19}), models::SpecError);

  // Llama-3-70B, global batch 1024: 72 = 8 x 9 GPUs per rack leave a factor 9 that no power-of-two
  // dp, no tp dividing 64 heads and no pp dividing 80 layers takes, so only 64 of 72 GPUs divide.
  models::ScenarioSpec base = plan_test::small_base();
  base.model->preset = "llama-3-70b";
  base.training.global_batch = 1024;
  const auto m = models::model::resolve_model(*base.model);
  SpaceOptions o;
  o.instances = {"gb200-nvl72"};
  o.min_gpus = 64;
  o.max_gpus = 1152;
  SpaceStats st;
  const auto cands = enumerate_space(base, m, o, &st);
  REQUIRE(!cands.empty());
  std::set<int> nodes;
  for (const auto& c : cands) {
    INFO(layout_text(c));
    CHECK(c.gpus_per_node == 64);
    CHECK(c.node_gpus == 72);
    CHECK(base.training.global_batch % (c.dp() * c.micro_batch) == 0);
    nodes.insert(c.nodes);
  }
  // dp a power of two: 64 x 2^k GPUs, or 5 x 64 x 2^k with pp taking the 5 (80 layers).
  CHECK(nodes == std::set<int>{1, 2, 4, 5, 8, 10, 16});
  CHECK(st.per_instance.at("gb200-nvl72") == int64_t(cands.size()));
  CHECK(layout_text(cands.front()).find(", 64 of 72 GPUs per node") != std::string::npos);
  o.domain_hosts = {18};
  CHECK(enumerate_space(base, m, o).empty());  // all 18 trays: nothing divides
}

TEST_CASE("plan: part of one node is a half, quarter or eighth of it, and a scenario on part plans from there",
          "[models][plan]") {
  CHECK(part_of_one_node(models::hw::find_instance("p4d.24xlarge")) == std::vector<int>{4, 2, 1});
  CHECK(part_of_one_node(models::hw::find_instance("g6e.12xlarge")) == std::vector<int>{2, 1});
  CHECK(part_of_one_node(models::hw::find_instance("gb200-nvl72")).empty());  // whole trays: used_gpus_per_node

  auto base = plan_test::small_base();
  base.cluster.instance = "p4d.24xlarge";
  base.training.global_batch = 16;
  const auto m = models::model::resolve_model(*base.model);
  SpaceOptions o;
  o.strategies = {"fsdp"};
  o.micro_batches = {1};
  o.recompute = {"none"};
  const auto counts = [&](const SpaceOptions& opt) {
    std::set<std::pair<int, int>> gpus;  // (GPUs used per node, the node's GPUs)
    for (const auto& c : enumerate_space(base, m, opt)) gpus.insert({c.gpus_per_node, c.node_gpus});
    return gpus;
  };
  // A scenario on all 8 GPUs plans at 8; one on a pod of 4 (the seeds') plans at 4 and 8.
  CHECK(counts(o) == std::set<std::pair<int, int>>{{8, 8}});
  base.placement.gpus_per_pod = 4;
  CHECK(counts(o) == std::set<std::pair<int, int>>{{4, 8}, {8, 8}});
  // --gpus 2..16: a quarter and a half of one node, one node and two; never parts of two nodes.
  o.min_gpus = 2;
  o.max_gpus = 16;
  const auto all = enumerate_space(base, m, o);
  std::set<int> gpus;
  for (const auto& c : all) {
    gpus.insert(c.gpus());
    if (c.gpus_per_node < 8) CHECK(c.nodes == 1);
  }
  CHECK(gpus == std::set<int>{2, 4, 8, 16});
  const auto half = std::find_if(all.begin(), all.end(), [](const Candidate& c) { return c.gpus() == 4; });
  REQUIRE(half != all.end());
  CHECK(layout_text(*half) == "fsdp dp4 mb1, 4 of 8 GPUs per node");
  // The scenario a part writes runs on the same 4 GPUs of the node.
  const auto s = apply_candidate(base, *half);
  CHECK(s.placement.gpus_per_pod * s.placement.pods_per_node == 4);
  CHECK(s.cluster.nodes == 1);
  o.min_gpus = o.max_gpus = 12;
  CHECK(enumerate_space(base, m, o).empty());
}

TEST_CASE("plan: a mixture of experts gets Megatron layouts only, and the space says why", "[models][plan]") {
  auto base = plan_test::small_base();
  base.model->preset = "qwen3-30b-a3b";
  const auto m = models::model::resolve_model(*base.model);
  SpaceOptions o = plan_test::small_options().space;
  o.strategies = {"fsdp", "zero3"};
  SpaceStats st;
  CHECK(enumerate_space(base, m, o, &st).empty());
  CHECK(st.dropped.at("mixture-of-experts models are modelled under megatron only") > 0);
  o.strategies = {"megatron", "fsdp"};
  for (const auto& c : enumerate_space(base, m, o)) CHECK(c.strategy == "megatron");
}

namespace {
// Qwen3-30B-A3B (128 experts) on 64 GPUs, Megatron, one pipeline stage: the MoE space's cases.
struct MoeSpace {
  models::ScenarioSpec base;
  models::model::ModelShape m;
  SpaceOptions o;
};
MoeSpace moe_space() {
  MoeSpace s{plan_test::small_base(), {}, plan_test::small_options().space};
  s.base.model->preset = "qwen3-30b-a3b";
  s.base.cluster.nodes = 8;
  s.base.training.global_batch = 256;
  s.m = models::model::resolve_model(*s.base.model);
  s.o.strategies = {"megatron"};
  s.o.min_gpus = s.o.max_gpus = 64;
  s.o.max_pp = 1;
  return s;
}
}  // namespace

TEST_CASE("plan: expert parallelism spans every power of two dividing the experts and dp x cp, up to max_ep",
          "[models][plan]") {
  auto [base, m, o] = moe_space();
  std::set<int> eps;
  for (const auto& c : enumerate_space(base, m, o))
    if (c.tp == 1 && c.pp == 1) eps.insert(c.ep);
  CHECK(eps == std::set<int>{1, 2, 4, 8, 16, 32, 64});  // dp 64: up to 64 of the 128 experts
  o.max_ep = 8;
  eps.clear();
  for (const auto& c : enumerate_space(base, m, o)) eps.insert(c.ep);
  CHECK(eps == std::set<int>{1, 2, 4, 8});
}

TEST_CASE("plan: with tp > 1 the experts are split as the attention (etp = tp) or whole on each rank (etp = 1)",
          "[models][plan]") {
  auto [base, m, o] = moe_space();
  o.cp = {1};
  std::set<int> split, whole;  // tp 4, dp 16: ep | 16 when split, ep | 64 (tp x dp) when whole
  for (const auto& c : enumerate_space(base, m, o)) {
    if (c.tp == 1) CHECK(c.etp == 0);  // one rank: nothing to choose
    if (c.tp != 4) continue;
    (c.etp == 1 ? whole : split).insert(c.ep);
    if (c.etp == 1) CHECK(layout_text(c).find(" etp1 ") != std::string::npos);
  }
  CHECK(split == std::set<int>{1, 2, 4, 8, 16});
  CHECK(whole == std::set<int>{1, 2, 4, 8, 16, 32, 64});
  // The candidate runs with its etp, and the scenario edits write it.
  Candidate c;
  c.instance = "dgx-h100", c.nodes = 8, c.tp = 4, c.ep = 64, c.etp = 1;
  CHECK(apply_candidate(base, c).parallel.etp == 1);
  const auto edits = candidate_overrides(base, c).set;
  CHECK(std::find(edits.begin(), edits.end(), "parallel.etp=1") != edits.end());
}

TEST_CASE("plan: a first or last stage split is kept for the scenario's own pp only", "[models][plan]") {
  auto base = plan_test::small_base();
  base.parallel.strategy = "megatron";
  base.parallel.pp = 4;
  base.parallel.decoder_first_pipeline_num_layers = 7;
  const auto m = models::model::resolve_model(*base.model);
  SpaceOptions o = plan_test::small_options().space;
  o.strategies = {"megatron"};
  SpaceStats st;
  bool own = false;
  for (const auto& c : enumerate_space(base, m, o, &st)) {
    if (c.pp == 4) CHECK(c.first_stage_layers == 7);
    if (c.pp != 4 && m.layers % c.pp == 0) CHECK((c.first_stage_layers == 0 && c.last_stage_layers == 0));
    own = own || c.pp == 4;
  }
  CHECK(own);
  // The candidate's split is what the scenario runs with, and what the edits write.
  Candidate c;
  c.instance = "dgx-h100", c.nodes = 1, c.pp = 4, c.first_stage_layers = 7;
  CHECK(apply_candidate(base, c).parallel.decoder_first_pipeline_num_layers == 7);
  c.pp = 2, c.first_stage_layers = 0;
  CHECK(apply_candidate(base, c).parallel.decoder_first_pipeline_num_layers == 0);
  const auto removed = candidate_overrides(base, c).remove;
  CHECK(std::find(removed.begin(), removed.end(), "parallel.decoder_first_pipeline_num_layers") != removed.end());
}

TEST_CASE("plan: a pp that does not divide the layers is searched with an uneven first and last stage",
          "[models][plan]") {
  // DeepSeek-V3's 61 layers (a prime): pp 16 as its report ran it, 3 + 14 x 4 + 2 (the middle
  // stages ceil(61/16) = 4 each, the ends the other 5, the last the smaller half); pp 32 would
  // leave the ends 61 - 30 x 2 = 1 layer, so it is dropped.
  CHECK(models::plan::uneven_split(61, 16) == std::pair{3, 2});
  CHECK(models::plan::uneven_split(61, 2) == std::pair{31, 30});
  CHECK(models::plan::uneven_split(61, 32) == std::pair{0, 0});
  CHECK(models::plan::uneven_split(94, 4) == std::pair{23, 23});  // Qwen3-235B
  CHECK(models::plan::uneven_split(64, 8) == std::pair{0, 0});    // divides: even
  auto base = plan_test::small_base();
  base.model->layers = 61;
  const auto m = models::model::resolve_model(*base.model);
  SpaceOptions o = plan_test::small_options().space;
  o.strategies = {"megatron"};
  std::set<int> pps;
  for (const auto& c : enumerate_space(base, m, o, nullptr)) {
    pps.insert(c.pp);
    if (c.pp > 1) {
      CHECK(c.first_stage_layers + c.last_stage_layers + (c.pp - 2) * ((61 + c.pp - 1) / c.pp) == 61);
      CHECK(c.vp == 1);
      CHECK(apply_candidate(base, c).parallel.decoder_last_pipeline_num_layers == c.last_stage_layers);
    }
  }
  CHECK(pps.count(1) == 1);
  CHECK(pps.count(2) == 1);
}

TEST_CASE("plan: an odd sequence keeps Megatron at cp 1 (2 cp | seq is ring attention's, cp > 1)", "[models][plan]") {
  auto base = plan_test::small_base();
  base.model->seq = 2047;
  const auto m = models::model::resolve_model(*base.model);
  SpaceOptions o = plan_test::small_options().space;
  o.strategies = {"megatron"};
  o.cp = {1, 2};
  SpaceStats st;
  const auto cands = enumerate_space(base, m, o, &st);
  REQUIRE_FALSE(cands.empty());
  for (const auto& c : cands) CHECK(c.cp == 1);
  CHECK(st.dropped.at("2 cp does not divide model.seq") > 0);
}
