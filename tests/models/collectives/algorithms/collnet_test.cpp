// CollNet all-reduce (collnet.cpp): SHARP in the InfiniBand switches, on DGX H100 nodes (8 GPUs,
// 8 x NDR 400 Gb/s) with [cluster.fabric] sharp = true and NCCL_COLLNET_ENABLE=1 (NVLS off, so
// that CollNetDirect/Chain, not NVLS over CollNet, are NCCL's candidates). Where NCCL has it, its
// rating (tuning.cc), and its data movement on idle links:
//   each head's NIC moves S/H each way (a ring's: 2(n-1)/n S/H), every NVLink port 1.75 S each way;
//   T = kernel + (direct 2 | chain 2(k-1)) hop_nvlink + 2 hop_ib + sharp.latency
//       + max(1.75 S / port rate, S/8 / min(cap_ib, sharp.efficiency x B_nic))
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "models/collectives/flow_cap.hpp"
#include "models/comm_plan/comm_plan.hpp"
#include "models/error.hpp"
#include "tests/models/collectives/catalog_run.hpp"
#include "tests/models/collectives/rig.hpp"

using namespace collectives_test;

namespace {
ScenarioSpec dgx(int nodes, std::map<std::string, std::string> env = {}, bool sharp = true,
                 const std::string& instance = "dgx-h100") {
  ScenarioSpec spec;
  spec.cluster.instance = instance;
  spec.cluster.nodes = nodes;
  spec.cluster.fabric.sharp = sharp;
  env.emplace("NCCL_COLLNET_ENABLE", "1");
  env.emplace("NCCL_NVLS_ENABLE", "0");
  spec.nccl_env = std::move(env);
  return spec;
}

// The audit checks collnet_delivery.
CatalogRun all_reduce(const ScenarioSpec& spec, int64_t S) { return audited_run(spec, CollOp::AllReduce, S); }

constexpr double kNvlinkRaw = 18 * 25e9;  // H100: 18 NVLink-4 links
constexpr double kNicRaw = 50e9;          // NDR 400 Gb/s
}  // namespace

TEST_CASE("collnet: NCCL's view of DGX H100 with SHARP -- 8 heads at 48 GB/s, Chain beats Ring from 16 nodes",
          "[nccl]") {
  const CommView v = view_of(dgx(2));
  REQUIRE(v.collnet);
  CHECK(v.nvswitch);
  CHECK(v.collnet_heads == 8);
  CHECK(v.bw_inter_gbs == Approx(48));  // NDR 50 GB/s behind a Gen5 x16 path rated 48
  CHECK(v.collnet_bw_intra_gbs == Approx(48));
  // tuning.cc CollNetDirect: busBw = 8 x 48 / (ppn/nCh = 1) x .85 (Hopper), algBw = busBw / 2;
  // latency 2 (3.7 + 7 x 0.4) + 31 us.
  const AlgoCost direct = nccl_cost(v, CollOp::AllReduce, Algo::CollNetDirect, Proto::Simple);
  CHECK(direct.algbw_gbs == Approx(8 * 48 * 0.85 / 2));
  CHECK(direct.latency_us == Approx(2 * (3.7 + 7 * 0.4) + 31));
  // CollNetChain: algBw = 8 x 48 / 2; latency 2 x 7 x 2.8 + 30 us.
  const AlgoCost chain = nccl_cost(v, CollOp::AllReduce, Algo::CollNetChain, Proto::Simple);
  CHECK(chain.algbw_gbs == Approx(8 * 48 / 2.0));
  CHECK(chain.latency_us == Approx(2 * 7 * 2.8 + 30));
  CHECK(nccl_cost(v, CollOp::AllReduce, Algo::CollNetChain, Proto::LL).algbw_gbs == 0);  // Simple only
  CHECK(nccl_cost(v, CollOp::AllGather, Algo::CollNetDirect, Proto::Simple).algbw_gbs == 0);
  // NCCL's own model: on 2 nodes the ring's 8 x 48 x 16/30 = 204.8 GB/s wins at 1 GiB; on 16 nodes
  // the ring's latency (x 1.4 plateau) and 193.5 GB/s lose to CollNetChain's 192 GB/s.
  CHECK(choose(v, TuningEnv{}, CollOp::AllReduce, int64_t{1} << 30).algo == Algo::Ring);
  const CommView v16 = view_of(dgx(16));
  CHECK(choose(v16, TuningEnv{}, CollOp::AllReduce, int64_t{1} << 30).algo == Algo::CollNetChain);
}

TEST_CASE("collnet: off without SHARP switches or NCCL_COLLNET_ENABLE=1, a SHARP fabric off InfiniBand is refused",
          "[nccl]") {
  CHECK_FALSE(view_of(dgx(2, {}, /*sharp=*/false)).collnet);
  CHECK_FALSE(view_of(dgx(2, {{"NCCL_COLLNET_ENABLE", "0"}})).collnet);
  CHECK_FALSE(view_of(dgx(1)).collnet);  // one node: nothing between nodes
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  CHECK_THROWS_AS(World::build(dgx(2, {}, true, "p5.48xlarge"), net), SpecError);  // EFA: no SHARP
  sim::FlowNetwork net2(sim);
  CHECK_THROWS_AS(World::build(dgx(2, {}, true, "dgx-h100-roce"), net2), SpecError);
  CHECK(collnet_note({{"NCCL_COLLNET_ENABLE", "1"}}, false).has_value());
  CHECK_FALSE(collnet_note({{"NCCL_COLLNET_ENABLE", "1"}}, true).has_value());
}

TEST_CASE("collnet: off over NET/Socket (NCCL_NET=Socket, NCCL_IB_DISABLE=1), NVLS over SHARP with it, and noted",
          "[nccl]") {
  // NCCL takes the collnet of the plugin whose net it uses (src/net.cc); the Socket net has none.
  CHECK_FALSE(view_of(dgx(2, {{"NCCL_NET", "Socket"}})).collnet);
  CHECK_FALSE(view_of(dgx(2, {{"NCCL_IB_DISABLE", "1"}})).collnet);
  CHECK(view_of(dgx(2, {{"NCCL_NET", "IB"}})).collnet);
  // With NVLS on too (NVLS over CollNet where the net has it): the all-reduce runs over the sockets
  // (every byte between nodes on the eth links, none on the InfiniBand NICs).
  ScenarioSpec nvls = dgx(2, {{"NCCL_NET", "Socket"}});
  nvls.nccl_env["NCCL_NVLS_ENABLE"] = "1";
  CatalogRun r = all_reduce(nvls, int64_t{1} << 24);
  CHECK(r.t > 0);
  CHECK(r.max_bytes["eth"] > 0);
  CHECK(r.max_bytes["ib"] == 0);
  CHECK(collnet_note({{"NCCL_COLLNET_ENABLE", "1"}, {"NCCL_NET", "Socket"}}, true) ==
        "nccl.env: NCCL_COLLNET_ENABLE=1 has no effect with NCCL_NET=Socket: the network is TCP sockets, and the "
        "SHARP plugin's CollNet comes only with the InfiniBand net, so NCCL runs without CollNet");
  CHECK(collnet_note({{"NCCL_COLLNET_ENABLE", "1"}, {"NCCL_IB_DISABLE", "1"}}, true) ==
        "nccl.env: NCCL_COLLNET_ENABLE=1 has no effect with NCCL_IB_DISABLE=1: the network is TCP sockets, and the "
        "SHARP plugin's CollNet comes only with the InfiniBand net, so NCCL runs without CollNet");
  CHECK_FALSE(collnet_note({{"NCCL_COLLNET_ENABLE", "1"}, {"NCCL_IB_DISABLE", "0"}}, true).has_value());
}

TEST_CASE("collnet: CollNetDirect moves S/8 per NIC each way (a ring 2(n-1)/n S/8) and 1.75 S per NVLink port",
          "[nccl]") {
  const int64_t S = int64_t{1} << 30;
  const CatalogRun d = all_reduce(dgx(2, {{"NCCL_ALGO", "CollNetDirect"}}), S);  // the audit checks collnet_delivery
  REQUIRE(d.rec.algo == Algo::CollNetDirect);
  REQUIRE(d.rec.channels == 16);
  CHECK(d.max_bytes.at("ib") == Approx(S / 8.0).epsilon(1e-6));
  CHECK(d.max_bytes.at("nvlink") == Approx(1.75 * S).epsilon(1e-6));
  const double eta_nvl = P.of(LinkClass::NVLink).efficiency[static_cast<int>(Proto::Simple)];
  const double port = std::min(
      kNvlinkRaw * eta_nvl,
      flow_rate_cap(
          P, {.link_class = LinkClass::NVLink, .proto = Proto::Simple, .raw_bandwidth = kNvlinkRaw, .channels = 16}));
  const double nic = std::min(
      flow_rate_cap(P, {.link_class = LinkClass::IB, .proto = Proto::Simple, .raw_bandwidth = kNicRaw, .channels = 2}),
      P.sharp_efficiency * kNicRaw);
  const double lat = P.kernel_latency_s + 2 * hop(LinkClass::NVLink, Proto::Simple) +
                     2 * hop(LinkClass::IB, Proto::Simple) + P.sharp_latency_s;
  CHECK(d.t == Approx(lat + std::max(1.75 * S / port, S / 8.0 / nic)).epsilon(1e-6));
  // The ring (forced) sends 2(n-1)/n S/8 through each NIC: 1.875 x CollNet's.
  const CatalogRun ring = all_reduce(dgx(2, {{"NCCL_ALGO", "Ring"}}), S);
  REQUIRE(ring.rec.algo == Algo::Ring);
  CHECK(ring.max_bytes.at("ib") == Approx(2.0 * 15 / 16 * S / 8).epsilon(1e-6));
}

TEST_CASE("collnet: CollNetChain runs the chain inside the node (1.75 S per port over 8 rotated sets) and SHARP across",
          "[nccl]") {
  const int64_t S = int64_t{1} << 30;
  const CatalogRun c = all_reduce(dgx(2, {{"NCCL_ALGO", "CollNetChain"}}), S);
  REQUIRE(c.rec.algo == Algo::CollNetChain);
  CHECK(c.max_bytes.at("ib") == Approx(S / 8.0).epsilon(1e-6));
  CHECK(c.max_bytes.at("nvlink") == Approx(1.75 * S).epsilon(1e-6));
  // Each port carries two chain flows (up to its parent, down to its child) sharing its rate.
  const double port = kNvlinkRaw * P.of(LinkClass::NVLink).efficiency[static_cast<int>(Proto::Simple)];
  const double nic =
      std::min(P.of(LinkClass::IB).efficiency[static_cast<int>(Proto::Simple)] * kNicRaw, P.sharp_efficiency * kNicRaw);
  const double lat = P.kernel_latency_s + 2 * 7 * hop(LinkClass::NVLink, Proto::Simple) +
                     2 * hop(LinkClass::IB, Proto::Simple) + P.sharp_latency_s;
  CHECK(c.t == Approx(lat + std::max(1.75 * S / port, S / 8.0 / nic)).epsilon(1e-6));
}
