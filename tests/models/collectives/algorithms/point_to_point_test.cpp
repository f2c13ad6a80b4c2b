// Send/recv and all-to-all (point_to_point.cpp) against their closed forms on idle links, on
// the rig of rig.hpp:
//   send/recv   T = kernel + hop + S / cap      (cap: the link's efficiency; channels unbounded)
//   all-to-all  T = kernel + max hop + every pair's S/n at once, max-min shared
#include <catch2/catch.hpp>
#include <tuple>

#include "models/nccl/tuner_tables.hpp"
#include "tests/models/collectives/rig.hpp"

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
  // All-to-all of S per rank: each GPU sends 3 x S/4 through its own tx port, shared by 3 flows.
  // The protocol's efficiency is the port's, not each flow's (NCCL's
  // all-to-all reaches the ring's ~0.75 of raw, not the raw rate), so the three together move
  // eta B: T = kernel + hop + (3/4) S / (eta B).
  const int64_t S = 1LL << 30;
  const double t_a2a = rig.run(CollOp::AllToAll, S);
  CHECK(t_a2a == Approx(P.kernel_latency_s + hop(LinkClass::NVLink, Proto::Simple) +
                        0.75 * S / (eta(LinkClass::NVLink, Proto::Simple) * B))
                     .epsilon(1e-6));
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

TEST_CASE("point to point: LL up to p2p channels per peer x 16 KiB, at one CTA's LL rate", "[nccl]") {
  // 2 x H200-like rig: 32 p2p channels per peer, so LL up to 32 x 16 KiB = 512 KiB (NCCL 2.22-2.28,
  // p2p_channels.hpp). 512 KiB takes min(16, 512 KiB / 64 KiB) = 8 channels, each at one CTA's
  // measured LL rate r_LL (nvlink.channel_bandwidth_ll, flow_cap.hpp):
  //   T = kernel + hop_LL + S / min(eta_LL B, 8 r_LL)
  const double B = 450e9;
  Rig rig(1, 2, B, 50e9, {}, models::nccl::nccl_version_number(28, 9));  // NCCL 2.22-2.28's LL limit
  auto send = [&](int64_t bytes) {
    CollectiveRecord rec;
    const double t0 = rig.sim.now().seconds();
    double t = -1;
    rig.engine->send_recv(0, 1, bytes, [&](const CollectiveRecord& r) {
      rec = r;
      t = rig.sim.now().seconds() - t0;
    });
    rig.sim.run();
    return std::tuple{rec.proto, t, rec.channels};
  };
  const int64_t S = 512 << 10;
  const auto [ll, t_ll, ch] = send(S);
  CHECK(ll == Proto::LL);
  CHECK(ch == 8);
  const double r_ll = P.of(LinkClass::NVLink).channel_bandwidth_ll;
  CHECK(r_ll == 5.15e9);
  const double cap = std::min(eta(LinkClass::NVLink, Proto::LL) * B, 8 * r_ll);
  CHECK(t_ll == Approx(P.kernel_latency_s + hop(LinkClass::NVLink, Proto::LL) + S / cap).epsilon(1e-6));
  CHECK(std::get<0>(send(S + 1)) == Proto::Simple);
  CHECK(std::get<0>(send(16384)) == Proto::LL);
  // From 2.29 (the default) the limit counts the transfer's own channels: one below 64 KiB on one
  // node, so LL ends at 16 KiB.
  Rig now(1, 2, B, 50e9);
  auto proto_now = [&](int64_t bytes) {
    CollectiveRecord rec;
    now.engine->send_recv(0, 1, bytes, [&](const CollectiveRecord& r) { rec = r; });
    now.sim.run();
    return rec.proto;
  };
  CHECK(proto_now(16384) == Proto::LL);
  CHECK(proto_now(16385) == Proto::Simple);
  CHECK(proto_now(S) == Proto::Simple);
}

TEST_CASE("point to point: a transfer runs on NCCL's p2p channels for its size, not on every channel", "[nccl]") {
  // 4 x H200-like rig, one 4-rank communicator: 8 channels per peer up to 128 MiB, 32 from 512 MiB
  // (p2p_channels.hpp). One channel's Simple rate r = 1 / (1 / r_ch + rtt / NCCL_BUFFSIZE).
  const double B = 450e9;
  Rig rig(1, 4, B, 50e9);
  const auto& nv = P.of(LinkClass::NVLink);
  const double r = 1.0 / (1.0 / nv.channel_bandwidth + nv.flow_control_rtt_s / double(1 << 22));
  const std::vector<int> comm = rig.all().ranks;
  auto send = [&](int64_t bytes) {
    const double t0 = rig.sim.now().seconds();
    double t = -1;
    CollectiveRecord rec;
    rig.engine->send_recv(
        0, 1, bytes,
        [&](const CollectiveRecord& c) {
          t = rig.sim.now().seconds() - t0;
          rec = c;
        },
        &comm);
    rig.sim.run();
    return std::pair{rec.channels, t};
  };
  const double lat = P.kernel_latency_s + hop(LinkClass::NVLink, Proto::Simple);
  // 64 MiB: 8 channels x r (165 GB/s) < eta B, each channel's 8 MiB part in k = 16 chunks of
  // 512 KiB through Simple's chunk pipeline (p2p_chunk_fill.hpp: k / (k + 1)):
  // T = kernel + hop + S / (8 r x 16/17)
  const int64_t S = 64LL << 20;
  REQUIRE(8 * r < eta(LinkClass::NVLink, Proto::Simple) * B);
  const auto [ch, t] = send(S);
  CHECK(ch == 8);
  CHECK(t == Approx(lat + S / (8 * r * 16.0 / 17.0)).epsilon(1e-6));
  // 512 MiB: 32 channels, the port's efficiency binds: T = kernel + hop + S / (eta B)
  const auto [ch_big, t_big] = send(512LL << 20);
  CHECK(ch_big == 32);
  CHECK(t_big == Approx(lat + (512LL << 20) / (eta(LinkClass::NVLink, Proto::Simple) * B)).epsilon(1e-6));
  // Without a communicator the pair is one of 2 ranks (PyTorch's send/recv pair): 16 channels.
  double t2 = -1;
  CollectiveRecord rec2;
  rig.engine->send_recv(0, 1, S, [&](const CollectiveRecord& c) {
    rec2 = c;
    t2 = 0;
  });
  rig.sim.run();
  CHECK(t2 == 0);
  CHECK(rec2.channels == 16);
}

TEST_CASE("point to point: a Simple all-to-all pair of one-chunk parts runs at half its channels' rate", "[nccl]") {
  // 2 ranks on NVLink fast enough (B = 5 TB/s) that the channels bind, not the port. S = 8 MiB
  // per rank: 4 MiB to the peer on 16 channels (p2p_channels.hpp), parts of 256 KiB, one 512 KiB
  // chunk each: its copy into the peer's FIFO and its copy out run one after the other
  // (p2p_chunk_fill.hpp, k = 1: fill 1/2). One channel's Simple rate r = 1 / (1 / r_ch + rtt / NCCL_BUFFSIZE):
  //   T = kernel + hop + (S / 2) / (16 r x 1/2)
  const double B = 5000e9;
  Rig rig(1, 2, B, 50e9);
  const auto& nv = P.of(LinkClass::NVLink);
  const double r = 1.0 / (1.0 / nv.channel_bandwidth + nv.flow_control_rtt_s / double(1 << 22));
  const int64_t S = 8LL << 20;
  REQUIRE(16 * r * 0.5 < eta(LinkClass::NVLink, Proto::Simple) * B);
  CollectiveRecord rec;
  const double t = rig.run(CollOp::AllToAll, S, &rec);
  CHECK(rec.proto == Proto::Simple);
  CHECK(rec.channels == 16);
  CHECK(t ==
        Approx(P.kernel_latency_s + hop(LinkClass::NVLink, Proto::Simple) + (S / 2) / (16 * r * 0.5)).epsilon(1e-6));
}

TEST_CASE("point to point: all-to-all peers that outnumber the p2p channels take them in waves", "[nccl]") {
  // 4 ranks, B = 5 TB/s so the channels bind. S = 1 GiB per rank: 256 MiB to each peer, on 16
  // channels (p2p_channels.hpp). Three peers x 16 channels on the rank's 32 p2p channels:
  // W = ceil(48 / 32) = 2 waves, so a pair gets 16 / 2 channels' rate; each channel's part
  // (16 MiB) is 32 chunks of 512 KiB (fill 32/33):
  //   T = kernel + hop + (S / 4) / (16 / 2 x 32/33 x r)
  const double B = 5000e9;
  Rig rig(1, 4, B, 50e9);
  const auto& nv = P.of(LinkClass::NVLink);
  const double r = 1.0 / (1.0 / nv.channel_bandwidth + nv.flow_control_rtt_s / double(1 << 22));
  const int64_t S = 1LL << 30;
  const double pair_rate = 16 / 2.0 * (32.0 / 33.0) * r;
  REQUIRE(3 * pair_rate < eta(LinkClass::NVLink, Proto::Simple) * B);
  CollectiveRecord rec;
  const double t = rig.run(CollOp::AllToAll, S, &rec);
  CHECK(rec.proto == Proto::Simple);
  CHECK(rec.channels == 16);
  CHECK(t == Approx(P.kernel_latency_s + hop(LinkClass::NVLink, Proto::Simple) + (S / 4) / pair_rate).epsilon(1e-6));
}

TEST_CASE("point to point: NCCL_P2P_LL_THRESHOLD moves the LL limit, 0 turns LL off", "[nccl]") {
  // 2 x H200-like rig under NCCL 2.28, 32 p2p channels per peer: LL up to 32 x the variable (16 KiB unset).
  auto proto_of = [](std::map<std::string, std::string> env, int64_t bytes) {
    Rig rig(1, 2, 450e9, 50e9, std::move(env), models::nccl::nccl_version_number(28, 9));
    CollectiveRecord rec;
    rig.engine->send_recv(0, 1, bytes, [&](const CollectiveRecord& r) { rec = r; });
    rig.sim.run();
    return rec.proto;
  };
  CHECK(proto_of({}, 512 << 10) == Proto::LL);
  CHECK(proto_of({{"NCCL_P2P_LL_THRESHOLD", "4096"}}, 128 << 10) == Proto::LL);
  CHECK(proto_of({{"NCCL_P2P_LL_THRESHOLD", "4096"}}, (128 << 10) + 1) == Proto::Simple);
  CHECK(proto_of({{"NCCL_P2P_LL_THRESHOLD", "0"}}, 8) == Proto::Simple);
}
