// NCCL's tuner by release (models/nccl/tuner_tables.hpp): each row and rule against the value
// NVIDIA/nccl's src/graph/tuning.cc had at that tag, through nccl_cost's closed forms.
#include <catch2/catch.hpp>

#include <algorithm>

#include "models/nccl/tuner_tables.hpp"
#include "models/nccl/tuning.hpp"

using namespace models::nccl;

namespace {
// 16 ranks of 8 H100s on 2 nodes over InfiniBand (no plugin latency).
CommView two_nodes(int version) {
  CommView v;
  v.nranks = 16;
  v.nnodes = 2;
  v.sm = 90;
  v.bw_intra_gbs = 20;
  v.bw_inter_gbs = 12;
  v.graph_channels = 8;
  v.nccl_version = version;
  return v;
}
constexpr int v(int minor, int patch) { return nccl_version_number(minor, patch); }
}  // namespace

TEST_CASE("tuner tables: versions as NCCL prints them", "[nccl]") {
  CHECK(parse_nccl_version("2.17.1") == 21701);
  CHECK(parse_nccl_version("2.28") == 22800);
  CHECK(parse_nccl_version("2.27.3+cuda12.9") == 22703);  // NCCL's banner
  CHECK(parse_nccl_version("v2.21.5-1") == 22105);        // a git tag
  CHECK(parse_nccl_version("2.9.9") == 20909);            // read as it is; outside the tables
  CHECK_FALSE(nccl_version_in_tables(20909));
  CHECK_FALSE(nccl_version_in_tables(parse_nccl_version("2.31.0")));
  CHECK(nccl_version_in_tables(parse_nccl_version("2.30.7")));
  CHECK(parse_nccl_version("banana") == 0);
  CHECK(parse_nccl_version("3.0") == 0);
  CHECK(nccl_version_text(21701) == "2.17.1");
  CHECK(nccl_version_text(0) == nccl_version_text(kDefaultNcclVersion));
}

TEST_CASE("tuner tables: a version reads the last release at or before it", "[nccl]") {
  for (int i = 1; i < tuner_table_count(); ++i) CHECK(tuner_table(i - 1).since < tuner_table(i).since);
  // Tree/Simple's NVLink step: 28 us in 2.17-2.18.1 and 2.19-2.22, 4 us in 2.18.3-2.18.6 and from 2.23.
  CHECK(tuner_tables(v(17, 1)).hw_lat[0][0][2] == 28);
  CHECK(tuner_tables(v(18, 5)).hw_lat[0][0][2] == 4);
  CHECK(tuner_tables(v(20, 5)).hw_lat[0][0][2] == 28);
  CHECK(tuner_tables(v(23, 4)).hw_lat[0][0][2] == 4);
  // Blackwell's Ring/LL128 ceiling per channel on 1 / 2 / more nodes.
  CHECK(tuner_tables(v(24, 3)).ring_ll128_per_ch[3][0] == Approx(36.7));  // Hopper's row
  CHECK(tuner_tables(v(26, 2)).ring_ll128_per_ch[3][0] == Approx(73.4));
  CHECK(tuner_tables(v(28, 7)).ring_ll128_per_ch[3][1] == Approx(34.6));
  CHECK(tuner_tables(v(29, 2)).ring_ll128_per_ch[3][0] == Approx(34.5));
  CHECK(tuner_tables(v(29, 7)).ring_ll128_per_ch[3][0] == Approx(40.0));
  // NVLSTree's NET step: 19 us (2.18), 14 (2.19 - 2.28.7), 20.9 (2.28.9 on).
  CHECK(tuner_tables(v(18, 5)).nvls_tree_inter_lat == 19.0);
  CHECK(tuner_tables(v(28, 7)).nvls_tree_inter_lat == 14.0);
  CHECK(tuner_tables(v(28, 9)).nvls_tree_inter_lat == 20.9);
  CHECK(tuner_tables(0).since == tuner_tables(kDefaultNcclVersion).since);
  CHECK(tuner_tables(0).nvls_tree_per_ch[3][2] == 80.0);  // 2.30
}

TEST_CASE("tuner tables: an inter-node ring's latency as each release computed it", "[nccl]") {
  // 2.28.9: base 6.6 + (30 - 2) intra steps x max(NVLink 0.6, network overhead 1) + 2 x 2.7.
  CHECK(nccl_cost(two_nodes(v(28, 9)), CollOp::AllReduce, Algo::Ring, Proto::LL).latency_us ==
        Approx(6.6 + 28 * 1.0 + 2 * 2.7));
  // To 2.22 an all-reduce ring counts 2 nNodes network steps (4 here), 2 (nNodes - 1) from 2.23.
  // 2.17.1: base 3.6, no network overhead, an LL intra step x 1.8 across nodes (0.47 x 1.8).
  CHECK(nccl_cost(two_nodes(v(17, 1)), CollOp::AllReduce, Algo::Ring, Proto::LL).latency_us ==
        Approx(3.6 + 26 * 0.47 * 1.8 + 4 * 2.7));
  // 2.17.1's NET Simple step for rings was 9.6 us; 14 from 2.18.
  CHECK(nccl_cost(two_nodes(v(17, 1)), CollOp::AllReduce, Algo::Ring, Proto::Simple).latency_us ==
        Approx(8.4 + 26 * 3.4 + 4 * 9.6));
  // 2.17.1: a plugin's declared latency replaces NCCL's NET row (later: added, twice for Simple).
  CommView plugin = two_nodes(v(17, 1));
  plugin.net_latency_us = 35;
  CHECK(nccl_cost(plugin, CollOp::AllReduce, Algo::Ring, Proto::Simple).latency_us == Approx(8.4 + 26 * 3.4 + 4 * 35));
  plugin.nccl_version = v(18, 5);
  CHECK(nccl_cost(plugin, CollOp::AllReduce, Algo::Ring, Proto::Simple).latency_us ==
        Approx(8.4 + 26 * 3.4 + 4 * (14 + 2 * 35)));
  plugin.nccl_version = v(23, 4);
  CHECK(nccl_cost(plugin, CollOp::AllReduce, Algo::Ring, Proto::Simple).latency_us ==
        Approx(8.4 + 28 * 3.4 + 2 * (14 + 2 * 35)));
}

TEST_CASE("tuner tables: one rank per node, Ring/LL128's discount and PAT by release", "[nccl]") {
  CommView one = two_nodes(v(22, 3));
  one.nranks = one.nnodes = 4;
  // Up to 2.22 a ring takes its own NET row (LL 2.7 us) on 2 nNodes = 8 network steps of its 6 (NCCL
  // counts the other -2 intra-node steps at the network overhead, 1 us); from 2.23 one rank per node
  // takes the Tree's row (5.0) on 2 (nNodes - 1) = 6.
  CHECK(nccl_cost(one, CollOp::AllReduce, Algo::Ring, Proto::LL).latency_us == Approx(6.6 - 2 * 1.0 + 8 * 2.7));
  // ... and Ring/LL128 runs at 0.7 of the busBw with fewer than 2 ranks per node (0.92 from 2.23).
  const double ll128_22 = nccl_cost(one, CollOp::AllReduce, Algo::Ring, Proto::LL128).algbw_gbs;
  CHECK(nccl_cost(one, CollOp::AllGather, Algo::PAT, Proto::Simple).algbw_gbs == 0);  // no PAT before 2.23
  one.nccl_version = v(23, 4);
  CHECK(nccl_cost(one, CollOp::AllReduce, Algo::Ring, Proto::LL).latency_us == Approx(6.6 + 6 * 5.0));
  CHECK(nccl_cost(one, CollOp::AllReduce, Algo::Ring, Proto::LL128).algbw_gbs == Approx(ll128_22 * 0.92 / 0.7));
  const double pat_23 = nccl_cost(one, CollOp::AllGather, Algo::PAT, Proto::Simple).algbw_gbs;
  CHECK(pat_23 > 0);
  one.nccl_version = v(24, 3);
  CHECK(nccl_cost(one, CollOp::AllGather, Algo::PAT, Proto::Simple).algbw_gbs == Approx(pat_23 * 0.75 / 0.85));
  // PAT's latency is 8 + log2i(nodes) x interLat / 3.5 + 2.8 per rank in every release that has it
  // (to 2.27 the 8 is in the formula, from 2.28 PAT's base latency; one rank per node takes the
  // Tree's NET Simple step, 14 us).
  CHECK(nccl_cost(one, CollOp::AllGather, Algo::PAT, Proto::Simple).latency_us == Approx(8.0 + 2 * 14 / 3.5 + 4 * 2.8));
  one.nccl_version = v(28, 9);
  CHECK(nccl_cost(one, CollOp::AllGather, Algo::PAT, Proto::Simple).latency_us == Approx(8.0 + 2 * 14 / 3.5 + 4 * 2.8));
}

TEST_CASE("tuner tables: Ring/LL's share of the ring, the 2.17 ceilings, trees and NVLSTree by release", "[nccl]") {
  // Ring/LL all-reduce across nodes: a quarter of the ring's busBw to 2.20, half from 2.21
  // (8 channels x 12 GB/s = 96; llMaxBws Intel 2 nodes 39).
  CommView ring = two_nodes(v(20, 5));
  const double n_over_steps = 16.0 / 30.0;
  CHECK(nccl_cost(ring, CollOp::AllReduce, Algo::Ring, Proto::LL).algbw_gbs == Approx(96 * 0.25 * n_over_steps));
  ring.nccl_version = v(21, 5);
  CHECK(nccl_cost(ring, CollOp::AllReduce, Algo::Ring, Proto::LL).algbw_gbs == Approx(39 * n_over_steps));
  // 2.17 capped every busBw at 370 GB/s on Hopper (235 on Ampere).
  CommView wide = two_nodes(v(17, 1));
  wide.nnodes = 1;
  wide.nranks = 8;
  wide.bw_intra_gbs = 40;
  wide.graph_channels = 16;  // 640 GB/s before the cap
  CHECK(nccl_cost(wide, CollOp::AllReduce, Algo::Ring, Proto::Simple).algbw_gbs == Approx(370 * 8.0 / 14.0));
  wide.nccl_version = v(18, 5);
  CHECK(nccl_cost(wide, CollOp::AllReduce, Algo::Ring, Proto::Simple).algbw_gbs == Approx(640 * 8.0 / 14.0));
  // The inter-node tree's 0.85 came with 2.19.
  const double tree_18 = nccl_cost(two_nodes(v(18, 5)), CollOp::AllReduce, Algo::Tree, Proto::Simple).algbw_gbs;
  CHECK(nccl_cost(two_nodes(v(19, 3)), CollOp::AllReduce, Algo::Tree, Proto::Simple).algbw_gbs ==
        Approx(tree_18 * 0.85));
  // NVLSTree came with 2.18; its latency is the release's (25 + 2 x 20.9 us in 2.28.9, 23 + 2 x 19 in 2.18).
  CommView nvls = two_nodes(v(17, 1));
  nvls.nvls = true;
  nvls.nvls_heads = 8;
  CHECK(nccl_cost(nvls, CollOp::AllReduce, Algo::NVLSTree, Proto::Simple).algbw_gbs == 0);
  nvls.nccl_version = v(18, 5);  // 2.18: 23 + 2 (nNodes - 1) x 19, no plugin term
  CHECK(nccl_cost(nvls, CollOp::AllReduce, Algo::NVLSTree, Proto::Simple).latency_us == Approx(23 + 2 * 19.0));
  CommView sixteen = nvls;
  sixteen.nnodes = 16;
  sixteen.nranks = 128;
  CHECK(nccl_cost(sixteen, CollOp::AllReduce, Algo::NVLSTree, Proto::Simple).latency_us == Approx(23 + 2 * 15 * 19.0));
  nvls.nccl_version = v(28, 9);
  CHECK(nccl_cost(nvls, CollOp::AllReduce, Algo::NVLSTree, Proto::Simple).latency_us == Approx(25 + 2 * 20.9));
}

TEST_CASE("tuner tables: from 2.29 NCCL scales NVLSTree's estimate on Blackwell with x86 hosts", "[nccl]") {
  CommView b = two_nodes(v(28, 9));
  b.sm = 100;
  b.nvls = true;
  b.nvls_heads = 8;
  TuningEnv only_nvlstree;
  for (auto& row : only_nvlstree.algo_enabled) row.fill(false);
  only_nvlstree.algo_enabled[static_cast<int>(CollOp::AllReduce)][static_cast<int>(Algo::NVLSTree)] = true;
  const int64_t size = int64_t{64} << 20;  // log2(64 MiB / 64) = 20: factor 0.8 for Simple
  const double t28 = choose(b, only_nvlstree, CollOp::AllReduce, size).nccl_predicted_us;
  b.nccl_version = v(29, 2);
  const double t29 = choose(b, only_nvlstree, CollOp::AllReduce, size).nccl_predicted_us;
  const AlgoCost c = nccl_cost(b, CollOp::AllReduce, Algo::NVLSTree, Proto::Simple);
  CHECK(t28 == Approx(c.latency_us + size / (1000.0 * c.algbw_gbs)));
  CHECK(t29 == Approx(c.latency_us + size / (1000.0 * c.algbw_gbs * 0.8)));
  b.cpu_arm = true;  // Grace: not x86, no correction
  CHECK(choose(b, only_nvlstree, CollOp::AllReduce, size).nccl_predicted_us == Approx(t28));
}

TEST_CASE("tuner tables: NVLS's and NVLSTree's bandwidth by era", "[nccl]") {
  // One node of 8 H100s, 16 NVLS heads at 40 GB/s.
  CommView one;
  one.nranks = 8;
  one.sm = 90;
  one.nvls = true;
  one.nvls_heads = 16;
  one.nvls_bw_intra_gbs = one.nvls_bw_inter_gbs = 40;
  one.nccl_version = v(18, 1);  // busBw x 0.75
  CHECK(nccl_cost(one, CollOp::AllReduce, Algo::NVLS, Proto::Simple).algbw_gbs == Approx(640 * 0.75));
  one.nccl_version = v(20, 5);  // x 5/6, all-gather too
  CHECK(nccl_cost(one, CollOp::AllReduce, Algo::NVLS, Proto::Simple).algbw_gbs == Approx(640 * 5.0 / 6));
  CHECK(nccl_cost(one, CollOp::AllGather, Algo::NVLS, Proto::Simple).algbw_gbs == Approx(640 * 5.0 / 6));
  one.nccl_version = v(26, 2);  // all-gather's busBw as it is
  CHECK(nccl_cost(one, CollOp::AllGather, Algo::NVLS, Proto::Simple).algbw_gbs == Approx(640));
  one.nccl_version = v(27, 3);  // all-gather: min(bwIntra (ppn-1)/ppn, 0.9 bwInter)
  CHECK(nccl_cost(one, CollOp::AllGather, Algo::NVLS, Proto::Simple).algbw_gbs == Approx(16 * 35.0));
  one.nccl_version = v(28, 9);  // nvlsEfficiency, two operations pipelined: 40 x .85 x 15/16 x 2
  CHECK(nccl_cost(one, CollOp::AllReduce, Algo::NVLS, Proto::Simple).algbw_gbs ==
        Approx(16 * std::min(40 * 0.85 * 15 / 16 * 2, 40.0) * 8 / 14.0));
  // NVLSTree on 4 nodes of 8 heads at 12 GB/s: 2.18 x 0.70 n/(2(n-1)); 2.19-2.27 half the network
  // speed beyond two nodes, x 5/6; 2.28 its per-channel ceiling and n/nsteps.
  CommView four = two_nodes(v(18, 5));
  four.nnodes = 4;
  four.nranks = 32;
  four.nvls = true;
  four.nvls_heads = 8;
  CHECK(nccl_cost(four, CollOp::AllReduce, Algo::NVLSTree, Proto::Simple).algbw_gbs == Approx(8 * 12 * 0.7 * 4 / 6.0));
  four.nccl_version = v(26, 2);
  CHECK(nccl_cost(four, CollOp::AllReduce, Algo::NVLSTree, Proto::Simple).algbw_gbs == Approx(8 * 6 * 5.0 / 6));
  four.nccl_version = v(28, 9);
  CHECK(nccl_cost(four, CollOp::AllReduce, Algo::NVLSTree, Proto::Simple).algbw_gbs == Approx(8 * 12 * 32 / 62.0));
}
