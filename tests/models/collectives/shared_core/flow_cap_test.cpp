// flow_rate_cap against its closed forms (models/collectives/flow_cap.hpp).
#include <catch2/catch.hpp>

#include "models/collectives/flow_cap.hpp"

using namespace models;
using namespace models::nccl;
using namespace models::collectives;

namespace {
LinkParams params() {
  LinkParams p;
  p.of(LinkClass::NVLink).efficiency = {0.26, 0.7, 0.8};
  p.of(LinkClass::NVLink).channel_bandwidth = 20e9;
  p.of(LinkClass::NVLink).flow_control_rtt_s = 10e-6;
  p.of(LinkClass::SHM).efficiency = {0.2, 0.4, 0.5};
  p.p2p_read_bandwidth_factor = 0.8;
  return p;
}
FlowCapInputs nvlink(double channels) {
  FlowCapInputs in;
  in.raw_bandwidth = 400e9;
  in.channels = channels;
  return in;
}
}  // namespace

TEST_CASE("flow cap: the link's efficiency or the channels' rate, whichever is lower", "[nccl]") {
  const LinkParams p = params();
  // 24 channels: 24 / (1/20e9 + 10e-6/4 MiB) = 24 x 19.09 GB/s > 0.8 x 400 GB/s: the link binds.
  CHECK(flow_rate_cap(p, nvlink(24)) == Approx(320e9));
  // 4 channels: the window-limited channel rate binds.
  const double r = 1.0 / (1.0 / 20e9 + 10e-6 / double(1 << 22));
  CHECK(flow_rate_cap(p, nvlink(4)) == Approx(4 * r));
  // A 64 KiB buffer: the credit round trip dominates each channel.
  FlowCapInputs small = nvlink(24);
  small.buffsize = 65536;
  CHECK(flow_rate_cap(p, small) == Approx(24 / (1.0 / 20e9 + 10e-6 / 65536.0)));
}

TEST_CASE("flow cap: copy work, read mode and SHM's one-way edges", "[nccl]") {
  const LinkParams p = params();
  FlowCapInputs ag = nvlink(24);
  ag.work = 1.2;  // 2-rank all-gather: copy cost 6 per byte sent against all-reduce's 5
  CHECK(flow_rate_cap(p, ag) == Approx(320e9 / 1.2));
  FlowCapInputs bc = nvlink(4);
  bc.work = 0.5;  // 2-rank broadcast: half the work, twice the channel rate; never above eta B
  const double r2 = 1.0 / (1.0 / 40e9 + 10e-6 / double(1 << 22));
  CHECK(flow_rate_cap(p, bc) == Approx(4 * r2));
  FlowCapInputs rd = nvlink(24);
  rd.p2p_read = true;
  CHECK(flow_rate_cap(p, rd) == Approx(0.8 * 320e9));
  rd.duplex = false;  // the reader only receives: no loss
  CHECK(flow_rate_cap(p, rd) == Approx(320e9));
  FlowCapInputs shm;
  shm.link_class = LinkClass::SHM;
  shm.raw_bandwidth = 50e9;
  CHECK(flow_rate_cap(p, shm) == Approx(0.5 * 50e9));
  shm.duplex = false;
  CHECK(flow_rate_cap(p, shm) == Approx(1.0 * 50e9));  // 2 x 0.5, capped at the raw path
}

TEST_CASE("flow cap: P2P read mode's factor applies to Simple only", "[nccl]") {
  // NCCL src/transport/p2p.cc p2pSendConnect: `if (info->read && p == NCCL_PROTO_SIMPLE)` only
  // the SIMPLE buffer moves to the sender; LL and LL128 are written into the receiver's memory as
  // in write mode, so their caps are write mode's.
  const LinkParams p = params();
  for (Proto proto : {Proto::LL, Proto::LL128}) {
    FlowCapInputs write = nvlink(24), read = nvlink(24);
    write.proto = read.proto = proto;
    read.p2p_read = true;
    CHECK(flow_rate_cap(p, read) == flow_rate_cap(p, write));
  }
  FlowCapInputs simple = nvlink(24);
  simple.p2p_read = true;
  CHECK(flow_rate_cap(p, simple) == Approx(0.8 * flow_rate_cap(p, nvlink(24))));
}
