// EFA parameters per generation (models/hw/efa_generations.hpp) and their use as the collective
// engine's defaults (LinkParams::for_node). Closed forms from the sources cited there:
//   Simple step: v2 30 us (read off 2 x p5 at 64-256 MiB); v3, v4 their LL + v2's Simple - LL;
//   LL128 = LL + 1.3 us (NCCL's hwLat NET 4.0 - 2.7); LL, LL128 efficiency = 0.5, 0.94 x Simple's.
#include <catch2/catch.hpp>

#include "models/comm_plan/link_params.hpp"
#include "models/hw/efa_generations.hpp"
#include "models/hw/instance.hpp"

using models::LinkClass;
using models::collectives::LinkParams;
namespace hw = models::hw;

TEST_CASE("efa generations: v1 keeps the registered defaults, v2-v4 their own", "[hw]") {
  CHECK(hw::efa_generation_params(1) == nullptr);
  CHECK(hw::efa_generation_params(0) == nullptr);
  const LinkParams reg = LinkParams::defaults();
  const LinkParams p4d = LinkParams::for_node(hw::find_instance("p4d.24xlarge"));
  CHECK(p4d.of(LinkClass::EFA).hop_latency_s == reg.of(LinkClass::EFA).hop_latency_s);
  CHECK(p4d.of(LinkClass::EFA).efficiency == reg.of(LinkClass::EFA).efficiency);
  // EFA v1's registered step latencies are EFA v2's measured ones (its lower bound), not NCCL's
  // InfiniBand hwLat; its efficiency stays p4dn's 0.6.
  CHECK(reg.of(LinkClass::EFA).hop_latency_s == hw::efa_generation_params(2)->hop_latency_s);
  CHECK(reg.of(LinkClass::EFA).efficiency[2] == Approx(0.6));
  // A host without EFA keeps every default.
  CHECK(LinkParams::for_node(hw::find_instance("dgx-h100")).of(LinkClass::EFA).efficiency ==
        reg.of(LinkClass::EFA).efficiency);
  for (const char* name : {"p5.48xlarge", "p5e.48xlarge", "p5en.48xlarge", "p6-b200.48xlarge", "p6-b300.48xlarge"}) {
    INFO(name);
    const hw::NodeSpec& n = hw::find_instance(name);
    const hw::EfaGenerationParams* g = hw::efa_generation_params(n.efa_generation);
    REQUIRE(g != nullptr);
    const LinkParams params = LinkParams::for_node(n);
    const auto& efa = params.of(LinkClass::EFA);
    CHECK(efa.hop_latency_s == g->hop_latency_s);
    CHECK(efa.efficiency == g->efficiency);
    // Simple's extra over LL is EFA v2's on every generation (30 - 27.5 us).
    CHECK(efa.hop_latency_s[2] - efa.hop_latency_s[0] == Approx(2.5e-6));
    CHECK(efa.hop_latency_s[1] - efa.hop_latency_s[0] == Approx(1.3e-6));
    CHECK(efa.efficiency[0] == Approx(0.5 * efa.efficiency[2]));
    CHECK(efa.efficiency[1] == Approx(0.94 * efa.efficiency[2]));
    // Nothing else moves.
    CHECK(params.of(LinkClass::NVLink).efficiency == reg.of(LinkClass::NVLink).efficiency);
  }
  // EFA v2: LL 27.5 us read off 2 x p5 (68.7 us at 16-128 B), v4: 20.5 us off 2 x p6-b200. Ring
  // efficiency: v2 0.89 (4-16 x p5 plateaus), v4 0.94 (4 x p6-b200, 377 of 400 GB/s); v3 (p5en) takes
  // v4's step latencies and v2's efficiency (no public p5en curve).
  CHECK(hw::efa_generation_params(2)->hop_latency_s[0] == Approx(27.5e-6));
  CHECK(hw::efa_generation_params(4)->hop_latency_s[0] == Approx(20.5e-6));
  CHECK(hw::efa_generation_params(3)->hop_latency_s == hw::efa_generation_params(4)->hop_latency_s);
  CHECK(hw::efa_generation_params(2)->efficiency[2] == Approx(0.89));
  CHECK(hw::efa_generation_params(4)->efficiency[2] == Approx(0.94));
  CHECK(hw::efa_generation_params(3)->efficiency == hw::efa_generation_params(2)->efficiency);
  // A scenario's [cluster.params] still wins.
  LinkParams p5 = LinkParams::for_node(hw::find_instance("p5.48xlarge"));
  p5.apply({{"efa.efficiency.simple", 0.63}});
  CHECK(p5.of(LinkClass::EFA).efficiency[2] == 0.63);
}

TEST_CASE("a machine's own network parameters (GPUDirect-TCPXO on A3 Mega) replace its class's defaults", "[hw]") {
  // models/hw/instance_clouds.cpp: TCPXO's LL128 step 28.7 us and Simple efficiency 0.945, read off
  // Google's 2-node all_gather; Simple = LL128 + 1.2 us, LL = LL128 - 1.3 us; LL128 and LL keep
  // InfiniBand's efficiency ratios to Simple (0.85 / 0.9, 0.45 / 0.9).
  const LinkParams reg = LinkParams::defaults();
  const LinkParams mega = LinkParams::for_node(hw::find_instance("a3-megagpu-8g"));
  const auto& ib = mega.of(LinkClass::IB);
  CHECK(ib.hop_latency_s[1] == Approx(28.7e-6));
  CHECK(ib.hop_latency_s[2] == Approx(29.9e-6));
  CHECK(ib.hop_latency_s[0] == Approx(27.4e-6));
  CHECK(ib.efficiency[2] == Approx(0.945));
  CHECK(ib.efficiency[1] / ib.efficiency[2] ==
        Approx(reg.of(LinkClass::IB).efficiency[1] / reg.of(LinkClass::IB).efficiency[2]));
  CHECK(ib.efficiency[0] / ib.efficiency[2] ==
        Approx(reg.of(LinkClass::IB).efficiency[0] / reg.of(LinkClass::IB).efficiency[2]));
  // Its other classes, and every RDMA machine, keep the registered values.
  CHECK(mega.of(LinkClass::NVLink).hop_latency_s == reg.of(LinkClass::NVLink).hop_latency_s);
  for (const char* name : {"a3-ultragpu-8g", "a4-highgpu-8g", "dgx-h100"}) {
    INFO(name);
    CHECK(LinkParams::for_node(hw::find_instance(name)).of(LinkClass::IB).hop_latency_s ==
          reg.of(LinkClass::IB).hop_latency_s);
    CHECK(hw::find_instance(name).link_params.empty());
  }
  // The NIC's capacity (World, link_rates.cpp) reads the same efficiency.
  CHECK(hw::find_instance("a3-megagpu-8g").link_param_or("ib.efficiency.simple", 0.9) == Approx(0.945));
  CHECK(hw::find_instance("dgx-h100").link_param_or("ib.efficiency.simple", 0.9) == 0.9);
}
