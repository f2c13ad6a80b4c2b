// Send/recv and all-to-all (point_to_point.cpp) against their closed forms on idle links, on
// the rig of rig.hpp:
//   send/recv   T = kernel + hop + S / cap      (cap: the link's efficiency; channels unbounded)
//   all-to-all  T = kernel + max hop + every pair's S/n at once, max-min shared
#include <catch2/catch.hpp>

#include "rig.hpp"

using namespace collectives_test;

TEST_CASE("collectives: send/recv and all-to-all deliver over the pair's path", "[nccl]") {
  const double B = 450e9;
  Rig rig(1, 4, B, 50e9);
  double t = -1;
  rig.engine->send_recv(0, 1, 1 << 30, [&](const CollectiveRecord&) { t = rig.sim.now().seconds(); });
  rig.sim.run();
  // T = kernel + hop + S / (eta B)
  CHECK(t == Approx(P.kernel_latency_s + hop(LinkClass::NVLink, Proto::Simple) +
                    (1 << 30) / (eta(LinkClass::NVLink, Proto::Simple) * B))
                 .epsilon(1e-6));
  // All-to-all of S per rank: each GPU sends 3 x S/4 through its own tx link (shared by 3 flows).
  const int64_t S = 1LL << 30;
  const double t_a2a = rig.run(CollOp::AllToAll, S);
  CHECK(t_a2a == Approx(P.kernel_latency_s + hop(LinkClass::NVLink, Proto::Simple) + 0.75 * S / B).epsilon(1e-6));
}
