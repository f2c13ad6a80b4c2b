// The parallel layout (models/workload/layout.hpp): every [parallel] check in one place, each
// error at the key the user must change.
#include <catch2/catch.hpp>

#include <string>

#include "models/error.hpp"
#include "models/workload/layout.hpp"
#include "models/workload/steps/decoder_units.hpp"
#include "models/workload/steps/strategy.hpp"
#include "models/world/world.hpp"
#include "sim/flow_network.hpp"
#include "sim/simulator.hpp"

using namespace models::workload;

namespace {
models::ScenarioSpec scenario(const std::string& strategy, int tp = 1, int pp = 1, int dp = 0) {
  models::ScenarioSpec s;
  s.parallel.strategy = strategy;
  s.parallel.tp = tp;
  s.parallel.pp = pp;
  s.parallel.dp = dp;
  return s;
}
models::model::ModelShape layout_decoder() {  // 8 layers, 32 heads
  models::ModelSpec ms;
  ms.preset = "h200x4-decoder";
  return models::model::resolve_model(ms);
}
// The key of the SpecError make_layout throws, empty when it accepts.
std::string error_key(const models::ScenarioSpec& s, int world_size) {
  try {
    make_layout(s, layout_decoder(), world_size);
  } catch (const models::SpecError& e) {
    return e.key();
  }
  return "";
}
}  // namespace

TEST_CASE("layout: strategy names are the scenario's values", "[workload]") {
  for (Strategy s : {Strategy::Zero3, Strategy::Fsdp, Strategy::Ddp, Strategy::Megatron, Strategy::Zero1,
                     Strategy::Zero2, Strategy::Hsdp})
    CHECK(parse_strategy(strategy_name(s)) == s);
  CHECK_FALSE(parse_strategy("zero-3"));
  CHECK(error_key(scenario("zero-3"), 4) == "parallel.strategy");
}

TEST_CASE("layout: megatron splits the ranks into tp x pp x dp", "[workload]") {
  REQUIRE(layout_decoder().layers == 8);
  REQUIRE(layout_decoder().heads == 32);
  auto s = scenario("megatron", 2, 2);
  s.training.grad_accum = 3;
  const ParallelLayout l = make_layout(s, layout_decoder(), 8);
  CHECK(l.strategy == Strategy::Megatron);
  CHECK(l.tp == 2);
  CHECK(l.pp == 2);
  CHECK(l.dp == 2);  // derived: 8 / (2 x 2)
  CHECK(l.size() == 8);
  CHECK(l.pipeline_micro_batches == 3);  // grad_accum when parallel.micro_batches is not set
  s.parallel.micro_batches = 6;          // the older key against another grad_accum: refused, as against global_batch
  CHECK_THROWS_WITH(make_layout(s, layout_decoder(), 8),
                    "micro_batches = 6 but training.grad_accum = 3 (expected one of the two keys, or equal values)");
  s.training.grad_accum = 1;  // grad_accum left at its default: the older key says it
  CHECK(make_layout(s, layout_decoder(), 8).pipeline_micro_batches == 6);
  s.parallel.strategy = "fsdp";  // not a Megatron run: the key is refused, not ignored
  s.parallel.tp = s.parallel.pp = 1;
  CHECK_THROWS_WITH(make_layout(s, layout_decoder(), 8),
                    "micro_batches is a Megatron option (expected strategy = \"megatron\", got fsdp)");
  CHECK_FALSE(l.sharded());
}

TEST_CASE("layout: each impossible megatron layout names the key to change", "[workload]") {
  CHECK(error_key(scenario("megatron", 3), 8) == "parallel.tp");        // 3 does not divide 8
  CHECK(error_key(scenario("megatron", 2, 2, 4), 8) == "parallel.dp");  // 2 x 2 x 4 = 16 != 8
  CHECK(error_key(scenario("megatron", 1, 8), 8).empty());              // 8 layers over 8 stages
  CHECK(error_key(scenario("megatron", 1, 16), 16) == "parallel.pp");   // 8 layers over 16 stages
  CHECK(error_key(scenario("megatron", 3), 3) == "parallel.tp");        // 3 does not divide 32 heads
}

TEST_CASE("layout: data-parallel strategies take every rank and no tp or pp", "[workload]") {
  for (const char* name : {"zero3", "fsdp", "ddp"}) {
    INFO(name);
    const ParallelLayout l = make_layout(scenario(name), layout_decoder(), 4);
    CHECK(l.dp == 4);
    CHECK(l.tp * l.pp == 1);
    CHECK(error_key(scenario(name, 2), 4) == "parallel.tp");
    CHECK(error_key(scenario(name, 1, 2), 4) == "parallel.pp");  // the key that is set, not tp = 1
    CHECK(error_key(scenario(name, 1, 1, 2), 4) == "parallel.dp");
    CHECK(error_key(scenario(name, 1, 1, 4), 4).empty());
  }
  CHECK(make_layout(scenario("zero3"), layout_decoder(), 4).sharded());
  CHECK(make_layout(scenario("fsdp"), layout_decoder(), 4).sharded());
  CHECK_FALSE(make_layout(scenario("ddp"), layout_decoder(), 4).sharded());
  auto z2 = scenario("zero3");
  z2.zero.stage = 2;
  CHECK(error_key(z2, 4) == "zero.stage");
  z2.parallel.strategy = "ddp";  // DDP does not read [zero]
  CHECK(error_key(z2, 4).empty());
}

TEST_CASE("layout: placement facts come from the World, and agree with its ranks", "[workload]") {
  // p4d.24xlarge: 8 GPUs per node; 2 nodes x 2 pods x 4 GPUs.
  models::ScenarioSpec spec = scenario("zero3");
  spec.cluster.instance = "p4d.24xlarge";
  spec.cluster.nodes = 2;
  spec.placement.pods_per_node = 2;
  spec.placement.gpus_per_pod = 4;
  sim::Simulator simulator;
  sim::FlowNetwork net(simulator);
  const auto world = models::World::build(spec, net);
  const auto& p = world->placement();
  int same_node = 0, same_pod = 0;
  for (int r = 0; r < world->size(); ++r) {
    same_node += world->rank(r).node == world->rank(0).node;
    same_pod += world->rank(r).node == world->rank(0).node && world->rank(r).pod == world->rank(0).pod;
  }
  CHECK(p.ranks_per_node() == 8);
  CHECK(p.ranks_per_pod() == 4);
  CHECK(p.ranks_per_node() == same_node);
  CHECK(p.ranks_per_pod() == same_pod);
  CHECK(world->node().gpu.name == world->gpu_name());
  // The strategy step builds one data-parallel program over all 16 ranks.
  spec.model = models::ModelSpec{};
  spec.model->preset = "h200x4-decoder";
  const StepPlan plan = plan_step(spec, *world);
  CHECK(plan.programs.size() == 1);
  REQUIRE(plan.groups.size() == 1);
  CHECK(plan.groups[0].ranks.size() == 16);
  CHECK(plan.ranks.size() == 16);
}

TEST_CASE("layout: global_batch sets grad_accum = global_batch / (micro_batch x dp)", "[workload]") {
  auto s = scenario("megatron", 2, 2);  // 16 GPUs: dp = 4
  s.training.micro_batch = 2;
  s.training.global_batch = 64;
  const ParallelLayout l = make_layout(s, layout_decoder(), 16);
  CHECK(l.dp == 4);
  CHECK(l.grad_accum == 8);
  CHECK(l.pipeline_micro_batches == 8);
  CHECK(l.global_batch() == 64);
  s.training.global_batch = 60;  // not a multiple of 2 x 4
  CHECK(error_key(s, 16) == "training.global_batch");
  s.training.global_batch = 64;
  s.training.grad_accum = 4;  // disagrees with 64 / 8
  CHECK(error_key(s, 16) == "training.grad_accum");
  auto z = scenario("fsdp");
  z.training.global_batch = 32;
  CHECK(make_layout(z, layout_decoder(), 4).grad_accum == 8);
}

TEST_CASE("layout: recompute, and grad_checkpointing = true meaning full", "[workload]") {
  auto s = scenario("megatron", 2);
  CHECK(make_layout(s, layout_decoder(), 2).recompute == Recompute::None);
  s.training.grad_checkpointing = true;
  CHECK(make_layout(s, layout_decoder(), 2).recompute == Recompute::Full);
  s.training.recompute = "selective";
  CHECK(error_key(s, 2) == "training.grad_checkpointing");
  s.training.grad_checkpointing = false;
  CHECK(make_layout(s, layout_decoder(), 2).recompute == Recompute::Selective);
  auto z = scenario("zero3");
  z.training.recompute = "selective";
  CHECK(error_key(z, 2) == "training.recompute");
}

TEST_CASE("layout: Megatron's grid checks (cp, vp, options) name the key to change", "[workload]") {
  auto s = scenario("megatron", 2, 2);
  s.parallel.cp = 2;
  CHECK(make_layout(s, layout_decoder(), 8).dp == 1);  // 2 x 2 x 2
  s.parallel.cp = 3;
  CHECK(error_key(s, 12) == "parallel.cp");  // 2048 tokens do not split into 6 chunks
  s.parallel.cp = 1;
  s.parallel.vp = 2;  // 8 layers / (2 x 2)
  s.training.grad_accum = 4;
  CHECK(error_key(s, 4).empty());  // pp = 2 is enough with overlap_p2p_comm, Megatron-Core's default
  s.parallel.overlap_p2p_comm = true;
  CHECK(make_layout(s, layout_decoder(), 4).overlap_p2p_comm);
  s.parallel.overlap_p2p_comm = false;  // Megatron: pp > 2 without it
  CHECK(error_key(s, 4) == "parallel.vp");
  auto i = scenario("megatron", 1, 4);
  i.parallel.vp = 2;
  i.training.grad_accum = 6;  // not a multiple of pp = 4
  CHECK(error_key(i, 4) == "training.grad_accum");
  i.training.grad_accum = 8;
  CHECK(make_layout(i, layout_decoder(), 4).interleaved());
  auto sp = scenario("megatron", 1, 1);
  sp.parallel.sequence_parallel = true;  // ignored at tp = 1, as Megatron does
  const ParallelLayout l = make_layout(sp, layout_decoder(), 1);
  CHECK_FALSE(l.sequence_parallel);
  CHECK(l.notes.size() == 1);
  auto opt = scenario("megatron", 2);
  opt.parallel.overlap_param_gather = true;
  CHECK(error_key(opt, 4) == "parallel.overlap_param_gather");
  auto z = scenario("ddp");
  z.parallel.distributed_optimizer = true;
  CHECK(error_key(z, 4) == "parallel.distributed_optimizer");
}

TEST_CASE("layout: zero1 and zero2 need their zero.stage, and hsdp's shard group divides the ranks", "[workload]") {
  for (const char* name : {"zero1", "zero2"}) {
    INFO(name);
    auto s = scenario(name);
    CHECK(error_key(s, 8) == "zero.stage");  // the default stage 3 contradicts zero1/zero2
    s.zero.stage = name[4] - '0';
    const ParallelLayout l = make_layout(s, layout_decoder(), 8);
    CHECK(l.zero_stage() == s.zero.stage);
    CHECK_FALSE(l.sharded());  // parameters replicated
    CHECK(l.state_shards() == 8);
    s.zero.offload_param = "cpu";  // DeepSpeed offloads parameters at stage 3 only
    CHECK(error_key(s, 8) == "zero.offload_param");
  }
  auto h = scenario("hsdp");
  CHECK(error_key(h, 16) == "parallel.dp_shard");  // no node size known, none given
  ParallelLayout l = make_layout(h, layout_decoder(), 16, /*node_ranks=*/8);
  CHECK(l.dp == 16);
  CHECK(l.dp_shard == 8);  // one node
  CHECK(l.state_shards() == 8);
  CHECK(l.sharded());
  h.parallel.dp_shard = 4;
  CHECK(make_layout(h, layout_decoder(), 16, 8).dp_shard == 4);
  h.parallel.dp_shard = 3;
  CHECK(error_key(h, 16) == "parallel.dp_shard");
  auto f = scenario("fsdp");
  f.parallel.dp_shard = 4;
  CHECK(error_key(f, 16) == "parallel.dp_shard");
  CHECK(make_layout(scenario("fsdp"), layout_decoder(), 16).state_shards() == 16);
  CHECK(make_layout(scenario("ddp"), layout_decoder(), 16).state_shards() == 1);
}

TEST_CASE("layout: megatron refuses an MLP width or a sequence-parallel sequence that tp does not divide",
          "[workload]") {
  // Megatron-Core's utils.divide asserts ffn % tp == 0 (ColumnParallelLinear, RowParallelLinear), and
  // sequence parallelism's _split_along_first_dim that seq / cp divides by tp.
  models::model::ModelShape m = layout_decoder();
  auto s = scenario("megatron", 4);
  m.ffn = 14330;  // 4 does not divide it
  try {
    make_layout(s, m, 4);
    FAIL("accepted ffn 14330 at tp 4");
  } catch (const models::SpecError& e) {
    CHECK(e.key() == "parallel.tp");
    CHECK(std::string(e.what()) ==
          "tp = 4 does not divide model.ffn = 14330 (expected tp to divide the MLP width: Megatron splits it over tp)");
  }
  m.ffn = 14336;
  m.seq = 2050;  // 2050 / 4 is not whole: refused under sequence parallelism only
  CHECK_NOTHROW(make_layout(s, m, 4));
  s.parallel.sequence_parallel = true;
  try {
    make_layout(s, m, 4);
    FAIL("accepted seq 2050 over tp 4 with sequence parallelism");
  } catch (const models::SpecError& e) {
    CHECK(e.key() == "parallel.sequence_parallel");
  }
  s.parallel.cp = 2;  // 2052 / cp 2 = 1026 tokens per CP rank, not a multiple of 4
  m.seq = 2052;
  CHECK_THROWS_AS(make_layout(s, m, 8), models::SpecError);
  m.seq = 2056;  // 1028 = 4 x 257
  CHECK_NOTHROW(make_layout(s, m, 8));
  // An MoE model's shared experts are one MLP of shared_experts x moe_ffn over tp, whatever etp.
  models::model::ModelShape moe = layout_decoder();
  moe.moe.experts = 8, moe.moe.top_k = 2, moe.moe.moe_ffn = 1026, moe.moe.shared_experts = 1;
  auto e = scenario("megatron", 4);
  e.parallel.sequence_parallel = true;
  e.parallel.etp = 1;
  e.parallel.ep = 1;
  try {
    make_layout(e, moe, 4);
    FAIL("accepted a shared expert of 1026 at tp 4");
  } catch (const models::SpecError& err) {
    CHECK(err.key() == "parallel.tp");
    CHECK(std::string(err.what()).find("shared_experts x moe_ffn = 1 x 1026") != std::string::npos);
  }
  moe.moe.shared_experts = 3;  // 3078: still not a multiple of 4
  CHECK_THROWS_AS(make_layout(e, moe, 4), models::SpecError);
  moe.moe.shared_experts = 2;  // 2052 = 4 x 513
  CHECK_NOTHROW(make_layout(e, moe, 4));
  moe.moe.shared_experts = 0;
  CHECK_NOTHROW(make_layout(e, moe, 4));
}

TEST_CASE("layout: the tp-cp-pp-dp rank order is refused for a mixture of experts at any ep", "[workload]") {
  // The expert-data-parallel groups are laid out within a stage's contiguous ranks (Megatron-Core's
  // default order); under tp-pp-dp a stage's ranks are not contiguous, so even at ep = 1 the expert
  // gradients' groups would mix stages. Refused, at the key to change; a dense model keeps it.
  models::ModelSpec ms;
  ms.preset = "mixtral-8x7b";
  const auto mixtral = models::model::resolve_model(ms);
  auto s = scenario("megatron", 2, 2);
  s.parallel.sequence_parallel = true;  // Megatron's MoE with tp > 1 needs it
  s.parallel.use_tp_pp_dp_mapping = true;
  try {
    make_layout(s, mixtral, 16);
    FAIL("expected a refusal");
  } catch (const models::SpecError& e) {
    CHECK(e.key() == "parallel.use_tp_pp_dp_mapping");
  }
  CHECK(error_key(s, 16).empty());  // the dense decoder
}

// training.checkpoint_impl: what a full recompute reruns, by the framework unless set.
TEST_CASE("layout: a full recompute stops early under PyTorch's non-reentrant checkpoint only", "[workload]") {
  auto stops = [](const char* strategy, const char* impl, bool full = true) {
    models::ScenarioSpec s = scenario(strategy, std::string(strategy) == "megatron" ? 2 : 1);
    s.training.grad_checkpointing = full;
    s.training.checkpoint_impl = impl;
    return make_layout(s, layout_decoder(), 4).recompute_stops_early;
  };
  for (const char* pytorch : {"fsdp", "ddp"}) {  // hsdp takes the same rule (layout.cpp)
    INFO(pytorch);
    CHECK(stops(pytorch, ""));  // torchtitan's full AC: use_reentrant=False
    CHECK_FALSE(stops(pytorch, "reentrant"));
    CHECK_FALSE(stops(pytorch, "", false));  // nothing recomputed
  }
  CHECK_FALSE(stops("zero3", ""));  // Hugging Face's default use_reentrant=True (zero1, zero2 alike)
  CHECK(stops("zero3", "non_reentrant"));
  CHECK_FALSE(stops("megatron", ""));
  CHECK_FALSE(stops("megatron", "reentrant"));
  models::ScenarioSpec s = scenario("megatron", 2);
  s.training.recompute = "full";
  s.training.checkpoint_impl = "non_reentrant";
  CHECK(error_key(s, 4) == "training.checkpoint_impl");
}

// training.loss_impl: Megatron-Core's vocab-parallel cross entropy under megatron unless set, never
// under another strategy (it needs Megatron's tensor-parallel groups).
TEST_CASE("layout: the loss is Megatron-Core's under megatron, PyTorch's elsewhere or where set", "[workload]") {
  auto megatron_loss = [](const char* strategy, const char* impl) {
    models::ScenarioSpec s = scenario(strategy, std::string(strategy) == "megatron" ? 2 : 1);
    s.training.loss_impl = impl;
    return make_layout(s, layout_decoder(), 4).megatron_loss;
  };
  CHECK(megatron_loss("megatron", ""));
  CHECK_FALSE(megatron_loss("megatron", "pytorch"));  // a plain PyTorch loop over Megatron's layout
  CHECK(megatron_loss("megatron", "megatron"));
  for (const char* other : {"fsdp", "zero3", "ddp"}) {
    INFO(other);
    CHECK_FALSE(megatron_loss(other, ""));
    CHECK_FALSE(megatron_loss(other, "pytorch"));
  }
  models::ScenarioSpec s = scenario("fsdp");
  s.training.loss_impl = "megatron";
  CHECK(error_key(s, 4) == "training.loss_impl");
}

// training.checkpoint_every: torchtitan's every-N-th-block checkpointing, under full recompute and
// PyTorch's strategies only; the blocks it picks are N, 2N, ... counted from 1.
TEST_CASE("layout: checkpoint_every picks every N-th block under full recompute, PyTorch's strategies only",
          "[workload]") {
  models::ScenarioSpec s = scenario("fsdp");
  s.training.grad_checkpointing = true;
  s.training.checkpoint_every = 3;
  const ParallelLayout l = make_layout(s, layout_decoder(), 4);
  CHECK(l.checkpoint_every == 3);
  const Checkpointing c = checkpointing(l);
  CHECK(c.rerun == Checkpointing::Rerun::UntilLastSaved);  // fsdp: non-reentrant
  CHECK_FALSE(c.checkpoints(0));
  CHECK_FALSE(c.checkpoints(1));
  CHECK(c.checkpoints(2));  // the third block, as torchtitan's _count % 3 == 0
  CHECK(c.checkpoints(5));
  CHECK_FALSE(checkpointing(ParallelLayout{}).checkpoints(0));  // recompute none
  s.training.grad_checkpointing = false;
  CHECK(error_key(s, 4) == "training.checkpoint_every");  // nothing recomputed to pick blocks for
  s.training.grad_checkpointing = true;
  s.parallel.strategy = "zero3";
  CHECK(error_key(s, 4) == "training.checkpoint_every");  // Hugging Face checkpoints every layer
}

// recompute = "selective_op": torchtitan's per-op policy, on its Llama-style block under PyTorch's
// strategies only.
TEST_CASE("layout: selective_op is torchtitan's, on a Llama-style block", "[workload]") {
  models::ScenarioSpec s = scenario("fsdp");
  s.training.recompute = "selective_op";
  CHECK(make_layout(s, layout_decoder(), 4).recompute == Recompute::SelectiveOp);
  CHECK(std::string(recompute_name(Recompute::SelectiveOp)) == "selective_op");
  s.parallel.strategy = "zero3";
  CHECK(error_key(s, 4) == "training.recompute");
  s.parallel.strategy = "fsdp";
  s.training.attention_backend = "unfused";
  CHECK(error_key(s, 4) == "training.recompute");
}
