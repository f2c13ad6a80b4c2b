// Tree all-reduce (tree.cpp) against its closed form on idle links, on the rig of rig.hpp:
//   T = kernel + 2 ((ppn-1) hop_intra + log2(nodes) hop_inter) + fill + S / cap
// fill (Simple, pipeline_fill.hpp) = min(1, slice / (S / channels)) x (2 ((ppn-1) T_chain +
// log2(nodes) T_net) - max(T_chain, T_net)), T_x = the slowest such edge's bytes over its cap
// alone, slice = NCCL_BUFFSIZE / NCCL_STEPS = 512 KiB.
#include <algorithm>

#include <catch2/catch.hpp>

#include "models/collectives/flow_cap.hpp"
#include "models/collectives/pipeline_fill.hpp"
#include "models/comm_plan/comm_plan.hpp"
#include "rig.hpp"

using namespace collectives_test;

TEST_CASE("collectives: tree all-reduce when forced, and its closed form", "[nccl]") {
  const double B = 450e9;
  Rig rig(1, 4, B, 50e9, {{"NCCL_ALGO", "Tree"}, {"NCCL_PROTO", "Simple"}});
  CollectiveRecord rec;
  const int64_t S = 64LL << 20;
  const double t = rig.run(CollOp::AllReduce, S, &rec);
  REQUIRE(rec.algo == Algo::Tree);
  // One node: a chain 0-1-2-3; every chain edge carries S up and S down. An interior GPU sends
  // S up and S down through its one NVLink tx port, whose usable total is eta B (the protocol's
  // efficiency is the port's), so each flow gets eta B / 2:
  // T = kernel + 2 (ppn-1) hop + fill + 2 S / (eta B). The fill: 6 chain edges (3 up, 3 down), a
  // 512 KiB slice each at one edge's cap alone (eta B, S / (eta B) for all S), less the slowest once.
  const double e = eta(LinkClass::NVLink, Proto::Simple);
  const double fill = (6 - 1) * (512.0 * 1024 * rec.channels / S) * S / (e * B);
  CHECK(t == Approx(P.kernel_latency_s + 2 * 3 * hop(LinkClass::NVLink, Proto::Simple) + fill + 2.0 * S / (e * B))
                 .epsilon(1e-6));
}

TEST_CASE("tree: all-reduce across nodes pays log2(nodes) network hops and moves S over each NIC", "[nccl]") {
  // 2 nodes x 2 GPUs: a chain of 2 GPUs in each node, the double binary tree over the 2
  // leaders: tree 0 sends up 1 -> 0, tree 1 (mirrored) 0 -> 1, each half the data, so each NIC
  // carries S one way (up half + down half). NVLink (450 GB/s) is far faster than the NIC.
  const double B_net = 12.5e9;
  Rig rig(2, 2, 450e9, B_net, {{"NCCL_ALGO", "Tree"}, {"NCCL_PROTO", "Simple"}});
  CollectiveRecord rec;
  const int64_t S = 256LL << 20;
  const double t = rig.run(CollOp::AllReduce, S, &rec);
  REQUIRE(rec.algo == Algo::Tree);
  const CommPlan plan = build_plan(rig.world, rig.net, rig.all().ranks);
  const double share = static_cast<double>(rec.channels) / plan.channels_ref;
  const double cap = eta(LinkClass::IB, Proto::Simple) * B_net * share;  // IB: no per-channel rate
  REQUIRE(cap <= B_net);
  // T = kernel + 2 ((ppn-1) hop_intra + log2(nodes) hop_inter) + S / cap, ppn = 2, nodes = 2
  const double lat =
      P.kernel_latency_s + 2 * (hop(LinkClass::NVLink, Proto::Simple) + hop(LinkClass::IB, Proto::Simple));
  // The fill: the NIC edge once (up and down, less the slowest passed once) and the 2 NVLink
  // chain edges: min(1, slice / (S / channels)) x (S / cap + 2 T_chain), T_chain = S over the
  // chain edge's cap alone (flow_cap.hpp: the NVLink per-channel rate x channels here).
  const double nvlink_cap = flow_rate_cap(P, {.link_class = LinkClass::NVLink,
                                              .proto = Proto::Simple,
                                              .raw_bandwidth = 450e9,
                                              .coll_share = share,
                                              .channels = static_cast<double>(rec.channels)});
  const double fill = (512.0 * 1024 * rec.channels / S) * (S / cap + 2 * S / nvlink_cap);
  INFO("channels " << rec.channels << ", NVLink chain cap " << nvlink_cap / 1e9 << " GB/s");
  CHECK(t == Approx(lat + fill + S / cap).epsilon(1e-6));
}

TEST_CASE("tree: LL128 across nodes pays its fill in CTA iterations and network chunks", "[nccl][pipeline]") {
  // 2 nodes x 2 GPUs, Tree/LL128: as above with LL128's hops and caps, and the fill of
  // pipeline_fill.hpp's units: the NVLink edge up forwards 14 warps x 1920 B = 26880 B, down
  // 6 warps = 11520 B, the network edge (up and down) one chunk, tree_ll128_chunk_bytes:
  //   fill = tau_up + tau_down + 2 tau_net - max,  tau = min(1, unit / (S / channels)) x T
  const double B_net = 12.5e9;
  Rig rig(2, 2, 450e9, B_net, {{"NCCL_ALGO", "Tree"}, {"NCCL_PROTO", "LL128"}});
  CollectiveRecord rec;
  const int64_t S = 64LL << 20;
  const double t = rig.run(CollOp::AllReduce, S, &rec);
  REQUIRE(rec.algo == Algo::Tree);
  REQUIRE(rec.proto == Proto::LL128);
  const CommPlan plan = build_plan(rig.world, rig.net, rig.all().ranks);
  const double share = static_cast<double>(rec.channels) / plan.channels_ref;
  const double cap = eta(LinkClass::IB, Proto::LL128) * B_net * share;
  const double nvlink_cap = flow_rate_cap(P, {.link_class = LinkClass::NVLink,
                                              .proto = Proto::LL128,
                                              .raw_bandwidth = 450e9,
                                              .coll_share = share,
                                              .channels = static_cast<double>(rec.channels)});
  const double lat = P.kernel_latency_s + 2 * (hop(LinkClass::NVLink, Proto::LL128) + hop(LinkClass::IB, Proto::LL128));
  const double per_channel = static_cast<double>(S) / rec.channels;
  const double chunk = static_cast<double>(tree_ll128_chunk_bytes(S, rec.channels, 4, 2));
  const double tau_up = std::min(1.0, 26880 / per_channel) * S / nvlink_cap;
  const double tau_down = std::min(1.0, 11520 / per_channel) * S / nvlink_cap;
  const double tau_net = std::min(1.0, chunk / per_channel) * S / cap;
  const double fill = tau_up + tau_down + 2 * tau_net - std::max({tau_up, tau_down, tau_net});
  INFO("channels " << rec.channels << ", chunk " << chunk << " B, fill " << fill * 1e6 << " us");
  CHECK(fill > 0);
  CHECK(t == Approx(lat + fill + S / cap).epsilon(1e-6));
}
