#pragma once
// Mixture-of-experts layers in closed form: which layers are MoE, the all-to-all bytes
// of token dispatch and combine over the expert-parallel group, the expert GEMM shapes and the
// expert parameters per rank. Megatron's step program uses them (megatron_layer.hpp, compute.hpp
// moe_kernels; the EP grid in layout.hpp); the data-parallel strategies refuse MoE models.
//
// Routing (Shazeer et al. 2017; Fedus et al. 2021, Switch Transformer; Megatron-core's
// alltoall token dispatcher): each of the T tokens of a micro-batch on a rank goes to top_k of
// E experts; the ep ranks of an expert-parallel group hold E/ep experts each.
//   dispatch send buffer per rank = L T k h b   (b: bytes per activation element)
//   of which (ep - 1)/ep leaves the rank (balanced routing); combine sends the same back. L is the
//   busiest expert rank's load over the average (expert_load), from the token skew s >= 1 (the
//   busiest rank's tokens over the average) and Megatron-Core's capacity factor c
//   (--moe-expert-capacity-factor: each expert keeps at most c x its average tokens and drops the
//   rest; with --moe-pad-expert-input-to-capacity it is padded up to exactly that):
//     dropless (no capacity factor, Megatron's default)   L = s
//     capacity c, dropping                                L = min(s, c)
//     capacity c, padded to capacity                      L = c
//   The engine's all-to-all is uniform, so the collective is priced as every rank moving the
//   busiest rank's L T k h b: exact when each rank's own port (NVLink, NIC) is the bottleneck, an
//   upper bound when a shared fabric tier is (then only the hot rank's traffic is L times larger).
//   Per MoE layer and micro-batch: 2 all-to-alls forward (dispatch, combine), 2 backward.
// Expert GEMMs (SwiGLU experts with moe_ffn f_e, expert tensor parallelism etp splitting f_e; T
// here the tokens routed by the rank's expert-tensor-parallel group, etp T / tp for a rank of T
// tokens under sequence parallelism, T with etp = tp):
//   tokens per local expert   n_e = L ep T k / E
//   gate, up: [n_e x h] x [h x f_e/etp]     down: [n_e x f_e/etp] x [f_e/etp x h]
//   forward FLOPs per rank per MoE layer = (E/ep) x 3 x 2 n_e h f_e/etp = 6 L T k h f_e / etp.
// Parameters per MoE layer: E x 3 h f_e routed (+ shared experts x 3 h f_e) + router E x h;
// a rank holds the routed part / (ep x etp).
#include <cstdint>

namespace models::model {

struct MoeSpec {
  int experts = 0;         // routed experts E (0: dense model)
  int top_k = 1;           // experts per token
  int moe_ffn = 0;         // an expert's ffn width f_e
  int shared_experts = 0;  // always-on experts of width moe_ffn (DeepSeek)
  int first_dense = 0;     // the first layers are dense (DeepSeek-V3: 3)
  int stride = 1;          // then every stride-th layer is MoE (1: every layer)
  double capacity_factor = 0;    // each expert's capacity over its average tokens; 0: dropless
  double token_skew = 1.0;       // busiest rank's tokens / the average (1: balanced)
  bool pad_to_capacity = false;  // Megatron's --moe-pad-expert-input-to-capacity (with a capacity)
};

// The busiest expert rank's tokens over the average, L above: s dropless, min(s, c) with a
// capacity that drops, c padded to capacity.
double expert_load(const MoeSpec& m);
// A rank's own routed copies per token over top_k, as its dispatch permutes them and its combine
// gets them back: c padded to capacity, else 1 (the tokens an expert drops are not taken off).
double routed_copies(const MoeSpec& m);

bool is_moe_layer(const MoeSpec& m, int layer);
int moe_layer_count(const MoeSpec& m, int layers);

// Bytes one rank's dispatch (or combine) all-to-all sends, nccl-tests' alltoall size convention
// (the whole send buffer, its own slice included), for `tokens` tokens of `hidden` at `act_bytes`:
// L T k h b, the busiest rank's (expert_load, see above).
double moe_alltoall_bytes(const MoeSpec& m, int64_t tokens, int hidden, int act_bytes);
// Of those, the bytes that leave the rank: (ep - 1)/ep.
double moe_alltoall_remote_bytes(const MoeSpec& m, int64_t tokens, int hidden, int act_bytes, int ep);

struct GemmShape {
  int64_t m = 0, n = 0, k = 0;  // [m x k] x [k x n]
  double flops() const { return 2.0 * double(m) * double(n) * double(k); }
};
struct ExpertGemms {
  double tokens_per_expert = 0;  // n_e (rounded up in the shapes)
  int local_experts = 0;         // E / ep
  GemmShape gate_up, down;       // gate and up share a shape
  double forward_flops = 0;      // all local experts, one MoE layer
};
ExpertGemms expert_gemms(const MoeSpec& m, int64_t tokens, int hidden, int ep, int etp = 1);

// Routed expert parameters of one MoE layer on one rank: E 3 h f_e / (ep etp).
double expert_params_per_rank(const MoeSpec& m, int hidden, int ep, int etp = 1);

}  // namespace models::model
