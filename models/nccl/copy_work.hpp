// How much copy work NCCL's ring kernels do per byte they send, per collective.
//
// Over NVLink a channel's throughput is set by its CTA's loads and stores, not by the wire: on
// 2 x H200 with 4 channels (scenarios/validation/h200x2/n2_ch4*.json) one channel moves 20.6 GB/s
// of all-reduce, 15.0 of out-of-place all-gather, 19.6 of in-place all-gather, 17.9 of
// reduce-scatter and 34.5 of broadcast, per byte it sends. Counting the memory operations of the
// primitives each ring step runs (NCCL src/device/prims_simple.h, all_reduce.h, all_gather.h,
// reduce_scatter.h, broadcast.h; non-direct P2P: data lands in the receiver's FIFO):
//   send                 load input, store remote                      2
//   recvReduceSend       load FIFO + input, store remote               3
//   recvReduceCopySend   load FIFO + input, store output + remote      4
//   recvCopySend         load FIFO, store output + remote              3
//   copySend             load input, store output + remote             3
//   recv / recvReduceCopy                                              2 / 3 (send nothing)
// ring all-reduce: (6n-4) operations per 2(n-1) chunks sent; all-gather out of place and
// reduce-scatter: (3n-1) per (n-1); all-gather in place: (3n-2) per (n-1); broadcast chain: the
// busiest rank does 3 per chunk (2 when n = 2). At n = 2 that is 4 : 5 : 4 : 5 : 2, i.e. rates
// 20.6 : 16.5 : 20.6 : 16.5 : 41 GB/s per channel against the measured 20.6 : 15.0 : 19.6 : 17.9
// : 34.5. With all 24 channels the measured ratios to all-reduce are 0.82 (all-gather, out of
// place) and 0.84 (reduce-scatter), against 0.80 from the count.
#pragma once

#include "models/nccl/collective.hpp"

namespace models::nccl {

// Memory operations per byte sent for `op` on an n-rank ring, divided by all-reduce's (1 for
// all-reduce itself and for ops the count does not cover: tree, all-to-all, send/recv).
double copy_work_vs_all_reduce(CollOp op, int n, bool in_place);

}  // namespace models::nccl
