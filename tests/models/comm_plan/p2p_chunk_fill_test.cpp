// Simple's chunk pipeline in a p2p transfer (p2p_chunk_fill.hpp): a part of k chunks takes k + 1
// chunk times, one copy into the peer's FIFO and one out per chunk, the two overlapping only
// across chunks; a partial last chunk adds its own bytes only:
//   fill = part / (part + min(part, chunk))
//
//   sender   | c1 in | c2 in | ...  | ck in |
//   receiver         | c1 out| ...  |       | ck out|     (k + 1 slots)
#include <catch2/catch.hpp>

#include "models/comm_plan/p2p_chunk_fill.hpp"

using namespace models::collectives;

TEST_CASE("p2p chunk fill: k chunks take k + 1 chunk times", "[nccl]") {
  const P2pChannels nvl = p2p_channels(24, 36, false, true);  // 512 KiB chunks (NVLink, one node)
  const int64_t KiB = 1024;
  CHECK(p2p_chunk_fill(nvl, 1) == Approx(1.0 / 2.0));          // one chunk, however small
  CHECK(p2p_chunk_fill(nvl, 512 * KiB) == Approx(1.0 / 2.0));  // exactly one chunk
  CHECK(p2p_chunk_fill(nvl, 1024 * KiB) == Approx(2.0 / 3.0));
  CHECK(p2p_chunk_fill(nvl, 768 * KiB) == Approx(768.0 / 1280.0));     // a chunk and a half: 2.5 chunk times
  CHECK(p2p_chunk_fill(nvl, 16 * 1024 * KiB) == Approx(32.0 / 33.0));  // the largest part on one channel
  const P2pChannels net = p2p_channels(2, 2, true, false);             // 128 KiB chunks (another node)
  CHECK(p2p_chunk_fill(net, 128 * KiB) == Approx(1.0 / 2.0));
  CHECK(p2p_chunk_fill(net, 1024 * KiB) == Approx(8.0 / 9.0));
  CHECK(p2p_chunk_fill(nvl, 0) == 1.0);  // nothing to move: no pipeline
}

TEST_CASE("p2p chunk fill: a longer part never takes less time", "[nccl]") {
  // time = part / (rate x fill): one byte over a whole number of chunks costs one byte more.
  const P2pChannels nvl = p2p_channels(24, 36, false, true);
  const int64_t KiB = 1024;
  double last = 0;
  for (int64_t part = 1; part <= 4 * 512 * KiB + 7; part += 4093) {
    const double time = double(part) / p2p_chunk_fill(nvl, part);
    CHECK(time >= last);
    last = time;
  }
  const double whole = double(512 * KiB) / p2p_chunk_fill(nvl, 512 * KiB);
  CHECK(double(512 * KiB + 1) / p2p_chunk_fill(nvl, 512 * KiB + 1) == Approx(whole + 1));
}
