// The planner's bounds (bounds.hpp): the closed forms of the step bound, and both bounds below
// what the run reports.
#include <catch2/catch.hpp>

#include "models/compute/gemm.hpp"
#include "models/compute/kernels.hpp"
#include "models/hw/instance.hpp"
#include "models/hw/links.hpp"
#include "models/model/model_shape.hpp"
#include "models/plan/bounds.hpp"
#include "models/plan/candidate.hpp"
#include "models/plan/comm_bound.hpp"
#include "models/plan/dp_comm_bound.hpp"
#include "models/run/run.hpp"
#include "models/topology/node_graph.hpp"
#include "models/workload/compute.hpp"
#include "models/workload/layout.hpp"
#include "models/workload/steps/megatron.hpp"
#include "models/world/link_rates.hpp"
#include "tests/models/plan/plan_fixture.hpp"

using namespace models::plan;

namespace {
Candidate megatron(int nodes, int tp, int pp, int vp, const std::string& schedule = "1f1b") {
  Candidate c;
  c.instance = "p5.48xlarge";
  c.nodes = nodes;
  c.tp = tp, c.pp = pp, c.vp = vp;
  c.schedule = schedule;
  c.sequence_parallel = tp > 1;
  c.distributed_optimizer = true;
  return c;
}
}  // namespace

TEST_CASE("plan: the step bound of data parallelism is m (L w + head) (closed form)", "[models][plan]") {
  const auto base = plan_test::small_base();
  const auto m = models::model::resolve_model(*base.model);
  Candidate c;
  c.instance = "p5.48xlarge";
  c.strategy = "fsdp";
  const auto spec = apply_candidate(base, c);
  const StepBound b = step_lower_bound(spec, m, 8);
  // A dense block at cp 1 with flash attention: every kernel as the compute model prices it on
  // T = 2048 tokens, at the rates the step's programs use: the GPU's laws with the step's
  // power-limit stretch of its GEMMs (workload/steps/strategy.cpp plan_step).
  const auto& node = models::hw::find_instance("p5.48xlarge");
  const auto rates = models::workload::step_rates(spec, node.gpu, node.host_mem_bytes_per_s, m,
                                                  models::workload::make_layout(spec, m, 8, 8));
  CHECK(rates.gemm_stretch >= 1);
  const auto block = models::workload::block_seconds(m, 2048, 1, rates);
  CHECK(b.block_fwd_s == Approx(block.fwd()).epsilon(1e-12));
  CHECK(b.block_bwd_s == Approx(block.bwd()).epsilon(1e-12));
  // m = global batch / dp / mb = 32 / 8 = 4 micro-batches of 32 blocks and the head.
  const auto head = models::workload::head_seconds(m, 2048, 1, rates);
  CHECK(b.step_s == Approx(4 * (32 * (block.fwd() + block.bwd()) + head.fwd.total() + head.bwd.total())).epsilon(1e-12));
  // The GEMMs alone are a part of it (the law's forward products of one block).
  auto lin = [&](int64_t in, int64_t out) {
    return models::compute::linear_seconds(rates.gpu.gemm, 2048, in, out).fwd * rates.gemm_stretch;
  };
  CHECK(b.block_fwd_s > lin(4096, 6144) + lin(4096, 4096) + 2 * lin(4096, 14336) + lin(14336, 4096));
}

TEST_CASE("plan: the pipeline bound is the last stage's m (W + H) after (pp - 1) chunks", "[models][plan]") {
  const auto base = plan_test::small_base();
  const auto m = models::model::resolve_model(*base.model);
  // tp 2, pp 4 on 8 GPUs: dp 1, m = 32 micro-batches; 8 layers per stage.
  const auto spec = apply_candidate(base, megatron(1, 2, 4, 1));
  const StepBound plain = step_lower_bound(spec, m, 8);
  const double f = plain.block_fwd_s + plain.block_comm_fwd_s;
  const double w = 8 * (f + plain.block_bwd_s + plain.block_comm_bwd_s);
  // H: the output layer as Megatron's layer prices it (final norm on T / tp tokens with sequence
  // parallelism, logits on V / tp columns, Megatron-Core's loss) plus its input's all-gather at its bound.
  const auto& node = models::hw::find_instance("p5.48xlarge");
  const auto layout = models::workload::make_layout(spec, m, 8, 8);
  const auto rates = models::workload::step_rates(spec, node.gpu, node.host_mem_bytes_per_s, m, layout);
  REQUIRE(layout.megatron_loss);
  const auto k = models::workload::head_kernels(m, 2048, 1024, 2, rates, 0, /*megatron_loss=*/true);
  const double t_c = tp_comm_bound(spec, m, layout).collective_s;
  const double head = k.norm_fwd + k.logits.fwd + k.loss_fwd + k.loss_bwd + k.logits.bwd() + k.norm_bwd + t_c;
  CHECK(plain.head_s == Approx(head).epsilon(1e-12));
  CHECK(head > 0);
  // The last stage: m (W + H) after the (pp - 1) chunks before it.
  CHECK(plain.step_s == Approx(32 * (w + head) + 3 * w).epsilon(1e-12));
  // Interleaved, vp 2: chunks of 4 layers, so the warm-up is (pp - 1) half-stages.
  const StepBound inter = step_lower_bound(apply_candidate(base, megatron(1, 2, 4, 2)), m, 8);
  CHECK(inter.step_s == Approx(32 * (w + head) + 3 * w / 2).epsilon(1e-12));
  // zb_h1: the forward warm-up only.
  const StepBound zb = step_lower_bound(apply_candidate(base, megatron(1, 2, 4, 1, "zb_h1")), m, 8);
  CHECK(zb.step_s == Approx(32 * (w + head) + 3 * 8 * f).epsilon(1e-12));
  // One stage (tp 8, dp 1, m = 32): m (L w + H).
  const StepBound one = step_lower_bound(apply_candidate(base, megatron(1, 8, 1, 1)), m, 8);
  CHECK(one.step_s == Approx(32 * (32 * (one.block_fwd_s + one.block_comm_fwd_s + one.block_bwd_s + one.block_comm_bwd_s) +
                                  one.head_s))
                          .epsilon(1e-12));
  // Compute alone at unstretched rates (the bench's comparison, the first version's bound): the
  // lightest stage after (pp - 1) chunks, no collectives, the head's GEMMs left out with pp > 1;
  // never above the planner's bound.
  const StepBound alone = step_lower_bound(apply_candidate(base, megatron(1, 2, 4, 1)), m, 8, false);
  CHECK(alone.block_comm_fwd_s == 0);
  CHECK(alone.step_s == Approx(35 * 8 * (alone.block_fwd_s + alone.block_bwd_s)).epsilon(1e-12));
  CHECK(alone.step_s < plain.step_s);
}

TEST_CASE("plan: at cp 2 the block's kernels are priced on seq / cp tokens, attention against the whole sequence",
          "[models][plan]") {
  const auto base = plan_test::small_base();
  const auto m = models::model::resolve_model(*base.model);
  Candidate c = megatron(1, 2, 2, 1);
  c.cp = 2;  // tp 2 x cp 2 x pp 2 on 8 GPUs: dp 1, m = 32, 16 layers per stage, T = 1024 tokens
  const auto spec = apply_candidate(base, c);
  const auto& node = models::hw::find_instance("p5.48xlarge");
  const auto layout = models::workload::make_layout(spec, m, 8, 8);
  const auto rates = models::workload::step_rates(spec, node.gpu, node.host_mem_bytes_per_s, m, layout);
  const auto block = models::workload::block_seconds(m, 1024, 2, rates, true);
  const StepBound b = step_lower_bound(spec, m, 8);
  CHECK(b.block_fwd_s == Approx(block.fwd()).epsilon(1e-12));
  CHECK(b.block_bwd_s == Approx(block.bwd()).epsilon(1e-12));
  // The attention of 1024 queries against 2048 keys: half of cp 1's FLOPs on 2048 tokens, not the
  // quarter of a 1024-token sequence; its time between the two.
  const int64_t width = m.attention().core_width();
  CHECK(models::compute::attention_fwd_flops(1024, 2048, width, 2) ==
        Approx(models::compute::attention_fwd_flops(2048, 2048, width, 2) / 2).epsilon(1e-12));
  const auto whole = models::workload::block_seconds(m, 2048, 2, rates, true);
  auto short_model = m;
  short_model.seq = 1024;
  const auto quarter = models::workload::block_seconds(short_model, 1024, 2, rates, true);
  CHECK(block.attn_fwd.attention > quarter.attn_fwd.attention);
  CHECK(block.attn_fwd.attention < whole.attn_fwd.attention);
  // Untight (the first version's): the linear layers' GEMMs only, below.
  CHECK(step_lower_bound(spec, m, 8, false).block_fwd_s < b.block_fwd_s);
}

TEST_CASE("plan: the blocking tensor-parallel collectives at the GPU ports' bandwidth (closed form)", "[models][plan]") {
  const auto base = plan_test::small_base();
  const auto m = models::model::resolve_model(*base.model);
  // p5.48xlarge: an H100's NVLink 4 port, 18 links x 25 GB/s = 450 GB/s at NCCL Simple's 0.79 (the
  // World's port capacity), plus its PCIe Gen5 x16 link.
  const auto spec = apply_candidate(base, megatron(1, 2, 4, 1));
  const double port = 0.79 * 18 * models::hw::nvlink(4).bytes_per_s + models::hw::pcie(5, 16).bytes_per_s;
  CHECK(gpu_port_bytes_per_s(spec) == Approx(port).epsilon(1e-12));
  // tp 2, sequence parallel: the activation S = T h e = 2048 x 4096 x 2 bytes; each collective at
  // least (tp - 1)/tp S / port; forward 2 all-gathers + 2 reduce-scatters, backward 2 all-gathers.
  const double t_c = 0.5 * 2048.0 * 4096 * 2 / port;
  const auto l = models::workload::make_layout(spec, m, 8, 8);
  const TpCommBound tc = tp_comm_bound(spec, m, l);
  CHECK(tc.collective_s == Approx(t_c).epsilon(1e-12));
  CHECK(tc.attn_fwd + tc.mlp_fwd == 4);
  CHECK(tc.attn_bwd + tc.mlp_bwd == 2);
  const StepBound b = step_lower_bound(spec, m, 8);
  CHECK(b.block_comm_fwd_s == Approx(4 * t_c).epsilon(1e-12));
  CHECK(b.block_comm_bwd_s == Approx(2 * t_c).epsilon(1e-12));
  // Without sequence parallelism: the all-reduce after proj and fc2 only (the backward's beside the
  // wgrad GEMM); with tp_comm_overlap none; tp 1 and the data-parallel strategies none.
  auto no_sp = megatron(1, 2, 4, 1);
  no_sp.sequence_parallel = false;
  const auto s2 = apply_candidate(base, no_sp);
  const TpCommBound t2 = tp_comm_bound(s2, m, models::workload::make_layout(s2, m, 8, 8));
  CHECK(t2.attn_fwd + t2.mlp_fwd == 2);
  CHECK(t2.attn_bwd + t2.mlp_bwd == 0);
  auto s3 = spec;
  s3.parallel.tp_comm_overlap = true;
  const TpCommBound t3 = tp_comm_bound(s3, m, models::workload::make_layout(s3, m, 8, 8));
  CHECK(t3.attn_fwd + t3.mlp_fwd + t3.attn_bwd + t3.mlp_bwd == 0);
  CHECK(step_lower_bound(apply_candidate(base, megatron(1, 1, 4, 1)), m, 8).block_comm_fwd_s == 0);
}

TEST_CASE("plan: an MoE layer's blocking all-to-alls at the GPU ports' bandwidth (closed form)", "[models][plan]") {
  // Qwen3-30B-A3B (128 experts, top 8, hidden 2048) at seq 1024, micro-batch 1, on p5.48xlarge.
  // Each MoE layer's forward waits for a dispatch and a combine all-to-all of S_a = T top_k h e
  // bytes (balanced experts), each rank receiving S_a / ep from each of its ep - 1 peers through
  // its ports: at least 2 (ep - 1)/ep S_a / B_gpu; with etp 2 also an all-gather and a
  // reduce-scatter of the ETP group's tokens, at least 2 (etp - 1)/etp S_t / B_gpu.
  auto base = plan_test::small_base();
  base.model->preset = "qwen3-30b-a3b";
  base.model->seq = 1024;
  const auto m = models::model::resolve_model(*base.model);
  const double port = gpu_port_bytes_per_s(apply_candidate(base, megatron(1, 1, 1, 1)));
  Candidate ep8 = megatron(1, 1, 1, 1);
  ep8.ep = 8;
  const auto s8 = apply_candidate(base, ep8);
  const double s_a = 1024.0 * 8 * 2048 * 2;
  CHECK(moe_comm_bound(s8, m, models::workload::make_layout(s8, m, 8, 8)) == Approx(2 * 7.0 / 8 * s_a / port));
  // The forward's and the backward's count in the step bound: the MoE MLP's work grows by both.
  const StepBound with = step_lower_bound(s8, m, 8), without = step_lower_bound(s8, m, 8, true, false);
  CHECK(with.moe_comm_fwd_s == Approx(2 * 7.0 / 8 * s_a / port));
  CHECK(with.step_s - without.step_s ==
        Approx(2 * with.moe_comm_fwd_s * m.layers * models::workload::make_layout(s8, m, 8, 8).pipeline_micro_batches));
  // tp 2 with etp 2 and ep 4: the router sees T / tp tokens (sequence parallel), the ETP group
  // gathers etp of those: S_a = T/2 top_k h e, S_t = T top_k h e.
  Candidate etp2 = megatron(1, 2, 1, 1);
  etp2.ep = 4;
  etp2.etp = 2;
  const auto s2 = apply_candidate(base, etp2);
  const auto l2 = models::workload::make_layout(s2, m, 8, 8);
  REQUIRE(l2.etp == 2);
  CHECK(moe_comm_bound(s2, m, l2) == Approx((2 * 3.0 / 4 * s_a / 2 + 2 * 0.5 * s_a) / port));
  // Two nodes, ep 16: each EP group holds 8 ranks on each node, so a node receives 8 x 8 S_a / 16
  // from the other through its network links (32 EFA NICs at their efficiency, and the ordinary
  // interface): at least 4 S_a / C_in per all-to-all, above the ports' 15/16 S_a / B_gpu.
  Candidate two = megatron(2, 1, 1, 1);
  two.ep = 16;
  const auto s16 = apply_candidate(base, two);
  const auto l16 = models::workload::make_layout(s16, m, 16, 8);
  CHECK(ep_cross_node_pairs(s16, l16) == 64);
  const auto& p5 = models::hw::find_instance("p5.48xlarge");
  const models::topology::NodeGraph graph(p5);
  const auto k = models::node_link_rates(s16, p5, graph);
  const double c_in = graph.nics() * k.nic_bw * k.nic_eff + k.eth_bw;
  CHECK(graph.nics() == 32);
  CHECK(4 * s_a / c_in > 15.0 / 16 * s_a / port);
  CHECK(moe_comm_bound(s16, m, l16) == Approx(2 * 4 * s_a / c_in));
  CHECK(moe_comm_bound(s16, m, l16, /*nodes=*/false) == Approx(2 * 15.0 / 16 * s_a / port));
  // ep 8 on two nodes: every EP group on one node, nothing crosses.
  Candidate inside = two;
  inside.ep = 8;
  const auto s8x2 = apply_candidate(base, inside);
  CHECK(ep_cross_node_pairs(s8x2, models::workload::make_layout(s8x2, m, 16, 8)) == 0);
  // ep 1, etp 1: nothing to wait for; a dense model: none.
  const auto s1 = apply_candidate(base, megatron(1, 1, 1, 1));
  CHECK(moe_comm_bound(s1, m, models::workload::make_layout(s1, m, 8, 8)) == 0);
}

TEST_CASE("plan: both bounds stay below what the run reports", "[models][plan]") {
  const auto base = plan_test::small_base();
  const auto m = models::model::resolve_model(*base.model);
  models::RunOptions opt;
  opt.timeline = false;
  Candidate no_sp = megatron(1, 4, 2, 1);
  no_sp.sequence_parallel = false;
  Candidate full = megatron(2, 8, 2, 1, "zb_h1");
  full.recompute = "full";
  Candidate cp2 = megatron(2, 2, 4, 2);
  cp2.cp = 2;
  Candidate mb2 = megatron(1, 2, 2, 1, "zb_h1");
  mb2.cp = 2;
  mb2.micro_batch = 2;
  for (const Candidate& c : {megatron(1, 2, 4, 1), megatron(1, 8, 1, 1), megatron(2, 4, 2, 2), megatron(1, 1, 4, 1, "zb_h1"),
                             no_sp, full, cp2, mb2, megatron(1, 4, 2, 1), megatron(1, 2, 2, 2)}) {
    auto spec = apply_candidate(base, c);
    // The last one with the output layer replicated (not vocab-parallel): every rank's logits.
    if (c.tp == 2 && c.pp == 2 && c.vp == 2) spec.parallel.vocab_parallel = false;
    const auto r = models::run_scenario(spec, opt);
    INFO(layout_text(c));
    CHECK(step_lower_bound(spec, m, 8).step_s <= r.step_time_s * (1 + 1e-6));  // ps rounding of the ops
    CHECK(memory_lower_bound(spec, m, 8) <= r.memory.peak_bytes);
    // The memory bound is the run's estimate without NCCL's buffers: within them of the peak.
    CHECK(memory_lower_bound(spec, m, 8) >= r.memory.peak_bytes - 2e9);
  }
}

TEST_CASE("plan: under fp8 Megatron's weight casts count once per step, and the bound stays below the run",
          "[models][plan]") {
  // Megatron's layer casts its fp8 weights on the first micro-batch's forward only (not on the
  // others, not on a recompute); bounding them per micro-batch put the bound above the step at
  // many micro-batches and made the planner skip the best layout.
  auto base = plan_test::small_base();
  base.training.precision = "fp8";
  base.training.global_batch = 64;
  base.model->seq = 512;
  const auto m = models::model::resolve_model(*base.model);
  models::RunOptions opt;
  opt.timeline = false;
  Candidate full = megatron(1, 1, 2, 1, "zb_h1");
  full.recompute = "full";
  for (const Candidate& c : {megatron(1, 1, 1, 1), megatron(1, 1, 2, 1, "zb_h1"), full, megatron(1, 2, 2, 2)}) {
    const auto spec = apply_candidate(base, c);
    const auto r = models::run_scenario(spec, opt);
    INFO(layout_text(c));
    CHECK(step_lower_bound(spec, m, 8).step_s <= r.step_time_s * (1 + 1e-6));
  }
  // tp 1 pp 1: 8 micro-batches of 32 layers, the casts once per layer: the bound moves by 7 of
  // every layer's 8 casts from the per-micro-batch count.
  const auto spec = apply_candidate(base, megatron(1, 1, 1, 1));
  const auto l = models::workload::make_layout(spec, m, 8, 8);
  const auto& node = models::hw::find_instance("p5.48xlarge");
  const auto rates = models::workload::step_rates(spec, node.gpu, node.host_mem_bytes_per_s, m, l);
  const auto k = models::workload::block_kernels(m, 512, 1, rates);
  CHECK(k.fp8_attn_weights > 0);
  CHECK(k.fp8_mlp_weights > 0);
  const auto with = models::workload::block_seconds(m, 512, 1, rates, false, true);
  const auto without = models::workload::block_seconds(m, 512, 1, rates, false, false);
  CHECK(with.fwd() - without.fwd() == Approx(k.fp8_attn_weights + k.fp8_mlp_weights).epsilon(1e-9));
  CHECK(l.pipeline_micro_batches == 8);
  const StepBound b = step_lower_bound(spec, m, 8);
  CHECK(b.block_fwd_s == Approx(without.fwd()).epsilon(1e-12));
}

TEST_CASE("plan: the data-parallel communication's bound, ports and network (closed form)", "[models][plan]") {
  const auto base = plan_test::small_base();
  const auto m = models::model::resolve_model(*base.model);
  const auto& p5 = models::hw::find_instance("p5.48xlarge");
  const models::topology::NodeGraph graph(p5);
  // Megatron tp 8, dp 2 on two p5 nodes with the distributed optimizer: each of the 8 dp groups
  // joins rank t of node 0 to rank t of node 1. A rank reduce-scatters its P_r parameters' fp32
  // gradients (4 bytes under bf16) and all-gathers their bf16 values: half of each leaves or
  // enters it; a node carries the 8 groups' halves through its network links.
  Candidate c = megatron(2, 8, 1, 1);
  const auto spec = apply_candidate(base, c);
  const auto l = models::workload::make_layout(spec, m, 16, 8);
  REQUIRE(l.dp == 2);
  models::workload::MegatronConfig mc;
  mc.model = m;
  mc.training = spec.training;
  mc.layout = l;
  const double p_r = double(models::workload::megatron_stage_grad_params(mc, 0).dense);
  CHECK(p_r == double(models::workload::megatron_stage_params(mc, 0)));  // a dense model: no experts
  const auto rates = models::workload::make_rates(p5.gpu, models::workload::training_precision(spec.training),
                                                  p5.host_mem_bytes_per_s, 0, {});
  const DpCommBound d = dp_comm_bound(spec, m, l, rates);
  CHECK(d.rank_out_bytes == Approx(0.5 * p_r * 4).epsilon(1e-12));
  CHECK(d.rank_in_bytes == Approx(0.5 * p_r * 2).epsilon(1e-12));
  CHECK(d.node_out_bytes == Approx(8 * 0.5 * p_r * 4).epsilon(1e-12));
  CHECK(d.node_in_bytes == Approx(8 * 0.5 * p_r * 2).epsilon(1e-12));
  const auto k = models::node_link_rates(spec, p5, graph);
  const double c_node = graph.nics() * k.nic_bw * k.nic_eff + k.eth_bw;
  CHECK(d.port_s == Approx(0.5 * p_r * 4 / gpu_port_bytes_per_s(spec)).epsilon(1e-12));
  CHECK(d.network_s == Approx(8 * 0.5 * p_r * 4 / c_node).epsilon(1e-12));
  // The step bound is the largest of the compute stream's and these two.
  const StepBound b = step_lower_bound(spec, m, 8);
  CHECK(b.dp_port_s == d.port_s);
  CHECK(b.dp_network_s == d.network_s);
  CHECK(b.step_s == std::max({b.compute_stream_s, d.port_s, d.network_s}));
  CHECK(step_lower_bound(spec, m, 8, true, true, /*dp_comm=*/false).step_s == b.compute_stream_s);
  // DDP over the 16 ranks: one all-reduce of every bf16 gradient (2 P bytes) per step; a rank
  // sends and receives all of it, and so does a node of 8 ranks.
  Candidate ddp;
  ddp.instance = "p5.48xlarge";
  ddp.nodes = 2;
  ddp.strategy = "ddp";
  const auto s_ddp = apply_candidate(base, ddp);
  const auto l_ddp = models::workload::make_layout(s_ddp, m, 16, 8);
  const DpCommBound dd = dp_comm_bound(s_ddp, m, l_ddp, rates);
  const double grads = 2.0 * double(m.total_params());
  CHECK(dd.rank_out_bytes == Approx(grads).epsilon(1e-9));
  CHECK(dd.rank_in_bytes == Approx(grads).epsilon(1e-9));
  CHECK(dd.node_out_bytes == Approx(grads).epsilon(1e-9));
  CHECK(dd.node_in_bytes == Approx(grads).epsilon(1e-9));
  // One node: no network term; one rank of data parallelism: nothing at all.
  Candidate one = ddp;
  one.nodes = 1;
  const auto s_one = apply_candidate(base, one);
  CHECK(dp_comm_bound(s_one, m, models::workload::make_layout(s_one, m, 8, 8), rates).network_s == 0);
  const auto s_tp8 = apply_candidate(base, megatron(1, 8, 1, 1));
  const DpCommBound none = dp_comm_bound(s_tp8, m, models::workload::make_layout(s_tp8, m, 8, 8), rates);
  CHECK(none.port_s == 0);
  CHECK(none.network_s == 0);
}

TEST_CASE("plan: with data-parallel communication across a slow network the bound stays below the run",
          "[models][plan]") {
  // Two p4d.24xlarge nodes (A100, 4 x 100 Gb/s EFA), and two h200x4 hosts joined by a 10 Gb/s
  // interface alone (NCCL's Socket transport), where the network term decides the bound.
  for (const auto& [instance, gpus] : {std::pair<std::string, int>{"p4d.24xlarge", 8}, {"h200x4", 4}}) {
    auto base = plan_test::small_base();
    base.cluster.instance = instance;
    const auto m = models::model::resolve_model(*base.model);
    models::RunOptions opt;
    opt.timeline = false;
    int network_binds = 0;
    for (const std::string strategy : {"ddp", "zero1", "zero2", "zero3", "fsdp", "hsdp", "megatron"}) {
      Candidate c = strategy == "megatron" ? megatron(2, 4, 1, 1) : Candidate{};
      c.instance = instance;
      c.nodes = 2;
      c.gpus_per_node = gpus;
      c.strategy = strategy;
      const auto spec = apply_candidate(base, c);
      const StepBound b = step_lower_bound(spec, m, gpus);
      const auto r = models::run_scenario(spec, opt);
      INFO(instance << " " << strategy << ": compute stream " << b.compute_stream_s << " s, ports " << b.dp_port_s
                    << " s, network " << b.dp_network_s << " s, run " << r.step_time_s << " s");
      CHECK(b.dp_network_s > 0);
      CHECK(b.step_s <= r.step_time_s * (1 + 1e-6));
      network_binds += b.dp_network_s > b.compute_stream_s;
    }
    if (instance == "h200x4") CHECK(network_binds == 7);  // every strategy's step is the network's there
  }
}
