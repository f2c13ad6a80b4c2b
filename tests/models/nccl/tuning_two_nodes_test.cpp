// NCCL's tuner on 2 nodes (models/nccl/tuning.cpp): tuning.cc rates every algorithm at its
// graph's bwIntra when nNodes <= 2, and search.cc raises a tree graph's bwIntra alone while it is
// below twice bwInter ("increase bwIntra for trees (2 nodes or collnet)"). So on 2 nodes a tree
// is rated at up to 2 x the network speed per channel, and all-reduce picks Tree for large sizes
// (why 2 x p4de reaches 78 GB/s bus bandwidth on 50 GB/s of EFA, nccl-tests #196).
#include <catch2/catch.hpp>

#include <algorithm>

#include "models/nccl/tuning.hpp"

using namespace models::nccl;

namespace {
// p4de.24xlarge as the tuner sees it across nodes: A100 (sm80) on NVLink, 4 EFA of 12.5 GB/s,
// one graph channel per NIC.
CommView p4de(int nodes) {
  CommView v;
  v.nranks = 8 * nodes;
  v.nnodes = nodes;
  v.sm = 80;
  v.intra_nvlink = true;
  v.bw_intra_gbs = 20;
  v.bw_inter_gbs = 12.5;
  v.graph_channels = 4;
  return v;
}
}  // namespace

TEST_CASE("tuning: on 2 nodes the tree is rated at twice the network speed and wins all-reduce", "[nccl]") {
  // Tree Simple: busBw = min(0.92 x 4 ch x 2 x 12.5, 4 ch x perChMaxTreeBw[Ampere][2 nodes] 23.6)
  // x 0.85 (inter-node tree); algBw = busBw / 2.
  const AlgoCost tree = nccl_cost(p4de(2), CollOp::AllReduce, Algo::Tree, Proto::Simple);
  CHECK(tree.algbw_gbs == Approx(0.5 * 0.85 * std::min(0.92 * 4 * 25.0, 4 * 23.6)));
  // Ring Simple stays at the network's 12.5 per channel: algBw = 4 x 12.5 x n / (2(n-1)).
  const AlgoCost ring = nccl_cost(p4de(2), CollOp::AllReduce, Algo::Ring, Proto::Simple);
  CHECK(ring.algbw_gbs == Approx(50.0 * 16 / 30));
  CHECK(choose(p4de(2), TuningEnv{}, CollOp::AllReduce, int64_t{1} << 30).algo == Algo::Tree);
  // On 4 nodes the tree is rated at bwInter: min(0.92 x 4 x 12.5, 4 x 17.8) x 0.85 / 2.
  const AlgoCost tree4 = nccl_cost(p4de(4), CollOp::AllReduce, Algo::Tree, Proto::Simple);
  CHECK(tree4.algbw_gbs == Approx(0.5 * 0.85 * std::min(0.92 * 50.0, 4 * 17.8)));
}

TEST_CASE("tuning: the 2-node tree speed stops at the top of search.cc's inter-node speed list", "[nccl]") {
  // With a network the search uses the inter-node list (sm90SpeedArrayInter: 48 first; sm100: 96),
  // so a tree graph's bwIntra cannot climb past 48 (2 x 48 > 48).
  CommView v = p4de(2);
  v.sm = 90;
  v.bw_inter_gbs = 48;  // p5: 4 EFA per GPU as one 50 GB/s device behind a 48 GB/s PCIe path
  const AlgoCost tree = nccl_cost(v, CollOp::AllReduce, Algo::Tree, Proto::Simple);
  CHECK(tree.algbw_gbs == Approx(0.5 * 0.85 * std::min(0.92 * 4 * 48.0, 4 * 41.4)));
  v.sm = 100;
  const AlgoCost tree100 = nccl_cost(v, CollOp::AllReduce, Algo::Tree, Proto::Simple);
  CHECK(tree100.algbw_gbs == Approx(0.5 * 0.85 * std::min(0.92 * 4 * 96.0, 4 * 42.8)));
}

TEST_CASE("tuning: the net plugin's declared latency is added to every inter-node step, twice with Simple", "[nccl]") {
  // tuning.cc: interLat = hwLat[NET][a][p] + graph latencyInter (+ latencyInter again for Simple,
  // "the flush extra latency"); aws-ofi-nccl declares 75 us on p4de (src/platform-aws.cpp).
  CommView v = p4de(2);
  const AlgoCost ring0 = nccl_cost(v, CollOp::AllReduce, Algo::Ring, Proto::Simple);
  const AlgoCost tree0 = nccl_cost(v, CollOp::AllReduce, Algo::Tree, Proto::LL);
  v.net_latency_us = 75;
  // Ring all-reduce on 2 nodes: 2 inter-node steps; Tree: 2 x log2(2).
  CHECK(nccl_cost(v, CollOp::AllReduce, Algo::Ring, Proto::Simple).latency_us == Approx(ring0.latency_us + 2 * 150));
  CHECK(nccl_cost(v, CollOp::AllReduce, Algo::Tree, Proto::LL).latency_us == Approx(tree0.latency_us + 2 * 75));
}
