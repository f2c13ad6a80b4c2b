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
#include "tests/models/collectives/rig.hpp"

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
  // A chain edge moves its up data with 14 of the ring CTA's 20 warps and its down data with 6
  // (runTreeSplit): an edge carrying both takes max(up / 0.7, down / 0.3) of the whole CTA's time.
  double chain_share = 1;
  for (const auto& m : plan.tree_merged)
    if (m.edge.link_class == LinkClass::NVLink)
      chain_share =
          std::min(chain_share, m.bytes_frac / std::max((m.bytes_frac - m.down_frac) / 0.7, m.down_frac / 0.3));
  CHECK(chain_share < 1);
  const double nvlink_cap = flow_rate_cap(P, {.link_class = LinkClass::NVLink,
                                              .proto = Proto::LL128,
                                              .raw_bandwidth = 450e9,
                                              .coll_share = share,
                                              .channels = static_cast<double>(rec.channels),
                                              .thread_share = chain_share});
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

TEST_CASE("tree: an LL128 chain moves each direction at its threads' share of a ring's CTA", "[nccl][pipeline]") {
  // 2 nodes x 2 GPUs over a NIC faster than the chain: the NVLink chain edges bind. Each node's
  // chain is one edge up (all of S, reduced by 14 of the CTA's 20 warps) and one down (all of S,
  // broadcast by 6: runTreeSplit), so the down edge sets the pace at 0.3 of a ring CTA's rate:
  // T = lat + fill + S / (channels x r' x 0.3) (r' the ring's LL128 channel rate, flow_cap.hpp).
  Rig rig(2, 2, 450e9, 4000e9, {{"NCCL_ALGO", "Tree"}, {"NCCL_PROTO", "LL128"}});
  CollectiveRecord rec;
  const int64_t S = 256LL << 20;
  const double t = rig.run(CollOp::AllReduce, S, &rec);
  REQUIRE(rec.proto == Proto::LL128);
  const CommPlan plan = build_plan(rig.world, rig.net, rig.all().ranks);
  double slowest = 0;  // max over chain edges of max(up / 0.7, down / 0.3), in units of S
  for (const auto& m : plan.tree_merged)
    if (m.edge.link_class == LinkClass::NVLink)
      slowest = std::max(slowest, std::max((m.bytes_frac - m.down_frac) / 0.7, m.down_frac / 0.3));
  CHECK(slowest == Approx(1 / 0.3));
  const double share = static_cast<double>(rec.channels) / plan.channels_ref;
  const FlowCapInputs chain{.link_class = LinkClass::NVLink,
                            .proto = Proto::LL128,
                            .raw_bandwidth = 450e9,
                            .coll_share = share,
                            .channels = static_cast<double>(rec.channels)};
  FlowCapInputs down = chain;
  down.thread_share = 0.3;
  const double whole_cta = flow_rate_cap(P, chain), cap = flow_rate_cap(P, down);
  REQUIRE(P.of(LinkClass::NVLink).channel_bandwidth > 0);
  CHECK(cap == Approx(0.3 * whole_cta));  // the per-channel term binds the chain
  const double lat = P.kernel_latency_s + 2 * (hop(LinkClass::NVLink, Proto::LL128) + hop(LinkClass::IB, Proto::LL128));
  // The bandwidth term alone below, plus a chain's fill (a few CTA iterations) above.
  CHECK(t > lat + S / cap);
  CHECK(t < lat + S / cap * 1.05);
  CHECK(t > lat + S / whole_cta * 3);  // the split, not the whole CTA, sets the pace
}
