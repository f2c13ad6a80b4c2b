#pragma once
// models::workload::MegatronLayer: one transformer layer (and the embedding and the output
// layer) as Megatron-LM runs it on one rank: compute pieces from FLOPs and memory-bound bytes, and
// the tensor-, sequence- and context-parallel communication between them, emitted as Program ops.
//
// Per rank and micro-batch (b sequences of s tokens; t = tp, c = cp, T = b s / c tokens through
// the GEMMs; e bytes per element; Tn = T / t with sequence parallelism, else T):
//   GEMMs (2 FLOPs per multiply-add): qkv 2 T h (h + 2 kv_dim) / t, proj 2 T h^2 / t,
//     fc1 2 T h ffn k / t (k = 2 for SwiGLU's gate and up, 1 for GELU), fc2 2 T ffn h / t.
//   Attention core (QK^T and PV): 4 b (s / c) s h / t FLOPs, halved by flash attention (causal
//     tiles skipped); unfused attention (Megatron-LM <= 2022: explicit scores, fused softmax,
//     dropout) also moves its b (a / t) (s / c) s score elements through HBM. Forward: QK^T writes
//     them (e), the fused scale-mask-softmax reads and writes (2 e), dropout reads, writes and keeps
//     a 1-byte mask (2 e + 1), PV reads (e): 6 e + 1 bytes. Backward: dO V^T writes (e), dropout's
//     backward (2 e + 1), softmax's reads P and dP and writes dS (3 e), dV reads P (e), dQ and dK
//     read dS (2 e): 9 e + 1. (With head_dim ~100 these batched GEMMs are memory-bound on A100.)
//   Memory-bound token-wise ops on Tn tokens (sequence parallelism shards them over tp): each
//     norm 2 e h per token (read, write), each residual add 3 e h; the MLP activation on T tokens
//     of ffn / t: 2 e (GELU) or 3 e (SwiGLU) per element.
//   Backward = 2 x forward (dgrad + wgrad GEMMs; attention core; memory-bound ops), except the
//     score tensor's bytes (above).
//   These counts (LayerWork) state the work; its time is the compute model's: every GEMM (fwd,
//     dgrad, wgrad), the attention core and each memory-bound kernel priced once by the laws of
//     models/compute/ (compute.hpp block_kernels / head_kernels: the GEMM law by shape with the
//     power-limit stretch, the causal-attention law, memory-bound kinds and launch gaps), the same
//     pieces the data-parallel strategies use, so one GPU's measurements check both.
// Tensor parallelism (Shoeybi et al. 2019) moves the activation, A = T h e bytes (nccl-tests size
// convention), at each of the two column/row-parallel pairs (attention, MLP):
//   forward: all-reduce after proj and after fc2 (the row-parallel outputs);
//   backward: all-reduce of the input gradient of qkv and of fc1, overlapped with their wgrad
//     GEMM (Megatron's asynchronous grad-input all-reduce).
// Sequence parallelism (Korthikanti et al. 2022) replaces each all-reduce by an all-gather before
//   the column-parallel GEMM and a reduce-scatter after the row-parallel one, the same total bytes:
//   forward 2 all-gathers + 2 reduce-scatters of A; backward the all-gather of the output gradient
//   before proj and fc2, and for qkv and fc1 the all-gather of their input again (only the shard
//   is kept) beside the dgrad GEMM and the reduce-scatter of the input gradient beside the wgrad.
// tp_comm_overlap (TransformerEngine userbuffers): each forward all-gather / reduce-scatter runs
//   beside the GEMM it feeds or drains and the backward gradient all-gather beside the dgrad; the
//   pair ends when both end; the GEMM pays compute.overlap_slowdown while the collective moves (the
//   SMs the communication holds), as everywhere in the executor.
// Context parallelism (ring attention, TransformerEngine's AttnFuncWithCPAndKVP2P): the attention
//   core runs in c steps; before each of the first c - 1 the rank sends its current K and V block
//   (2 b (s / c) (kv_heads / t) head_dim e bytes) to the next CP rank and receives the previous
//   one's, beside that step's compute; a step ends when both end. Backward: c steps, K, V and
//   their gradients travel (2x the bytes per step).
// Mixture of experts (moe.hpp; Megatron-Core's MoELayer with the alltoall token dispatcher,
//   megatron/core/transformer/moe/token_dispatcher.py): in an MoE layer the MLP becomes the router
//   GEMM and permute, the dispatch all-to-all over the EP group (c Tn k h e bytes per rank,
//   nccl-tests' size), with etp > 1 the all-gather of the received tokens over the expert-tensor-
//   parallel group (c etp Tn k h e: k c times the etp ranks' router tokens; c T k h e with etp = tp,
//   the sequence-parallel all-gather of k c times the tokens), the local experts' GEMMs (compute.hpp
//   moe_kernels, each expert's ffn / etp), the reduce-scatter over etp and the combine all-to-all,
//   then the unpermute; shared experts after, as a dense tensor-parallel MLP (over tp). Backward: the same four
//   collectives in reverse (2 all-to-alls). The all-to-alls run on the compute stream (the dispatcher waits for them).
//   token_skew stretches the expert GEMMs and the all-to-all bytes (models/model/moe.cpp
//   moe_alltoall_bytes): the busiest rank sets the pace.
// Recompute: full re-runs the layer forward (its communication included) before the backward;
//   selective re-runs the attention core only.
#include <cstdint>
#include <string>

#include "models/spec.hpp"
#include "models/workload/compute.hpp"
#include "models/workload/layout.hpp"
#include "models/model/model_shape.hpp"
#include "models/workload/program.hpp"

namespace models::workload {

// Streams, group and peer slots of a Megatron rank's Program.
namespace megatron_slots {
inline constexpr int kCompute = 0, kSendNext = 1, kSendPrev = 2, kRecvPrev = 3, kRecvNext = 4, kTpAsync = 5,
                     kCpSend = 6, kCpRecv = 7, kDpComm = 8;
// MoE models only: the expert-data-parallel gradient buckets, on their own communicator and stream
// (Megatron-Core launches each bucket group's collective asynchronously on its own group).
inline constexpr int kEdpComm = 9;
inline constexpr int kGroupDp = 0, kGroupTp = 1, kGroupEmbedding = 2;  // kGroupDp: dp x cp ranks
inline constexpr int kGroupEp = 3, kGroupEdp = 4;  // expert parallel; expert data parallel (layout.hpp)
inline constexpr int kGroupEtp = 5;                // expert tensor parallel (the TP group when etp = tp)
inline constexpr int kPeerNext = 0, kPeerPrev = 1, kPeerCpNext = 2, kPeerCpPrev = 3;
}  // namespace megatron_slots

// FLOPs and bytes of one layer's forward pieces on one rank for one micro-batch.
struct LayerWork {
  double qkv_flops = 0, proj_flops = 0, fc1_flops = 0, fc2_flops = 0, core_flops = 0;
  double norm_bytes = 0;                            // one norm
  double resid_bytes = 0;                           // one residual add
  double act_bytes = 0;                             // the MLP activation
  double score_bytes_fwd = 0, score_bytes_bwd = 0;  // unfused attention's score tensor
  int64_t tp_bytes = 0;                             // A: one TP collective (nccl-tests size)
  int64_t cp_kv_bytes = 0;                          // K and V of one ring step
  int64_t moe_a2a_bytes = 0;                        // one dispatch or combine all-to-all (MoE)
  int64_t moe_tp_bytes = 0;                         // the all-gather / reduce-scatter of routed tokens over etp
};
LayerWork megatron_layer_work(const model::ModelShape& m, const ParallelLayout& l, const TrainingSpec& t);

// Which part of a layer's backward a pass runs: both (1F1B), or ZB-H1's B (input gradient: every
// kernel but the weight-gradient GEMMs, and the TP communication) and W (the wgrad GEMMs alone;
// pipeline_schedule.hpp). With sequence parallelism B keeps the all-gathered inputs for W.
enum class BackwardPart : unsigned char { Both, Input, Weight };

class MegatronLayer {
 public:
  MegatronLayer(const model::ModelShape& m, const ParallelLayout& l, const TrainingSpec& t, const ComputeRates& rates,
                Program& p);

  // `first_micro_batch`: fp8 weights are quantized here, once per step (Megatron passes
  // is_first_microbatch to Transformer Engine, which keeps them for the other micro-batches).
  void forward(const std::string& tag, bool recompute = false, bool first_micro_batch = false);
  // Recomputes first as the layout says (not for the Weight part: W reuses B's activations).
  void backward(const std::string& tag, BackwardPart part = BackwardPart::Both);
  void embedding_forward(const std::string& tag);
  void embedding_backward(const std::string& tag);  // a weight gradient only: W's part under ZB-H1
  void head_forward(const std::string& tag);        // final norm, logits, vocab-parallel cross entropy
  void head_backward(const std::string& tag, BackwardPart part = BackwardPart::Both);
  // Pending compute is issued as one op before any communication (fewer ops, same times).
  void flush();
  // The next forward / backward is of an MoE layer (the model's moe_layer(index)).
  void set_moe(bool moe) { moe_ = moe; }

  const LayerWork& work() const { return w_; }
  const BlockKernels& kernels() const { return k_; }  // one layer's pieces, priced
  const HeadKernels& head() const { return head_; }
  const MoeKernels& moe_kernels() const { return moe_k_; }

 private:
  void compute(double seconds, const std::string& name);
  void tp(nccl::CollOp op, const std::string& name);  // on the compute stream
  void tp_async_begin(nccl::CollOp op, const std::string& name);
  void tp_async_end();
  void tp_beside(nccl::CollOp op, double seconds, const std::string& name);  // overlapped pair
  void tp_entry(double gemm_s, const std::string& name);                     // before a column-parallel GEMM
  void tp_exit(double gemm_s, const std::string& name);                      // after a row-parallel GEMM
  void column_backward(const compute::LinearSeconds& gemm, const std::string& name);
  void row_backward(const compute::LinearSeconds& gemm, const std::string& name);
  void attention_core(bool backward, const std::string& name);
  void mlp_forward(const std::string& n);
  void mlp_backward(const std::string& n);
  void moe_forward(const std::string& n);
  void moe_backward(const std::string& n);
  void moe_collective(int group, nccl::CollOp op, int64_t bytes, const std::string& name);
  double wgrad(const compute::LinearSeconds& g) const { return part_ == BackwardPart::Input ? 0 : g.wgrad; }
  double layer_wgrad_seconds() const;  // the wgrad GEMMs of the current (dense or MoE) layer

  const model::ModelShape& m_;
  const ParallelLayout& l_;
  Program& p_;
  LayerWork w_;
  BlockKernels k_;
  HeadKernels head_;
  MoeKernels moe_k_;
  bool moe_ = false;
  BackwardPart part_ = BackwardPart::Both;  // of the backward being issued
  double pending_s_ = 0;
  std::string pending_name_;
  int64_t tokens_ = 0;       // T
  int64_t norm_tokens_ = 0;  // Tn
  int e_ = 2;
  bool flash_ = true;
};

}  // namespace models::workload
