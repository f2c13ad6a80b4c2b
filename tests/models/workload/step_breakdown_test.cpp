// StepBreakdown (models/workload/step_breakdown.hpp): each rank's step is partitioned into compute,
// interference, exposed communication, host work, barrier wait, pipeline bubble and other, and the
// terms add up to the step exactly. Closed forms against the fake engine (fakes.hpp).
#include <catch2/catch.hpp>

#include "fakes.hpp"
#include "models/workload/executor.hpp"

using namespace models::workload;
using models::collectives::Group;
using models::nccl::CollOp;
using sim::Time;

namespace {
std::vector<Group> breakdown_one_group(int n) {
  Group g{{}, 0, "dp"};
  for (int r = 0; r < n; ++r) g.ranks.push_back(r);
  return {g};
}
std::vector<RankSetup> breakdown_in_group(int n) {
  std::vector<RankSetup> v(n);
  for (auto& r : v) r.group[0] = 0;
  return v;
}
void check_adds_up(const StepExecutor& ex) {
  for (int r = 0; r < int(ex.ranks().size()); ++r) CHECK(ex.breakdown(r, ex.end()).total() == ex.end() - ex.start());
}
}  // namespace

TEST_CASE("workload: breakdown puts a late member's lead into barrier wait and the collective into exposed",
          "[workload]") {
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  workload_test::FakeEngine engine(sim, 10e-6, 100e9);
  Program p;
  p.compute(0, Time::from_ms(1), Work::Math, "work");
  p.collective(0, 0, CollOp::AllReduce, 100'000'000, "ar");
  auto ranks = breakdown_in_group(3);
  ranks[2].compute_scale = 2.0;  // rank 2 arrives at 2 ms
  StepExecutor ex(sim, net, engine, nullptr, {p}, breakdown_one_group(3), ranks);
  ex.run();
  REQUIRE(ex.all_done());
  const double t_ar = 10e-6 + 2.0 * 2 / 3 * 1e8 / 100e9;  // alpha + 2(n-1)/n S/B
  const StepBreakdown fast = ex.breakdown(0, ex.end()), slow = ex.breakdown(2, ex.end());
  // Fast rank: 1 ms compute, 1 ms waiting for rank 2, then the all-reduce.
  CHECK(fast.compute.seconds() == Approx(1e-3));
  CHECK(fast.barrier.seconds() == Approx(1e-3));
  CHECK(fast.exposed.seconds() == Approx(t_ar).epsilon(1e-9));
  // Slow rank: 2 ms compute (a slower GPU is compute, not interference), no wait.
  CHECK(slow.compute.seconds() == Approx(2e-3));
  CHECK(slow.barrier == Time::zero());
  CHECK(slow.exposed.seconds() == Approx(t_ar).epsilon(1e-9));
  for (const auto& b : {fast, slow}) CHECK(b.interference + b.host + b.bubble + b.other == Time::zero());
  check_adds_up(ex);
}

TEST_CASE("workload: breakdown splits slowed compute into work done and interference s/(1+s)", "[workload]") {
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  workload_test::FakeEngine engine(sim, 0, 1e9);
  Program p;
  p.collective(1, 0, CollOp::AllGather, 1'000'000, "ag");  // C = 0.5 ms
  const uint32_t e = p.new_event();
  p.record(1, e);
  p.compute(0, Time::from_ms(2), Work::Math, "independent");  // D = 2 ms of work
  p.wait(0, e);
  p.compute(0, Time::from_ms(1), Work::Math, "dependent");
  StepExecutor ex(sim, net, engine, nullptr, {p}, breakdown_one_group(2), breakdown_in_group(2));
  ex.overlap_slowdown = 0.5;
  ex.run();
  REQUIRE(ex.all_done());
  const double s = 0.5, c = 0.5e-3;
  const StepBreakdown b = ex.breakdown(0, ex.end());
  // compute is the work at full rate (D + 1 ms), interference what the C of overlap lost: C s/(1+s).
  CHECK(b.compute.seconds() == Approx(3e-3).epsilon(1e-9));
  CHECK(b.interference.seconds() == Approx(c * s / (1 + s)).margin(2e-12));  // picosecond rounding
  CHECK(b.exposed == Time::zero());
  check_adds_up(ex);
}

TEST_CASE("workload: breakdown counts waiting for a pipeline peer and the drain as bubble", "[workload]") {
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  workload_test::FakeEngine engine(sim, 0, 1e9);
  // Stage 0 computes 1 ms and sends 1 MB (1 ms); stage 1 receives it, then computes 1 ms.
  Program first({"compute", "send"}), second({"compute", "recv"});
  first.compute(0, Time::from_ms(1), Work::Math, "fwd");
  first.join(0, 1);
  first.send(1, 0, 1'000'000, "send act");
  second.recv(1, 0, 1'000'000, "recv act");
  second.join(1, 0);
  second.compute(0, Time::from_ms(1), Work::Math, "fwd");
  std::vector<RankSetup> ranks(2);
  ranks[0].program = 0;
  ranks[0].peer[0] = 1;
  ranks[1].program = 1;
  ranks[1].peer[0] = 0;
  StepExecutor ex(sim, net, engine, nullptr, {first, second}, {}, ranks);
  ex.run();
  REQUIRE(ex.all_done());
  CHECK((ex.end() - ex.start()).seconds() == Approx(3e-3));
  const StepBreakdown s0 = ex.breakdown(0, ex.end()), s1 = ex.breakdown(1, ex.end());
  // Stage 1 waits 1 ms for the send to be posted (bubble), then 1 ms for the data (exposed).
  CHECK(s1.bubble.seconds() == Approx(1e-3));
  CHECK(s1.exposed.seconds() == Approx(1e-3));
  CHECK(s1.compute.seconds() == Approx(1e-3));
  // Stage 0 sends (exposed), then waits for the pipeline to drain (bubble).
  CHECK(s0.compute.seconds() == Approx(1e-3));
  CHECK(s0.exposed.seconds() == Approx(1e-3));
  CHECK(s0.bubble.seconds() == Approx(1e-3));
  check_adds_up(ex);
}

TEST_CASE("workload: breakdown counts host work the GPU waits for as host", "[workload]") {
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  workload_test::FakeEngine engine(sim, 0, 1e9);
  Program p;
  p.compute(0, Time::from_ms(1), Work::Math, "bwd");
  p.compute(0, Time::from_ms(3), Work::Host, "cpu step");
  p.compute(0, Time::from_ms(1), Work::Memory, "cast");
  StepExecutor ex(sim, net, engine, nullptr, {p}, breakdown_one_group(1), breakdown_in_group(1));
  ex.run();
  REQUIRE(ex.all_done());
  const StepBreakdown b = ex.breakdown(0, ex.end());
  CHECK(b.compute.seconds() == Approx(2e-3));
  CHECK(b.host.seconds() == Approx(3e-3));
  check_adds_up(ex);
}
