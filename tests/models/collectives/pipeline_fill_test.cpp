// The fill of a store-and-forward chain (pipeline_fill.hpp), closed form first:
//   fill = min(1, slice / (bytes per channel)) x (sum_e T_e - max_e T_e),  slice = NCCL_BUFFSIZE / 8
// and on the engine: a broadcast chain's time grows by exactly that fill, which scales with
// NCCL_BUFFSIZE, and LL (a flag per line) pays none.
#include <catch2/catch.hpp>

#include "models/collectives/copy_work.hpp"
#include "models/collectives/pipeline_fill.hpp"
#include "rig.hpp"

using namespace collectives_test;

TEST_CASE("pipeline fill: the closed form of a chain", "[nccl][pipeline]") {
  const int64_t buff = int64_t{4} << 20;  // NCCL_BUFFSIZE default: a 512 KiB slice
  REQUIRE(simple_chain_slice_bytes(buff) == 512.0 * 1024);
  // A uniform chain of E = 5 edges, 8 slices per channel (4 MiB), each edge's bytes in 80 us:
  // one slice passes an edge in 10 us, and the last of 8 arrives after (5 + 8 - 1) x 10 us,
  // 40 us more than the 80 us of bytes: (E - 1) x 10 us.
  CHECK(chain_fill_s(Proto::Simple, buff, 4.0 * (1 << 20), 5 * 80e-6, 80e-6) == Approx(40e-6));
  // A channel's bytes below one slice: the whole share is the slice (K = 1), fill = (E - 1) x T.
  CHECK(chain_fill_s(Proto::Simple, buff, 64.0 * 1024, 5 * 80e-6, 80e-6) == Approx(4 * 80e-6));
  // Edges of two speeds, 2 slow (100 us) and 14 fast (5 us), 4 slices: the slow edge paces the
  // pipeline; the other slow edge and the fast ones each add their slice once:
  // (2 x 100 + 14 x 5 - 100) / 4 = 42.5 us.
  CHECK(chain_fill_s(Proto::Simple, buff, 2.0 * (1 << 20), 2 * 100e-6 + 14 * 5e-6, 100e-6) == Approx(42.5e-6));
  // A smaller NCCL_BUFFSIZE, a smaller slice, a shorter fill.
  CHECK(chain_fill_s(Proto::Simple, int64_t{1} << 20, 4.0 * (1 << 20), 5 * 80e-6, 80e-6) == Approx(10e-6));
  // LL and LL128 forward line by line; one edge has nothing to fill.
  CHECK(chain_fill_s(Proto::LL, buff, 4.0 * (1 << 20), 5 * 80e-6, 80e-6) == 0);
  CHECK(chain_fill_s(Proto::LL128, buff, 4.0 * (1 << 20), 5 * 80e-6, 80e-6) == 0);
  CHECK(chain_fill_s(Proto::Simple, buff, 4.0 * (1 << 20), 80e-6, 80e-6) == 0);
}

TEST_CASE("pipeline fill: NVLSTree's loop -- NCCL's chunk and the fill of a chain of loops", "[nccl][pipeline]") {
  // src/enqueue.cc calcCollChunking (NVLS_TREE): 128 KiB, at most 64 KiB from 4 nodes on; with
  // ops = channels x heads: below 16 ops chunk 128 KiB, below 4 ops chunk 64 KiB, below ops chunk
  // 32 KiB. Two GB200 NVL72 racks: 32 channels x 32 heads = 1024 ops.
  const int64_t KiB = 1024, MiB = KiB * KiB;
  CHECK(nvls_tree_chunk_bytes(512 * MiB, 32, 32, 2) == 128 * KiB);  // not below 4 x 1024 x 128 KiB
  CHECK(nvls_tree_chunk_bytes(512 * MiB - 1, 32, 32, 2) == 64 * KiB);
  CHECK(nvls_tree_chunk_bytes(64 * MiB - 1, 32, 32, 2) == 32 * KiB);  // below 1024 x 64 KiB
  CHECK(nvls_tree_chunk_bytes(int64_t{16} << 30, 32, 32, 2) == 128 * KiB);
  // Twenty racks: 64 KiB (NCCL_NVLSTREE_MAX_CHUNKSIZE's default from 4 nodes), 32 KiB below
  // 1024 x 64 KiB.
  CHECK(nvls_tree_chunk_bytes(int64_t{8} << 30, 32, 32, 20) == 64 * KiB);
  CHECK(nvls_tree_chunk_bytes(32 * MiB, 32, 32, 20) == 32 * KiB);
  // The fill of a loop: 32 heads x 128 KiB = 4 MiB per channel, 32 MiB per channel in all (8
  // loops); 5 stages of 800 us each (the whole share's): one loop passes a stage in 100 us, the
  // last loop ends after (5 + 8 - 1) x 100 us, 400 us more than the 800 us of bytes.
  CHECK(loop_fill_s(4.0 * MiB, 32.0 * MiB, 5 * 800e-6, 800e-6) == Approx(400e-6));
  // A share below one loop: the whole share is the loop, fill = (E - 1) x T.
  CHECK(loop_fill_s(4.0 * MiB, 1.0 * MiB, 5 * 800e-6, 800e-6) == Approx(4 * 800e-6));
  CHECK(loop_fill_s(4.0 * MiB, 32.0 * MiB, 800e-6, 800e-6) == 0);  // one stage: nothing to fill
}

TEST_CASE("pipeline fill: a broadcast chain pays it, scaled by NCCL_BUFFSIZE, and LL does not", "[nccl][pipeline]") {
  // 8 GPUs on one NVSwitch, broadcast of 64 MiB, every edge at eta B (copy work below all-reduce's):
  //   T = kernel + 7 hop + 6 min(1, slice / (S / channels)) S / (eta B) + S / (eta B)
  const double B = 450e9, e = eta(LinkClass::NVLink, Proto::Simple), h = hop(LinkClass::NVLink, Proto::Simple);
  const int64_t S = 64LL << 20;
  REQUIRE(copy_work_vs_all_reduce(CollOp::Broadcast, 8, false) < 1);
  for (const int64_t buff : {int64_t{4} << 20, int64_t{1} << 20}) {
    Rig rig(1, 8, B, 50e9, {{"NCCL_PROTO", "Simple"}, {"NCCL_BUFFSIZE", std::to_string(buff)}});
    CollectiveRecord rec;
    const double t = rig.run(CollOp::Broadcast, S, &rec);
    REQUIRE(rec.proto == Proto::Simple);
    const double per_channel = static_cast<double>(S) / rec.channels;
    const double fill = 6 * std::min(1.0, buff / 8.0 / per_channel) * S / (e * B);
    INFO("NCCL_BUFFSIZE " << buff << ", " << rec.channels << " channels, fill " << fill * 1e6 << " us");
    CHECK(fill > 0);
    CHECK(t == Approx(P.kernel_latency_s + 7 * h + fill + S / (e * B)).epsilon(1e-6));
  }
  // LL: no fill, T = kernel + 7 hop_LL + S / cap_LL (whatever the cap, no slice term: compare
  // two sizes' difference with the bytes term alone).
  Rig ll(1, 8, B, 50e9, {{"NCCL_PROTO", "LL"}});
  CollectiveRecord r1, r2;
  const double t1 = ll.run(CollOp::Broadcast, S, &r1), t2 = ll.run(CollOp::Broadcast, 2 * S, &r2);
  REQUIRE(r1.proto == Proto::LL);
  REQUIRE(r1.channels == r2.channels);
  CHECK(t2 - t1 == Approx(t1 - P.kernel_latency_s - 7 * hop(LinkClass::NVLink, Proto::LL)).epsilon(1e-6));
}
