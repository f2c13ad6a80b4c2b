// All-reduce on GB200 NVL72 racks (multi-node NVLink, nccl/transport.cpp): one rack's 72 GPUs are
// one NCCL node, so the whole all-reduce runs on NVLink; two racks are two NCCL nodes joined by
// each GPU's NIC. Closed forms on idle links, whatever algorithm NCCL picks:
//   one domain:  no NET edge exists, so every NIC carries 0 bytes; no GPU port moves more than a
//                ring's 2(n-1)/n S each way (NVLS: (1 + 1/n) S);
//   two domains: each domain needs the other's partial sums, so the cut between them carries at
//                least S each way, over at most 72 NICs a side: some NIC carries >= S / 72.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "models/collectives/flow_cap.hpp"
#include "models/collectives/pipeline_fill.hpp"
#include "models/comm_plan/comm_plan.hpp"
#include "models/comm_plan/link_params.hpp"
#include "models/hw/links.hpp"
#include "tests/models/collectives/catalog_run.hpp"
#include "tests/models/collectives/rig.hpp"

using namespace collectives_test;

namespace {
ScenarioSpec racks(int nodes, std::map<std::string, std::string> env = {}) {
  ScenarioSpec spec;
  spec.cluster.instance = "gb200-nvl72";
  spec.cluster.nodes = nodes;
  spec.placement.pods_per_node = 18;  // one pod per compute tray
  spec.placement.gpus_per_pod = 4;
  spec.nccl_env = std::move(env);
  return spec;
}
double nic_bytes(const CatalogRun& r) {
  auto it = r.max_bytes.find("ib");
  return it == r.max_bytes.end() ? 0 : it->second;
}
}  // namespace

TEST_CASE("mnnvl: a 72-GPU all-reduce on one NVL72 rack runs on NVLink alone", "[nccl]") {
  const int64_t S = int64_t{1} << 30;
  for (const char* algo : {"Ring", "NVLS"}) {
    INFO(algo);
    const CatalogRun r = audited_run(racks(1, {{"NCCL_ALGO", algo}}), CollOp::AllReduce, S);
    REQUIRE(r.t > 0);
    CHECK(nic_bytes(r) == 0);
    CHECK(r.max_bytes.at("nvlink") > 0);
    // No GPU port moves more than a ring's 2(n-1)/n S per direction (NVLS: (1 + 1/n) S).
    CHECK(r.max_bytes.at("nvlink") <= 2.0 * 71 / 72 * S * 1.0001);
  }
  // NCCL's own pick on one rack: NVLS (NVLink SHARP over the whole domain), as on one HGX node.
  CHECK(audited_run(racks(1), CollOp::AllReduce, S).rec.algo == Algo::NVLS);
}

TEST_CASE("mnnvl: a 144-GPU all-reduce over two racks crosses the NICs", "[nccl]") {
  const int64_t S = int64_t{1} << 30;
  const CatalogRun two = audited_run(racks(2), CollOp::AllReduce, S);
  REQUIRE(two.t > 0);
  CHECK(nic_bytes(two) >= S / 72.0 * 0.999);
  // Still faster than the same 144 GPUs with MNNVL off (every tray its own NCCL node: 36 nodes
  // joined by 400 Gb/s NICs instead of two domains of NVLink).
  const CatalogRun off = audited_run(racks(2, {{"NCCL_MNNVL_ENABLE", "0"}}), CollOp::AllReduce, S);
  CHECK(nic_bytes(off) > nic_bytes(two));
  CHECK(off.t > two.t);
}

TEST_CASE("mnnvl: two racks run NVLSTree with NCCL's 32 heads, the ports at the switch's rate", "[nccl]") {
  // NCCL's graphs of a rack that leaves by 72 NICs: the ring graph at most MAXCHANNELS / 2 = 32
  // channels (src/init.cc), the NVLS graph at most NCCL_MAX_NVLS_ARITY = 32 heads (search.cc).
  const nccl::CommView v = view_of(racks(2));
  CHECK(v.graph_channels == 32);
  CHECK(v.nvls_heads == 32);
  CHECK(choose(v, TuningEnv{}, CollOp::AllReduce, int64_t{8} << 30).algo == Algo::NVLSTree);
  // On idle links, H = 32 heads, d = log2(2) = 1:
  //   T = kernel + 2 hop_nvlink + 2 hop_ib + fill + max(T_sw, T_net),
  //   T_sw = S / (eta_nvls cap_port), eta_nvls = 0.72: Blackwell's switch reduces S per GPU, the
  //   heads' extra S/32 fits in the port (LinkParams::nvls_port_work),
  //   T_net = S / 32 / cap_nic,  fill = (32 x 128 KiB) / (S / 32) x (3 T_sw + 2 T_net - max).
  const int64_t S = int64_t{1} << 30;
  const CatalogRun r = audited_run(racks(2), CollOp::AllReduce, S);  // audit: nvls_tree_delivery
  REQUIRE(r.rec.algo == Algo::NVLSTree);
  REQUIRE(r.rec.channels == 32);
  // Every port moves at most (1 + 1/32) S each way; the busiest NIC S / 32 each way (two trees).
  CHECK(r.max_bytes.at("nvlink") == Approx((1 + 1.0 / 32) * S).epsilon(1e-6));
  CHECK(r.max_bytes.at("ib") == Approx(double(S) / 32).epsilon(1e-6));
  const ClassParams& nv = P.of(LinkClass::NVLink);
  const double r_ch = nvlink_channel_bandwidth_for(100, nv.channel_bandwidth);        // Blackwell's channel
  const double per_ch = 1 / (1 / (r_ch * 0.74) + nv.flow_control_rtt_s / (4 << 20));  // NVLink 5's Simple 0.74
  // The switch's rate per port: eta_nvls of the port's Simple efficiency (NVLink 5's,
  // hw::nvlink_simple_efficiency) x 18 links of 50 GB/s; the channels' term (24 on one domain, 32
  // across: nvls.cc) does not bind.
  const double port = models::hw::nvlink_simple_efficiency(5, nv.efficiency[2]) * 0.72 * 18 * 50e9;
  REQUIRE(24 * per_ch > port);
  REQUIRE(port / 0.72 > (1 + 1.0 / 32) * port);  // the port's own rate does not bind
  const double t_sw = double(S) / port;
  const double nic = flow_rate_cap(P, {.link_class = LinkClass::IB,
                                       .proto = Proto::Simple,
                                       .raw_bandwidth = 50e9,
                                       .link_fraction = 1,
                                       .coll_share = 1,
                                       .channels = 1});
  const double t_net = double(S) / 32 / nic;
  REQUIRE(t_sw > t_net);  // the NVLink leg bounds two racks, as it bounds NVLS on one
  CHECK(nvls_tree_chunk_bytes(S, 32, 32, 2) == 128 << 10);
  const double fill = 32.0 * (128 << 10) / (double(S) / 32) * (3 * t_sw + 2 * t_net - t_sw);
  const double lat =
      P.kernel_latency_s + 2 * hop(LinkClass::NVLink, Proto::Simple) + 2 * hop(LinkClass::IB, Proto::Simple);
  CHECK(r.t == Approx(lat + fill + t_sw).epsilon(1e-3));
  // One rack runs NVLS (nvls.cpp): the same S per GPU through the switch at its rate, unless the
  // chunk stage is slower. At 1 GiB NCCL's chunk is 64 KiB, where the 7 gather warps' stage, a
  // chunk's copy plus nvls.chunk_latency, moves 64 KiB / (64 KiB / 7 r + t) per channel
  // (pipeline_fill.hpp nvls_chunk_stage_rate): 24 channels of that are 10 % below the switch's
  // rate, and bind. After NVLS's own latency, the fill of one loop (32 heads x 64 KiB per channel)
  // through the scatter (8 warps at their copy rate), the bound stage and the gather (7 warps).
  const CatalogRun one = audited_run(racks(1), CollOp::AllReduce, S);
  REQUIRE(one.rec.algo == Algo::NVLS);
  REQUIRE(one.rec.channels == 24);
  REQUIRE(nvls_chunk_bytes(S, 24, 32) == 64 << 10);
  const double copy = 24 * 65536 / (65536 / (7 * P.warp_copy_bandwidth) + P.nvls_chunk_latency_s);
  REQUIRE(nvls_chunk_stage_rate(7, 65536, P.warp_copy_bandwidth, P.nvls_chunk_latency_s) * 24 == Approx(copy));
  REQUIRE(copy < port);
  REQUIRE(copy > 0.85 * port);
  const double t_bw = double(S) / copy;
  const double rack_ch = double(S) / 24;
  const double t_sc = rack_ch / (8 * P.warp_copy_bandwidth), t_ga = rack_ch / (7 * P.warp_copy_bandwidth);
  const double one_fill = 32.0 * (64 << 10) / rack_ch * (t_sc + t_bw + t_ga - std::max({t_sc, t_bw, t_ga}));
  CHECK(one.t == Approx(P.nvls_latency_s + one_fill + t_bw).epsilon(1e-3));
}
