// Barrier wait at point-to-point transfers (pipeline send/recv): the side that arrives first
// waits for its peer. wait_first = t_peer_arrival - t_own_arrival; wait_last = 0.
#include <catch2/catch.hpp>

#include "fakes.hpp"
#include "models/workload/executor.hpp"

using namespace models::workload;
using sim::Time;

TEST_CASE("workload: a receiver waiting for its sender counts the wait as barrier", "[workload]") {
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  workload_test::FakeEngine engine(sim, 10e-6, 100e9);
  Program sender, receiver;
  sender.compute(0, Time::from_ms(2), Work::Math, "forward");
  sender.send(0, 0, 1'000'000, "act");
  receiver.compute(0, Time::from_ms(0.5), Work::Math, "other");
  receiver.recv(0, 0, 1'000'000, "act");
  std::vector<RankSetup> ranks(2);
  ranks[0].program = 0;
  ranks[0].peer[0] = 1;
  ranks[1].program = 1;
  ranks[1].peer[0] = 0;
  StepExecutor ex(sim, net, engine, nullptr, {sender, receiver}, {}, ranks);
  ex.run();
  REQUIRE(ex.all_done());
  // The receiver arrives at 0.5 ms, the sender at 2 ms: the receiver waits 1.5 ms.
  CHECK(ex.account(1).barrier.seconds() == Approx(1.5e-3));
  CHECK(ex.account(0).barrier.seconds() == Approx(0).margin(1e-12));
}
