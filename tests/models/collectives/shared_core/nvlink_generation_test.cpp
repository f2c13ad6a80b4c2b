// NVLink's per-channel rate by GPU generation (link_params.hpp nvlink_channel_bandwidth_for): the
// H200 measurement carried by NCCL's per-channel Simple ceiling ratio, applied by the engine to the
// World's GPUs unless the scenario sets nvlink.channel_bandwidth.
//   r(sm) = 22.0 GB/s x ceiling(sm) / 38.7,  ceiling: Hopper 38.7, Blackwell 70.0 (Ampere, Volta: not
//   carried yet, the H200 value)
// With NCCL_ALGO=Ring, NCCL_PROTO=Simple on one 8-GPU NVSwitch node, each ring edge moves
// 2(n-1)/n S at min(eta x B_raw, C x r'), r' = 1 / (1/(g r) + rtt/NCCL_BUFFSIZE) (flow_cap.hpp), g the
// ring's copy-work gain over the 2-rank all-reduce r is measured on (copy_work.hpp: 1.21 at 8), so
//   T = kernel + pipeline latency + 2(n-1)/n x S / min(eta B_raw, C r').
#include <catch2/catch.hpp>

#include <algorithm>

#include "models/collectives/copy_work.hpp"
#include "models/comm_plan/link_params.hpp"
#include "models/hw/links.hpp"
#include "tests/models/collectives/catalog_run.hpp"
#include "tests/models/collectives/rig.hpp"

using namespace collectives_test;

namespace {
ScenarioSpec ring_on(const std::string& instance, std::map<std::string, double> params = {}) {
  ScenarioSpec spec;
  spec.cluster.instance = instance;
  spec.cluster.nodes = 1;
  spec.cluster.params = std::move(params);
  spec.nccl_env = {{"NCCL_ALGO", "Ring"}, {"NCCL_PROTO", "Simple"}};
  return spec;
}
}  // namespace

TEST_CASE("nvlink: the per-channel rate by generation is NCCL's ceiling ratio times the H200 measurement", "[nccl]") {
  const double h200 = LinkParams::defaults().of(LinkClass::NVLink).channel_bandwidth;
  CHECK(h200 == 22.0e9);
  CHECK(models::collectives::nvlink_channel_bandwidth_for(90, h200) == h200);  // Hopper: the measurement
  CHECK(models::collectives::nvlink_channel_bandwidth_for(100, h200) == Approx(22.0e9 * 70.0 / 38.7));  // 39.8
  CHECK(models::collectives::nvlink_channel_bandwidth_for(103, h200) == Approx(22.0e9 * 70.0 / 38.7));  // B300
  // Below Hopper not carried yet (link_params.cpp: the A100 validations not re-run): the H200 value.
  CHECK(models::collectives::nvlink_channel_bandwidth_for(80, h200) == h200);
}

TEST_CASE("nvlink: a B200 ring all-reduce runs at Blackwell's channel rate, not the H200's", "[nccl]") {
  const int64_t S = int64_t{1} << 30;
  const double n = 8, W = 4 << 20;
  const LinkParams d = LinkParams::defaults();
  const ClassParams& nv = d.of(LinkClass::NVLink);
  // NVLink 5's port efficiency (hw::nvlink_simple_efficiency), not the registered NVLink 4 one.
  const double eta = models::hw::nvlink_simple_efficiency(5, nv.efficiency[2]), rtt = nv.flow_control_rtt_s,
               raw = 18 * 50e9;
  const double g = models::collectives::ring_channel_gain(8);
  CHECK(g == Approx(5.0 / (30.0 / 14 + 2.0)));  // (3L + R) / ((4n - 2) L + (2n - 2) R) / (2n - 2), R = 2L
  auto edge_rate = [&](double r, int channels) { return std::min(eta * raw, channels / (1 / (g * r) + rtt / W)); };
  const CatalogRun b200 = audited_run(ring_on("dgx-b200"), CollOp::AllReduce, S);
  REQUIRE(b200.rec.algo == Algo::Ring);
  const int C = b200.rec.channels;
  const double r_b = models::collectives::nvlink_channel_bandwidth_for(100, nv.channel_bandwidth);
  const double bulk = 2 * (n - 1) / n * S / edge_rate(r_b, C);
  // The latency terms are tens of microseconds against milliseconds of transfer.
  CHECK(b200.t == Approx(bulk).epsilon(0.03));
  // Setting the H200's rate by hand gives the H200-rate ring, slower wherever the channels bind.
  const CatalogRun pinned =
      audited_run(ring_on("dgx-b200", {{"nvlink.channel_bandwidth", 22.0e9}}), CollOp::AllReduce, S);
  CHECK(pinned.t == Approx(2 * (n - 1) / n * S / edge_rate(22.0e9, pinned.rec.channels)).epsilon(0.03));
  CHECK(pinned.t > b200.t);
  // An H200 node keeps the measured rate: with the parameter pinned to it or not, the same time.
  const CatalogRun h = audited_run(ring_on("dgx-h200"), CollOp::AllReduce, S);
  const CatalogRun hp = audited_run(ring_on("dgx-h200", {{"nvlink.channel_bandwidth", 22.0e9}}), CollOp::AllReduce, S);
  CHECK(h.t == hp.t);
}

TEST_CASE("nvlink: a GB200 rack's all-reduce uses Blackwell's rate too", "[nccl]") {
  // 72 GPUs of one NVL72 domain, 18 pods of 4: the same rule on every NVLink edge (MNNVL P2P included).
  ScenarioSpec spec = ring_on("gb200-nvl72");
  spec.placement.pods_per_node = 18;
  spec.placement.gpus_per_pod = 4;
  ScenarioSpec pinned = spec;
  pinned.cluster.params = {{"nvlink.channel_bandwidth", 22.0e9}};
  const int64_t S = int64_t{1} << 30;
  const CatalogRun own = audited_run(spec, CollOp::AllReduce, S), h200 = audited_run(pinned, CollOp::AllReduce, S);
  CHECK(own.t < h200.t);
}

TEST_CASE("nvlink: point-to-point CTAs keep the H200 rate on Blackwell", "[nccl]") {
  // NCCL's per-channel ceilings, which carry the rate to Blackwell, are its collective algorithms';
  // send/recv has none, and OCI's GB300 rack moves its all-to-all's Simple parts at H200's rate
  // (point_to_point.cpp). 8 x B200, all-to-all of 64 MiB per rank: 8 MiB to each of 7 peers on
  // 4 channels (p2p_channels.hpp), 2 MiB per channel = 4 chunks of 512 KiB (fill 4/5), 28 of the
  // 32 p2p channels (one wave): a pair moves at 4 x 4/5 x r', 7 pairs 7 x 3.2 r' < eta x 900 GB/s.
  ScenarioSpec spec = ring_on("dgx-b200");
  spec.nccl_env.clear();
  const int64_t S = int64_t{64} << 20;
  const CatalogRun own = audited_run(spec, CollOp::AllToAll, S);
  ScenarioSpec pinned = spec;
  pinned.cluster.params = {{"nvlink.channel_bandwidth", 22.0e9}};
  CHECK(own.t == Approx(audited_run(pinned, CollOp::AllToAll, S).t).epsilon(1e-9));
  const LinkParams d = LinkParams::defaults();
  const ClassParams& nv = d.of(LinkClass::NVLink);
  const double r = 1 / (1 / 22.0e9 + nv.flow_control_rtt_s / double(4 << 20));
  CHECK(own.rec.proto == Proto::Simple);
  CHECK(own.rec.channels == 4);
  //   T = kernel + hop_Simple + (S / 8) / (4 x 4/5 x r)
  const double latency = d.kernel_latency_s + nv.hop_latency_s[static_cast<int>(Proto::Simple)];
  CHECK(own.t == Approx(latency + (S / 8.0) / (4 * 0.8 * r)).epsilon(1e-6));
  // The Blackwell rate set by hand makes it faster: the rule, not the parameter, keeps it at H200's.
  ScenarioSpec fast = spec;
  fast.cluster.params = {{"nvlink.channel_bandwidth", models::collectives::nvlink_channel_bandwidth_for(100, 22.0e9)}};
  CHECK(audited_run(fast, CollOp::AllToAll, S).t < own.t);
}
