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

TEST_CASE("point to point: send/recv across nodes is bound by the NIC's efficiency alone", "[nccl]") {
  // 2 nodes x 1 GPU: the message crosses nic0.tx -> nic1.rx (IB, no per-channel rate; a peer
  // gets as many p2p channels as it needs). T = kernel + hop + S / (eta B_net)
  const double B_net = 25e9;
  Rig rig(2, 1, 450e9, B_net);
  const int64_t S = 1LL << 30;
  double t = -1;
  rig.engine->send_recv(0, 1, S, [&](const CollectiveRecord&) { t = rig.sim.now().seconds(); });
  rig.sim.run();
  CHECK(t ==
        Approx(P.kernel_latency_s + hop(LinkClass::IB, Proto::Simple) + S / (eta(LinkClass::IB, Proto::Simple) * B_net))
            .epsilon(1e-6));
}

TEST_CASE("point to point: messages up to NCCL_P2P_LL_THRESHOLD (16 KiB) use LL", "[nccl]") {
  const double B = 450e9;
  Rig rig(1, 2, B, 50e9);
  auto send = [&](int64_t bytes) {
    CollectiveRecord rec;
    const double t0 = rig.sim.now().seconds();
    double t = -1;
    rig.engine->send_recv(0, 1, bytes, [&](const CollectiveRecord& r) {
      rec = r;
      t = rig.sim.now().seconds() - t0;
    });
    rig.sim.run();
    return std::pair{rec.proto, t};
  };
  const auto [ll, t_ll] = send(16384);
  CHECK(ll == Proto::LL);
  // T = kernel + hop_LL + S / (eta_LL B)
  CHECK(t_ll ==
        Approx(P.kernel_latency_s + hop(LinkClass::NVLink, Proto::LL) + 16384 / (eta(LinkClass::NVLink, Proto::LL) * B))
            .epsilon(1e-6));
  CHECK(send(16385).first == Proto::Simple);
}
