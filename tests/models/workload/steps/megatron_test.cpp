// Megatron programs (models/workload/megatron*.hpp) against their closed forms: the pipeline
// bubble measured on idle links, the bytes sequence and context parallelism move, the
// distributed optimizer's collectives, recompute's extra work and Megatron-Core's rank grid. When the
// overlapped parameter gathers and gradient reductions start: megatron_overlap_test.cpp.
//
// Rig: FakeEngine (fakes.hpp) prices every collective and transfer by its ring closed form, here
// free (0 latency, 1e30 B/s) where a test measures compute only; memory-bound kernels are made
// free (HBM at 1e20 B/s) so that every stage computes the same.
#include <catch2/catch.hpp>

#include <map>

#include "models/workload/executor.hpp"
#include "models/workload/steps/megatron.hpp"
#include "models/workload/steps/megatron_layer.hpp"
#include "tests/models/workload/fakes.hpp"
#include "tests/models/workload/steps/megatron_rig.hpp"

using namespace models::workload;
using namespace models::workload::megatron_slots;
using megatron_test::config_megatron;
using megatron_test::layer_rates;
using models::collectives::Group;
using models::nccl::CollOp;

namespace {
struct Measured {
  double step = 0;
  std::vector<double> compute;  // per rank
};
Measured simulate(const MegatronConfig& c, double alpha = 0, double bw = 1e30) {
  std::vector<Group> groups;
  std::vector<RankSetup> ranks;
  megatron_layout(c, groups, ranks);
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  workload_test::FakeEngine engine(sim, alpha, bw);
  StepExecutor ex(sim, net, engine, nullptr, build_megatron_programs(c), groups, ranks);
  ex.run();
  REQUIRE(ex.all_done());
  Measured out;
  out.step = (ex.end() - ex.start()).seconds();
  for (int r = 0; r < int(ranks.size()); ++r) out.compute.push_back(ex.account(r).compute.seconds());
  return out;
}

// Bytes a rank puts on the wire for the collectives of `slot` whose name contains `filter`
// (ring closed form: all-reduce 2(n-1)/n S, all-gather and reduce-scatter (n-1)/n S).
double wire_bytes(const Program& p, int slot, int n, const std::string& filter, int* count = nullptr) {
  double total = 0;
  for (const auto& stream : p.ops)
    for (const Op& op : stream)
      if (op.kind == OpKind::Collective && op.slot == slot && p.names[op.arg].find(filter) != std::string::npos) {
        total += workload_test::FakeEngine::factor(op.coll, n) * double(op.bytes);
        if (count) ++*count;
      }
  return total;
}

std::map<CollOp, int> count_ops(const Program& p, int slot, const std::string& filter) {
  std::map<CollOp, int> n;
  for (const auto& stream : p.ops)
    for (const Op& op : stream)
      if (op.kind == OpKind::Collective && op.slot == slot && p.names[op.arg].find(filter) != std::string::npos)
        ++n[op.coll];
  return n;
}

// Bytes of the collectives of `slot` whose name contains `filter`, as the program issues them.
int64_t issued_bytes(const Program& p, int slot, const std::string& filter) {
  int64_t total = 0;
  for (const auto& stream : p.ops)
    for (const Op& op : stream)
      if (op.kind == OpKind::Collective && op.slot == slot && p.names[op.arg].find(filter) != std::string::npos)
        total += op.bytes;
  return total;
}

double compute_seconds_megatron(const Program& p) {
  double t = 0;
  for (const Op& op : p.ops[kCompute])
    if (op.kind == OpKind::Compute) t += op.duration.seconds();
  return t;
}
}  // namespace

TEST_CASE("megatron: 1F1B bubble is (p-1)/m of the ideal step on idle links", "[workload]") {
  // Narayanan et al. 2021: t_bubble / t_ideal = (p - 1) / m.
  for (int m : {4, 8, 16}) {
    const int p = 4;
    const Measured r = simulate(config_megatron(8, 1, p, 1, m));
    for (int s = 0; s < p; ++s) {
      INFO("m " << m << " stage " << s);
      const double busy = r.compute[s];
      CHECK((r.step - busy) / busy == Approx(double(p - 1) / m).epsilon(0.01));
    }
  }
}

TEST_CASE("megatron: interleaved 1F1B bubble is (p-1)/(v m) on idle links", "[workload]") {
  // Narayanan et al. 2021, interleaved schedule: t_bubble / t_ideal = (p - 1) / (v m).
  for (bool overlap : {false, true})
    for (int v : {2, 4}) {
      const int p = 4, m = 8;
      MegatronConfig c = config_megatron(p * v * 2, 1, p, v, m);
      c.layout.overlap_p2p_comm = overlap;
      const Measured r = simulate(c);
      for (int s = 0; s < p; ++s) {
        INFO("v " << v << " stage " << s << " overlap " << overlap);
        const double busy = r.compute[s];
        CHECK((r.step - busy) / busy == Approx(double(p - 1) / (v * m)).epsilon(0.01));
      }
    }
}

TEST_CASE("megatron: ZB-H1's bubble is (p-1)(F + B - W) on idle links, 1F1B's (p-1)(F + B + W)", "[workload]") {
  // Qi et al. 2024, section 3.1: W (the weight-gradient GEMMs) fills the cool-down's idle time.
  for (int m : {4, 8, 16}) {
    const int p = 4, layers = 8;
    MegatronConfig c = config_megatron(layers, 1, p, 1, m);
    c.layout.zero_bubble = true;
    const Measured zb = simulate(c);
    const Measured plain = simulate(config_megatron(layers, 1, p, 1, m));
    models::workload::Program scratch;
    const BlockKernels k = MegatronLayer(c.model, c.layout, c.training, c.rates, scratch).kernels();
    const double w = layers / p * (k.qkv.wgrad + k.o.wgrad + k.up.wgrad + k.down.wgrad);
    for (int s = 0; s < p; ++s) {
      INFO("m " << m << " stage " << s);
      const double busy = zb.compute[s], pass = busy / m;  // F + B + W of one micro-batch
      CHECK(busy == Approx(plain.compute[s]).epsilon(1e-6));  // the same work, split (ps rounding per op)
      CHECK(zb.step - busy == Approx((p - 1) * (pass - 2 * w)).epsilon(0.01));
      CHECK(plain.step - busy == Approx((p - 1) * pass).epsilon(0.01));
    }
  }
}

TEST_CASE("megatron: sequence parallelism moves the all-reduce's bytes as all-gather + reduce-scatter", "[workload]") {
  // Per layer, A = b s h e bytes. Without SP: forward 2 all-reduces, backward 2 (the input
  // gradients of qkv and fc1). With SP: forward 2 all-gathers + 2 reduce-scatters (the same wire
  // bytes: 2 x 2(t-1)/t A = 4 x (t-1)/t A); backward 2 gradient all-gathers, the 2 input
  // all-gathers again and 2 reduce-scatters: 6 (t-1)/t A, 1.5x the all-reduces'.
  const int t = 8;
  MegatronConfig c = config_megatron(2, t, 1, 1, 1);
  const LayerWork w = megatron_layer_work(c.model, c.layout, c.training);
  const double a = double(w.tp_bytes);
  CHECK(a == 1.0 * 512 * 1024 * 2);
  const Program plain = build_megatron_programs(c)[0];
  c.layout.sequence_parallel = true;
  const Program sp = build_megatron_programs(c)[0];
  const double unit = double(t - 1) / t * a;
  CHECK(wire_bytes(plain, kGroupTp, t, "L0 fwd") == Approx(4 * unit));
  CHECK(wire_bytes(sp, kGroupTp, t, "L0 fwd") == Approx(4 * unit));
  CHECK(wire_bytes(plain, kGroupTp, t, "L0 bwd") == Approx(4 * unit));
  CHECK(wire_bytes(sp, kGroupTp, t, "L0 bwd") == Approx(6 * unit));
  CHECK(count_ops(plain, kGroupTp, "L0 fwd") == std::map<CollOp, int>{{CollOp::AllReduce, 2}});
  CHECK(count_ops(sp, kGroupTp, "L0 fwd") == std::map<CollOp, int>{{CollOp::AllGather, 2}, {CollOp::ReduceScatter, 2}});
  CHECK(count_ops(sp, kGroupTp, "L0 bwd") == std::map<CollOp, int>{{CollOp::AllGather, 4}, {CollOp::ReduceScatter, 2}});
  // Full recompute repeats the forward's collectives.
  c.layout.recompute = Recompute::Full;
  const Program full = build_megatron_programs(c)[0];
  CHECK(wire_bytes(full, kGroupTp, t, "L0 recompute") == Approx(4 * unit));
  // SP shards the norms' and residuals' memory traffic over tp.
  const LayerWork ws = megatron_layer_work(c.model, c.layout, c.training);
  CHECK(ws.norm_bytes == Approx(w.norm_bytes / t));
  CHECK(ws.resid_bytes == Approx(w.resid_bytes / t));
  CHECK(ws.act_bytes == Approx(w.act_bytes));
}

TEST_CASE("megatron: context parallelism sends cp-1 KV blocks per attention forward, twice that backward",
          "[workload]") {
  // KV block of one ring step: 2 (K and V) x b (s / cp) x (kv_heads / tp) x head_dim x e.
  for (int cp : {2, 4}) {
    MegatronConfig c = config_megatron(2, 2, 1, 1, 1);
    c.layout.cp = cp;
    const LayerWork w = megatron_layer_work(c.model, c.layout, c.training);
    CHECK(w.cp_kv_bytes == 2LL * 1 * (512 / cp) * (8 / 2) * 128 * 2);
    const Program p = build_megatron_programs(c)[0];
    double fwd = 0, bwd = 0;
    for (const Op& op : p.ops[kCpSend])
      if (op.kind == OpKind::Send && p.names[op.arg].find("mb0 L0 ") != std::string::npos)
        (p.names[op.arg].find("bwd") != std::string::npos ? bwd : fwd) += double(op.bytes);
    INFO("cp " << cp);
    CHECK(fwd == Approx((cp - 1) * double(w.cp_kv_bytes)));
    CHECK(bwd == Approx(2 * (cp - 1) * double(w.cp_kv_bytes)));
    // GEMM FLOPs per rank fall by cp (each rank holds s / cp tokens).
    CHECK(w.qkv_flops == Approx(megatron_layer_work(c.model, config_megatron(2, 2, 1, 1, 1).layout, c.training).qkv_flops / cp));
    // The ring runs: 2 x cp ranks, each exchanging with its neighbours, no deadlock.
    const Measured r = simulate(c, 1e-6, 1e11);
    CHECK(r.step > 0);
  }
}

TEST_CASE("megatron: distributed optimizer reduce-scatters gradients and all-gathers parameters over dp x cp",
          "[workload]") {
  // bf16: gradients reduced in fp32 (4 B per parameter), parameters gathered in bf16 (2 B).
  MegatronConfig c = config_megatron(8, 1, 1, 1, 2);
  c.model.hidden = 2048, c.model.ffn = 8192, c.model.heads = 16, c.model.kv_heads = 16;
  c.layout.dp = 2;
  c.layout.cp = 2;
  const int64_t params = megatron_stage_params(c, 0);
  CHECK(params == 8 * (12LL * 2048 * 2048 + 2 * 2048) + 8 * 2048 + 2048);  // layers, embedding, final norm (tied)
  {
    const Program ddp = build_megatron_programs(c)[0];
    const auto n = count_ops(ddp, kGroupDp, "");
    CHECK(n == std::map<CollOp, int>{{CollOp::AllReduce, 1}});
    CHECK(wire_bytes(ddp, kGroupDp, 4, "") == Approx(2.0 * 3 / 4 * params * 4));
  }
  c.layout.distributed_optimizer = true;
  {
    const Program opt = build_megatron_programs(c)[0];
    CHECK(count_ops(opt, kGroupDp, "") == std::map<CollOp, int>{{CollOp::ReduceScatter, 1}, {CollOp::AllGather, 1}});
    CHECK(wire_bytes(opt, kGroupDp, 4, "grads") == Approx(3.0 / 4 * params * 4));
    CHECK(wire_bytes(opt, kGroupDp, 4, "param all_gather") == Approx(3.0 / 4 * params * 2));
  }
  // overlap_grad_reduce: buckets of max(40e6, 1e6 dp cp) parameters, closed once full in backward
  // order: the head with the last layer, then one per 50.3e6-parameter layer, the embedding alone.
  c.layout.overlap_grad_reduce = true;
  c.layout.overlap_param_gather = true;
  CHECK(megatron_bucket_params(c.layout) == 40000000);
  {
    const Program opt = build_megatron_programs(c)[0];
    CHECK(count_ops(opt, kGroupDp, "") == std::map<CollOp, int>{{CollOp::ReduceScatter, 9}, {CollOp::AllGather, 9}});
    CHECK(wire_bytes(opt, kGroupDp, 4, "grad bucket") == Approx(3.0 / 4 * params * 4));
    // Only the last micro-batch (mb1) reduces.
    int mb0 = 0;
    wire_bytes(opt, kGroupDp, 4, "mb0", &mb0);
    CHECK(mb0 == 0);
  }
  // Overlap hides the reduction: the step is shorter with slow links.
  c.layout.overlap_param_gather = false;
  const double overlapped = simulate(c, 1e-5, 2e10).step;
  c.layout.overlap_grad_reduce = false;
  const double serial = simulate(c, 1e-5, 2e10).step;
  CHECK(overlapped < serial);
}

TEST_CASE("megatron: only the first pipeline stage's first model chunk splits its gradients into buckets",
          "[workload]") {
  // distributed_data_parallel.py: "Turn off bucketing if we are on a pipeline stage that is not the
  // first"; training.py get_model: disable_bucketing=(model_chunk_idx > 0). Layers of 50.3 M
  // parameters over a 40 M bucket: stage 0 closes one bucket per layer and one for the embedding,
  // stage 1 reduces its layers and head in one.
  MegatronConfig c = config_megatron(8, 1, 2, 1, 2);
  c.model.hidden = 2048, c.model.ffn = 8192, c.model.heads = 16, c.model.kv_heads = 16;
  c.layout.dp = 2;
  c.layout.distributed_optimizer = true;
  c.layout.overlap_grad_reduce = true;
  const std::vector<Program> programs = build_megatron_programs(c);  // one per stage
  REQUIRE(programs.size() == 2);
  const Program &first = programs[0], &second = programs[1];
  CHECK(count_ops(first, kGroupDp, "grad bucket") == std::map<CollOp, int>{{CollOp::ReduceScatter, 5}});
  CHECK(count_ops(second, kGroupDp, "grad bucket") == std::map<CollOp, int>{{CollOp::ReduceScatter, 1}});
  // Interleaved (vp 2): the first stage's second chunk is one bucket too.
  c.layout.vp = 2;
  c.layout.overlap_p2p_comm = true;
  const std::vector<Program> interleaved = build_megatron_programs(c);
  CHECK(count_ops(interleaved[0], kGroupDp, "grad bucket") ==
        std::map<CollOp, int>{{CollOp::ReduceScatter, 3 + 1}});  // chunk 0: 2 layers + embedding; chunk 1: one
}

TEST_CASE("megatron: selective recompute adds attention's core, full the whole layer forward", "[workload]") {
  MegatronConfig c = config_megatron(1, 1, 1, 1, 1);
  c.training.attention_backend = "unfused";
  c.rates = layer_rates(312e12, 0.5, 2.0e12, 0.8, 1e11, 1.0);
  const double none = compute_seconds_megatron(build_megatron_programs(c)[0]);
  Program scratch;
  MegatronLayer probe(c.model, c.layout, c.training, c.rates, scratch);
  const LayerWork& w = probe.work();
  const BlockKernels& k = probe.kernels();
  const double core = k.attn_fwd;
  const double layer_fwd = 2 * k.norm_fwd + k.qkv.fwd + k.rope_fwd + k.kv_copy_fwd + k.attn_fwd + k.o.fwd + 2 * k.add +
                           k.up.fwd + k.act_fwd + k.down.fwd;
  CHECK(k.rope_fwd > 0);  // a rotary model: the recompute runs the rotary embedding again
  // Unfused attention at flat rates: its GEMM FLOPs plus its score tensor's bytes.
  CHECK(core == Approx(w.core_flops / (312e12 * 0.5) + w.score_bytes_fwd / (2.0e12 * 0.8)).epsilon(1e-9));
  c.layout.recompute = Recompute::Selective;
  CHECK(compute_seconds_megatron(build_megatron_programs(c)[0]) - none == Approx(core).epsilon(1e-6));
  c.layout.recompute = Recompute::Full;
  CHECK(compute_seconds_megatron(build_megatron_programs(c)[0]) - none == Approx(layer_fwd).epsilon(1e-6));
  // Unfused attention computes the whole score matrix; flash skips the masked half.
  c.training.attention_backend = "flash";
  CHECK(megatron_layer_work(c.model, c.layout, c.training).core_flops == Approx(w.core_flops / 2));
  CHECK(megatron_layer_work(c.model, c.layout, c.training).score_bytes_fwd == 0);
}

TEST_CASE("megatron: ranks follow Megatron-Core's order tp-cp-dp-pp", "[workload]") {
  ParallelLayout l;
  l.tp = 2, l.cp = 2, l.dp = 2, l.pp = 2;
  CHECK(megatron_rank(l, {1, 1, 1, 1}) == 1 + 2 * (1 + 2 * (1 + 2 * 1)));
  for (int r = 0; r < l.size(); ++r) CHECK(megatron_rank(l, megatron_coord(l, r)) == r);
  MegatronConfig c = config_megatron(4, 2, 2, 1, 2);
  c.layout.cp = 2, c.layout.dp = 2;
  std::vector<Group> groups;
  std::vector<RankSetup> ranks;
  megatron_layout(c, groups, ranks);
  // Rank 5 = (t 1, c 0, d 1, s 0): TP group {4, 5}; gradients over dp x cp {1, 3, 5, 7}; next
  // stage 8 ranks on (13); CP neighbour 7; tied embeddings summed with the last stage's 13.
  CHECK(groups[ranks[5].group[kGroupTp]].ranks == std::vector<int>{4, 5});
  CHECK(groups[ranks[5].group[kGroupDp]].ranks == std::vector<int>{1, 3, 5, 7});
  CHECK(ranks[5].peer[kPeerNext] == 13);
  CHECK(ranks[5].peer[kPeerCpNext] == 7);
  CHECK(groups[ranks[5].group[kGroupEmbedding]].ranks == std::vector<int>{5, 13});
  CHECK(ranks[13].program == 1);
}

TEST_CASE("megatron: tp_comm_overlap runs each SP collective beside its GEMM", "[workload]") {
  // Model: the all-gather / reduce-scatter starts with the GEMM it feeds or drains; the pair ends
  // when both end; the GEMM pays compute.overlap_slowdown while the collective moves (0 here).
  MegatronConfig c = config_megatron(2, 8, 1, 1, 1);
  c.rates = layer_rates(312e12, 0.6, 2e12, 0.8, 1e11, 1.0);
  c.layout.sequence_parallel = true;
  const double serial = simulate(c, 20e-6, 100e9).step;
  c.layout.tp_comm_overlap = true;
  const Program p = build_megatron_programs(c)[0];
  int async = 0;
  for (const Op& op : p.ops[kTpAsync]) async += op.kind == OpKind::Collective;
  CHECK(async == 2 * (4 + 6) + 3);  // per layer: 4 forward, 6 backward; the output layer: 1 + 2
  // Same bytes, less time: no TP collective is left exposed on the compute stream in a layer.
  for (const Op& op : p.ops[kCompute])
    if (op.kind == OpKind::Collective && op.slot == kGroupTp) CHECK(p.names[op.arg].find(" L") == std::string::npos);
  const double overlapped = simulate(c, 20e-6, 100e9).step;
  CHECK(overlapped < serial);
}

TEST_CASE("megatron: with training.param_dtype the gradients are reduced and the parameters gathered in param_dtype",
          "[workload]") {
  // Megatron's main-grad buffer sets the reduction's dtype (DDP's grad_reduce_in_fp32): fp32 under
  // bf16 with fp32 main grads; without an fp32 master (param_dtype, main grads in the parameters'
  // dtype) the data-parallel, norm and tied-embedding reductions move param_dtype bytes, as the
  // memory estimate holds the gradients (memory_peak.cpp).
  models::TrainingSpec t;
  t.dtype = "bf16";
  CHECK(megatron_grad_bytes(t) == 4);
  CHECK(megatron_param_bytes(t) == 2);
  t.param_dtype = "bf16";
  CHECK(megatron_grad_bytes(t) == 2);
  CHECK(megatron_param_bytes(t) == 2);
  t.param_dtype = "fp32";
  CHECK(megatron_grad_bytes(t) == 4);
  CHECK(megatron_param_bytes(t) == 4);
  t.param_dtype = "";
  t.dtype = "fp16";
  CHECK(megatron_grad_bytes(t) == 2);
  t.dtype = "fp32";
  CHECK(megatron_grad_bytes(t) == 4);

  MegatronConfig c = config_megatron(4, 2, 2, 1, 4);
  c.layout.dp = 2;
  c.layout.sequence_parallel = true;
  const int64_t params = megatron_stage_params(c, 1);  // the last stage: layers, final norm, word-embedding copy
  const int64_t norms = 2 * (2 * 1024) + 1024;         // two layers' two RMSNorms and the final norm
  const int64_t word = 8 * 1024 / 2;                   // V h / tp
  CHECK(params == 2 * (12LL * 1024 * 1024 / 2 + 2 * 1024) + 1024 + word);
  auto last = [&] { return build_megatron_programs(c)[1]; };
  CHECK(issued_bytes(last(), kGroupDp, "grads") == params * 4);  // bf16, fp32 main grads
  CHECK(issued_bytes(last(), kGroupTp, "norm grads") == norms * 4);
  CHECK(issued_bytes(last(), kGroupEmbedding, "word embedding") == word * 4);
  c.training.param_dtype = "bf16";
  CHECK(issued_bytes(last(), kGroupDp, "grads") == params * 2);
  CHECK(issued_bytes(last(), kGroupTp, "norm grads") == norms * 2);
  CHECK(issued_bytes(last(), kGroupEmbedding, "word embedding") == word * 2);
  c.layout.distributed_optimizer = true;
  CHECK(issued_bytes(last(), kGroupDp, "grads") == params * 2);
  CHECK(issued_bytes(last(), kGroupDp, "param all_gather") == params * 2);
  c.training.param_dtype = "fp32";  // fp32 parameters under bf16 compute: 4 B both ways
  CHECK(issued_bytes(last(), kGroupDp, "grads") == params * 4);
  CHECK(issued_bytes(last(), kGroupDp, "param all_gather") == params * 4);
}

TEST_CASE("megatron: the tied embedding all-reduce moves the word embeddings only, never a learned position table",
          "[workload]") {
  // finalize_model_grads.py: _allreduce_word_embedding_grads between the first and last stage;
  // _allreduce_position_embedding_grads runs only with an encoder-decoder split
  // (pipeline_model_parallel_split_rank), never for a decoder.
  MegatronConfig c = config_megatron(4, 2, 2, 1, 4);
  c.model.vocab = 64;
  c.model.positions = models::model::Positions::Learned;
  c.model.max_positions = 1024;
  REQUIRE(c.model.position_params() == 1024 * 1024);
  for (bool vocab_parallel : {true, false}) {
    INFO("vocab_parallel " << vocab_parallel);
    c.layout.vocab_parallel = vocab_parallel;
    const int64_t word = 64LL * 1024 / (vocab_parallel ? 2 : 1);
    CHECK(megatron_word_embedding_shard(c.model, c.layout) == word);
    const std::vector<Program> programs = build_megatron_programs(c);
    for (int s : {0, 1}) CHECK(issued_bytes(programs[s], kGroupEmbedding, "word embedding") == word * 4);
    // Stage 0 holds its word-embedding shard and the whole position table (a torch.nn.Embedding,
    // not split over TP); the last stage's output layer a copy of the word embeddings alone.
    const int64_t layers = 2 * (12LL * 1024 * 1024 / 2 + 2 * 1024);
    CHECK(megatron_stage_params(c, 0) == layers + word + 1024 * 1024);
    CHECK(megatron_stage_params(c, 1) == layers + 1024 + word);  // and the final norm
  }
}
