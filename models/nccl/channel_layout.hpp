#pragma once
// How many channels a collective really runs on. NCCL's tuner picks at most nMaxChannels
// (tuning.cpp: the thread-threshold rule); the planner then deals the buffer out in "cells",
// channel after channel, each channel taking ceil(traffic per channel / traffic per cell) cells,
// so a collective can end on fewer channels than it was allowed (22 of 24 at 256 KiB-2 MiB on
// H200: NCCL 2.28.9's logs, channel{Lo..Hi}={0..21}).
//
// Source: NVIDIA/nccl src/enqueue.cc scheduleCollTasksToPlan, the 2.2x series with
// MinTrafficPerChannel = 16 KiB (later releases use 32 KiB; 16 KiB reproduces 2.28.9's logs):
//   trafficPerByte   = 2 (all-reduce), nranks (all-gather, reduce-scatter), 1 (others); x4 for LL
//   trafficBytes     = max(16 KiB, bytes x trafficPerByte)        (bytes = count x type size)
//   perChannel       = roundup16(trafficBytes / nMaxChannels)
//   cellSize         = roundup16(ceil(16 KiB / trafficPerByte)),   cells = ceil(bytes / cellSize)
//   cellsPerChannel  = min(cells, ceil(perChannel / (cellSize x trafficPerByte)))
//   channels         = ceil(cells / cellsPerChannel), at most nMaxChannels
// `bytes` is NCCL's count x type size: one rank's share for all-gather and reduce-scatter.
#include <cstdint>

#include "models/nccl/ops.hpp"
#include "models/nccl/tuning.hpp"

namespace models::nccl {

inline constexpr int64_t kMinTrafficPerChannel = 16 << 10;

int planned_channels(CollOp op, Proto proto, int nranks, int64_t bytes, int max_channels);

}  // namespace models::nccl
