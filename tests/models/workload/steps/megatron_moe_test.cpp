// Mixture-of-experts in Megatron's step program (megatron_layer.hpp, megatron.hpp, layout.hpp)
// against closed forms: the all-to-alls per MoE layer and micro-batch and their bytes, the expert
// GEMMs' time by the GEMM law, the EP and expert-data-parallel groups of Megatron-Core's expert
// grid, the parameters per rank, the layout's checks, the presets and Megatron's MoE FLOP count.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>

#include "models/compute/gemm.hpp"
#include "models/error.hpp"
#include "models/memory/memory_peak.hpp"
#include "models/run/throughput.hpp"
#include "models/workload/steps/megatron.hpp"
#include "models/workload/steps/megatron_layer.hpp"

using namespace models::workload;
using namespace models::workload::megatron_slots;
using models::collectives::Group;
using models::nccl::CollOp;

namespace {
// GEMMs at a flat 5e14 FLOP/s (no fixed cost, no launch gaps); memory-bound kernels free.
ComputeRates moe_flat_rates() {
  ComputeRates r;
  r.gpu.gemm = {0, 5e14, 1e30};
  r.gpu.attention = {0, 5e14, 0, 5e14};
  r.gpu.memory.fixed_s = 0;
  r.gpu.memory.bytes_per_s.fill(1e20);
  r.gpu.memory.loss_s_per_logit = 16 / 1e20;
  for (auto& impl : r.gpu.adamw.bytes_per_s) impl.fill(1e20);
  r.gpu.launch_gap_s = 0;
  return r;
}

// 4 layers, MoE every second one (layers 0 and 2), 8 experts of 2048, top 2.
models::ModelSpec moe_model() {
  models::ModelSpec ms;
  ms.layers = 4, ms.hidden = 1024, ms.heads = 8, ms.kv_heads = 8, ms.ffn = 4096, ms.vocab = 256, ms.seq = 512;
  ms.experts = 8, ms.top_k = 2, ms.moe_ffn = 2048, ms.moe_stride = 2;
  return ms;
}

models::ScenarioSpec scenario_megatron_moe(int tp, int ep, bool sp = true) {
  models::ScenarioSpec s;
  s.model = moe_model();
  s.parallel.strategy = "megatron";
  s.parallel.tp = tp;
  s.parallel.ep = ep;
  s.parallel.sequence_parallel = sp;
  s.training.grad_accum = 3;
  return s;
}

MegatronConfig moe_config(const models::ScenarioSpec& s, int world) {
  MegatronConfig c;
  c.model = models::model::resolve_model(*s.model);
  c.training = s.training;
  c.layout = make_layout(s, c.model, world);
  c.rates = moe_flat_rates();
  return c;
}

std::string moe_layout_error(const models::ScenarioSpec& s, int world) {
  try {
    make_layout(s, models::model::resolve_model(*s.model), world);
  } catch (const models::SpecError& e) {
    return e.key();
  }
  return "";
}

struct MoeCounted {
  int ops = 0;
  int64_t bytes = -1;  // every op's (all equal), -2 if they differ
};
MoeCounted moe_count(const Program& p, int slot, CollOp op, const std::string& filter) {
  MoeCounted c;
  for (const auto& stream : p.ops)
    for (const Op& o : stream)
      if (o.kind == OpKind::Collective && o.slot == slot && o.coll == op &&
          p.names[o.arg].find(filter) != std::string::npos) {
        ++c.ops;
        c.bytes = c.bytes == -1 || c.bytes == o.bytes ? o.bytes : -2;
      }
  return c;
}
}  // namespace

TEST_CASE("megatron moe: 4 all-to-alls per MoE layer and micro-batch of c (T / tp) k h e bytes", "[workload]") {
  // T = 512 tokens, tp 2 (sequence parallel): 256 routed per rank, k = 2, h = 1024, bf16, c = 1.
  const MegatronConfig c = moe_config(scenario_megatron_moe(2, 4), 16);  // tp 2 x dp 8, ep 4
  const Program p = build_megatron_programs(c)[0];
  const int moe_layers = 2, micro_batches = 3;
  const MoeCounted a2a = moe_count(p, kGroupEp, CollOp::AllToAll, "moe");
  CHECK(a2a.ops == 4 * moe_layers * micro_batches);
  CHECK(a2a.bytes == int64_t(1.0 * 256 * 2 * 1024 * 2));
  // The routed tokens' all-gather and reduce-scatter over etp = tp (the ETP slot holds the TP
  // group): tp times the all-to-all's bytes.
  const MoeCounted ag = moe_count(p, kGroupEtp, CollOp::AllGather, "moe tp"),
                rs = moe_count(p, kGroupEtp, CollOp::ReduceScatter, "moe tp");
  CHECK(ag.ops == 2 * moe_layers * micro_batches);
  CHECK(rs.ops == 2 * moe_layers * micro_batches);
  CHECK(ag.bytes == 2 * a2a.bytes);
  // Padded to a capacity factor, the bytes scale by it; ep 1 moves none.
  models::ScenarioSpec s = scenario_megatron_moe(2, 4);
  s.model->capacity_factor = 1.25;
  s.model->pad_expert_input_to_capacity = true;
  CHECK(moe_count(build_megatron_programs(moe_config(s, 16))[0], kGroupEp, CollOp::AllToAll, "moe").bytes ==
        int64_t(1.25 * 256 * 2 * 1024 * 2));
  CHECK(moe_count(build_megatron_programs(moe_config(scenario_megatron_moe(2, 1), 16))[0], kGroupEp, CollOp::AllToAll, "").ops == 0);
  // Dense model: no MoE op at all.
  models::ScenarioSpec dense = scenario_megatron_moe(2, 1);
  dense.model->experts.reset(), dense.model->top_k.reset(), dense.model->moe_ffn.reset(),
      dense.model->moe_stride.reset();
  CHECK(moe_count(build_megatron_programs(moe_config(dense, 16))[0], kGroupTp, CollOp::AllGather, "moe").ops == 0);
}

TEST_CASE("megatron moe: expert GEMM seconds are the GEMM law's for the expert shapes", "[workload]") {
  // 8 experts over ep 4: 2 local, each n_e = c ep T k / E = 4 x 512 x 2 / 8 = 512 tokens (etp = tp
  // 2: f_e / 2 = 1024 wide); at a flat rate the three GEMMs of both take forward_flops / rate.
  const MegatronConfig c = moe_config(scenario_megatron_moe(2, 4), 16);
  const MoeKernels k = moe_kernels(c.model, 512, 2, 4, 2, c.rates);
  CHECK(k.gemms.local_experts == 2);
  CHECK(k.gemms.tokens_per_expert == Approx(512));
  CHECK(k.gemms.gate_up.n == 1024);
  CHECK(k.experts_up.fwd + k.experts_down.fwd == Approx(k.gemms.forward_flops / 5e14));
  CHECK(k.gemms.forward_flops == Approx(6.0 * 512 * 2 * 1024 * 2048 / 2));  // 6 c T k h f_e / etp
  const models::compute::LinearSeconds one = models::compute::linear_seconds(c.rates.gpu.gemm, 512, 1024, 2 * 1024);
  CHECK(k.experts_up.fwd == Approx(2 * one.fwd));
  CHECK(k.experts_up.bwd() == Approx(2 * one.bwd()));
  // Token skew: the busiest rank's experts see s times the tokens.
  models::ScenarioSpec s = scenario_megatron_moe(2, 4);
  s.model->token_skew = 1.5;
  const MegatronConfig skewed = moe_config(s, 16);
  CHECK(moe_kernels(skewed.model, 512, 2, 4, 2, skewed.rates).experts_down.fwd == Approx(1.5 * k.experts_down.fwd));
}

TEST_CASE("megatron moe: EP groups are ep ranks tp apart, expert data parallel the rest", "[workload]") {
  const MegatronConfig c = moe_config(scenario_megatron_moe(2, 4), 16);  // rank = t + 2 d
  std::vector<Group> groups;
  std::vector<RankSetup> ranks;
  megatron_layout(c, groups, ranks);
  auto members = [&](int rank, int slot) {
    REQUIRE(ranks[rank].group[slot] >= 0);
    std::vector<int> m = groups[ranks[rank].group[slot]].ranks;
    std::sort(m.begin(), m.end());
    return m;
  };
  CHECK(members(0, kGroupEp) == std::vector<int>{0, 2, 4, 6});
  CHECK(members(1, kGroupEp) == std::vector<int>{1, 3, 5, 7});
  CHECK(members(9, kGroupEp) == std::vector<int>{9, 11, 13, 15});
  CHECK(members(0, kGroupEdp) == std::vector<int>{0, 8});
  CHECK(members(3, kGroupEdp) == std::vector<int>{3, 11});
  CHECK(members(0, kGroupDp).size() == 8);
  // Expert gradients are summed over edp = 2 ranks, the dense ones over dp = 8.
  const Program p = build_megatron_programs(c)[0];
  const MoeCounted eg = moe_count(p, kGroupEdp, CollOp::AllReduce, "expert grads");
  CHECK(eg.ops == 1);
  CHECK(eg.bytes == 2LL * 8 * 3 * 1024 * 2048 / (4 * 2) * 4);  // 2 MoE layers' experts / (ep tp), fp32
}

TEST_CASE("megatron moe: parameters per rank split the routed experts over ep x tp", "[workload]") {
  const MegatronConfig c = moe_config(scenario_megatron_moe(2, 4), 16);
  const models::model::ModelShape& m = c.model;
  const int64_t h = 1024, attn = 2 * h * h + 2 * h * 1024, norms = 2 * h;
  const int64_t dense = attn / 2 + 3 * h * 4096 / 2 + norms;              // layers 1 and 3
  // The router (8 h) whole on every tp rank (router.py); 8 experts / (4 x 2).
  const int64_t moe = attn / 2 + 8 * h + norms + 8 * 3 * h * 2048 / 8;
  const int64_t vocab = 256 * h / 2;
  CHECK(megatron_stage_params(c, 0) == 2 * dense + 2 * moe + vocab + h + vocab);
  // Under sequence parallelism the gradients of what every tp rank holds whole are summed over tp
  // (finalize_model_grads.py): the norms (2 h per layer, the final h) and the routers (8 h per MoE
  // layer, marked sequence_parallel in router.py), in fp32.
  const MoeCounted summed = moe_count(build_megatron_programs(c)[0], kGroupTp, CollOp::AllReduce, "norm grads");
  CHECK(summed.ops == 1);
  CHECK(summed.bytes == (4 * norms + h + 2 * 8 * h) * 4);
  CHECK(models::model::expert_params_per_rank(m.moe, int(h), 4, 2) == Approx(8.0 * 3 * h * 2048 / 8));
  // The memory estimate counts the same parameters (embedding and head replicated: vocab_shards 1).
  models::memory::MemoryInputs in;
  in.model = m, in.strategy = Strategy::Megatron, in.tp = 2, in.dp = 8, in.ep = 4, in.vocab_shards = 2;
  CHECK(models::memory::rank_expert_params(in) == Approx(2.0 * 8 * 3 * h * 2048 / 8));
  CHECK(models::memory::rank_params(in) == Approx(double(megatron_stage_params(c, 0))));
  CHECK(m.total_params() ==
        2 * (attn + 3 * h * 4096 + norms) + 2 * (attn + 8 * h + 8 * 3 * h * 2048 + norms) + 2 * 256 * h + h);
}

TEST_CASE("megatron moe: layout checks name the key at fault", "[workload]") {
  CHECK(moe_layout_error(scenario_megatron_moe(2, 4), 16).empty());
  CHECK(moe_layout_error(scenario_megatron_moe(2, 3), 12) == "parallel.ep");  // 3 does not divide 8 experts
  CHECK(moe_layout_error(scenario_megatron_moe(1, 8), 4) == "parallel.ep");   // 8 does not divide dp = 4
  CHECK(moe_layout_error(scenario_megatron_moe(2, 2, false), 8) == "parallel.sequence_parallel");
  models::ScenarioSpec zero = scenario_megatron_moe(1, 1);
  zero.parallel.strategy = "zero3";
  CHECK(moe_layout_error(zero, 8) == "parallel.strategy");
  models::ScenarioSpec dense = scenario_megatron_moe(1, 2);
  dense.model->experts = 0, dense.model->top_k.reset(), dense.model->moe_ffn.reset(), dense.model->moe_stride.reset();
  CHECK(moe_layout_error(dense, 8) == "parallel.ep");
  models::ModelSpec bad = moe_model();
  bad.top_k = 9;
  CHECK_THROWS_AS(models::model::resolve_model(bad), models::SpecError);
  models::ModelSpec stray;
  stray.preset = "llama-3-8b", stray.top_k = 2;
  try {
    models::model::resolve_model(stray);
    FAIL("top_k without experts accepted");
  } catch (const models::SpecError& e) {
    CHECK(e.key() == "model.top_k");
  }
}

TEST_CASE("megatron moe: presets and Megatron's MoE FLOP count", "[workload]") {
  models::ModelSpec ms;
  ms.preset = "mixtral-8x7b";
  const models::model::ModelShape mixtral = models::model::resolve_model(ms);
  CHECK(mixtral.moe_layers() == 32);
  // mistral.ai's announcement: 46.7B total parameters, 12.9B used per token.
  CHECK(double(mixtral.total_params()) == Approx(46.7e9).epsilon(0.005));
  ms.preset = "deepseek-v3";
  const models::model::ModelShape v3 = models::model::resolve_model(ms);
  CHECK(v3.moe_layers() == 58);
  // DeepSeek-V3 technical report: 671B total (its MTP module not counted), with MLA as MLA.
  CHECK(double(v3.total_params()) == Approx(671e9).epsilon(0.001));
  // FLOPs: an MoE layer's MLP counts top_k (+ shared) experts of moe_ffn: Mixtral's MLP term is
  // that of a dense model with ffn = 2 x 14336.
  models::model::ModelShape dense = mixtral;
  dense.moe = models::model::MoeSpec{};
  dense.ffn = 2 * 14336;
  CHECK(models::megatron_step_flops(mixtral, 8).total() == Approx(models::megatron_step_flops(dense, 8).total()));
}

TEST_CASE("megatron moe: with overlap_grad_reduce expert gradients go in their own buckets in the last backward",
          "[workload]") {
  // Megatron-Core's DDP keeps the routed experts in expert_parallel_buffers, bucketed by the same
  // bucket_size (max(4e7, 1e6 dp cp) parameters) and reduced over the expert-data-parallel group as
  // the last micro-batch's backward completes each bucket.
  models::ScenarioSpec s = scenario_megatron_moe(2, 4);  // tp 2 x dp 8, ep 4: edp 2
  s.parallel.overlap_grad_reduce = true;
  const Program p = build_megatron_programs(moe_config(s, 16))[0];
  const int64_t per_layer = 8LL * 3 * 1024 * 2048 / (4 * 2);  // E 3 h f_e / (ep etp)
  const MoeCounted one = moe_count(p, kGroupEdp, CollOp::AllReduce, "mb2 expert grad bucket 0");
  CHECK(one.ops == 1);
  CHECK(one.bytes == 2 * per_layer * 4);                                   // both MoE layers (12.6 M < 40 M), fp32
  CHECK(moe_count(p, kGroupEdp, CollOp::AllReduce, "expert grads").ops == 0);  // none left for the end
  CHECK(moe_count(p, kGroupEdp, CollOp::AllReduce, "").ops == 1);
  // Experts of 16384: 50.3 M parameters per MoE layer, over the bucket size: one bucket each.
  s.model->moe_ffn = 16384;
  const Program big = build_megatron_programs(moe_config(s, 16))[0];
  const int64_t big_layer = 8LL * 3 * 1024 * 16384 / (4 * 2);
  for (const char* b : {"mb2 expert grad bucket 0", "mb2 expert grad bucket 1"}) {
    const MoeCounted c = moe_count(big, kGroupEdp, CollOp::AllReduce, b);
    CHECK(c.ops == 1);
    CHECK(c.bytes == big_layer * 4);
  }
  CHECK(moe_count(big, kGroupEdp, CollOp::AllReduce, "").ops == 2);
  // Without overlap_grad_reduce: one reduction per chunk after the last backward, as before.
  s.parallel.overlap_grad_reduce = false;
  CHECK(moe_count(build_megatron_programs(moe_config(s, 16))[0], kGroupEdp, CollOp::AllReduce, "expert grads").ops == 1);
}

TEST_CASE("megatron moe: with overlap_param_gather the experts' all-gathers run beside the forward, a bucket ahead",
          "[workload]") {
  // distributed_data_parallel.py chains next_param_gather_bucket_group over the expert bucket
  // groups too: the first MoE layer's forward pre-hook dispatches its expert bucket's gather on the
  // expert-data-parallel group, waits for it and dispatches the next; none follows the optimizer.
  models::ScenarioSpec s = scenario_megatron_moe(2, 4);  // tp 2 x dp 8, ep 4: edp 2
  s.model->moe_ffn = 16384;                              // one expert bucket per MoE layer
  s.parallel.distributed_optimizer = true;
  s.parallel.overlap_grad_reduce = true;
  s.parallel.overlap_param_gather = true;
  const Program p = build_megatron_programs(moe_config(s, 16))[0];
  const int64_t big_layer = 8LL * 3 * 1024 * 16384 / (4 * 2);
  for (const char* b : {"expert param all_gather bucket 0", "expert param all_gather bucket 1"}) {
    const MoeCounted c = moe_count(p, kGroupEdp, CollOp::AllGather, b);
    CHECK(c.ops == 1);
    CHECK(c.bytes == big_layer * 2);  // bf16 parameters
  }
  CHECK(moe_count(p, kGroupEdp, CollOp::AllGather, "").ops == 2);
  // Every expert gather comes before the optimizer on the compute stream's order: the stream that
  // carries them is joined before the first compute op named "optimizer".
  size_t optimizer = p.ops[kCompute].size(), first_gather_join = p.ops[kCompute].size();
  for (size_t i = 0; i < p.ops[kCompute].size(); ++i) {
    const Op& o = p.ops[kCompute][i];
    if (o.kind == OpKind::Compute && p.names[o.arg] == "optimizer" && optimizer == p.ops[kCompute].size())
      optimizer = i;
    if (o.kind == OpKind::Record && first_gather_join == p.ops[kCompute].size()) {
      for (const Op& e : p.ops[kEdpComm])
        if (e.kind == OpKind::Wait && e.arg == o.arg) first_gather_join = i;
    }
  }
  CHECK(first_gather_join < optimizer);
  // Without overlap_param_gather: one gather per chunk after the optimizer, as before.
  s.parallel.overlap_param_gather = false;
  CHECK(
      moe_count(build_megatron_programs(moe_config(s, 16))[0], kGroupEdp, CollOp::AllGather, "expert param all_gather")
          .ops == 1);
}
