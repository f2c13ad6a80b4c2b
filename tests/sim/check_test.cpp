// SIM_CHECK: a broken invariant throws std::logic_error naming the file, line, condition and
// message, so the command line exits 1 with it and a sweep records it in the point's row.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>

#include "sim/check.hpp"
#include "sim/flow_network.hpp"
#include "sim/simulator.hpp"

namespace {
constexpr int kFailingCheckLine = __LINE__ + 1;
void failing_check() { SIM_CHECK(1 + 1 == 3, "arithmetic"); }
}  // namespace

TEST_CASE("check: a failed SIM_CHECK throws logic_error with file, line, condition and message", "[sim]") {
  CHECK_THROWS_MATCHES(failing_check(), std::logic_error,
                       Catch::Message(std::string(__FILE__) + ":" + std::to_string(kFailingCheckLine) +
                                      ": check '1 + 1 == 3' failed: arithmetic"));
  // A link of no capacity is an engine invariant (the scenario layer refuses one), not an abort.
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  CHECK_THROWS_AS(net.add_link("node0/eth.tx", "eth", 0, sim::Time::zero()), std::logic_error);
}
