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
