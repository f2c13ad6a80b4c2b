// The collective engine's shared core (engine.cpp): contention made real, channel limits and
// P2P read mode through the whole engine. Rig: rig.hpp.
#include <catch2/catch.hpp>

#include "models/collectives/copy_work.hpp"
#include "models/comm_plan/link_params.hpp"
#include "tests/models/collectives/rig.hpp"

using namespace collectives_test;

TEST_CASE("collectives: two all-reduces on the same links share them (contention is real)", "[nccl]") {
  const double B = 450e9;
  Rig rig(1, 4, B, 50e9);
  const int64_t S = 1LL << 30;
  const double alone = rig.run(CollOp::AllReduce, S);
  // Two at once: each flow is capped at eta B, and the two share the port's usable eta B (the
  // protocol's efficiency is the port's) -> eta B / 2 each.
  double t_a = -1, t_b = -1;
  const double t0 = rig.sim.now().seconds();
  rig.engine->launch(rig.all(), CollOp::AllReduce, S,
                     [&](const CollectiveRecord&) { t_a = rig.sim.now().seconds() - t0; });
  rig.engine->launch(rig.all(), CollOp::AllReduce, S,
                     [&](const CollectiveRecord&) { t_b = rig.sim.now().seconds() - t0; });
  rig.sim.run();
  const double e = eta(LinkClass::NVLink, Proto::Simple);
  const double expected = P.kernel_latency_s + 6 * hop(LinkClass::NVLink, Proto::Simple) + 1.5 * S / (e * B / 2);
  CHECK(t_a == Approx(expected).epsilon(1e-6));
  CHECK(t_b == Approx(expected).epsilon(1e-6));
  CHECK(t_a > alone * 1.9);
}

TEST_CASE("collectives: fewer channels (NCCL_MAX_NCHANNELS) cap a ring at channels x per-channel rate", "[nccl]") {
  const double B = 450e9;
  Rig full(1, 4, B, 50e9);
  Rig limited(1, 4, B, 50e9, {{"NCCL_MAX_NCHANNELS", "6"}});
  const int64_t S = 1LL << 30;
  const double t_full = full.run(CollOp::AllReduce, S);
  const double t_lim = limited.run(CollOp::AllReduce, S);
  // Full: cap = eta B. Limited: cap = min(eta B, 6 x per-channel rate) (one channel moves
  // ~20.6 GB/s on H200, measured with NCCL_MAX_NCHANNELS=4): the bandwidth terms scale by
  // eta B / (6 x 20.6 GB/s), not by 24/6 -- channels are not a fixed slice of the link.
  // One channel at the default 4 MiB NCCL_BUFFSIZE: 1 / (1/(g channel_bandwidth) + rtt/buffsize),
  // g = 5 L / (14 L + 6 R) / 6 = 1.15: a 4-rank ring's copy work per byte sent against the 2-rank
  // all-reduce channel_bandwidth is measured on (copy_work.hpp ring_channel_gain).
  const auto& nv = P.of(LinkClass::NVLink);
  const double g = models::collectives::ring_channel_gain(4);
  CHECK(g == Approx(5.0 / (14.0 / 6 + 2.0)));
  const double per_channel = 1.0 / (1.0 / (g * nv.channel_bandwidth) + nv.flow_control_rtt_s / double(1 << 22));
  const double ratio = eta(LinkClass::NVLink, Proto::Simple) * B / (6 * per_channel);
  CHECK(t_lim / t_full == Approx(ratio).epsilon(0.02));
  CHECK(ratio < 4.0);
}

TEST_CASE("collectives: P2P read mode applies its bandwidth factor and handshake latency", "[nccl]") {
  // p4d: A100 NVLink pairs run P2P/CUMEM/read. With read factor f, the ring's bandwidth term
  // scales by 1/f: T(f) - L = (T(1) - L) / f, with L = kernel + 2(n-1) (hop + read handshake).
  auto run = [](double factor) {
    ScenarioSpec spec;
    spec.cluster.instance = "p4d.24xlarge";
    spec.cluster.params["p2p.read.bandwidth_factor"] = factor;
    sim::Simulator sim;
    sim::FlowNetwork net(sim);
    auto world = World::build(spec, net);
    REQUIRE(world->transport(0, 1).p2p_read);
    auto engine = make_collective_engine(sim, net, *world, spec);
    Group g;
    for (int r = 0; r < world->size(); ++r) g.ranks.push_back(r);
    engine->launch(g, CollOp::AllReduce, 1LL << 30, [](const CollectiveRecord&) {});
    sim.run();
    return sim.now().seconds();
  };
  const LinkParams d = LinkParams::defaults();
  const double L = d.kernel_latency_s + 14 * (hop(LinkClass::NVLink, Proto::Simple) + d.p2p_read_extra_latency_s);
  const double full = run(1.0), half = run(0.5);
  CHECK(half - L == Approx(2 * (full - L)).epsilon(1e-4));
}

TEST_CASE("collectives: P2P read mode changes Simple only (LL and LL128 as in write mode)", "[nccl]") {
  // p4d's A100 NVLink pairs run P2P/CUMEM/read by default; NCCL_P2P_READ_ENABLE=0 turns it off.
  // Read mode moves only Simple's buffer (NCCL src/transport/p2p.cc p2pSendConnect), so with LL
  // or LL128 forced the ring takes exactly write mode's time (no bandwidth factor, no handshake);
  // with Simple it pays the handshake per step: T_read - T_write = 2(n-1) x extra latency when the
  // bandwidth factor is 1.
  auto run = [](const char* proto, const char* read) {
    ScenarioSpec spec;
    spec.cluster.instance = "p4d.24xlarge";
    spec.cluster.params["p2p.read.bandwidth_factor"] = 1.0;
    spec.nccl_env = {{"NCCL_PROTO", proto}, {"NCCL_ALGO", "Ring"}, {"NCCL_P2P_READ_ENABLE", read}};
    sim::Simulator sim;
    sim::FlowNetwork net(sim);
    auto world = World::build(spec, net);
    REQUIRE(world->transport(0, 1).p2p_read == (read[0] == '1'));
    auto engine = make_collective_engine(sim, net, *world, spec);
    Group g;
    for (int r = 0; r < world->size(); ++r) g.ranks.push_back(r);
    engine->launch(g, CollOp::AllReduce, 64LL << 20, [](const CollectiveRecord&) {});
    sim.run();
    return sim.now().seconds();
  };
  CHECK(run("LL", "1") == run("LL", "0"));
  CHECK(run("LL128", "1") == run("LL128", "0"));
  const LinkParams d = LinkParams::defaults();
  CHECK(run("Simple", "1") - run("Simple", "0") == Approx(14 * d.p2p_read_extra_latency_s).epsilon(1e-3));
}

TEST_CASE("collectives: a rate scale (comm beside compute) stretches the bandwidth term", "[nccl]") {
  // set_rate_scale(k): every flow's cap is k x its cap: T = kernel + 2(n-1) hop + 2(n-1)/n S / (k eta B).
  const double B = 450e9, k = 0.5;
  Rig rig(1, 4, B, 50e9);
  const int64_t S = 1LL << 30;
  rig.engine->set_rate_scale(k);
  const double t = rig.run(CollOp::AllReduce, S);
  CHECK(t == Approx(P.kernel_latency_s + 6 * hop(LinkClass::NVLink, Proto::Simple) +
                    1.5 * S / (k * eta(LinkClass::NVLink, Proto::Simple) * B))
                 .epsilon(1e-6));
}
