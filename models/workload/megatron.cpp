// Megatron TP/PP/DP step programs (semantics in megatron.hpp).
#include "models/workload/megatron.hpp"

#include <algorithm>

#include "models/workload/data_parallel.hpp"
#include "sim/check.hpp"

namespace models::workload {

using nccl::CollOp;
using sim::Time;

namespace {
constexpr int kCompute = 0, kSendNext = 1, kSendPrev = 2, kRecvPrev = 3, kRecvNext = 4;
constexpr int kDp = 0, kTp = 1;      // group slots
constexpr int kNext = 0, kPrev = 1;  // peer slots

class StageBuilder {
 public:
  StageBuilder(const MegatronConfig& c, int stage)
      : c_(c), s_(stage), p_({"compute", "send next", "send prev", "recv prev", "recv next"}) {
    const ModelShape& m = c.model;
    tokens_ = int64_t(c.training.micro_batch) * m.seq;
    act_bytes_ = tokens_ * m.hidden * dtype_bytes(c.training.dtype);
    const int per = m.layers / c.pp;
    first_layer_ = s_ * per;
    layers_ = per;
    // One block's halves and the replicated head on this rank (models/workload/compute.hpp).
    block_ = block_seconds(m, tokens_, c.tp, c.rates);
    head_ = head_seconds(m, tokens_, 1, c.rates);
  }

  Program build() {
    const int p = c_.pp, m = c_.micro_batches;
    const int warmup = std::min(p - s_ - 1, m);
    for (int j = 0; j < warmup; ++j) forward(j);
    for (int k = 0; k < m - warmup; ++k) {
      forward(warmup + k);
      backward(k);
    }
    for (int k = m - warmup; k < m; ++k) backward(k);
    finish();
    return std::move(p_);
  }

 private:
  bool first() const { return s_ == 0; }
  bool last() const { return s_ == c_.pp - 1; }
  static Time secs(const WorkSeconds& w) { return Time::from_seconds(w.total()); }

  void tp_all_reduce(const std::string& what) {
    if (c_.tp > 1) p_.collective(kCompute, kTp, CollOp::AllReduce, act_bytes_, "tp all_reduce " + what);
  }

  void block_forward(int l, const std::string& tag, const char* kind) {
    const std::string name = tag + kind + " L" + std::to_string(l);
    p_.compute(kCompute, secs(block_.attn_fwd), Work::Math, name + " attn");
    tp_all_reduce(name + " attn");
    p_.compute(kCompute, secs(block_.mlp_fwd), Work::Math, name + " mlp");
    tp_all_reduce(name + " mlp");
  }

  void forward(int j) {
    const std::string tag = "mb" + std::to_string(j) + " ";
    if (!first()) {
      p_.recv(kRecvPrev, kPrev, act_bytes_, tag + "recv act");
      p_.join(kRecvPrev, kCompute);
    }
    for (int l = 0; l < layers_; ++l) block_forward(first_layer_ + l, tag, "fwd");
    if (last()) p_.compute(kCompute, secs(head_.fwd), Work::Math, tag + "fwd head+loss");
    if (!last()) {
      p_.join(kCompute, kSendNext);
      p_.send(kSendNext, kNext, act_bytes_, tag + "send act");
    }
  }

  void backward(int j) {
    const std::string tag = "mb" + std::to_string(j) + " ";
    if (!last()) {
      p_.recv(kRecvNext, kNext, act_bytes_, tag + "recv grad");
      p_.join(kRecvNext, kCompute);
    } else {
      p_.compute(kCompute, secs(head_.bwd), Work::Math, tag + "bwd head+loss");
    }
    for (int l = layers_ - 1; l >= 0; --l) {
      const int layer = first_layer_ + l;
      if (c_.training.grad_checkpointing) block_forward(layer, tag, "recompute");
      const std::string name = tag + "bwd L" + std::to_string(layer);
      p_.compute(kCompute, secs(block_.mlp_bwd), Work::Math, name + " mlp");
      tp_all_reduce(name + " mlp");
      p_.compute(kCompute, secs(block_.attn_bwd), Work::Math, name + " attn");
      tp_all_reduce(name + " attn");
    }
    if (!first()) {
      p_.join(kCompute, kSendPrev);
      p_.send(kSendPrev, kPrev, act_bytes_, tag + "send grad");
    }
  }

  void finish() {
    // Every send must have left before the step ends.
    p_.join(kSendNext, kCompute);
    p_.join(kSendPrev, kCompute);
    const ModelShape& m = c_.model;
    int64_t params = int64_t(layers_) * (m.block_matmul_params() / c_.tp + m.block_norm_params());
    if (first()) params += m.embedding_params();
    if (last()) params += m.head_params() + m.hidden;
    if (c_.dp > 1)
      p_.collective(kCompute, kDp, CollOp::AllReduce, params * dtype_bytes(c_.training.dtype), "dp all_reduce grads");
    const OptimizerPlan plan = optimizer_plan(c_.training, Strategy::Megatron);  // compute.hpp
    p_.compute(kCompute, Time::from_seconds(optimizer_seconds(double(params), plan, c_.rates)), Work::Memory, "adamw");
  }

  const MegatronConfig& c_;
  int s_;
  Program p_;
  int64_t tokens_ = 0, act_bytes_ = 0;
  int first_layer_ = 0, layers_ = 0;
  BlockSeconds block_;
  HeadSeconds head_;
};
}  // namespace

std::vector<Program> build_megatron_programs(const MegatronConfig& c) {
  // A layout from make_layout (models/workload/layout.cpp, where the user errors are raised).
  SIM_CHECK(c.tp >= 1 && c.pp >= 1 && c.dp >= 1 && c.micro_batches >= 1, "Megatron degrees below 1");
  SIM_CHECK(c.model.layers % c.pp == 0 && c.model.heads % c.tp == 0, "Megatron layout not checked by make_layout");
  std::vector<Program> programs;
  for (int s = 0; s < c.pp; ++s) programs.push_back(StageBuilder(c, s).build());
  return programs;
}

void megatron_layout(const MegatronConfig& c, std::vector<collectives::Group>& groups, std::vector<RankSetup>& ranks) {
  const int n = c.tp * c.dp * c.pp;
  ranks.assign(n, RankSetup{});
  for (int s = 0; s < c.pp; ++s)
    for (int t = 0; t < c.tp; ++t) {
      collectives::Group g{{}, int(groups.size()), "dp"};
      for (int d = 0; d < c.dp; ++d) g.ranks.push_back(megatron_rank(t, d, s, c.tp, c.dp));
      for (int r : g.ranks) ranks[r].group[kDp] = int(groups.size());
      groups.push_back(std::move(g));
    }
  for (int s = 0; s < c.pp; ++s)
    for (int d = 0; d < c.dp; ++d) {
      collectives::Group g{{}, int(groups.size()), "tp"};
      for (int t = 0; t < c.tp; ++t) g.ranks.push_back(megatron_rank(t, d, s, c.tp, c.dp));
      for (int r : g.ranks) ranks[r].group[kTp] = int(groups.size());
      groups.push_back(std::move(g));
    }
  for (int s = 0; s < c.pp; ++s)
    for (int d = 0; d < c.dp; ++d)
      for (int t = 0; t < c.tp; ++t) {
        const int r = megatron_rank(t, d, s, c.tp, c.dp);
        ranks[r].program = s;
        if (s + 1 < c.pp) ranks[r].peer[kNext] = megatron_rank(t, d, s + 1, c.tp, c.dp);
        if (s > 0) ranks[r].peer[kPrev] = megatron_rank(t, d, s - 1, c.tp, c.dp);
      }
}

}  // namespace models::workload
