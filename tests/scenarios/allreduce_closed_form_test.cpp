// The shipped engine-level scenario end to end (loader -> World -> collective engine -> result)
// equals the ring all-reduce closed form on idle links (the engine's first acceptance check).
#include <catch2/catch.hpp>

#include "models/comm_plan/link_params.hpp"
#include "models/run/run.hpp"
#include "models/world/world.hpp"
#include "scenarios/load/loader.hpp"

TEST_CASE("scenarios: the shipped 1 GiB all-reduce on 4xH200 equals its closed form", "[scenarios]") {
  const auto loaded =
      scenarios::load_scenario(std::string(COMMSIM_SOURCE_DIR) + "/scenarios/examples/allreduce_h200x4.toml");
  models::RunOptions audited;
  audited.audit = true;
  const models::RunResult r = models::run_scenario(loaded.spec, audited);

  // B: the raw NVLink bandwidth of a GPU (the narrowest link of a P2P path), from the World.
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  const auto world = models::World::build(loaded.spec, net);
  std::vector<sim::LinkId> path;
  world->path(0, 1, path);
  double B = 0;
  for (auto l : path) B = B == 0 ? world->raw_capacity(l, net) : std::min(B, world->raw_capacity(l, net));
  REQUIRE(world->transport(0, 1).link_class == models::LinkClass::NVLink);

  // T = kernel + 2(n-1) hop + 2(n-1)/n S / (eta B): Ring/Simple on all 24 channels (share 1).
  const auto p = models::collectives::LinkParams::defaults();
  const auto& nv = p.of(models::LinkClass::NVLink);
  const double S = 1 << 30;
  const double expected = p.kernel_latency_s + 6 * nv.hop_latency_s[2] + 1.5 * S / (nv.efficiency[2] * B);
  CHECK(r.step_time_s == Approx(expected).epsilon(1e-6));
  CHECK(r.run_time_s == Approx(20 * expected).epsilon(1e-6));  // iterations = 20
}
