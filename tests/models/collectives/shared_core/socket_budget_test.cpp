// The TCP budget of a rank: without NCCL's helper threads (a virtio NIC:
// autoNt = 0, src/transport/net_socket.cc) a rank's proxy thread moves all of its Socket traffic.
// On the 4 x H200 catalog node, two pods of one GPU each (every pair over NET/Socket on loopback):
//   one way        T = kernel + hop + S / (eta T_thread min(1/d, 2))  (the thread only sends; its
//                                    proxy link's total, 2 T_thread, bounds it where 1/d > 2)
//   both ways      T = kernel + hop + S / (eta T_thread)          (each proxy link: 2 T_thread, eta of it)
// with T_thread = hw::kTcpThreadBytesPerS and d = socket.thread_duplex (measured 0.61 through NCCL).
#include <catch2/catch.hpp>

#include <algorithm>

#include "models/collectives/collective.hpp"
#include "models/comm_plan/link_params.hpp"
#include "models/params.hpp"
#include "models/world/world.hpp"

using namespace models;
using namespace models::collectives;

namespace {
ScenarioSpec two_pods(std::map<std::string, std::string> env = {}) {
  ScenarioSpec s;
  s.cluster.instance = "h200x4";
  s.cluster.nodes = 1;
  s.placement.pods_per_node = 2;
  s.placement.gpus_per_pod = 1;
  s.nccl_env = std::move(env);
  return s;
}
}  // namespace

TEST_CASE("socket: a rank that only sends over TCP moves 1/d of what a rank sending and receiving does", "[nccl]") {
  const ScenarioSpec spec = two_pods();
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  const auto world = World::build(spec, net);
  REQUIRE(world->transport(0, 1).link_class == LinkClass::Socket);
  auto engine = make_collective_engine(sim, net, *world, spec);
  const auto p = LinkParams::defaults();
  const auto& so = p.of(LinkClass::Socket);
  const double eta = so.efficiency[static_cast<int>(Proto::Simple)];
  const double d = param_default("socket.thread_duplex");
  const double lat = p.kernel_latency_s + so.hop_latency_s[static_cast<int>(Proto::Simple)];
  const int64_t S = 256LL << 20;

  double t1 = -1;
  engine->send_recv(0, 1, S, [&](const CollectiveRecord&) { t1 = sim.now().seconds(); });
  sim.run();
  CHECK(t1 == Approx(lat + S / (eta * hw::kTcpThreadBytesPerS * std::min(1 / d, 2.0))).epsilon(1e-6));

  const double t0 = sim.now().seconds();
  double ta = -1, tb = -1;
  engine->send_recv(0, 1, S, [&](const CollectiveRecord&) { ta = sim.now().seconds() - t0; });
  engine->send_recv(1, 0, S, [&](const CollectiveRecord&) { tb = sim.now().seconds() - t0; });
  sim.run();
  CHECK(ta == Approx(lat + S / (eta * hw::kTcpThreadBytesPerS)).epsilon(1e-6));
  CHECK(tb == Approx(ta).epsilon(1e-9));
}

TEST_CASE("socket: with helper threads (NCCL_SOCKET_NTHREADS, AWS/GCP defaults) no proxy budget is shared", "[nccl]") {
  // 2 helper threads: each edge may move 2 T_thread / d, and sending both ways costs nothing extra.
  const ScenarioSpec spec = two_pods({{"NCCL_SOCKET_NTHREADS", "2"}});
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  const auto world = World::build(spec, net);
  CHECK(world->tcp_edge().both_way == Approx(2 * hw::kTcpThreadBytesPerS));
  std::vector<sim::LinkId> path;
  world->path(0, 1, path);
  for (auto l : path) CHECK(net.link_kind(l) != "proxy");
  auto engine = make_collective_engine(sim, net, *world, spec);
  const auto p = LinkParams::defaults();
  const auto& so = p.of(LinkClass::Socket);
  const double eta = so.efficiency[static_cast<int>(Proto::Simple)];
  const double lat = p.kernel_latency_s + so.hop_latency_s[static_cast<int>(Proto::Simple)];
  const int64_t S = 256LL << 20;
  double ta = -1, tb = -1;
  engine->send_recv(0, 1, S, [&](const CollectiveRecord&) { ta = sim.now().seconds(); });
  engine->send_recv(1, 0, S, [&](const CollectiveRecord&) { tb = sim.now().seconds(); });
  sim.run();
  const double one_way = 2 * hw::kTcpThreadBytesPerS / param_default("socket.thread_duplex");
  CHECK(ta == Approx(lat + S / (eta * one_way)).epsilon(1e-6));
  CHECK(tb == Approx(ta).epsilon(1e-9));
}

TEST_CASE("socket: NCCL's helper-thread defaults by NIC (ncclNetSocketGetNsockNthread)", "[nccl]") {
  const nccl::NcclEnv none = nccl::parse_nccl_env({});
  // On the host's network (hostNetwork, or no Kubernetes): the NIC's PCI vendor decides.
  CHECK(nccl::socket_threads(none, "virtio", false).threads == 0);  // autoNt = 0: the proxy thread only
  CHECK(nccl::socket_threads(none, "ena", false).threads == 2);     // AWS ENA: 2 threads x 8 sockets
  CHECK(nccl::socket_threads(none, "ena", false).socks_per_thread == 8);
  CHECK(nccl::socket_threads(none, "gve", false).threads == 4);  // GCP gVNIC: 4 x 1
  CHECK(nccl::socket_threads(none, "gve", false).socks_per_thread == 1);
  CHECK(nccl::socket_threads(nccl::parse_nccl_env({{"NCCL_SOCKET_NTHREADS", "0"}}), "ena", false).threads == 0);
  // A pod in its own network namespace sees a veth, no vendor: no helper thread on any NIC,
  // unless the variables ask for them.
  CHECK(nccl::socket_threads(none, "ena", true).threads == 0);
  CHECK(nccl::socket_threads(none, "ena", true).socks_per_thread == 1);
  CHECK(nccl::socket_threads(none, "gve", true).threads == 0);
  CHECK(nccl::socket_threads(nccl::parse_nccl_env({{"NCCL_SOCKET_NTHREADS", "2"}}), "ena", true).threads == 2);
}
