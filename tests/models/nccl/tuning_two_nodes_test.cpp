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

TEST_CASE("tuning: the 2-node tree speed stops at the top of search.cc's speed list", "[nccl]") {
  CommView v = p4de(2);
  v.sm = 90;
  v.bw_inter_gbs = 50;  // p5: 4 EFA per GPU as one 50 GB/s channel; 2 x 50 > 60, the sm90 list's top
  const AlgoCost tree = nccl_cost(v, CollOp::AllReduce, Algo::Tree, Proto::Simple);
  CHECK(tree.algbw_gbs == Approx(0.5 * 0.85 * std::min(0.92 * 4 * 60.0, 4 * 41.4)));
}
