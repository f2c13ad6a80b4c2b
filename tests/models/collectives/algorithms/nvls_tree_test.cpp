// NVLSTree all-reduce (nvls_tree.cpp) on 2 x p5.48xlarge: where NCCL would use it, its rating
// (tuning.cc), and its data movement against the closed form on idle links:
//   T = kernel + 2 hop_nvlink + 2 d hop_inter + fill + max(T_sw, T_net),  d = log2(nodes),
//   T_sw = (1 + 1/H) S / (eta_nvls cap_nvlink),  T_net = S / (H cap_inter),
//   fill = min(1, H chunk / (S / channels)) ((2d + 1) T_sw + 2d T_net - max(T_sw, T_net))
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "models/collectives/flow_cap.hpp"
#include "models/collectives/pipeline_fill.hpp"
#include "models/comm_plan/comm_plan.hpp"
#include "tests/models/collectives/rig.hpp"

using namespace collectives_test;

namespace {
ScenarioSpec p5(int nodes, std::map<std::string, std::string> env = {}) {
  ScenarioSpec spec;
  spec.cluster.instance = "p5.48xlarge";
  spec.cluster.nodes = nodes;
  spec.nccl_env = std::move(env);
  return spec;
}

double run_all_reduce(const ScenarioSpec& spec, int64_t S, CollectiveRecord* rec) {
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  net.set_audit(true);  // byte conservation against nvls_tree_delivery
  auto world = World::build(spec, net);
  auto engine = make_collective_engine(sim, net, *world, spec);
  Group g;
  for (int r = 0; r < world->size(); ++r) g.ranks.push_back(r);
  double t = -1;
  engine->launch(g, CollOp::AllReduce, S, [&](const CollectiveRecord& r) {
    t = r.end_s - r.start_s;
    *rec = r;
  });
  sim.run();
  return t;
}
}  // namespace

TEST_CASE("nvls tree: NCCL's view of 2 x p5 -- 8 heads, 48 GB/s per channel, NVLSTree wins large all-reduce",
          "[nccl]") {
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  const ScenarioSpec spec = p5(2);
  auto world = World::build(spec, net);
  std::vector<int> ranks(world->size());
  for (int r = 0; r < world->size(); ++r) ranks[r] = r;
  const CommPlan plan = build_plan(*world, net, ranks);
  CHECK(plan.view.nvls);
  CHECK(plan.view.nvls_heads == 8);
  // aws-ofi-nccl's 4-rail device: 50 GB/s behind the GPU's Gen5 x16 link, rated 48 by NCCL.
  CHECK(plan.view.bw_inter_gbs == Approx(48));
  // tuning.cc: bw = min(48 x .85 x 7/8 x 2, 2 x 48, perChMaxNVLSTreeBw 57.7) = 57.7 per channel,
  // algBw = 8 x 57.7 x 16 / 30; Ring Simple 8 x 48 x 16 / 30; Tree Simple min(.92 x 8 x 48, 8 x
  // 41.4) x .85 / 2.
  const AlgoCost nvls = nccl_cost(plan.view, CollOp::AllReduce, Algo::NVLSTree, Proto::Simple);
  CHECK(nvls.algbw_gbs == Approx(8 * 57.7 * 16 / 30));
  // 25 us + 2 log2(2) x (20.9 us + 2 x the 75 us aws-ofi-nccl declares for p5, Simple's flush).
  CHECK(plan.view.net_latency_us == 75);
  CHECK(nvls.latency_us == Approx(25 + 2 * (20.9 + 2 * 75)));
  CHECK(nccl_cost(plan.view, CollOp::AllReduce, Algo::Ring, Proto::Simple).algbw_gbs == Approx(8 * 48.0 * 16 / 30));
  CHECK(nccl_cost(plan.view, CollOp::AllReduce, Algo::Tree, Proto::Simple).algbw_gbs ==
        Approx(std::min(0.92 * 8 * 48, 8 * 41.4) * 0.85 / 2));
  CHECK(nccl_cost(plan.view, CollOp::AllGather, Algo::NVLSTree, Proto::Simple).algbw_gbs == 0);  // all-reduce only
  CHECK(nccl_cost(plan.view, CollOp::AllReduce, Algo::NVLSTree, Proto::LL).algbw_gbs == 0);      // Simple only
  CHECK(choose(plan.view, TuningEnv{}, CollOp::AllReduce, int64_t{1} << 30).algo == Algo::NVLSTree);
  // With the plugin's latency NVLSTree takes over between 32 and 64 MiB (aws-ofi-nccl's own p5
  // tuner, src/tuner/nccl_ofi_regions.cpp, switches to NVLS_TREE above 30 MiB at 16 ranks).
  CHECK(choose(plan.view, TuningEnv{}, CollOp::AllReduce, int64_t{32} << 20).algo != Algo::NVLSTree);
  CHECK(choose(plan.view, TuningEnv{}, CollOp::AllReduce, int64_t{64} << 20).algo == Algo::NVLSTree);
}

TEST_CASE("nvls tree: not where NCCL has no NVLSTree (one node, NCCL_NVLS_ENABLE=0, p4de, one GPU per node)",
          "[nccl]") {
  const auto view_of = [](const ScenarioSpec& spec) {
    sim::Simulator sim;
    sim::FlowNetwork net(sim);
    auto world = World::build(spec, net);
    std::vector<int> ranks(world->size());
    for (int r = 0; r < world->size(); ++r) ranks[r] = r;
    return build_plan(*world, net, ranks).view;
  };
  // NVLSTree needs several nodes (one node has NVLS: nvls_test.cpp).
  CHECK(nccl_cost(view_of(p5(1)), CollOp::AllReduce, Algo::NVLSTree, Proto::Simple).algbw_gbs == 0);
  CHECK_FALSE(view_of(p5(2, {{"NCCL_NVLS_ENABLE", "0"}})).nvls);
  ScenarioSpec p4de = p5(2);
  p4de.cluster.instance = "p4de.24xlarge";  // A100: no NVLink SHARP
  CHECK_FALSE(view_of(p4de).nvls);
  ScenarioSpec pods = p5(2);  // 8 pods of one GPU each (no shared IPC): NCCL nodes of one rank
  pods.placement.pods_per_node = 8;
  pods.placement.gpus_per_pod = 1;
  CHECK_FALSE(view_of(pods).nvls);
}

TEST_CASE("nvls tree: 2 x p5 all-reduce moves S per node over the network and (1 + 1/H) S per NVLink port", "[nccl]") {
  const int64_t S = int64_t{1} << 30;
  CollectiveRecord rec;
  const ScenarioSpec spec = p5(2);
  const double t = run_all_reduce(spec, S, &rec);  // the byte audit checks nvls_tree_delivery
  REQUIRE(rec.algo == Algo::NVLSTree);
  REQUIRE(rec.proto == Proto::Simple);
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  auto world = World::build(spec, net);
  std::vector<int> ranks(world->size());
  for (int r = 0; r < world->size(); ++r) ranks[r] = r;
  const CommPlan plan = build_plan(*world, net, ranks);
  // 8 heads per node, every GPU one of them: its port moves S + S/8 each way; one merged
  // inter-node edge per head and direction carries S/8 (two mirrored trees, half each).
  REQUIRE(plan.nvls_switch.size() == 32);  // 16 ranks x (to, from the switch)
  for (const auto& m : plan.nvls_switch) CHECK(m.bytes_frac == Approx(1.125));
  REQUIRE(plan.nvls_net_merged.size() == 16);  // 8 heads x 2 directions
  for (const auto& m : plan.nvls_net_merged) CHECK(m.bytes_frac == Approx(1.0 / 8));
  const double share = static_cast<double>(rec.channels) / plan.channels_ref;
  // p5's defaults: EFA v2's own latencies and efficiency (LinkParams::for_node, hw/efa_generations).
  const LinkParams P5 = LinkParams::for_node(world->node());
  // aws-ofi-nccl's environment on p5 (hw::NodeSpec::net_plugin_env): NCCL_BUFFSIZE 8 MiB,
  // NCCL_NVLS_CHUNKSIZE and NCCL_NVLSTREE_MAX_CHUNKSIZE 512 KiB.
  const auto& env = world->nccl_env();
  REQUIRE(env.buffsize == int64_t{8} << 20);
  REQUIRE(env.nvls_chunksize == int64_t{512} << 10);
  const auto hop5 = [&](LinkClass c, Proto p) { return P5.of(c).hop_latency_s[static_cast<int>(p)]; };
  const auto cap = [&](const CommPlan::MergedEdge& m, double channels, double work) {
    return flow_rate_cap(P5, {.link_class = m.edge.link_class,
                              .proto = Proto::Simple,
                              .raw_bandwidth = m.edge.raw_bandwidth,
                              .link_fraction = m.share_frac,
                              .coll_share = share,
                              .channels = channels,
                              .work = work,
                              .buffsize = env.buffsize});
  };
  // The ports at the switch's rate: nvls.efficiency (Hopper 0.85) of the ring's.
  const double nvl = 1.125 * S / cap(plan.nvls_switch.front(), rec.channels, 1 / 0.85);
  const double inter = S / 8.0 / cap(plan.nvls_net_merged.front(), rec.channels / 8.0, 1);
  // The fill: a loop of 8 heads x 256 KiB per channel (NCCL's chunk: 512 KiB, and 1 GiB is below
  // 32 x channels x 8 heads x 512 KiB, not below 16 x ... x 256 KiB) passes 3 switch stages and 2
  // network edges (2 nodes: d = 1) store and forward. With NCCL's own 128 KiB it would be 128 KiB.
  CHECK(nvls_tree_chunk_bytes(S, rec.channels, 8, 2, env.nvls_chunksize, env.nvlstree_max_chunksize) == 256 << 10);
  CHECK(nvls_tree_chunk_bytes(S, rec.channels, 8, 2) == 128 << 10);
  const double fill = 8.0 * (256 << 10) / (double(S) / rec.channels) * (3 * nvl + 2 * inter - std::max(nvl, inter));
  const double lat =
      P5.kernel_latency_s + 2 * hop5(LinkClass::NVLink, Proto::Simple) + 2 * hop5(LinkClass::EFA, Proto::Simple);
  CHECK(t == Approx(lat + fill + std::max(nvl, inter)).epsilon(1e-6));
  // With EFA v2 moving 0.89 of 8 x 50 GB/s per node (hw/efa_generations.cpp) the switch ports,
  // (1 + 1/8) S each way at NVLS's rate, are the bottleneck, not the network.
  CHECK(nvl > inter);
  // The same bytes as a (forced) Tree: its chain puts 2 S through every NVLink port each way.
  CollectiveRecord tree_rec;
  const double t_tree = run_all_reduce(p5(2, {{"NCCL_ALGO", "Tree"}}), S, &tree_rec);
  REQUIRE(tree_rec.algo == Algo::Tree);
  CHECK(t_tree > 1.2 * t);  // NVLink-bound (2 S per port each way) where NVLSTree is EFA-bound
}

namespace {
// One all-reduce of S on `spec`, closed forms on or off (no audit: it turns them off): when it
// ends (picoseconds), the bytes every link carried, and the blocks run in closed form.
struct NvlsTreeOutcome {
  int64_t end_ps = 0;
  std::vector<double> link_bytes;
  uint64_t blocks = 0;
  uint64_t events = 0;
  Algo algo = Algo::Ring;
};
NvlsTreeOutcome all_reduce_outcome(const ScenarioSpec& spec, int64_t S, bool closed_forms) {
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  net.set_closed_forms(closed_forms);
  auto world = World::build(spec, net);
  auto engine = make_collective_engine(sim, net, *world, spec);
  Group g;
  for (int r = 0; r < world->size(); ++r) g.ranks.push_back(r);
  NvlsTreeOutcome out;
  engine->launch(g, CollOp::AllReduce, S, [&](const CollectiveRecord& r) {
    out.end_ps = sim.now().ps();
    out.algo = r.algo;
  });
  out.events = sim.run();
  net.settle_blocks();
  for (uint32_t l = 0; l < net.link_count(); ++l) out.link_bytes.push_back(net.link_bytes(sim::LinkId{l}));
  out.blocks = net.blocks_closed();
  return out;
}
}  // namespace

// The tree's inter-node flows share NICs (a node sends up and down both trees through
// its head's NIC), so the whole collective cannot run in closed form; its flows alone on idle
// links (NVLSTree's NVLink port flows, one per port and direction) still do, as one block
// (sim::FlowNetwork::start_solo_block), at the same picoseconds and link bytes as every flow.
TEST_CASE("nvls tree: on 16 x p5 the NVLink port flows run as a solo block, exactly as flows", "[nccl]") {
  const int64_t S = int64_t{1} << 30;
  for (const char* algo : {"NVLSTree", "Tree"}) {
    INFO(algo);
    const ScenarioSpec spec = p5(16, {{"NCCL_ALGO", algo}});
    const NvlsTreeOutcome closed = all_reduce_outcome(spec, S, true);
    const NvlsTreeOutcome flows = all_reduce_outcome(spec, S, false);
    CHECK(closed.algo == (std::string(algo) == "Tree" ? Algo::Tree : Algo::NVLSTree));
    CHECK(closed.end_ps == flows.end_ps);          // the same picosecond
    CHECK(closed.link_bytes == flows.link_bytes);  // exact, not approximate
    CHECK(flows.blocks == 0);
    if (closed.algo == Algo::NVLSTree) {
      CHECK(closed.blocks == 1);  // the 256 port flows as one block
      CHECK(closed.events < flows.events);
    }
  }
}
