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
// LL and LL128 carry a flag in every 8-byte (LL) or 128-byte (LL128) line, so a receiver forwards
// line by line: no slice-sized fill (0 here). Tests: tests/models/collectives/pipeline_fill_test.cpp.
#pragma once

#include <cstdint>

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
// NCCL 2.26-2.28): NCCL_NVLS_CHUNKSIZE (128 KiB), at most 64 KiB from 4 nodes on
// (NCCL_NVLSTREE_MAX_CHUNKSIZE unset), then with ops = channels x heads:
//   bytes < 16 ops chunk -> 128 KiB, < 4 ops chunk -> 64 KiB, < ops chunk -> 32 KiB.
int64_t nvls_tree_chunk_bytes(int64_t bytes, int channels, int heads, int nodes);

// fill = min(1, loop / bytes_per_channel) x (sum_time_s - max_time_s): a chain forwarding whole
// loops of `loop_bytes` per channel (the form of chain_fill_s with the loop as the slice).
double loop_fill_s(double loop_bytes, double bytes_per_channel, double sum_time_s, double max_time_s);

}  // namespace models::collectives
