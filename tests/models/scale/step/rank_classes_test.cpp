// Rank classes (models/scale/step/rank_classes.hpp): which ranks are simulated once for their class, and
// the executor's results with classes equal to simulating every rank, exactly, with stragglers
// and several communicators per rank.
#include <catch2/catch.hpp>
#include <random>

#include "models/workload/executor.hpp"
#include "models/scale/step/rank_classes.hpp"
#include "tests/models/workload/fakes.hpp"

using namespace models::workload;
using models::scale::rank_classes;
using models::scale::RankClasses;
using models::collectives::Group;

namespace {
std::vector<RankSetup> world_group(int n) {
  std::vector<RankSetup> v(n);
  for (auto& r : v) r.group[0] = 0;
  return v;
}
Program two_collectives() {
  Program p({"compute", "comm"});
  p.compute(0, sim::Time::from_seconds(1e-3), Work::Math, "fwd");
  p.collective(1, 0, models::nccl::CollOp::AllGather, 1 << 20, "gather");
  return p;
}
}  // namespace

TEST_CASE("rank classes: identical ranks are one class, a straggler and other groups split it", "[scale]") {
  const std::vector<Program> programs{two_collectives()};
  auto ranks = world_group(8);
  RankClasses c = rank_classes(programs, ranks, {});
  CHECK(c.why_not.empty());
  CHECK(c.simulated == 1);
  CHECK(c.weight[0] == 8);
  for (int r = 0; r < 8; ++r) CHECK(c.rep[r] == 0);

  ranks[5].compute_scale = 1.3;                               // a slow GPU is simulated on its own
  for (int r = 0; r < 8; ++r) ranks[r].group[1] = 1 + r / 4;  // two node groups
  c = rank_classes(programs, ranks, {});
  CHECK(c.simulated == 3);  // {0..3}, {4, 6, 7}, {5}
  CHECK(c.weight[0] == 4);
  CHECK(c.weight[4] == 3);
  CHECK(c.weight[5] == 1);
  CHECK(c.rep[7] == 4);

  c = rank_classes(programs, ranks, {7});  // a timeline rank stays itself
  CHECK(c.simulated == 4);
  CHECK(c.rep[7] == 7);
  CHECK(c.weight[4] == 2);
}

TEST_CASE("rank classes: point-to-point ops and offload copies keep every rank, with the reason", "[scale]") {
  Program p = two_collectives();
  p.send(1, 0, 100, "act");
  RankClasses c = rank_classes({p}, world_group(4), {});
  CHECK(c.simulated == 4);
  CHECK(c.why_not.find("point-to-point") != std::string::npos);
  Program q = two_collectives();
  q.copy(1, CopyDir::GpuToHost, 100, "offload");
  c = rank_classes({q}, world_group(4), {});
  CHECK(c.simulated == 4);
  CHECK(c.why_not.find("offload") != std::string::npos);
}

// Random programs (compute on two streams, collectives on a world group and on random sub-groups),
// random stragglers: every rank's accounts and the step end equal the full simulation's exactly.
TEST_CASE("rank classes: random groups and stragglers give the full simulation's accounts exactly", "[scale]") {
  int reduced = 0;
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    const int n = std::uniform_int_distribution<int>(2, 24)(rng);
    // Groups: 0 = world; slot 1: ranks split into k contiguous blocks (groups 1..k).
    const int k = std::uniform_int_distribution<int>(1, std::min(n, 4))(rng);
    std::vector<Group> groups(1);
    groups[0].name = "world";
    for (int r = 0; r < n; ++r) groups[0].ranks.push_back(r);
    std::vector<RankSetup> ranks(n);
    for (int b = 0; b < k; ++b) {
      Group g;
      g.id = b + 1;
      g.name = "sub" + std::to_string(b);
      for (int r = b * n / k; r < (b + 1) * n / k; ++r) {
        g.ranks.push_back(r);
        ranks[r].group[1] = b + 1;
      }
      groups.push_back(g);
    }
    std::vector<Program> programs;
    {
      Program p({"compute", "comm"});
      const int steps = std::uniform_int_distribution<int>(1, 12)(rng);
      for (int i = 0; i < steps; ++i) {
        const int what = int(rng() % 3);
        if (what == 0) {
          p.compute(0, sim::Time::from_ps(std::uniform_int_distribution<int64_t>(1, 5'000'000'000)(rng)), Work::Math,
                    "c");
        } else {
          const uint32_t e = p.new_event();
          p.record(0, e);
          p.wait(1, e);
          // Every program issues the same collectives in the same order (members must agree).
          p.collective(1, what == 1 ? 0 : 1, models::nccl::CollOp::AllReduce, int64_t(1) << (10 + i), "ar");
        }
      }
      programs.push_back(p);
    }
    // One program (members of a group must issue the same collectives); stragglers differ.
    for (int r = 0; r < n; ++r) {
      ranks[r].group[0] = 0;
      ranks[r].program = 0;
      if (rng() % 5 == 0) ranks[r].compute_scale = 1.0 + double(rng() % 3) / 4;
    }
    auto run = [&](bool classes) {
      sim::Simulator sim;
      sim::FlowNetwork net(sim);
      workload_test::FakeEngine engine(sim, 20e-6, 50e9);
      StepExecutor ex(sim, net, engine, nullptr, programs, groups, ranks);
      ex.overlap_slowdown = 0.25;
      int simulated = n;
      if (classes) {
        const RankClasses c = rank_classes(ex.programs(), ex.ranks(), {});
        ex.simulate_classes(c);
        simulated = c.simulated;
      }
      ex.run();
      REQUIRE(ex.all_done());
      std::vector<RankAccount> acc;
      for (int r = 0; r < n; ++r) acc.push_back(ex.account(r));
      return std::tuple{acc, ex.end(), simulated, engine.launched};
    };
    const auto [a, end_a, sim_a, launched_a] = run(true);
    const auto [b, end_b, sim_b, launched_b] = run(false);
    reduced += sim_a < n;
    CHECK(end_a == end_b);
    CHECK(launched_a == launched_b);
    for (int r = 0; r < n; ++r) {
      INFO("rank " << r);
      CHECK(a[r].compute == b[r].compute);
      CHECK(a[r].comm == b[r].comm);
      CHECK(a[r].exposed == b[r].exposed);
      CHECK(a[r].barrier == b[r].barrier);
      CHECK(a[r].offload == b[r].offload);
      CHECK(a[r].finish == b[r].finish);
      CHECK(a[r].done == b[r].done);
    }
  }
  CHECK(reduced > 100);  // classes did stand for several ranks
}
