// StepExecutor and the step programs against a closed-form collective engine.
#include <catch2/catch.hpp>

#include "fakes.hpp"
#include "models/hw/gpu.hpp"
#include "models/params.hpp"
#include "models/workload/steps/data_parallel.hpp"
#include "models/workload/executor.hpp"

using namespace models::workload;
using models::collectives::Group;
using models::nccl::CollOp;
using sim::Time;

namespace {
std::vector<Group> one_group(int n) {
  Group g{{}, 0, "dp"};
  for (int r = 0; r < n; ++r) g.ranks.push_back(r);
  return {g};
}
std::vector<RankSetup> in_group(int n) {
  std::vector<RankSetup> v(n);
  for (auto& r : v) r.group[0] = 0;
  return v;
}
ComputeRates executor_h200() {
  return make_rates(models::hw::find_gpu("H200"), models::compute::Precision::Bf16, 300e9, 0, {});
}
}  // namespace

TEST_CASE("workload: barrier wait is last arrival minus own arrival", "[workload]") {
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  workload_test::FakeEngine engine(sim, 10e-6, 100e9);
  Program p;
  p.compute(0, Time::from_ms(1), Work::Math, "work");
  p.collective(0, 0, CollOp::AllReduce, 100'000'000, "ar");
  auto ranks = in_group(3);
  ranks[2].compute_scale = 2.0;  // rank 2 arrives at 2 ms
  StepExecutor ex(sim, net, engine, nullptr, {p}, one_group(3), ranks);
  ex.run();
  REQUIRE(ex.all_done());
  // wait_r = t_last - t_r: 1 ms for the fast ranks, 0 for the slow one.
  CHECK(ex.account(0).barrier.seconds() == Approx(1e-3));
  CHECK(ex.account(1).barrier.seconds() == Approx(1e-3));
  CHECK(ex.account(2).barrier.seconds() == Approx(0).margin(1e-12));
  // step = slowest arrival + T_ring(all_reduce) = 2 ms + alpha + 2(n-1)/n S/B
  const double t_ar = 10e-6 + 2.0 * 2 / 3 * 1e8 / 100e9;
  CHECK((ex.end() - ex.start()).seconds() == Approx(2e-3 + t_ar).epsilon(1e-9));
  // The collective's time is exposed: nothing to compute while it runs.
  CHECK(ex.account(0).exposed.seconds() == Approx(t_ar).epsilon(1e-9));
  CHECK(ex.account(0).comm.seconds() == Approx(t_ar).epsilon(1e-9));
}

TEST_CASE("workload: events order streams and overlap hides communication", "[workload]") {
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  workload_test::FakeEngine engine(sim, 0, 1e9);
  Program p;
  // comm: all_gather 1 MB across 2 ranks = 0.5 ms, overlapped with 2 ms of compute.
  p.collective(1, 0, CollOp::AllGather, 1'000'000, "ag");
  const uint32_t e = p.new_event();
  p.record(1, e);
  p.compute(0, Time::from_ms(2), Work::Math, "independent");
  p.wait(0, e);
  p.compute(0, Time::from_ms(1), Work::Math, "dependent");
  StepExecutor ex(sim, net, engine, nullptr, {p}, one_group(2), in_group(2));
  ex.run();
  REQUIRE(ex.all_done());
  // step = max(2 ms, 0.5 ms) + 1 ms; nothing exposed.
  CHECK((ex.end() - ex.start()).seconds() == Approx(3e-3));
  CHECK(ex.account(0).exposed.seconds() == Approx(0).margin(1e-12));
  CHECK(ex.account(0).comm.seconds() == Approx(0.5e-3));
}

TEST_CASE("workload: compute overlapped with a collective runs at 1/(1+s) while it is in flight", "[workload]") {
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
  StepExecutor ex(sim, net, engine, nullptr, {p}, one_group(2), in_group(2));
  ex.overlap_slowdown = 0.5;
  ex.run();
  REQUIRE(ex.all_done());
  // During C the compute does C/(1+s) of work; the rest runs at full rate after it:
  // independent ends at C + (D - C/(1+s)) = 0.5 + 2 - 1/3 ms, then 1 ms more.
  const double s = 0.5, c = 0.5e-3, d = 2e-3;
  CHECK((ex.end() - ex.start()).seconds() == Approx(c + (d - c / (1 + s)) + 1e-3).epsilon(1e-9));
  CHECK(ex.account(0).compute.seconds() == Approx(c + (d - c / (1 + s)) + 1e-3).epsilon(1e-9));
  CHECK(ex.account(0).exposed.seconds() == Approx(0).margin(1e-12));
}

TEST_CASE("workload: ZeRO-3 without overlap is compute plus the sum of its collectives", "[workload]") {
  const int n = 4;
  DataParallelConfig c;
  models::ModelSpec ms;
  ms.preset = "h200x4-decoder";
  c.model = models::model::resolve_model(ms);
  c.training.micro_batch = 1;
  c.training.grad_accum = 2;
  c.zero.overlap_comm = false;
  c.zero.reduce_bucket_size = 1e12;  // one bucket: flushed at the end of each backward
  c.strategy = Strategy::Zero3;
  c.dp = n;
  c.rates = executor_h200();
  Program p = build_data_parallel_program(c);
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  workload_test::FakeEngine engine(sim, 20e-6, 50e9);
  StepExecutor ex(sim, net, engine, nullptr, {p}, one_group(n), in_group(n));
  ex.run();
  REQUIRE(ex.all_done());
  // Everything on one stream: T_step = sum(compute) + sum over collectives (alpha + f S / B).
  double compute = 0;
  for (const auto& op : p.ops[0])
    if (op.kind == OpKind::Compute) compute += op.duration.seconds();
  CHECK(ex.account(0).compute.seconds() == Approx(compute).epsilon(1e-9));
  CHECK((ex.end() - ex.start()).seconds() == Approx(compute + engine.total_s).epsilon(1e-9));
  // Per micro-batch: 10 forward gathers (embed, 8 blocks, head), 9 backward (head kept), and
  // one reduce-scatter when the bucket (larger than the model) is flushed at the end.
  CHECK(engine.launched == 2 * (10 + 9 + 1));
}

TEST_CASE("workload: ZeRO-3 overlap hides gathers behind compute", "[workload]") {
  const int n = 4;
  DataParallelConfig c;
  models::ModelSpec ms;
  ms.preset = "h200x4-decoder";
  c.model = models::model::resolve_model(ms);
  c.training.micro_batch = 2;
  c.strategy = Strategy::Zero3;
  c.dp = n;
  c.rates = executor_h200();
  auto run = [&](bool overlap) {
    c.zero.overlap_comm = overlap;
    sim::Simulator sim;
    sim::FlowNetwork net(sim);
    workload_test::FakeEngine engine(sim, 20e-6, 200e9);
    StepExecutor ex(sim, net, engine, nullptr, {build_data_parallel_program(c)}, one_group(n), in_group(n));
    ex.run();
    REQUIRE(ex.all_done());
    return std::pair{(ex.end() - ex.start()).seconds(), ex.account(0).exposed.seconds()};
  };
  auto [t_serial, exp_serial] = run(false);
  auto [t_overlap, exp_overlap] = run(true);
  CHECK(t_overlap < t_serial);
  CHECK(exp_overlap < 0.5 * exp_serial);
}

TEST_CASE("workload: a collective launched beside compute runs at 1/(1+s) (comm.overlap_slowdown)", "[workload]") {
  // C = 0.5 ms alone; launched while stream 0 computes, its rate is
  // 1 / (1 + s) for its whole life: C (1 + s) = 1 ms with s = 1. Default s = 0 changes nothing.
  for (const double s : {0.0, 1.0}) {
    sim::Simulator sim;
    sim::FlowNetwork net(sim);
    workload_test::FakeEngine engine(sim, 0, 1e9);
    Program p;
    p.compute(0, Time::from_ms(2), Work::Math, "beside");
    p.collective(1, 0, CollOp::AllGather, 1'000'000, "ag");
    StepExecutor ex(sim, net, engine, nullptr, {p}, one_group(2), in_group(2));
    ex.comm_overlap_slowdown = s;
    ex.run();
    REQUIRE(ex.all_done());
    CHECK(ex.account(0).comm.seconds() == Approx(0.5e-3 * (1 + s)));
    CHECK(engine.scale_ == 1.0);  // reset after the launch
  }
}
