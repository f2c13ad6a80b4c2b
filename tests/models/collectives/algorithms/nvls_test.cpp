// NVLS on one node (nvls.cpp): where NCCL has it (NVSwitch multicast, SM 9.0+, NCCL_NVLS_ENABLE not
// 0), its rating (tuning.cc) and channels (nvls.cc), and its data movement on idle links:
//   all-reduce      T = kernel + 2 hop_nvlink + (1 + 1/n) S / cap,   each port (1 + 1/n) S each way
//   reduce-scatter  T = kernel + 2 hop_nvlink + S / cap,             each port S up, S/n down
// with cap = one port's flow cap at nvls.efficiency (NCCL's nvlsEfficiency, Hopper 0.85).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "models/collectives/flow_cap.hpp"
#include "models/collectives/pipeline_fill.hpp"
#include "models/comm_plan/comm_plan.hpp"
#include "tests/models/collectives/catalog_run.hpp"
#include "tests/models/collectives/rig.hpp"

using namespace collectives_test;

namespace {
ScenarioSpec node_of(const std::string& instance, int nodes, std::map<std::string, std::string> env) {
  ScenarioSpec spec;
  spec.cluster.instance = instance;
  spec.cluster.nodes = nodes;
  spec.nccl_env = std::move(env);
  return spec;
}

// The audit checks nvls_delivery.
CatalogRun run(const ScenarioSpec& spec, CollOp op, int64_t S) { return audited_run(spec, op, S); }

const std::map<std::string, std::string> kNvlsOn = {{"NCCL_NVLS_ENABLE", "1"}};
}  // namespace

TEST_CASE("nvls: NCCL's view of one H100 node -- 8 heads at 40/60 GB/s, 16 channels, NVLS wins large all-reduce",
          "[nccl]") {
  const CommView v = view_of(node_of("p5.48xlarge", 1, kNvlsOn));
  REQUIRE(v.nvls);
  CHECK(v.nvls_heads == 8);
  // search.cc: 9 x bw <= 18 NVLinks x 20.6 GB/s gives 40; pass 2 raises bwInter to 60 (< 2 x 40).
  CHECK(v.nvls_bw_intra_gbs == 40);
  CHECK(v.nvls_bw_inter_gbs == 60);
  CHECK(v.nvls_channels == 16);  // nvls.cc NVLS_NCHANNELS_SM90
  // tuning.cc: bw = min(40 x .85 x 7/8 x 2, 60) = 59.5, busBw = 8 x 59.5, algBw = busBw x 8 / 14.
  const AlgoCost ar = nccl_cost(v, CollOp::AllReduce, Algo::NVLS, Proto::Simple);
  CHECK(ar.algbw_gbs == Approx(8 * 59.5 * 8 / 14));
  CHECK(ar.latency_us == Approx(25));
  CHECK(nccl_cost(v, CollOp::AllReduce, Algo::NVLS, Proto::LL).algbw_gbs == 0);  // Simple only
  // All-gather: bw = min(40 x .85 x 7/8 x 7/8, 60), busBw kept as algBw: slower than the ring.
  const AlgoCost ag = nccl_cost(v, CollOp::AllGather, Algo::NVLS, Proto::Simple);
  CHECK(ag.algbw_gbs == Approx(8 * 40 * 0.85 * 7 / 8 * 7 / 8));
  CHECK(ag.algbw_gbs < nccl_cost(v, CollOp::AllGather, Algo::Ring, Proto::Simple).algbw_gbs);
  CHECK(nccl_cost(v, CollOp::AllReduce, Algo::NVLSTree, Proto::Simple).algbw_gbs == 0);  // one node
  const Choice big = choose(v, TuningEnv{}, CollOp::AllReduce, int64_t{1} << 30);
  CHECK(big.algo == Algo::NVLS);
  CHECK(big.channels == 16);  // nvlsChannels whatever the size (enqueue.cc)
  CHECK(choose(v, TuningEnv{}, CollOp::AllReduce, int64_t{64} << 10).algo != Algo::NVLS);
  CHECK(choose(v, TuningEnv{}, CollOp::AllGather, int64_t{1} << 30).algo == Algo::Ring);
  TuningEnv eight;
  eight.nvls_channels = 8;  // NCCL_NVLS_NCHANNELS=8
  CHECK(choose(v, eight, CollOp::AllReduce, int64_t{1} << 30).channels == 8);
}

TEST_CASE("nvls: not where NCCL has no NVLS (NCCL_NVLS_ENABLE=0, A100, one GPU), Blackwell's 80/90 GB/s, 24 channels",
          "[nccl]") {
  CHECK_FALSE(view_of(node_of("p5.48xlarge", 1, {{"NCCL_NVLS_ENABLE", "0"}})).nvls);
  CHECK_FALSE(view_of(node_of("p4de.24xlarge", 1, kNvlsOn)).nvls);  // A100: no NVLink SHARP
  ScenarioSpec one = node_of("p5.48xlarge", 1, kNvlsOn);
  one.placement.gpus_per_pod = 1;
  one.placement.pods_per_node = 1;
  CHECK_FALSE(view_of(one).nvls);
  const CommView b = view_of(node_of("p6-b200.48xlarge", 1, kNvlsOn));
  REQUIRE(b.nvls);
  CHECK(b.nvls_bw_intra_gbs == 80);  // 9 x 80 <= 18 x 40.1
  CHECK(b.nvls_bw_inter_gbs == 90);
  CHECK(b.nvls_channels == 24);  // NVLS_NCHANNELS_SM100_NVL on one node
  // Blackwell: bw = min(80 x .74 x 7/8 x 2, 90) = 90 per channel.
  CHECK(nccl_cost(b, CollOp::AllReduce, Algo::NVLS, Proto::Simple).algbw_gbs == Approx(8 * 90.0 * 8 / 14));
}

TEST_CASE("nvls: one-node all-reduce moves (1 + 1/n) S per NVLink port each way, at nvls.efficiency of a port",
          "[nccl]") {
  const int64_t S = int64_t{1} << 30;
  const ScenarioSpec spec = node_of("p5.48xlarge", 1, kNvlsOn);
  const CatalogRun nvls = run(spec, CollOp::AllReduce, S);  // the byte audit checks nvls_delivery
  REQUIRE(nvls.rec.algo == Algo::NVLS);
  REQUIRE(nvls.rec.channels == 16);
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  auto world = World::build(spec, net);
  std::vector<int> ranks(world->size());
  for (int r = 0; r < world->size(); ++r) ranks[r] = r;
  const CommPlan plan = build_plan(*world, net, ranks, kPlanNvls);
  REQUIRE(plan.nvls_ports.size() == 16);  // 8 ranks x (to, from the switch)
  for (const auto& p : plan.nvls_ports) CHECK(p.head_frac == Approx(1.0 / 8));
  const CommPlan::Port& port = plan.nvls_ports.front();
  const double eta = 0.85;  // nvls.efficiency on Hopper
  // The switch's ports alone bound the flows (port_bound: no ring CTA's per-channel term).
  const double cap = flow_rate_cap(P, {.link_class = LinkClass::NVLink,
                                       .proto = Proto::Simple,
                                       .raw_bandwidth = port.edge.raw_bandwidth,
                                       .work = 1 / eta,
                                       .port_bound = true});
  CHECK(cap == Approx(port.edge.raw_bandwidth * P.of(LinkClass::NVLink).efficiency[2] * eta));
  // The fill of one loop (8 heads x 64 KiB per channel: aws-ofi-nccl's NCCL_NVLS_CHUNKSIZE of 512 KiB
  // on p5, cut to 64 KiB below 64 x 128 chunks) through the scatter (8 warps), the switch and the
  // gather (7 warps): fill = loop / (S/16) x (t_scatter + t_switch + t_gather - max).
  REQUIRE(world->nccl_env().nvls_chunksize == 512 << 10);
  REQUIRE(nvls_chunk_bytes(S, 16, 8, 512 << 10) == 64 << 10);
  REQUIRE(nvls_one_node_warps(CollOp::AllReduce, 8).scatter == 8);
  REQUIRE(nvls_one_node_warps(CollOp::AllReduce, 8).gather == 7);
  const double per_ch = double(S) / 16;
  const double t_sw = 1.125 * S / cap;
  const double t_sc = per_ch / (8 * P.warp_copy_bandwidth), t_ga = per_ch / (7 * P.warp_copy_bandwidth);
  const double fill = 8.0 * (64 << 10) / per_ch * (t_sc + t_sw + t_ga - std::max({t_sc, t_sw, t_ga}));
  CHECK(nvls.t == Approx(P.nvls_latency_s + fill + t_sw).epsilon(1e-6));
  CHECK(nvls.max_bytes.at("nvlink") == Approx(1.125 * S).epsilon(1e-6));  // not 2(n-1)/n S = 1.75 S
  // The ring (forced) moves 1.75 S per port: NVLS is faster by 1.75/1.125 x eta x (port cap / cap).
  auto ring_env = kNvlsOn;
  ring_env["NCCL_ALGO"] = "Ring";
  const CatalogRun ring = run(node_of("p5.48xlarge", 1, ring_env), CollOp::AllReduce, S);
  REQUIRE(ring.rec.algo == Algo::Ring);
  CHECK(ring.max_bytes.at("nvlink") == Approx(1.75 * S).epsilon(1e-6));
  CHECK(ring.t / nvls.t > 1.25);
  CHECK(ring.t / nvls.t < 1.75 / 1.125);
}

TEST_CASE("nvls: reduce-scatter and all-gather (NCCL_ALGO=NVLS) move S one way and S/n the other", "[nccl]") {
  const int64_t S = int64_t{1} << 30;
  auto env = kNvlsOn;
  env["NCCL_ALGO"] = "NVLS";
  const ScenarioSpec spec = node_of("p5.48xlarge", 1, env);
  for (CollOp op : {CollOp::ReduceScatter, CollOp::AllGather}) {
    const CatalogRun r = run(spec, op, S);
    REQUIRE(r.rec.algo == Algo::NVLS);
    CHECK(r.max_bytes.at("nvlink") == Approx(static_cast<double>(S)).epsilon(1e-6));
    const double raw = 18 * 25e9;  // H100: 18 NVLink-4 links of 25 GB/s
    const double cap = raw * P.of(LinkClass::NVLink).efficiency[static_cast<int>(Proto::Simple)] * 0.85;
    CHECK(r.t == Approx(P.nvls_latency_s + S / cap).epsilon(1e-6));  // no fill counted (all-reduce only)
  }
}

TEST_CASE("nvls: across DGX H100 nodes with SHARP, NVLS runs over CollNet -- S/8 per NIC, (1 + 1/8) S per port",
          "[nccl]") {
  auto sharp = [](int nodes, std::map<std::string, std::string> env) {
    ScenarioSpec spec = node_of("dgx-h100", nodes, std::move(env));
    spec.cluster.fabric.sharp = true;
    spec.nccl_env.emplace("NCCL_COLLNET_ENABLE", "1");
    return spec;
  };
  const CommView v = view_of(sharp(2, {}));
  REQUIRE(v.nvls);
  REQUIRE(v.collnet);
  CHECK(v.nvls_heads == 8);  // one per NIC
  // tuning.cc: bw = min(48 x .85 x 7/8 x 2, 48) = 48, busBw = 8 x 48, algBw x 16/30; 25 + 18 us.
  const AlgoCost c = nccl_cost(v, CollOp::AllReduce, Algo::NVLS, Proto::Simple);
  CHECK(c.algbw_gbs == Approx(8 * 48.0 * 16 / 30));
  CHECK(c.latency_us == Approx(25 + 18));
  // Without CollNet NVLS does not cross nodes (NVLSTree does).
  CHECK(nccl_cost(view_of(node_of("dgx-h100", 2, {})), CollOp::AllReduce, Algo::NVLS, Proto::Simple).algbw_gbs == 0);
  // 16 nodes, 1 GiB: NVLS (193.5 GB/s, 43 us) beats CollNetChain (192, 69 us) and NVLSTree (183).
  CHECK(choose(view_of(sharp(16, {})), TuningEnv{}, CollOp::AllReduce, int64_t{1} << 30).algo == Algo::NVLS);
  const int64_t S = int64_t{1} << 30;
  const CatalogRun r = run(sharp(2, {{"NCCL_ALGO", "NVLS"}}), CollOp::AllReduce, S);  // audit: nvls_delivery
  REQUIRE(r.rec.algo == Algo::NVLS);
  REQUIRE(r.rec.channels == 16);  // min(nvlsChannels, the communicator's 16)
  CHECK(r.max_bytes.at("nvlink") == Approx(1.125 * S).epsilon(1e-6));
  CHECK(r.max_bytes.at("ib") == Approx(S / 8.0).epsilon(1e-6));
  const double raw = 18 * 25e9;
  const double port = raw * P.of(LinkClass::NVLink).efficiency[static_cast<int>(Proto::Simple)] * 0.85;
  const double nic =
      std::min(P.of(LinkClass::IB).efficiency[static_cast<int>(Proto::Simple)], P.sharp_efficiency) * 50e9;
  const double lat = P.kernel_latency_s + 2 * hop(LinkClass::NVLink, Proto::Simple) +
                     2 * hop(LinkClass::IB, Proto::Simple) + P.sharp_latency_s;
  CHECK(r.t == Approx(lat + std::max(1.125 * S / port, S / 8.0 / nic)).epsilon(1e-6));
}

TEST_CASE("nvls: what binds -- Hopper's ports on (1 + 1/H) S, Blackwell's switch on S whatever the heads", "[nccl]") {
  // LinkParams::nvls_port_work: the work per byte of a port flow carrying frac x S.
  CHECK(LinkParams::nvls_port_work(0.85, 1.125, 90) == Approx(1 / 0.85));
  CHECK(LinkParams::nvls_port_work(0.85, 0.125, 90) == Approx(1 / 0.85));
  // Blackwell: frac x S x work = S / eta while the port has headroom, else the port's own bytes.
  CHECK(1.125 * LinkParams::nvls_port_work(0.72, 1.125, 100) == Approx(1 / 0.72));
  CHECK(1.0 * LinkParams::nvls_port_work(0.72, 1.0, 100) == Approx(1 / 0.72));
  CHECK(LinkParams::nvls_port_work(0.95, 1.125, 100) == 1.0);    // 0.95 x 1.125 > 1: the port binds
  CHECK(LinkParams::nvls_port_work(0.72, 1.0 / 8, 100) == 1.0);  // the S/n side: the port alone
  // On an 8 x B200 machine (H = 8) and 64 GPUs of a GB300 rack (H = 32) the all-reduce's plateau
  // is the same, S / (0.72 x port's Simple rate) after NVLS's latency and fill; the port law would
  // have made 8 GPUs 1.125 / 1.031 = 9 % slower.
  const int64_t S = int64_t{16} << 30;
  const CatalogRun b8 = run(node_of("p6-b200.48xlarge", 1, {}), CollOp::AllReduce, S);
  ScenarioSpec rack = node_of("gb300-nvl72", 1, {});
  rack.placement.pods_per_node = 16;
  rack.placement.gpus_per_pod = 4;
  const CatalogRun r64 = run(rack, CollOp::AllReduce, S);
  REQUIRE(b8.rec.algo == Algo::NVLS);
  REQUIRE(r64.rec.algo == Algo::NVLS);
  CHECK(b8.max_bytes.at("nvlink") == Approx(1.125 * S).epsilon(1e-6));  // the bytes are the port law's
  CHECK(r64.max_bytes.at("nvlink") == Approx((1 + 1.0 / 32) * S).epsilon(1e-6));
  const double port = 18 * 50e9 * 0.74 * 0.72;  // NVLink 5's Simple efficiency 0.74, the switch's 0.72
  const double t_sw = double(S) / port;
  CHECK(b8.t > t_sw);
  CHECK(b8.t < 1.02 * t_sw);  // latency and one loop's fill: under 2 % at 16 GiB
  CHECK(r64.t == Approx(b8.t).epsilon(0.01));
}
