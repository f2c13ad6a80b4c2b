// GPU rotation fold (models/collectives/rotation_fold.cpp): an NVLSTree all-reduce over whole
// alike nodes runs as one tree set's flows and GPU 0's port flows on folded links, and gives the
// full simulation's `run --json` (every digit, apart from the events count and the notes on the
// mode) for bare all-reduces and for DDP / ZeRO-1 / ZeRO-2 steps, on three instances and several
// node counts (odd ones: the heap tree is uneven); where a link is slowed, the fold is not taken.
// The guard (other traffic meeting the folded flows) is checked on the engine directly.
#include <catch2/catch.hpp>

#include <memory>
#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include "models/collectives/collective.hpp"
#include "models/spec.hpp"
#include "models/world/world.hpp"
#include "sim/flow_network.hpp"
#include "sim/simulator.hpp"
#include "tests/scenarios/scale/both_modes.hpp"

namespace {

bool folded(const nlohmann::json& run) {
  for (const auto& n : run["notes"])
    if (n.get<std::string>().find("tree all-reduce(s) (NVLSTree, Tree) as the orbits") != std::string::npos)
      return true;
  return false;
}

// NCCL's own tuner, which picks NVLSTree for these all-reduces: aws-ofi-nccl's tuner
// (models/nccl/ofi_tuner.hpp) would pick Ring or Tree for some of them on 3+ nodes.
std::string bare(const std::string& instance, int nodes, const std::string& bytes, int iterations) {
  return "name = \"fold\"\n[cluster]\ninstance = \"" + instance + "\"\nnodes = " + std::to_string(nodes) +
         "\n[nccl.env]\nNCCL_TUNER_PLUGIN = \"none\"\n[collective]\nop = \"all_reduce\"\nbytes = \"" + bytes +
         "\"\niterations = " + std::to_string(iterations) + "\n";
}

std::string step(const std::string& strategy, int nodes, const std::string& extra = "") {
  return "name = \"fold\"\n[cluster]\ninstance = \"p5en.48xlarge\"\nnodes = " + std::to_string(nodes) + "\n" + extra +
         "[model]\npreset = \"sc21-1.7b\"\nseq = 1024\n[training]\nmicro_batch = 1\ngrad_accum = 2\n"
         "[parallel]\nstrategy = \"" +
         strategy + "\"\n";
}

// 3 x p5en with the collective engine's fold on, and the group of every rank (the engine-level tests).
struct EngineRig {
  models::ScenarioSpec spec = [] {
    models::ScenarioSpec s;
    s.cluster.instance = "p5en.48xlarge";
    s.cluster.nodes = 3;
    s.collective = models::CollectiveSpec{"all_reduce", int64_t{1} << 30, 1};
    return s;
  }();
  sim::Simulator sim;
  sim::FlowNetwork net{sim};
  std::unique_ptr<models::World> world = models::World::build(spec, net);
  std::unique_ptr<models::collectives::CollectiveEngine> engine = [this] {
    auto e = models::collectives::make_collective_engine(sim, net, *world, spec);
    e->set_rotation_fold(true);
    return e;
  }();
  models::collectives::Group all = [this] {
    models::collectives::Group g{{}, 0, "world"};
    for (int r = 0; r < world->size(); ++r) g.ranks.push_back(r);
    return g;
  }();
};

}  // namespace

TEST_CASE("scenarios: NVLSTree all-reduces folded by the GPU rotation give the full simulation's result",
          "[scenarios]") {
  for (const char* instance : {"p5en.48xlarge", "p5.48xlarge", "dgx-b200"})
    for (int nodes : {2, 3, 5, 13}) {
      INFO(instance << " x " << nodes);
      const auto [a, b] = run_default_and_full(bare(instance, nodes, "1 GiB", 2), "rotation-fold");
      CHECK(folded(a));
      CHECK(a["events"] < b["events"]);
    }
  const auto [a, b] = run_default_and_full(bare("p5en.48xlarge", 6, "96 MiB", 3), "rotation-fold");
  CHECK(folded(a));
}

TEST_CASE("scenarios: DDP, ZeRO-1 and ZeRO-2 steps fold their NVLSTree all-reduces, with the full result",
          "[scenarios]") {
  for (const char* strategy : {"ddp", "zero1", "zero2"})
    for (int nodes : {2, 3}) {
      INFO(strategy << " on " << nodes << " x p5en");
      const auto [a, b] = run_default_and_full(step(strategy, nodes), "rotation-fold");
      CHECK(folded(a));
    }
}

TEST_CASE("scenarios: random folded layouts (instances, nodes, sizes, strategies, slow GPUs) equal --full",
          "[scenarios]") {
  std::mt19937 rng(2026);
  const char* instances[] = {"p5en.48xlarge", "p5.48xlarge", "p5e.48xlarge", "dgx-b200"};
  const char* strategies[] = {"ddp", "zero1", "zero2", "zero3", "fsdp"};
  const char* sizes[] = {"4 MiB", "48 MiB", "300 MiB", "2 GiB"};
  int folds = 0;
  for (int t = 0; t < 10; ++t) {
    const std::string instance = instances[rng() % 4];
    const int nodes = 2 + static_cast<int>(rng() % 6);
    std::string toml;
    if (t % 2 == 0) {
      toml = bare(instance, nodes, sizes[rng() % 4], 1 + static_cast<int>(rng() % 3));
    } else {
      std::string extra =
          "[[stragglers]]\nranks = [" + std::to_string(rng() % (8 * nodes)) + "]\ncompute_slowdown = 1.3\n";
      toml = step(strategies[rng() % 5], nodes, extra);
      toml.replace(toml.find("p5en.48xlarge"), 13, instance);
    }
    const auto [a, b] = run_default_and_full(toml, "rotation-fold");
    folds += folded(a);
  }
  CHECK(folds >= 4);
}

TEST_CASE("scenarios: Tree all-reduces fold too (p4d: GPUs rotate two by two), with the full result", "[scenarios]") {
  for (int nodes : {2, 40}) {
    INFO("ddp on " << nodes << " x p4d");
    std::string toml = step("ddp", nodes);
    toml.replace(toml.find("p5en.48xlarge"), 13, "p4d.24xlarge");
    const auto [a, b] = run_default_and_full(toml, "rotation-fold");
    CHECK(folded(a));
    CHECK(a["events"] < b["events"]);
  }
}

TEST_CASE("scenarios: a slowed NIC breaks the GPU rotation: no fold, the same result", "[scenarios]") {
  const std::string slow = "[[stragglers]]\nlink = \"node1/nic2-3.tx\"\nbandwidth_factor = 0.5\n";
  const auto [a, b] = run_default_and_full(step("ddp", 3, slow), "rotation-fold");
  CHECK_FALSE(folded(a));
  const auto [c, d] =
      run_default_and_full(bare("p5en.48xlarge", 3, "1 GiB", 1) +
                               "[[stragglers]]\nlink = \"node2/gpu5/nvlink.rx\"\nbandwidth_factor = 0.8\n",
                           "rotation-fold");
  CHECK_FALSE(folded(c));
}

TEST_CASE("scenarios: the guard stops a folded all-reduce that meets other traffic on its links", "[scenarios]") {
  using namespace models;
  EngineRig rig;
  auto& [spec, sim, net, world, engine, all] = rig;
  REQUIRE(engine->choose(all, nccl::CollOp::AllReduce, int64_t{1} << 30).algo == nccl::Algo::NVLSTree);
  int done = 0;
  engine->launch(all, nccl::CollOp::AllReduce, int64_t{1} << 30, [&](const collectives::CollectiveRecord&) { ++done; });
  CHECK(engine->rotation_folds() == 1);
  // A ring all-gather over the same ranks at once: its flows cross the folded flows' NICs.
  engine->launch(all, nccl::CollOp::AllGather, int64_t{1} << 30, [&](const collectives::CollectiveRecord&) { ++done; });
  sim.run();
  CHECK(net.fold_violated());
  CHECK(done < 2);  // stopped at the first instant the two met
}

TEST_CASE("scenarios: an all-reduce launched while other traffic is in flight is not folded (no folded links then)",
          "[scenarios]") {
  using namespace models;
  EngineRig rig;
  auto& [spec, sim, net, world, engine, all] = rig;
  int done = 0;
  const auto count = [&](const collectives::CollectiveRecord&) { ++done; };
  engine->launch(all, nccl::CollOp::AllGather, int64_t{1} << 30, count);
  engine->launch(all, nccl::CollOp::AllReduce, int64_t{1} << 30, count);  // the network is busy
  sim.run();
  CHECK(engine->rotation_folds() == 0);
  CHECK_FALSE(net.folded());
  CHECK(done == 2);
  engine->launch(all, nccl::CollOp::AllReduce, int64_t{1} << 30, count);  // idle now, but laid out whole
  sim.run();
  CHECK(done == 3);
}
