// Megatron-LM / Megatron-Core step programs (semantics and sources in megatron.hpp).
#include "models/workload/steps/megatron.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "models/workload/steps/megatron_layer.hpp"
#include "models/workload/steps/pipeline_schedule.hpp"
#include "sim/check.hpp"

namespace models::workload {

using nccl::CollOp;
using namespace megatron_slots;

namespace {

// The units of one model chunk in forward order (embedding, layers, output layer) with the
// parameters each holds on one rank, and their gradient buckets.
struct ChunkPlan {
  int first_layer = 0, layers = 0;
  bool embedding = false, head = false;
  std::vector<int64_t> unit_params;  // forward order
  std::vector<int> bucket_of_unit;   // bucket index (buckets numbered in backward order)
  std::vector<int64_t> bucket_params;
  int64_t expert_params = 0;  // routed experts' (MoE), summed over edp instead of dp x cp
  // Their own buckets (Megatron-Core's expert_parallel_buffers): per unit (forward order) its
  // routed-expert parameters and their bucket (-1: none), and each bucket's first unit.
  std::vector<int64_t> unit_expert_params;
  std::vector<int> expert_bucket_of_unit, expert_bucket_first_unit;
  std::vector<int64_t> expert_bucket_params;
  int64_t params() const {  // those summed over dp x cp
    int64_t n = 0;
    for (int64_t p : unit_params) n += p;
    return n;
  }
};

ChunkPlan plan_chunk(const MegatronConfig& c, const PipelineSplit& split, int stage, int chunk) {
  const model::ModelShape& m = c.model;
  const ParallelLayout& l = c.layout;
  ChunkPlan k;
  k.layers = split.chunk_layers(stage, chunk);
  const int virtual_stage = chunk * l.pp + stage;
  k.first_layer = split.chunk_first_layer(stage, chunk);
  k.embedding = virtual_stage == 0;
  k.head = virtual_stage == l.pp * l.vp - 1;
  const int64_t layer = m.block_matmul_params() / l.tp + m.block_norm_params();
  const int vocab_split = l.vocab_parallel ? l.tp : 1;
  // The word embeddings split over TP (VocabParallelEmbedding); a learned position table is a plain
  // torch.nn.Embedding, whole on every TP rank (megatron/core/models/common/embeddings/
  // language_model_embedding.py).
  const int64_t word_shard = megatron_word_embedding_shard(m, l);
  if (k.embedding) {
    k.unit_params.push_back(word_shard + m.position_params());
    k.unit_expert_params.push_back(0);
  }
  // An MoE layer: attention and shared experts as a dense layer, the norms and the router whole on
  // every tp rank (router.py: TopKRouter's weight is not split); the routed experts split over ep
  // and etp.
  const int64_t router = m.is_moe() ? m.moe_router_params() : 0;
  const int64_t moe_layer =
      (m.attention_matmul_params() + m.moe_dense_params() - router) / l.tp + router + m.block_norm_params();
  for (int i = 0; i < k.layers; ++i) {
    const bool moe = m.moe_layer(k.first_layer + i);
    k.unit_params.push_back(moe ? moe_layer : layer);
    k.unit_expert_params.push_back(moe ? m.moe_expert_params() / (int64_t(l.ep) * l.etp) : 0);
    k.expert_params += k.unit_expert_params.back();
  }
  if (k.head) {
    // Final norm and the output layer: its own matrix, or with tied embeddings a copy of the word
    // embeddings (not the position table) on the last stage (none when the first and last stage
    // are one rank).
    const int64_t out = m.tied_embeddings ? (k.embedding ? 0 : word_shard) : m.head_params() / vocab_split;
    k.unit_params.push_back(m.hidden + out);
    k.unit_expert_params.push_back(0);
  }
  // Buckets (param_and_grad_buffer.py): parameters in backward order, a bucket closed as soon as
  // it holds bucket_size or more; the rest forms the last one. One bucket without
  // overlap_grad_reduce, and on every pipeline stage but the first and every model chunk but the
  // first (distributed_data_parallel.py: "Turn off bucketing if we are on a pipeline stage that is
  // not the first"; training.py get_model: disable_bucketing=(model_chunk_idx > 0)).
  const bool bucketed = l.overlap_grad_reduce && stage == 0 && chunk == 0;
  const int64_t cap = bucketed ? megatron_bucket_params(l) : INT64_MAX;
  k.bucket_of_unit.assign(k.unit_params.size(), 0);
  int64_t acc = 0;
  for (int u = int(k.unit_params.size()) - 1; u >= 0; --u) {
    k.bucket_of_unit[u] = int(k.bucket_params.size());
    acc += k.unit_params[u];
    if (acc >= cap) {
      k.bucket_params.push_back(acc);
      acc = 0;
    }
  }
  if (acc > 0 || k.bucket_params.empty()) k.bucket_params.push_back(acc);
  // The routed experts' buckets, by the same rule over the units that hold them.
  k.expert_bucket_of_unit.assign(k.unit_params.size(), -1);
  acc = 0;
  for (int u = int(k.unit_params.size()) - 1; u >= 0; --u) {
    if (k.unit_expert_params[u] == 0) continue;
    const int b = int(k.expert_bucket_params.size());
    if (int(k.expert_bucket_first_unit.size()) == b) k.expert_bucket_first_unit.push_back(u);
    k.expert_bucket_of_unit[u] = b;
    k.expert_bucket_first_unit[b] = u;
    acc += k.unit_expert_params[u];
    if (acc >= cap) {
      k.expert_bucket_params.push_back(acc);
      acc = 0;
    }
  }
  if (acc > 0) k.expert_bucket_params.push_back(acc);
  return k;
}

// overlap_param_gather's all-gathers of one parameter buffer (the dense one over dp x cp, or the
// routed experts' over the expert-data-parallel ranks), bucket by bucket, each layer's first forward
// of the step waiting for its bucket. With virtual stages (align_param_gather) every bucket starts
// at the schedule's start (start); without (Megatron turns align_param_gather off there,
// arguments.py) the forward pre-hook of a bucket's first layer dispatches it, waits for it and
// dispatches the next bucket in forward order (param_and_grad_buffer.py finish_param_sync).
// Buckets are numbered in backward order, so the next in forward order is b - 1.
class ParamGatherChain {
 public:
  ParamGatherChain() = default;
  ParamGatherChain(int stream, int group, std::string label, int64_t bytes_per_param, bool lazy,
                   std::vector<std::vector<int64_t>> buckets)
      : stream_(stream), group_(group), label_(std::move(label)), bytes_(bytes_per_param), lazy_(lazy),
        buckets_(std::move(buckets)) {
    for (const auto& b : buckets_) {
      events_.emplace_back(b.size(), 0);
      dispatched_.emplace_back(b.size(), false);
    }
  }
  bool active() const {  // any bucket to gather
    for (const auto& b : buckets_)
      if (!b.empty()) return true;
    return false;
  }

  // Every bucket of every chunk in forward order, from the stream's start (nothing precedes it).
  void start(Program& p) {
    for (int j = 0; j < int(buckets_.size()); ++j)
      for (int b = int(buckets_[j].size()) - 1; b >= 0; --b) issue(p, j, b);
  }

  // The first forward of chunk `chunk`'s bucket b: the compute stream waits for its gather.
  void use(Program& p, int chunk, int b) {
    if (lazy_ && !dispatched_[chunk][b]) dispatch(p, chunk, b);
    p.wait(kCompute, events_[chunk][b]);
    if (lazy_ && b > 0 && !dispatched_[chunk][b - 1]) dispatch(p, chunk, b - 1);
  }

 private:
  void dispatch(Program& p, int chunk, int b) {  // from this point of the compute stream
    p.join(kCompute, stream_);
    issue(p, chunk, b);
  }
  void issue(Program& p, int chunk, int b) {
    p.collective(stream_, group_, CollOp::AllGather, buckets_[chunk][b] * bytes_,
                 "c" + std::to_string(chunk) + " " + label_ + " all_gather bucket " + std::to_string(b), true);
    events_[chunk][b] = p.new_event();
    p.record(stream_, events_[chunk][b]);
    dispatched_[chunk][b] = true;
  }

  int stream_ = kDpComm, group_ = kGroupDp;
  std::string label_;
  int64_t bytes_ = 0;
  bool lazy_ = false;
  std::vector<std::vector<int64_t>> buckets_;  // per chunk, parameters per bucket
  std::vector<std::vector<uint32_t>> events_;
  std::vector<std::vector<bool>> dispatched_;
};

std::vector<std::string> stream_names(bool moe) {
  std::vector<std::string> s{"compute",  "send next", "send prev", "recv prev", "recv next",
                             "tp async", "cp send",   "cp recv",   "dp comm"};
  if (moe) s.push_back("edp comm");  // kEdpComm
  return s;
}

class StageBuilder {
 public:
  StageBuilder(const MegatronConfig& c, int stage)
      : c_(c),
        l_(c.layout),
        s_(stage),
        p_(stream_names(c.model.is_moe())),
        layer_(c.model, c.layout, c.training, c.rates, p_) {
    const model::ModelShape& m = c.model;
    const int e = dtype_bytes(c.training.dtype);
    param_bytes_ = megatron_param_bytes(c.training);
    grad_bytes_ = megatron_grad_bytes(c.training);
    full_act_ = int64_t(l_.micro_batch) * (m.seq / l_.cp) * m.hidden * e;
    const bool split = l_.tp > 1 && (l_.sequence_parallel || l_.scatter_gather_p2p);
    p2p_bytes_ = split ? full_act_ / l_.tp : full_act_;
    gather_after_p2p_ = l_.tp > 1 && l_.scatter_gather_p2p && !l_.sequence_parallel;
    dp_ranks_ = l_.dp * l_.cp;
    const PipelineSplit layers = pipeline_split(l_, m.layers);
    for (int j = 0; j < l_.vp; ++j) chunks_.push_back(plan_chunk(c, layers, stage, j));
  }

  Program build() {
    if (l_.distributed_optimizer && l_.overlap_param_gather) {
      const bool lazy = l_.vp == 1;
      std::vector<std::vector<int64_t>> dense, experts;
      for (const ChunkPlan& k : chunks_) dense.push_back(k.bucket_params), experts.push_back(k.expert_bucket_params);
      if (dp_ranks_ > 1) param_gathers_ = ParamGatherChain(kDpComm, kGroupDp, "param", param_bytes_, lazy, dense);
      // The routed experts' buckets chain the same way on their own group and stream
      // (distributed_data_parallel.py links next_param_gather_bucket_group over the expert bucket
      // groups too, and start_param_sync covers both).
      if (c_.model.is_moe() && l_.edp() > 1)
        expert_param_gathers_ = ParamGatherChain(kEdpComm, kGroupEdp, "expert param", param_bytes_, lazy, experts);
      if (!lazy) param_gathers_.start(p_), expert_param_gathers_.start(p_);
    }
    const std::vector<PipeStep> steps =
        l_.zero_bubble ? zb_h1_pipeline_schedule(l_.pp, l_.pipeline_micro_batches, s_)
                       : megatron_pipeline_schedule(l_.pp, l_.vp, l_.pipeline_micro_batches, s_, l_.overlap_p2p_comm);
    // Gradients are complete (and their buckets reduced) at the last pass computing weight
    // gradients: 1F1B's last backward, ZB-H1's last W (a deferred one on every stage but the first).
    for (const PipeStep& st : steps)
      if (st.kind == PipeStep::Kind::Backward || st.kind == PipeStep::Kind::BackwardWeight)
        last_grad_mb_ = st.at.micro_batch;
    // align_grad_reduce (Megatron's default) with virtual stages: every backward runs under
    // no_sync, and chunk c's buckets are all started after this rank's backward number
    // (c's last backward + pipeline rank), the rest after the last backward (schedules.py
    // backward_step_helper_postprocess: grad_sync_virtual_microbatch_id = virtual_microbatch_id -
    // pipeline_parallel_rank; "Launch any remaining grad reductions").
    aligned_ = l_.vp > 1 && l_.overlap_grad_reduce;
    if (aligned_) {
      last_backward_of_.assign(l_.vp, -1);
      int k = 0;
      for (const PipeStep& st : steps)
        if (st.kind == PipeStep::Kind::Backward) last_backward_of_[st.at.chunk] = k++;
      synced_.assign(l_.vp, false);
    }
    for (const PipeStep& st : steps) {
      switch (st.kind) {
        case PipeStep::Kind::Forward: forward(st.at); break;
        case PipeStep::Kind::Backward: backward(st.at, BackwardPart::Both); break;
        case PipeStep::Kind::BackwardInput: backward(st.at, BackwardPart::Input); break;
        case PipeStep::Kind::BackwardWeight: backward(st.at, BackwardPart::Weight); break;
        case PipeStep::Kind::Comm: comm(st); break;
      }
    }
    SIM_CHECK(fwd_used_ == fwd_fifo_.size() && bwd_used_ == bwd_fifo_.size(), "p2p receives and uses disagree");
    finish();
    return std::move(p_);
  }

 private:
  std::string tag(ChunkRef at) const {
    return "mb" + std::to_string(at.micro_batch) + (l_.vp > 1 ? " c" + std::to_string(at.chunk) : "") + " ";
  }
  bool pipelined() const { return l_.pp > 1; }
  bool needs_input(int chunk) const { return pipelined() && !(s_ == 0 && chunk == 0); }
  bool needs_grad(int chunk) const { return pipelined() && !(s_ == l_.pp - 1 && chunk == l_.vp - 1); }

  // The next received tensor in arrival order (Megatron pops its receive handles in order).
  void wait_received(std::vector<uint32_t>& fifo, std::size_t& used, const std::string& what) {
    SIM_CHECK(used < fifo.size(), "a pass uses a tensor no batch received");
    layer_.flush();
    p_.wait(kCompute, fifo[used++]);
    if (gather_after_p2p_) p_.collective(kCompute, kGroupTp, CollOp::AllGather, full_act_, what + " tp all_gather");
  }

  // A unit's first forward of the step waits for the gathers of the buckets it begins.
  void use_params(int chunk, int unit, int mb) {
    if (mb != 0) return;
    const ChunkPlan& k = chunks_[chunk];
    const int e = k.expert_bucket_of_unit[unit];
    if (expert_param_gathers_.active() && e >= 0 && k.expert_bucket_first_unit[e] == unit) {
      layer_.flush();
      expert_param_gathers_.use(p_, chunk, e);
    }
    const int b = k.bucket_of_unit[unit];
    if (param_gathers_.active() && (unit == 0 || k.bucket_of_unit[unit - 1] != b)) {
      layer_.flush();
      param_gathers_.use(p_, chunk, b);
    }
  }

  void forward(ChunkRef at) {
    const ChunkPlan& k = chunks_[at.chunk];
    const std::string t = tag(at);
    if (needs_input(at.chunk)) wait_received(fwd_fifo_, fwd_used_, t + "recv act");
    int unit = 0;
    if (k.embedding) {
      use_params(at.chunk, unit++, at.micro_batch);
      layer_.embedding_forward(t);
    }
    for (int i = 0; i < k.layers; ++i) {
      use_params(at.chunk, unit++, at.micro_batch);
      layer_.set_moe(c_.model.moe_layer(k.first_layer + i));
      layer_.forward(t + "L" + std::to_string(k.first_layer + i) + " ", false, at.micro_batch == 0);
    }
    if (k.head) {
      use_params(at.chunk, unit++, at.micro_batch);
      layer_.head_forward(t);
    }
    layer_.flush();
  }

  // One backward pass, or ZB-H1's B (input gradients: receives the gradient, sends it on) or W
  // (weight gradients: the gradient buckets fill here).
  void backward(ChunkRef at, BackwardPart part) {
    const ChunkPlan& k = chunks_[at.chunk];
    const std::string t = tag(at) + (part == BackwardPart::Input ? "B " : part == BackwardPart::Weight ? "W " : "");
    const bool grads = part != BackwardPart::Input;
    const bool last_mb = grads && at.micro_batch == last_grad_mb_;
    const bool sync = last_mb && l_.overlap_grad_reduce && !aligned_ && dp_ranks_ > 1;
    const bool expert_sync = last_mb && l_.overlap_grad_reduce && !aligned_ && l_.edp() > 1;
    if (part != BackwardPart::Weight && needs_grad(at.chunk)) wait_received(bwd_fifo_, bwd_used_, t + "recv grad");
    int unit = int(k.unit_params.size()) - 1;
    auto done = [&](int u) {
      if (!grads) return;
      // The bucket is complete once its first unit (in forward order) has its gradients.
      if (sync && (u == 0 || k.bucket_of_unit[u - 1] != k.bucket_of_unit[u]))
        reduce_bucket(k.bucket_params[k.bucket_of_unit[u]], t + "grad bucket " + std::to_string(k.bucket_of_unit[u]));
      if (const int b = k.expert_bucket_of_unit[u]; expert_sync && b >= 0 && k.expert_bucket_first_unit[b] == u)
        reduce_bucket(k.expert_bucket_params[b], t + "expert grad bucket " + std::to_string(b), kGroupEdp, kEdpComm);
    };
    if (k.head) {
      layer_.head_backward(t, part);
      done(unit--);
    }
    for (int i = k.layers - 1; i >= 0; --i) {
      layer_.set_moe(c_.model.moe_layer(k.first_layer + i));
      layer_.backward(t + "L" + std::to_string(k.first_layer + i) + " ", part);
      done(unit--);
    }
    if (k.embedding) {
      if (grads) layer_.embedding_backward(t);
      done(unit--);
    }
    layer_.flush();
    if (aligned_) {
      const int v = backwards_done_++ - s_;
      for (int c = 0; c < l_.vp; ++c)
        if (v >= 0 && last_backward_of_[c] == v) sync_chunk(c);
    }
  }

  // align_grad_reduce: every bucket of chunk c, dense then expert, in backward order.
  void sync_chunk(int c) {
    if (synced_[c]) return;
    synced_[c] = true;
    const ChunkPlan& k = chunks_[c];
    const std::string t = "c" + std::to_string(c) + " ";
    if (dp_ranks_ > 1)
      for (int b = 0; b < int(k.bucket_params.size()); ++b)
        if (k.bucket_params[b] > 0) reduce_bucket(k.bucket_params[b], t + "grad bucket " + std::to_string(b));
    if (l_.edp() > 1)
      for (int b = 0; b < int(k.expert_bucket_params.size()); ++b)
        reduce_bucket(k.expert_bucket_params[b], t + "expert grad bucket " + std::to_string(b), kGroupEdp, kEdpComm);
  }

  void comm(const PipeStep& st) {
    layer_.flush();
    const std::string what = "p2p";
    std::vector<int> back;
    auto post = [&](int stream, int peer, bool send, std::vector<uint32_t>* fifo, const char* name) {
      p_.join(kCompute, stream);
      if (send) {
        p_.send(stream, peer, p2p_bytes_, name);
      } else {
        p_.recv(stream, peer, p2p_bytes_, name);
        const uint32_t ev = p_.new_event();
        p_.record(stream, ev);
        fifo->push_back(ev);
      }
      if (st.blocking) back.push_back(stream);
    };
    if (st.send_next) post(kSendNext, kPeerNext, true, nullptr, "send act");
    if (st.send_prev) post(kSendPrev, kPeerPrev, true, nullptr, "send grad");
    if (st.recv_prev) post(kRecvPrev, kPeerPrev, false, &fwd_fifo_, "recv act");
    if (st.recv_next) post(kRecvNext, kPeerNext, false, &bwd_fifo_, "recv grad");
    for (int stream : back) p_.join(stream, kCompute);
  }

  void reduce_bucket(int64_t params, const std::string& name, int group = kGroupDp, int stream = kDpComm) {
    layer_.flush();
    p_.join(kCompute, stream);
    expert_buckets_ |= stream == kEdpComm;
    p_.collective(stream, group, l_.distributed_optimizer ? CollOp::ReduceScatter : CollOp::AllReduce,
                  params * grad_bytes_, name);
  }

  void gather_bucket(int64_t params, const std::string& name) {
    p_.collective(kDpComm, kGroupDp, CollOp::AllGather, params * param_bytes_, name, true);
  }

  void finish() {
    layer_.flush();
    for (int s : {kSendNext, kSendPrev, kRecvPrev, kRecvNext, kTpAsync, kCpSend, kCpRecv}) p_.join(s, kCompute);
    if (aligned_)
      for (int c = 0; c < l_.vp; ++c) sync_chunk(c);  // "Launch any remaining grad reductions"
    const model::ModelShape& m = c_.model;
    if (dp_ranks_ > 1 && !l_.overlap_grad_reduce)
      for (int j = 0; j < l_.vp; ++j) reduce_bucket(chunks_[j].params(), "c" + std::to_string(j) + " grads");
    // Routed experts' gradients: summed over the expert-data-parallel ranks in their own buckets
    // (Megatron-Core's expert_parallel_buffers): with overlap_grad_reduce each bucket as the last
    // backward completes it (backward() above), else once per chunk here.
    int64_t experts = 0;
    for (const ChunkPlan& k : chunks_) experts += k.expert_params;
    if (experts > 0 && l_.edp() > 1 && !l_.overlap_grad_reduce)
      for (int j = 0; j < l_.vp; ++j)
        if (chunks_[j].expert_params > 0)
          p_.collective(kDpComm, kGroupEdp, l_.distributed_optimizer ? CollOp::ReduceScatter : CollOp::AllReduce,
                        chunks_[j].expert_params * grad_bytes_, "c" + std::to_string(j) + " expert grads");
    p_.join(kDpComm, kCompute);
    if (expert_buckets_ || expert_param_gathers_.active()) p_.join(kEdpComm, kCompute);
    int64_t params = 0, norms = 0;
    bool has_embedding = false, has_head = false;
    for (const ChunkPlan& k : chunks_) {
      params += k.params();
      norms += int64_t(k.layers) * m.block_norm_params() + (k.head ? m.hidden : 0);
      // The router is replicated over tp too, and marked sequence_parallel (router.py), so its
      // gradient is summed with the norms' (finalize_model_grads.py).
      if (m.is_moe())
        for (int i = 0; i < k.layers; ++i) norms += m.moe_layer(k.first_layer + i) ? m.moe_router_params() : 0;
      has_embedding |= k.embedding;
      has_head |= k.head;
    }
    if (l_.sequence_parallel)  // layer norms are replicated over tp: their gradients are summed
      p_.collective(kCompute, kGroupTp, CollOp::AllReduce, norms * grad_bytes_, "tp all_reduce norm grads");
    // finalize_model_grads.py _allreduce_word_embedding_grads: the shared word embeddings' main
    // gradient only. Position embeddings are all-reduced (_allreduce_position_embedding_grads) only
    // between an encoder's and a decoder's stages (pipeline_model_parallel_split_rank, T5): a decoder
    // holds its position table on the first stage alone.
    if (l_.pp > 1 && m.tied_embeddings && (has_embedding || has_head))
      p_.collective(kCompute, kGroupEmbedding, CollOp::AllReduce, megatron_word_embedding_shard(m, l_) * grad_bytes_,
                    "all_reduce word embedding grads");
    const double local =
        l_.distributed_optimizer ? double(params) / dp_ranks_ + double(experts) / l_.edp() : double(params + experts);
    p_.compute(
        kCompute,
        sim::Time::from_seconds(optimizer_seconds(local, optimizer_plan(c_.training, Strategy::Megatron), c_.rates)),
        Work::Memory, "optimizer");
    if (l_.distributed_optimizer && !l_.overlap_param_gather && dp_ranks_ > 1) {
      p_.join(kCompute, kDpComm);
      for (int j = 0; j < l_.vp; ++j)
        for (int b = int(chunks_[j].bucket_params.size()) - 1; b >= 0; --b)
          gather_bucket(chunks_[j].bucket_params[b],
                        "c" + std::to_string(j) + " param all_gather bucket " + std::to_string(b));
      p_.join(kDpComm, kCompute);
    }
    if (l_.distributed_optimizer && experts > 0 && l_.edp() > 1 && !l_.overlap_param_gather) {  // after the optimizer
      p_.join(kCompute, kDpComm);
      for (int j = 0; j < l_.vp; ++j)
        if (chunks_[j].expert_params > 0)
          p_.collective(kDpComm, kGroupEdp, CollOp::AllGather, chunks_[j].expert_params * param_bytes_,
                        "c" + std::to_string(j) + " expert param all_gather", true);
      p_.join(kDpComm, kCompute);
    }
  }

  const MegatronConfig& c_;
  const ParallelLayout& l_;
  int s_;
  Program p_;
  MegatronLayer layer_;
  std::vector<ChunkPlan> chunks_;
  ParamGatherChain param_gathers_, expert_param_gathers_;  // overlap_param_gather
  bool aligned_ = false;               // align_grad_reduce: chunks' buckets started by sync_chunk
  std::vector<int> last_backward_of_;  // aligned_: each chunk's last backward, counted on this rank
  std::vector<bool> synced_;           // aligned_: chunks whose buckets are started
  int backwards_done_ = 0;
  std::vector<uint32_t> fwd_fifo_, bwd_fifo_;
  std::size_t fwd_used_ = 0, bwd_used_ = 0;
  int64_t full_act_ = 0, p2p_bytes_ = 0;
  bool gather_after_p2p_ = false;
  bool expert_buckets_ = false;  // kEdpComm carries expert gradient buckets
  int param_bytes_ = 2, grad_bytes_ = 2, dp_ranks_ = 1;
  int last_grad_mb_ = 0;  // the micro-batch whose weight gradients complete the step's
};

}  // namespace

int64_t megatron_bucket_params(const ParallelLayout& l) {
  // distributed_data_parallel.py: bucket_size = max(40000000, 1000000 * dp_group.size()).
  return std::max<int64_t>(40000000, 1000000LL * l.dp * l.cp);
}

int megatron_param_bytes(const TrainingSpec& t) { return dtype_bytes(t.param_dtype.empty() ? t.dtype : t.param_dtype); }

int megatron_grad_bytes(const TrainingSpec& t) {
  if (!t.param_dtype.empty()) return dtype_bytes(t.param_dtype);  // main grads in the parameters' dtype
  return t.dtype == "bf16" ? 4 : dtype_bytes(t.dtype);            // accumulate_allreduce_grads_in_fp32
}

int64_t megatron_word_embedding_shard(const model::ModelShape& m, const ParallelLayout& l) {
  return int64_t(m.vocab) * m.hidden / (l.vocab_parallel ? l.tp : 1);
}

StageGradParams megatron_stage_grad_params(const MegatronConfig& c, int stage) {
  StageGradParams n;
  const PipelineSplit split = pipeline_split(c.layout, c.model.layers);
  for (int j = 0; j < c.layout.vp; ++j) {
    const ChunkPlan k = plan_chunk(c, split, stage, j);
    n.dense += k.params();
    n.experts += k.expert_params;
  }
  return n;
}

int64_t megatron_stage_params(const MegatronConfig& c, int stage) {
  const StageGradParams n = megatron_stage_grad_params(c, stage);
  return n.dense + n.experts;
}

std::vector<Program> build_megatron_programs(const MegatronConfig& c) {
  // A layout from make_layout (models/workload/layout.cpp, where the user errors are raised).
  const ParallelLayout& l = c.layout;
  SIM_CHECK(l.tp >= 1 && l.cp >= 1 && l.pp >= 1 && l.vp >= 1 && l.dp >= 1 && l.pipeline_micro_batches >= 1,
            "Megatron degrees below 1");
  SIM_CHECK(c.model.heads % l.tp == 0, "Megatron layout not checked by make_layout");
  std::vector<Program> programs;
  for (int s = 0; s < l.pp; ++s) programs.push_back(StageBuilder(c, s).build());
  return programs;
}

}  // namespace models::workload
