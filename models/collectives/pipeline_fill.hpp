// The fill of NCCL's pipeline along a chain: what a store-and-forward chain of edges pays before
// its last edge receives data, beyond the per-step latencies (LinkParams hop) and the bytes over
// the flows' rates that the algorithms already count.
//
// NCCL moves a channel's share of a collective in slices; with the Simple protocol a receiver
// waits for a whole slice (the sender posts the FIFO step counter once the slice is written:
// src/device/prims_simple.h, waitPeer / postPeer, step += StepPerSlice) before it forwards it.
// Along a chain whose edge e passes one slice in tau_e, K slices arrive at the end after
// sum_e tau_e + (K - 1) max_e tau_e (a pipeline paced by its slowest stage), where the flow model
// charges K max_e tau_e (the bytes over the slowest rate). The difference is the fill:
//   fill = sum_e tau_e - max_e tau_e,   tau_e = min(1, slice / (bytes per channel)) x T_e
// with T_e the edge's bandwidth time (its bytes over its cap) and K = (bytes per channel) / slice
// (at least one slice). A uniform chain of E edges: fill = (E - 1) tau.
// Slice sizes (src/include/collectives.h, src/device/prims_simple.h: sliceSize = max(chunk /
// SlicePerChunk, stepSize / 32), src/enqueue.cc calcCollChunking: chunk = stepSize x chunkSteps):
// Simple's step is NCCL_BUFFSIZE / NCCL_STEPS (4 MiB / 8 = 512 KiB by default); a tree
// (ProtoSimple<1,1>), broadcast and reduce (BROADCAST_/REDUCE_CHUNKSTEPS = SLICESTEPS = 1) move
// one step per slice, smaller when a channel's bytes are fewer.
//   - tree all-reduce: up (ppn-1) chain edges and log2(nodes) network edges, then down as many;
//   - broadcast, reduce: the ring cut before the root, n - 1 edges;
//   - ring all-reduce, all-gather, reduce-scatter: none. Every rank sends its own chunk at the
//     first step, so the ranks run in lockstep and no stage waits for another to fill (each step
//     still pays its hop latency, already counted).
// LL and LL128 carry a flag in every line, so a receiver forwards without waiting for a slice,
// but in units of one iteration of its CTA (GPU edges) or one chunk (network edges): below,
// line_chain_units and staged_chain_fill_s (chain_fill_s itself is Simple's and 0 for LL/LL128).
// Tests: tests/models/collectives/shared_core/pipeline_fill_test.cpp.
#pragma once

#include <cstdint>
#include <span>

#include "models/collectives/collective.hpp"

namespace models::collectives {

// NCCL_STEPS: FIFO slots per connection, a compile-time constant of NCCL (src/include/device.h).
inline constexpr int kNcclSteps = 8;

// The slice a Simple chain forwards whole: one FIFO step, NCCL_BUFFSIZE / NCCL_STEPS.
inline double simple_chain_slice_bytes(int64_t buffsize) { return static_cast<double>(buffsize) / kNcclSteps; }

// fill = min(1, slice / bytes_per_channel) x (sum_time_s - max_time_s), where sum_time_s and
// max_time_s are the sum and the largest of the chain's edges' bandwidth times; 0 for LL/LL128.
double chain_fill_s(Proto proto, int64_t buffsize, double bytes_per_channel, double sum_time_s, double max_time_s);

// NVLSTree forwards loops, not FIFO steps. Per channel a loop is heads x chunk: the scatter warps
// copy one chunk for every head and post them together, the heads reduce their chunks through the
// switch and send them up the tree, and the gather warps wait for every head's chunk
// (src/device/all_reduce.h RunWorkColl NVLS_TREE; prims_simple.h ScatterGatherOp: one postPeer
// after the loop over peers). The chunk is NCCL's (src/enqueue.cc calcCollChunking, NVLS_TREE,
// NCCL 2.26-2.28): NCCL_NVLS_CHUNKSIZE (nvls_chunk, 128 KiB by default), at most
// NCCL_NVLSTREE_MAX_CHUNKSIZE (max_chunk; -2, its default: 64 KiB from 4 nodes on, else no bound),
// then with ops = channels x heads:
//   bytes < 32 ops chunk -> 256 KiB, < 16 ops chunk -> 128 KiB, < 4 ops chunk -> 64 KiB,
//   < ops chunk -> 32 KiB (each only where the chunk is larger).
// aws-ofi-nccl sets both to 512 KiB on p5 and later ("a max chunk size of 512KiB recovers from
// the regression" of NCCL 2.19.3's 64 KiB, src/platform-aws.cpp).
int64_t nvls_tree_chunk_bytes(int64_t bytes, int channels, int heads, int nodes, int64_t nvls_chunk = int64_t{1} << 17,
                              int64_t max_chunk = -2);

// NVLS's chunk on one node (src/enqueue.cc calcCollChunking, NVLS, NCCL 2.18-2.28): NCCL_NVLS_CHUNKSIZE
// (nvls_chunk, 128 KiB by default), then with ops = channels x heads:
//   bytes < 64 ops chunk -> 64 KiB, < 8 ops chunk -> 32 KiB, < 2 ops chunk -> 16 KiB
// (each only where the chunk is larger). A loop is heads x chunk per channel.
int64_t nvls_chunk_bytes(int64_t bytes, int channels, int heads, int64_t nvls_chunk = int64_t{1} << 17);

// NVLS's warp groups on one node (no network, no registered buffers), of the CTA's 20 warps
// (NCCL_MAX_NTHREADS 640): all-reduce (src/device/all_reduce.h RunWorkColl NVLS) 5 reduce through
// the switch (7 on 6 GPUs or fewer), the rest split into scatter, (rest + 1) / 2, and gather,
// rest / 2; reduce-scatter (reduce_scatter.h) 8 scatter, all-gather (all_gather.h) 8 gather, the
// rest reduce or multicast through the switch.
struct NvlsWarps {
  int scatter = 0, reduce = 0, gather = 0;
};
NvlsWarps nvls_one_node_warps(CollOp op, int nranks);

// One stage of NVLS's loop that takes a fixed time per chunk beside its copy: the gather warps
// copy a loop head by head, one chunk per call (prims_simple.h ScatterGatherOp), and every chunk
// costs the channel nvls.chunk_latency more (read off two GB300 hosts at NCCL's chunk steps;
// where it is spent is not known: an H200's copy warps alone pay only for rounding a call up to
// whole rounds of their loads, bench/device/comm/nvls_copy_calls.cu). Per channel:
//   rate = c / (c / (warps x warp_rate) + chunk_latency)
// NCCL halves its chunk (nvls_chunk_bytes) as the size falls, not the cost: with 7 warps at
// 3.7 GB/s and 1.1 us, 0.82 of the warps' rate on 128 KiB chunks, 0.70 on 64, 0.53 on 32 and 0.36
// on 16. Where this falls below the switch's share of a port, it paces NVLS (nvls.cpp).
double nvls_chunk_stage_rate(int warps, double chunk_bytes, double warp_rate, double chunk_latency_s);

// fill = min(1, loop / bytes_per_channel) x (sum_time_s - max_time_s): a chain forwarding whole
// loops of `loop_bytes` per channel (the form of chain_fill_s with the loop as the slice).
double loop_fill_s(double loop_bytes, double bytes_per_channel, double sum_time_s, double max_time_s);

// ---- LL and LL128: what a receiver forwards at once ----------------------------------------
// LL and LL128 carry a flag in every 16-byte (LL) or 128-byte (LL128) line, so a receiving GPU
// polls and forwards without waiting for a whole step. It still forwards in units: every thread
// of the CTA handles one LL line (8 bytes of data) per iteration of prims_ll.h's loop, and every
// warp 8 LL128 lines per thread (NCCL_LL128_SHMEM_ELEMS_PER_THREAD = 8 words, 15 of 16 words
// data: 1920 bytes per warp) per iteration of prims_ll128.h GenericOp (DataEltPerSlice; the warps
// interleave, `nelem -= DataEltPerSlice * nwarps`), and all threads write their lines at once,
// so the data of one iteration of the whole CTA lands together. Over the network the proxy sends
// a step only once the GPU has posted it (src/transport/net.cc sendProxyProgress: LL128 waits for
// `recvTail > tail`, LL for every line's flag), one step per primitive call: the network edge
// forwards whole chunks (src/enqueue.cc calcCollChunking).
//   unit on a GPU edge:     LL   threads x 8 B           (NCCL_LL_MAX_NTHREADS 512)
//                           LL128 warps x 1920 B          (NCCL_LL128_MAX_NTHREADS 640: 20 warps)
//                           never more than the chunk
//   unit on a network edge: the chunk. LL: NCCL_LL_BUFFSIZE / NCCL_STEPS / 2 = 32 KiB of data
//     (DEFAULT_LL_BUFFSIZE 512 KiB, src/init.cc; half of a line is flag); LL128: NCCL_LL128_BUFFSIZE
//     / NCCL_STEPS x 15/16 = 576,000 B (DEFAULT_LL128_BUFFSIZE = 120 x 640 x 8 x 8 B), shrunk for
//     Tree/LL128 at medium sizes (tree_ll128_chunk_bytes).
// Tree all-reduce splits the CTA (src/device/all_reduce.h runTreeSplit; tree_split_threads): for
// LL/LL128 70 % of the threads, whole warps, reduce up and the rest broadcast down (640 threads:
// 14 and 6 warps, 26,880 and 11,520 B of LL128, 3,584 and 1,536 B of LL).
// Ring algorithms have no fill in any protocol (lockstep; see above).
inline constexpr int kLlMaxThreads = 512;            // NCCL_LL_MAX_NTHREADS (src/include/device.h)
inline constexpr int kLl128MaxThreads = 640;         // NCCL_LL128_MAX_NTHREADS
inline constexpr int64_t kLl128WarpBytes = 1920;     // 32 threads x 8 words x 8 B x 15/16
inline constexpr int64_t kLlChunkBytes = 32768;      // DEFAULT_LL_BUFFSIZE / NCCL_STEPS / 2
inline constexpr int64_t kLl128ChunkBytes = 576000;  // DEFAULT_LL128_BUFFSIZE / NCCL_STEPS x 15 / 16

// Tree/LL128's chunk (src/enqueue.cc calcCollChunking, NCCL 2.2x): from 576,000 B, with
// ppn = ranks / nodes and steps = 1 + floor(log2 nodes) + 0.1 ppn, halved while
// bytes / (channels x chunk) (integer division) < steps x 64 / ppn and chunk > 128 KiB, then while
// < steps x 16 / ppn and chunk > 32 KiB; then a multiple of LL128's grain, 1920 B.
int64_t tree_ll128_chunk_bytes(int64_t bytes, int channels, int nranks, int nnodes);

// The tree all-reduce's CTA (src/device/all_reduce.h runTreeSplit): every rank but the root splits
// its threads between reducing up and broadcasting down. Tree runs NCCL_MAX_NTHREADS = 640 threads
// in every protocol (src/enqueue.cc: "Tree now uses all threads always", since 2.22); Simple gives
// up half plus 64 (384 and 256), LL and LL128 whole warps of 70 % (448 and 192). A ring's CTA has
// 512 working threads in Simple and LL, 640 in LL128 (NCCL_SIMPLE/LL/LL128_MAX_NTHREADS).
struct TreeSplitThreads {
  int up = 0, down = 0;
  int ring = 0;  // the same protocol's ring CTA, whose per-channel rate the model measures
  double up_share() const { return double(up) / ring; }
  double down_share() const { return double(down) / ring; }
};
TreeSplitThreads tree_split_threads(Proto proto);

// What one edge of a chain forwards at once (bytes of data per channel).
struct ChainUnits {
  double gpu_up = 0;    // a GPU edge carrying data up (reduce; a rooted chain's every GPU edge)
  double gpu_down = 0;  // a GPU edge carrying data down (the tree's broadcast half)
  double net = 0;       // a network edge
};
// LL or LL128's units (Simple: the slice everywhere, simple_chain_slice_bytes). tree_split: the
// tree all-reduce's CTA split; chunk: the protocol's chunk for this collective.
ChainUnits line_chain_units(Proto proto, bool tree_split, double chunk_bytes);

// One kind of edge of a chain: how many edges, each edge's bandwidth time (its bytes over its
// cap) and its unit.
struct ChainStage {
  double edges = 0;
  double time_s = 0;
  double unit_bytes = 0;
};
// fill = sum over edges of tau_e - max_e tau_e,  tau_e = min(1, unit_e / bytes_per_channel) x T_e:
// chain_fill_s's form with a unit per edge kind.
double staged_chain_fill_s(std::span<const ChainStage> stages, double bytes_per_channel);

}  // namespace models::collectives
