// The planner's cell layout against its closed form (channel_layout.hpp), worked by hand.
#include <catch2/catch.hpp>

#include "models/nccl/channel_layout.hpp"

using namespace models::nccl;

TEST_CASE("channel layout: cells per channel round up, so a collective may leave channels idle", "[nccl]") {
  // All-reduce, LL (traffic 2 x 4 per byte), 256 KiB, 24 channels allowed: traffic 2 MiB, 87,392
  // per channel; cells of 2 KiB (16 KiB of traffic each): 128 cells, ceil(87,392 / 16,384) = 6 per
  // channel -> ceil(128 / 6) = 22 channels.
  CHECK(planned_channels(CollOp::AllReduce, Proto::LL, 2, 256 << 10, 24) == 22);
  // 512 KiB: 256 cells, 11 per channel -> 24 (23.3 rounds up to all of them).
  CHECK(planned_channels(CollOp::AllReduce, Proto::LL, 2, 512 << 10, 24) == 24);
  // Broadcast, Simple (1 per byte), 2 MiB: 128 cells of 16 KiB, 6 per channel -> 22.
  CHECK(planned_channels(CollOp::Broadcast, Proto::Simple, 2, 2 << 20, 24) == 22);
  // All-gather, 4 ranks, LL: 16 per byte; 128 KiB per rank: cells of 1 KiB, 128 cells;
  // traffic 2 MiB / 24 = 87,392 -> 6 cells per channel -> 22.
  CHECK(planned_channels(CollOp::AllGather, Proto::LL, 4, 128 << 10, 24) == 22);
  // Already cut to 16 by the thread threshold: 128 KiB all-reduce LL, 64 cells, 4 per channel.
  CHECK(planned_channels(CollOp::AllReduce, Proto::LL, 2, 128 << 10, 16) == 16);
  // Large buffers use every channel allowed; tiny ones one.
  CHECK(planned_channels(CollOp::AllReduce, Proto::Simple, 8, int64_t{1} << 30, 24) == 24);
  CHECK(planned_channels(CollOp::AllReduce, Proto::LL, 8, 8, 24) == 1);
  CHECK(planned_channels(CollOp::AllReduce, Proto::Simple, 8, 64 << 20, 1) == 1);
}
