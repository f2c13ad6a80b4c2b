// The fill of a store-and-forward chain (pipeline_fill.hpp), closed form first:
//   fill = min(1, slice / (bytes per channel)) x (sum_e T_e - max_e T_e),  slice = NCCL_BUFFSIZE / 8
// and on the engine: a broadcast chain's time grows by exactly that fill, which scales with
// NCCL_BUFFSIZE; LL and LL128 pay theirs with their own units (one CTA iteration on a GPU edge,
// one chunk on a network edge).
#include <catch2/catch.hpp>

#include "models/collectives/copy_work.hpp"
#include "models/collectives/pipeline_fill.hpp"
#include "tests/models/collectives/rig.hpp"

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
  // chain_fill_s is Simple's (LL and LL128: staged_chain_fill_s below); one edge has nothing to fill.
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
  // aws-ofi-nccl's NCCL_NVLS_CHUNKSIZE = NCCL_NVLSTREE_MAX_CHUNKSIZE = 512 KiB (p5 on): 32 p5
  // nodes, 16 channels x 8 heads = 128 ops: 512 KiB from 32 x 128 x 512 KiB = 2 GiB, 256 KiB
  // below it, 128 KiB below 16 x 128 x 256 KiB = 512 MiB; NCCL's own 64 KiB without them.
  CHECK(nvls_tree_chunk_bytes(int64_t{2} << 30, 16, 8, 32, 512 * KiB, 512 * KiB) == 512 * KiB);
  CHECK(nvls_tree_chunk_bytes(int64_t{1} << 30, 16, 8, 32, 512 * KiB, 512 * KiB) == 256 * KiB);
  CHECK(nvls_tree_chunk_bytes(256 * MiB, 16, 8, 32, 512 * KiB, 512 * KiB) == 128 * KiB);
  CHECK(nvls_tree_chunk_bytes(int64_t{2} << 30, 16, 8, 32) == 64 * KiB);
  // An explicit NCCL_NVLSTREE_MAX_CHUNKSIZE bounds the chunk on 2 nodes too.
  CHECK(nvls_tree_chunk_bytes(int64_t{2} << 30, 16, 8, 2, 512 * KiB, 64 * KiB) == 64 * KiB);
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
  // LL: a GPU edge forwards one iteration of the CTA, 512 threads x 8 B = 4 KiB per channel, so on
  // 7 uniform edges fill = 6 x (4096 / (S / channels)) x S / cap = 6 x 4096 x channels / cap, a
  // constant: T(S) = kernel + 7 hop_LL + 6 x 4096 x channels / cap + S / cap, with cap read off
  // two sizes' difference (the bytes term alone).
  Rig ll(1, 8, B, 50e9, {{"NCCL_PROTO", "LL"}});
  CollectiveRecord r1, r2;
  const double t1 = ll.run(CollOp::Broadcast, S, &r1), t2 = ll.run(CollOp::Broadcast, 2 * S, &r2);
  REQUIRE(r1.proto == Proto::LL);
  REQUIRE(r1.channels == r2.channels);
  const double cap_ll = S / (t2 - t1);
  CHECK(t1 == Approx(P.kernel_latency_s + 7 * hop(LinkClass::NVLink, Proto::LL) + 6 * 4096.0 * r1.channels / cap_ll +
                     S / cap_ll)
                  .epsilon(1e-6));
}

TEST_CASE("pipeline fill: LL and LL128 forward one CTA iteration on a GPU, one chunk over the network",
          "[nccl][pipeline]") {
  // Tree/LL128's chunk (src/enqueue.cc calcCollChunking), by hand for 2 nodes x 8 GPUs on 16
  // channels: ppn 8, steps = 1 + log2(2) + 0.8 = 2.8, thresholds 2.8 x 64 / 8 = 22.4 and
  // 2.8 x 16 / 8 = 5.6 chunks per channel.
  //   4 MiB: 4194304 / (16 x 576000) = 0 -> 288000 (0) -> 144000 (1) -> 72000, not above 128 KiB;
  //          then 4194304 / (16 x 72000) = 3 < 5.6 -> 36000 (7); 36000 / 1920 = 18 grains -> 34560.
  //   64 MiB: 7 -> 288000 (14) -> 144000 (29, not below 22.4); 144000 = 75 grains.
  //   1 GiB: 116 chunks, no shrink: 576000 = 300 grains.
  CHECK(tree_ll128_chunk_bytes(int64_t{4} << 20, 16, 16, 2) == 34560);
  CHECK(tree_ll128_chunk_bytes(int64_t{64} << 20, 16, 16, 2) == 144000);
  CHECK(tree_ll128_chunk_bytes(int64_t{1} << 30, 16, 16, 2) == 576000);
  // 32 nodes x 8 (ppn 8, steps 1 + 5 + 0.8 = 6.8: 54.4 and 13.6), 16 channels, 32 MiB:
  // 3 -> 288000 (7) -> 144000 (14) -> 72000; 29 >= 13.6: 72000 / 1920 = 37.5 -> 37 grains, 71040.
  CHECK(tree_ll128_chunk_bytes(int64_t{32} << 20, 16, 256, 32) == 71040);

  // Units: a tree runs 640 threads in every protocol (src/enqueue.cc, since NCCL 2.22); LL128 and LL
  // split them into 14 warps up (640 x 7 / 320 = 14) and 6 down: 1920 B of LL128 data per warp,
  // 26880 and 11520 B; 8 B of LL per thread, 3584 and 1536 B; a rooted chain keeps the whole CTA
  // (LL128 20 warps: 38400 B; LL 512 x 8 = 4096 B). Never more than the chunk; the network edge
  // forwards the chunk.
  const ChainUnits t128 = line_chain_units(Proto::LL128, true, 34560);
  CHECK(t128.gpu_up == 26880);
  CHECK(t128.gpu_down == 11520);
  CHECK(t128.net == 34560);
  const ChainUnits tll = line_chain_units(Proto::LL, true, 32768);
  CHECK(tll.gpu_up == 3584);
  CHECK(tll.gpu_down == 1536);
  // The split's threads over a ring's CTA of the protocol (the rate each direction gets).
  CHECK(tree_split_threads(Proto::LL128).up_share() == Approx(0.7));
  CHECK(tree_split_threads(Proto::LL128).down_share() == Approx(0.3));
  CHECK(tree_split_threads(Proto::LL).down_share() == Approx(192.0 / 512));
  CHECK(tree_split_threads(Proto::Simple).up == 384);
  CHECK(tree_split_threads(Proto::Simple).down == 256);
  CHECK(tll.net == 32768);
  CHECK(line_chain_units(Proto::LL128, false, 576000).gpu_up == 38400);
  CHECK(line_chain_units(Proto::LL, false, 32768).gpu_up == 4096);
  CHECK(line_chain_units(Proto::LL128, false, 19200).gpu_up == 19200);  // capped by the chunk

  // The staged fill, 2 nodes x 8 GPUs: 7 edges up (10 us of bytes each), 7 down (10 us), 2 network
  // edges (40 us each), 8 network chunks per channel (bytes per channel 276480 = 8 x 34560):
  //   tau_up = 26880 / 276480 x 10 = 0.97222 us, tau_down = 11520 / 276480 x 10 = 0.41667 us,
  //   tau_net = 34560 / 276480 x 40 = 5 us; fill = 7 x 0.97222 + 7 x 0.41667 + 2 x 5 - 5 = 14.7222 us.
  const ChainStage stages[] = {{7, 10e-6, 26880}, {7, 10e-6, 11520}, {2, 40e-6, 34560}};
  CHECK(staged_chain_fill_s(stages, 276480) == Approx(7 * 0.972222e-6 + 7 * 0.416667e-6 + 5e-6).epsilon(1e-5));
  // A channel's share below every unit: each edge passes the whole share, fill = sum T - max T.
  CHECK(staged_chain_fill_s(stages, 8192) == Approx(14 * 10e-6 + 2 * 40e-6 - 40e-6));
  // Uniform units: chain_fill_s's Simple form with the unit as the slice.
  const ChainStage uniform[] = {{5, 80e-6, 512.0 * 1024}};
  CHECK(staged_chain_fill_s(uniform, 4.0 * (1 << 20)) ==
        Approx(chain_fill_s(Proto::Simple, int64_t{4} << 20, 4.0 * (1 << 20), 5 * 80e-6, 80e-6)));
  const ChainStage single[] = {{1, 80e-6, 4096}};
  CHECK(staged_chain_fill_s(single, 4096) == 0);  // one edge: nothing to fill
}

TEST_CASE("pipeline fill: NVLS's one-node chunk and warp groups follow NCCL's rules", "[nccl][pipeline]") {
  // src/enqueue.cc calcCollChunking NVLS: 128 KiB, then 64 KiB below 64 x ops chunks, 32 KiB below
  // 8 x, 16 KiB below 2 x (ops = channels x heads; 16 x 8 = 128 on 8 x H100).
  CHECK(nvls_chunk_bytes(int64_t{1} << 30, 16, 8) == 128 << 10);       // 1 GiB = 64 x 128 x 128 KiB
  CHECK(nvls_chunk_bytes((int64_t{1} << 30) - 1, 16, 8) == 64 << 10);  // just below
  CHECK(nvls_chunk_bytes(int64_t{64} << 20, 16, 8) == 64 << 10);       // 64 MiB = 8 x 128 x 64 KiB
  CHECK(nvls_chunk_bytes(int64_t{16} << 20, 16, 8) == 32 << 10);
  CHECK(nvls_chunk_bytes(int64_t{4} << 20, 16, 8) == 16 << 10);             // < 2 x 128 x 32 KiB = 8 MiB
  CHECK(nvls_chunk_bytes(int64_t{1} << 30, 16, 8, 512 << 10) == 64 << 10);  // aws-ofi-nccl's 512 KiB on p5
  // src/device/all_reduce.h: 20 warps; 5 reduce on more than 6 GPUs (7 otherwise), the rest split
  // into scatter (rest + 1) / 2 and gather rest / 2.
  const NvlsWarps eight = nvls_one_node_warps(CollOp::AllReduce, 8);
  CHECK(eight.reduce == 5);
  CHECK(eight.scatter == 8);
  CHECK(eight.gather == 7);
  const NvlsWarps four = nvls_one_node_warps(CollOp::AllReduce, 4);
  CHECK(four.reduce == 7);
  CHECK(four.scatter == 7);
  CHECK(four.gather == 6);
  // reduce_scatter.h: 8 scatter warps, the rest reduce; all_gather.h: 8 gather warps, the rest
  // multicast.
  const NvlsWarps rs = nvls_one_node_warps(CollOp::ReduceScatter, 8), ag = nvls_one_node_warps(CollOp::AllGather, 8);
  CHECK((rs.scatter == 8 && rs.gather == 0 && rs.reduce == 12));
  CHECK((ag.scatter == 0 && ag.gather == 8 && ag.reduce == 12));
}

TEST_CASE("pipeline fill: NVLS's chunk stage pays a fixed time per chunk beside its warps' copy", "[nccl][pipeline]") {
  // rate = c / (c / (warps x r) + t): 7 warps at 3.7 GB/s, t = 1.1 us.
  const double r = 3.7e9, t = 1.1e-6;
  CHECK(nvls_chunk_stage_rate(7, 65536, r, t) == Approx(65536 / (65536 / (7 * r) + t)));
  CHECK(nvls_chunk_stage_rate(7, 65536, r, 0) == Approx(7 * r));               // no fixed cost: the copy
  CHECK(nvls_chunk_stage_rate(7, 7 * r * t, r, t) == Approx(3.5 * r));         // a chunk of t: half of it
  CHECK(nvls_chunk_stage_rate(8, 1e12, r, t) == Approx(8 * r).epsilon(1e-6));  // huge chunks: the copy
  // Halving NCCL's chunk from 128 to 16 KiB: 0.82, 0.70, 0.53 and 0.36 of the warps' rate.
  for (const auto& [kib, share] : {std::pair{128, 0.82}, {64, 0.70}, {32, 0.53}, {16, 0.36}})
    CHECK(nvls_chunk_stage_rate(7, kib << 10, r, t) / (7 * r) == Approx(share).margin(0.01));
  CHECK(nvls_chunk_stage_rate(0, 65536, r, t) == 0);  // no such group
}
