// Impossible layouts and bad NCCL values give one SpecError naming the key at fault.
#include <catch2/catch.hpp>

#include "models/error.hpp"
#include "models/spec.hpp"
#include "models/world/world.hpp"
#include "sim/flow_network.hpp"
#include "sim/simulator.hpp"

namespace {
std::string error_key_transport_bad_input(const models::ScenarioSpec& spec, std::string* message = nullptr) {
  sim::Simulator simulator;
  sim::FlowNetwork net(simulator);
  try {
    models::World::build(spec, net);
  } catch (const models::SpecError& e) {
    if (message) *message = e.what();
    return e.key();
  }
  return "";
}
models::ScenarioSpec p4d(int pods, int gpus) {
  models::ScenarioSpec s;
  s.cluster.instance = "p4d.24xlarge";
  s.placement.pods_per_node = pods;
  s.placement.gpus_per_pod = gpus;
  return s;
}
}  // namespace

TEST_CASE("transport: unknown instance names the closest catalog names", "[models][nccl]") {
  auto s = p4d(1, 8);
  s.cluster.instance = "p4d.24xl";
  std::string msg;
  CHECK(error_key_transport_bad_input(s, &msg) == "cluster.instance");
  CHECK(msg.find("did you mean p4d.24xlarge") != std::string::npos);
  s.cluster.instance = "p5.48xlarg";
  CHECK(error_key_transport_bad_input(s, &msg) == "cluster.instance");
  CHECK(msg.find("p5.48xlarge") != std::string::npos);
}

TEST_CASE("transport: more GPUs per pod than the node has", "[models][nccl]") {
  std::string msg;
  CHECK(error_key_transport_bad_input(p4d(1, 16), &msg) == "placement.gpus_per_pod");
  CHECK(msg.find("node has 8 GPUs") != std::string::npos);
}

TEST_CASE("transport: pods x GPUs that do not tile the node", "[models][nccl]") {
  CHECK(error_key_transport_bad_input(p4d(3, 0)) == "placement.pods_per_node");  // 8 GPUs among 3 pods
  CHECK(error_key_transport_bad_input(p4d(4, 4)) == "placement.pods_per_node");  // 16 > 8
  CHECK(error_key_transport_bad_input(p4d(1, 4)).empty());                       // seeds/002: 1 pod x 4 GPUs is fine
}

TEST_CASE("transport: unknown value of a known NCCL variable", "[models][nccl]") {
  auto s = p4d(1, 8);
  std::string msg;
  s.nccl_env["NCCL_P2P_LEVEL"] = "NODE";
  CHECK(error_key_transport_bad_input(s, &msg) == "nccl.env.NCCL_P2P_LEVEL");
  CHECK(msg.find("PHB") != std::string::npos);
  s.nccl_env = {{"NCCL_P2P_DISABLE", "yes"}};
  CHECK(error_key_transport_bad_input(s) == "nccl.env.NCCL_P2P_DISABLE");
  s.nccl_env = {{"NCCL_NET", "Ethernet"}};
  CHECK(error_key_transport_bad_input(s) == "nccl.env.NCCL_NET");
  s.nccl_env = {{"NCCL_MAX_NCHANNELS", "65"}};
  CHECK(error_key_transport_bad_input(s) == "nccl.env.NCCL_MAX_NCHANNELS");
  s.nccl_env = {{"NCCL_SOCKET_NTHREADS", "8"}, {"NCCL_NSOCKS_PERTHREAD", "16"}};
  CHECK(error_key_transport_bad_input(s) == "nccl.env.NCCL_NSOCKS_PERTHREAD");
  s.nccl_env = {{"NCCL_NET", "IB"}};  // p4d has EFA, no InfiniBand
  CHECK(error_key_transport_bad_input(s) == "nccl.env.NCCL_NET");
  s.nccl_env = {{"NCCL_DEBUG", "INFO"}, {"NCCL_BUFFSIZE", "8388608"}};  // fine
  CHECK(error_key_transport_bad_input(s).empty());
}
