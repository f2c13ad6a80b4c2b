// Expert tensor parallelism apart from tp (parallel.etp, Megatron-Core's
// --expert-tensor-parallel-size; layout.hpp, megatron_layer.hpp, compute.hpp moe_kernels,
// memory_terms.hpp) against closed forms: the expert grid etp x ep x edp = tp cp dp, the expert
// GEMM shapes, the all-to-all and ETP all-gather bytes, the expert parameters, their gradient
// reduction and the activation memory, with etp below and above tp.
#include <catch2/catch.hpp>

#include <algorithm>

#include "models/error.hpp"
#include "models/memory/memory_peak.hpp"
#include "models/workload/steps/megatron.hpp"
#include "models/workload/steps/megatron_layer.hpp"

using namespace models::workload;
using namespace models::workload::megatron_slots;
using models::collectives::Group;
using models::nccl::CollOp;

namespace {
ComputeRates flat_rates() {  // GEMMs at a flat 5e14 FLOP/s, everything else free
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

// 4 layers, MoE every second one (layers 0 and 2), 8 experts of 2048, top 2; T = 512 tokens.
models::ScenarioSpec scenario_megatron_moe_etp(int tp, int ep, int etp) {
  models::ScenarioSpec s;
  models::ModelSpec ms;
  ms.layers = 4, ms.hidden = 1024, ms.heads = 8, ms.kv_heads = 8, ms.ffn = 4096, ms.vocab = 256, ms.seq = 512;
  ms.experts = 8, ms.top_k = 2, ms.moe_ffn = 2048, ms.moe_stride = 2;
  s.model = ms;
  s.parallel.strategy = "megatron";
  s.parallel.tp = tp;
  s.parallel.ep = ep;
  s.parallel.etp = etp;
  s.parallel.sequence_parallel = tp > 1;
  s.training.grad_accum = 3;
  return s;
}

MegatronConfig config(const models::ScenarioSpec& s, int world) {
  MegatronConfig c;
  c.model = models::model::resolve_model(*s.model);
  c.training = s.training;
  c.layout = make_layout(s, c.model, world);
  c.rates = flat_rates();
  return c;
}

std::string layout_error(const models::ScenarioSpec& s, int world) {
  try {
    make_layout(s, models::model::resolve_model(*s.model), world);
  } catch (const models::SpecError& e) {
    return e.key();
  }
  return "";
}

struct Counted {
  int ops = 0;
  int64_t bytes = -1;  // every op's (all equal), -2 if they differ
};
Counted count(const Program& p, int slot, CollOp op, const std::string& filter) {
  Counted c;
  for (const auto& stream : p.ops)
    for (const Op& o : stream)
      if (o.kind == OpKind::Collective && o.slot == slot && o.coll == op &&
          p.names[o.arg].find(filter) != std::string::npos) {
        ++c.ops;
        c.bytes = c.bytes == -1 || c.bytes == o.bytes ? o.bytes : -2;
      }
  return c;
}

std::vector<int> members(const std::vector<Group>& groups, const std::vector<RankSetup>& ranks, int rank, int slot) {
  REQUIRE(ranks[rank].group[slot] >= 0);
  std::vector<int> m = groups[ranks[rank].group[slot]].ranks;
  std::sort(m.begin(), m.end());
  return m;
}

constexpr int64_t kH = 1024, kFe = 2048, kE = 8, kK = 2, kMoeLayers = 2, kMicro = 3;
}  // namespace

TEST_CASE("megatron moe etp: unset, etp is tp, and the grid is etp x ep x (tp cp dp / (etp ep))", "[workload]") {
  const MegatronConfig same = config(scenario_megatron_moe_etp(2, 4, 0), 16);
  CHECK(same.layout.etp == 2);
  CHECK(same.layout.edp() == 2);  // cp dp / ep with etp = tp
  const MegatronConfig one = config(scenario_megatron_moe_etp(2, 4, 1), 16);
  CHECK(one.layout.etp == 1);
  CHECK(one.layout.edp() == 4);  // 2 x 8 / (1 x 4)
  const MegatronConfig four = config(scenario_megatron_moe_etp(2, 2, 4), 16);
  CHECK(four.layout.edp() == 2);  // 2 x 8 / (4 x 2)
  // The routed tokens' all-gather runs on the ETP slot, which is the TP group, at c T k h e.
  const Program p = build_megatron_programs(same)[0];
  const Counted ag = count(p, kGroupEtp, CollOp::AllGather, "moe tp");
  CHECK(ag.ops == 2 * kMoeLayers * kMicro);
  CHECK(ag.bytes == 512 * kK * kH * 2);
  std::vector<Group> groups;
  std::vector<RankSetup> ranks;
  megatron_layout(same, groups, ranks);
  for (const RankSetup& r : ranks) CHECK(r.group[kGroupEtp] == r.group[kGroupTp]);
}

TEST_CASE("megatron moe etp: etp 1 under tp 2: EP groups of consecutive ranks, no expert all-gather", "[workload]") {
  const MegatronConfig c = config(scenario_megatron_moe_etp(2, 4, 1), 16);  // stage index y = te + (e + 4 j)
  std::vector<Group> groups;
  std::vector<RankSetup> ranks;
  megatron_layout(c, groups, ranks);
  CHECK(members(groups, ranks, 0, kGroupEp) == std::vector<int>{0, 1, 2, 3});
  CHECK(members(groups, ranks, 6, kGroupEp) == std::vector<int>{4, 5, 6, 7});
  CHECK(members(groups, ranks, 0, kGroupEdp) == std::vector<int>{0, 4, 8, 12});
  CHECK(members(groups, ranks, 0, kGroupTp) == std::vector<int>{0, 1});  // the dense TP group stays
  const Program p = build_megatron_programs(c)[0];
  // All-to-all of the rank's router tokens, T / tp = 256: c Tn k h e, as with etp = tp.
  const Counted a2a = count(p, kGroupEp, CollOp::AllToAll, "moe");
  CHECK(a2a.ops == 4 * kMoeLayers * kMicro);
  CHECK(a2a.bytes == 256 * kK * kH * 2);
  CHECK(count(p, kGroupEtp, CollOp::AllGather, "moe").ops == 0);
  CHECK(count(p, kGroupTp, CollOp::AllGather, "moe").ops == 0);
  // Expert GEMMs: 2 local experts of n_e = c ep etp Tn k / E = 4 x 256 x 2 / 8 = 256 tokens, the
  // whole expert ffn (2048) on each rank: 6 c etp Tn k h f_e / etp FLOPs.
  const MoeKernels k = moe_kernels(c.model, 512, 2, 4, 1, c.rates);
  CHECK(k.gemms.local_experts == 2);
  CHECK(k.gemms.tokens_per_expert == Approx(256));
  CHECK(k.gemms.gate_up.m == 256);
  CHECK(k.gemms.gate_up.n == kFe);
  CHECK(k.gemms.down.k == kFe);
  CHECK(k.gemms.forward_flops == Approx(6.0 * 256 * kK * kH * kFe));
  CHECK(k.experts_up.fwd + k.experts_down.fwd == Approx(k.gemms.forward_flops / 5e14));
  // Expert parameters: E 3 h f_e / (ep etp) per MoE layer, their fp32 gradients summed over edp = 4.
  const int64_t experts = kMoeLayers * kE * 3 * kH * kFe / 4;
  const Counted eg = count(p, kGroupEdp, CollOp::AllReduce, "expert grads");
  CHECK(eg.ops == 1);
  CHECK(eg.bytes == experts * 4);
  const int64_t attn = 2 * kH * kH + 2 * kH * 1024, norms = 2 * kH;
  const int64_t dense = attn / 2 + 3 * kH * 4096 / 2 + norms, moe = attn / 2 + kE * kH + norms;  // router whole
  CHECK(megatron_stage_params(c, 0) == 2 * dense + 2 * moe + experts + 2 * (256 * kH / 2) + kH);
  models::memory::MemoryInputs in;
  in.model = c.model, in.strategy = Strategy::Megatron, in.tp = 2, in.dp = 8, in.ep = 4, in.etp = 1;
  in.vocab_shards = 2;
  CHECK(models::memory::rank_expert_params(in) == Approx(double(experts)));
  CHECK(models::memory::rank_params(in) == Approx(double(megatron_stage_params(c, 0))));
}

TEST_CASE("megatron moe etp: etp 4 over tp 2: the ETP group gathers 4 ranks' routed tokens", "[workload]") {
  const MegatronConfig c = config(scenario_megatron_moe_etp(2, 2, 4), 16);  // y = te + 4 (e + 2 j)
  std::vector<Group> groups;
  std::vector<RankSetup> ranks;
  megatron_layout(c, groups, ranks);
  CHECK(members(groups, ranks, 0, kGroupEtp) == std::vector<int>{0, 1, 2, 3});
  CHECK(members(groups, ranks, 5, kGroupEtp) == std::vector<int>{4, 5, 6, 7});
  CHECK(members(groups, ranks, 0, kGroupEp) == std::vector<int>{0, 4});
  CHECK(members(groups, ranks, 1, kGroupEdp) == std::vector<int>{1, 9});
  const Program p = build_megatron_programs(c)[0];
  const Counted a2a = count(p, kGroupEp, CollOp::AllToAll, "moe");
  CHECK(a2a.bytes == 256 * kK * kH * 2);  // c Tn k h e
  // All-gather and reduce-scatter over etp: c etp Tn k h e, 4 x the all-to-all's.
  const Counted ag = count(p, kGroupEtp, CollOp::AllGather, "moe tp"),
                rs = count(p, kGroupEtp, CollOp::ReduceScatter, "moe tp");
  CHECK(ag.ops == 2 * kMoeLayers * kMicro);
  CHECK(rs.ops == 2 * kMoeLayers * kMicro);
  CHECK(ag.bytes == 4 * a2a.bytes);
  CHECK(rs.bytes == ag.bytes);
  // n_e = c ep etp Tn k / E = 2 x 4 x 256 x 2 / 8 = 512 tokens; ffn / etp = 512 wide; 4 local experts.
  const MoeKernels k = moe_kernels(c.model, 512, 2, 2, 4, c.rates);
  CHECK(k.gemms.local_experts == 4);
  CHECK(k.gemms.tokens_per_expert == Approx(512));
  CHECK(k.gemms.gate_up.n == kFe / 4);
  CHECK(k.gemms.down.k == kFe / 4);
  CHECK(k.gemms.forward_flops == Approx(4 * 3 * 2.0 * 512 * kH * (kFe / 4)));
  // Expert gradients: E 3 h f_e / (ep etp) = / 8 per MoE layer, summed over edp = 2.
  const Counted eg = count(p, kGroupEdp, CollOp::AllReduce, "expert grads");
  CHECK(eg.bytes == kMoeLayers * kE * 3 * kH * kFe / 8 * 4);
}

TEST_CASE("megatron moe etp: the distributed optimizer shards expert states over edp", "[workload]") {
  models::ScenarioSpec s = scenario_megatron_moe_etp(2, 4, 1);
  s.parallel.distributed_optimizer = true;
  const MegatronConfig c = config(s, 16);
  const Program p = build_megatron_programs(c)[0];
  const int64_t experts = kMoeLayers * kE * 3 * kH * kFe / 4;
  CHECK(count(p, kGroupEdp, CollOp::ReduceScatter, "expert grads").bytes == experts * 4);
  CHECK(count(p, kGroupEdp, CollOp::AllGather, "expert param").bytes == experts * 2);
  // Memory: 2 + 4 bytes per parameter and 12 / d for the optimizer, d = dp cp = 8 for the dense
  // parameters and edp = tp cp dp / (etp ep) = 4 for the routed experts.
  models::memory::MemoryInputs in;
  in.model = c.model, in.strategy = Strategy::Megatron, in.tp = 2, in.dp = 8, in.ep = 4, in.etp = 1;
  in.vocab_shards = 2, in.distributed_optimizer = true, in.sequence_parallel = true;
  const double p_all = models::memory::rank_params(in);
  const auto e = models::memory::estimate_rank(in);
  double optimizer = 0;
  for (const auto& t : e.phases.back().terms)
    if (std::string(t.name) == "optimizer_states") optimizer = t.bytes;
  CHECK(optimizer == Approx(12.0 / 8 * (p_all - double(experts)) + 12.0 / 4 * double(experts)));
}

TEST_CASE("megatron moe etp: routed activations per token, h c k (etp + 1) / tp + 4 f_e c k / tp", "[workload]") {
  const models::model::ModelShape m = models::model::resolve_model(*scenario_megatron_moe_etp(2, 4, 1).model);
  using models::memory::moe_block_activation_bytes_per_token;
  using models::memory::Recompute;
  const double e = 2, h = kH, c = 1, k = kK, tp = 2;
  // Everything but the routed copies' input and output is the same whatever etp.
  const double at_tp = moe_block_activation_bytes_per_token(m, 2, true, Recompute::None, 2, 2);
  const double at_1 = moe_block_activation_bytes_per_token(m, 2, true, Recompute::None, 2, 1);
  const double at_4 = moe_block_activation_bytes_per_token(m, 2, true, Recompute::None, 2, 4);
  CHECK(at_tp - at_1 == Approx(e * h * c * k * (2 / tp - 1 / tp)));
  CHECK(at_4 - at_tp == Approx(e * h * c * k * (4 / tp - 2 / tp)));
  CHECK(moe_block_activation_bytes_per_token(m, 2, true, Recompute::None, 2) == at_tp);  // 0: etp = tp
  // The expert intermediate (4 f_e c k / tp) does not move with etp: at etp = tp the whole term is
  // replicated 4 e h / tp + attention e (2h + 2 kv) / tp + routed + router 8 E / tp.
  const double kv = double(m.kv_dim());
  CHECK(at_tp == Approx(4 * e * h / tp + e * (2 * h + 2 * kv) / tp + e * h * c * k * (1 + 1 / tp) +
                        4 * e * kFe * c * k / tp + 8.0 * kE / tp));
}

TEST_CASE("megatron moe etp: layout checks name parallel.etp", "[workload]") {
  CHECK(layout_error(scenario_megatron_moe_etp(2, 4, 1), 16).empty());
  CHECK(layout_error(scenario_megatron_moe_etp(2, 2, 4), 16).empty());
  CHECK(layout_error(scenario_megatron_moe_etp(1, 2, 2), 8).empty());             // etp above tp = 1: 2 x 2 x 2 ranks
  CHECK(layout_error(scenario_megatron_moe_etp(2, 2, 3), 12) == "parallel.etp");  // 3 does not divide moe_ffn 2048
  CHECK(layout_error(scenario_megatron_moe_etp(2, 4, 4), 8) == "parallel.etp");   // 4 x 4 does not divide 8 ranks
  CHECK(layout_error(scenario_megatron_moe_etp(2, 3, 1), 12) == "parallel.ep");   // 3 does not divide the 8 experts
  models::ScenarioSpec dense = scenario_megatron_moe_etp(2, 1, 2);
  dense.model->experts = 0, dense.model->top_k.reset(), dense.model->moe_ffn.reset(), dense.model->moe_stride.reset();
  CHECK(layout_error(dense, 8) == "parallel.etp");
  models::ScenarioSpec zero = dense;
  zero.parallel.strategy = "zero3", zero.parallel.tp = 1, zero.parallel.sequence_parallel = false;
  CHECK(layout_error(zero, 8) == "parallel.etp");  // a Megatron option
}
