// What moves a collective's simulated time, read off the engine (models/calibrate/param_effects.hpp):
// each parameter's effect is the relative change of the time when it is made 10 % costlier. Closed
// forms first (a bandwidth-bound ring follows its links' efficiency one for one, a host-bound loop
// its launch overhead), then the case a heuristic by link class got wrong, and the invariant the
// probes rest on: a parameter set to the value the engine already uses changes nothing.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "models/calibrate/nccl_tests.hpp"
#include "models/calibrate/param_effects.hpp"

using namespace models;

namespace {

ScenarioSpec machine(const std::string& instance, int nodes) {
  ScenarioSpec s;
  s.cluster.instance = instance;
  s.cluster.nodes = nodes;
  return s;
}

std::map<std::string, double> effects_of(const calibrate::RowEffects& r) {
  std::map<std::string, double> m;
  for (const auto& e : r.effects) m[e.name] = e.effect;
  return m;
}

}  // namespace

TEST_CASE("parameter effects: a bandwidth-bound ring follows the efficiency, a host-bound loop the launch cost",
          "[calibrate][effects]") {
  // One p5 (8 x H100, NVLink 4), rings: 4 GiB is bound by NVLink's bytes, 8 B by nccl-tests' loop.
  ScenarioSpec s = machine("p5.48xlarge", 1);
  s.nccl_env["NCCL_ALGO"] = "Ring";
  const auto rows = calibrate::parameter_effects(s, nccl::CollOp::AllReduce, {8, int64_t{4} << 30}, 8);
  REQUIRE(rows.size() == 2);
  const auto small = effects_of(rows[0]), large = effects_of(rows[1]);
  // Host-bound: T = (L^p + D^p)^(1/p) with D well below L, so dT/T ~ dL/L.
  REQUIRE(!rows[0].effects.empty());
  CHECK(rows[0].effects.front().name == "nccl.launch_overhead");
  CHECK(small.at("nccl.launch_overhead") == Approx(0.10).margin(0.01));
  // Bandwidth-bound: T ~ bytes / (eta B), so eta 10 % lower (eta / 1.1) is 10 % more time.
  REQUIRE(!rows[1].effects.empty());
  CHECK(rows[1].effects.front().name ==
        "nvlink.efficiency." + std::string(rows[1].row.proto == "LL128" ? "ll128" : "simple"));
  CHECK(rows[1].effects.front().effect == Approx(0.10).margin(0.005));
  CHECK(large.count("nccl.launch_overhead") == 0);
  // The tuner's own pick there is NVLS: the switch's efficiency scales its flows.
  const auto nvls =
      calibrate::parameter_effects(machine("p5.48xlarge", 1), nccl::CollOp::AllReduce, {int64_t{4} << 30}, 8);
  REQUIRE(nvls.size() == 1);
  REQUIRE(nvls[0].row.algo == "NVLS");
  REQUIRE(!nvls[0].effects.empty());
  CHECK(nvls[0].effects.front().name == "nvls.efficiency");
  CHECK(nvls[0].effects.front().effect == Approx(0.10).margin(0.005));
}

TEST_CASE("parameter effects: a two-node row that NVLink binds names NVLink, not the NIC", "[calibrate][effects]") {
  // 2 x p5.48xlarge at 16 GiB: the slowest edge of the ring is EFA, but the engine's time follows
  // NVLink's efficiency (its NVLSTree or ring moves most bytes inside the nodes); naming EFA's
  // efficiency from the link class sent a user to fit a parameter that moves the row by 0.05 %.
  const ScenarioSpec s = machine("p5.48xlarge", 2);
  const auto rows = calibrate::parameter_effects(s, nccl::CollOp::AllReduce, {int64_t{16} << 30}, 16);
  REQUIRE(rows.size() == 1);
  REQUIRE(!rows[0].effects.empty());
  INFO(rows[0].row.algo << "/" << rows[0].row.proto);
  const auto m = effects_of(rows[0]);
  for (const auto& e : rows[0].effects) INFO(e.name << " " << e.effect);
  const auto& top = rows[0].effects.front();
  CHECK(top.effect > 0.05);
  // Whatever binds it is named first, and nothing named after it moves the row more.
  for (const auto& e : rows[0].effects) CHECK(e.effect <= top.effect);
  const std::string efa = "efa.efficiency." + std::string(rows[0].row.proto == "LL128" ? "ll128" : "simple");
  CHECK(top.name.rfind("efa.", 0) != 0);
  CHECK((m.count(efa) == 0 || m.at(efa) < 0.3 * top.effect));
}

TEST_CASE("parameter effects: a parameter set to the engine's own value changes no time", "[calibrate][effects]") {
  // The probes scale the value the engine prices with; where that comes from a rule by generation
  // (NVLink's Simple efficiency and channel rate, NVLS's efficiency), engine_param_value must follow
  // the engine's rule, or a probe would move a row by the rule's difference, not by 10 %.
  const std::vector<std::string> names = {
      "nvlink.efficiency.simple", "nvlink.channel_bandwidth", "nvls.efficiency",       "nvlink.hop_latency.ll",
      "nccl.launch_overhead",     "efa.efficiency.simple",    "efa.hop_latency.simple"};
  for (const auto& [instance, nodes] :
       std::vector<std::pair<std::string, int>>{{"p5.48xlarge", 2}, {"p6-b200.48xlarge", 1}, {"p4d.24xlarge", 1}}) {
    const ScenarioSpec s = machine(instance, nodes);
    const std::vector<int64_t> sizes = {1024, 1 << 20, 256 << 20};
    const auto base = calibrate::run_nccl_tests_at(s, nccl::CollOp::AllReduce, sizes);
    for (const std::string& name : names) {
      ScenarioSpec set = s;
      set.cluster.params[name] = calibrate::engine_param_value(s, name, false);
      const auto again = calibrate::run_nccl_tests_at(set, nccl::CollOp::AllReduce, sizes);
      for (std::size_t k = 0; k < sizes.size(); ++k) {
        INFO(instance << " " << name << " at " << sizes[k] << " B");
        CHECK(again[k].time_us == Approx(base[k].time_us).epsilon(1e-9));
      }
    }
  }
}
