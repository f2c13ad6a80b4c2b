// How much copy work NCCL's ring kernels do per byte they send, per collective.
//
// Over NVLink a channel's throughput is set by its CTA's loads and stores, not by the wire. The
// primitives each ring step runs (NCCL src/device/prims_simple.h, all_reduce.h, all_gather.h,
// reduce_scatter.h, broadcast.h, reduce.h; data lands in the receiver's FIFO) cost, counting a
// local load or store as L and a store across NVLink into the peer's FIFO as R:
//   send                 load input, store remote                      L + R
//   recvReduceSend       load FIFO + input, store remote               2L + R
//   recvReduceCopySend   load FIFO + input, store output + remote      3L + R
//   recvCopySend / copySend   load, store output + remote              2L + R
//   recv                 load FIFO, store output                       2L
//   recvReduceCopy       load FIFO + input, store output               3L
// per chunk sent, on an n-rank ring:
//   all-reduce                 (L(4n-2) + R(2n-2)) / (2n-2)
//   all-gather out of place,   (2nL + (n-1)R) / (n-1)
//   reduce-scatter
//   all-gather in place        ((2n-1)L + (n-1)R) / (n-1)      (= all-reduce's)
//   broadcast (chain)          busiest rank: L + R at n = 2, else 2L + R
//   reduce (chain)             max(L + R, 3L) at n = 2, else 2L + R
// R = 2L, from 2 x H200 with 4 channels (scenarios/validation/h200x2/n2_ch4*.json): one channel
// moves 20.6 GB/s of all-reduce (3L + R per byte) and 34.5 of broadcast (L + R), so R/L = 1.96.
// The rest are predictions: all-gather 17.2 (measured 15.0), in place 20.6 (19.6),
// reduce-scatter 17.2 (17.9), reduce 34.3 (33.6); with all 24 channels all-gather and
// reduce-scatter run at 0.82 and 0.84 of all-reduce's rate, against 0.83.
#pragma once

#include "models/collectives/collective.hpp"

namespace models::collectives {

// Copy cost per byte sent for `op` on an n-rank ring, divided by all-reduce's (1 for all-reduce
// itself and for ops the count does not cover: tree, all-to-all, send/recv).
double copy_work_vs_all_reduce(CollOp op, int n, bool in_place);

// A ring CTA's per-channel rate at n ranks over the 2-rank all-reduce's, which
// nvlink.channel_bandwidth measures: all-reduce's copy cost per chunk sent falls from 3L + R at
// n = 2 (half of its steps reduce and copy) towards 2L + R, so its rate rises by
// cost(all-reduce, 2) / cost(all-reduce, n): 1.15 at 4 ranks, 1.21 at 8, 1.24 at 32.
double ring_channel_gain(int n);

// A one-rank communicator's collective of `bytes` out of place: NCCL copies the send buffer into
// the receive buffer (src/enqueue.cc: nRanks == 1 -> ncclLaunchOneRank, src/device/onerank.cu: a
// cudaMemcpyAsync, nothing where send and receive buffers are one), reading and writing `bytes` of
// device memory: 2 x bytes / (f x HBM bandwidth). f = 0.876 from one H200
// (scenarios/validation/h200x1/measured_run/nccl_tests_all_gather.txt, out of place): 128 MiB in
// 67.12 us and 512 MiB in 258.68 us, 2 x 384 MiB more in 191.56 us = 4.20 TB/s of the 4.8.
// Seconds of copy (the launch is the caller's); 0 without a bandwidth.
double one_rank_copy_seconds(double bytes, double hbm_bytes_per_s);

}  // namespace models::collectives
