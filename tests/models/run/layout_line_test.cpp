// The one line every output prints beside a run's numbers (models/run/layout_line.hpp): GPUs =
// nodes x pods per node x GPUs per pod, pods = nodes x pods per node, and the parallel layout.
#include "models/run/layout_line.hpp"

#include <catch2/catch.hpp>

#include "models/error.hpp"

namespace {
models::ScenarioSpec p4d_layout_line(int pods_per_node, int gpus_per_pod) {
  models::ScenarioSpec s;
  s.cluster.instance = "p4d.24xlarge";
  s.cluster.nodes = 1;
  s.placement.pods_per_node = pods_per_node;
  s.placement.gpus_per_pod = gpus_per_pod;
  s.model.emplace().preset = "llama-3-8b";
  s.parallel.strategy = "zero3";
  return s;
}
}  // namespace

TEST_CASE("layout line: GPUs, nodes, pods and the strategy of the seeds' three layouts", "[models]") {
  // 1 node x 1 pod x 4 GPUs = 4 GPUs; 1 x 4 x 1 = 4 GPUs in 4 pods; an override to 1 GPU per pod
  // without more pods leaves 1 GPU (the what-if that used to keep its name and hide the change).
  const auto one_pod = models::describe_layout(p4d_layout_line(1, 4));
  CHECK(one_pod.gpus == 4);
  CHECK(one_pod.nodes == 1);
  CHECK(one_pod.pods == 1);
  CHECK(one_pod.line == "4 GPUs: 1 node p4d.24xlarge, 1 pod x 4 GPUs (4 of 8 GPUs per node idle); zero3, dp 4");
  const auto four_pods = models::describe_layout(p4d_layout_line(4, 1));
  CHECK(four_pods.gpus == 4);
  CHECK(four_pods.pods == 4);
  CHECK(four_pods.line == "4 GPUs: 1 node p4d.24xlarge, 4 pods x 1 GPU (4 of 8 GPUs per node idle); zero3, dp 4");
  const auto shrunk = models::describe_layout(p4d_layout_line(1, 1));
  CHECK(shrunk.gpus == 1);
  CHECK(shrunk.line == "1 GPU: 1 node p4d.24xlarge, 1 pod x 1 GPU (7 of 8 GPUs per node idle); zero3, dp 1");
}

TEST_CASE("layout line: Megatron's dp is GPUs / (tp x pp x cp), with vp shown", "[models]") {
  models::ScenarioSpec s;
  s.cluster.instance = "dgx-a100-80gb";
  s.cluster.nodes = 8;  // 8 x 8 = 64 GPUs, all of a node in one pod (gpus_per_pod 0)
  s.model.emplace().preset = "gpt3-175b";
  s.parallel.strategy = "megatron";
  s.parallel.tp = 8;
  s.parallel.pp = 4;
  s.parallel.vp = 3;
  const auto l = models::describe_layout(s);
  CHECK(l.gpus == 64);
  CHECK(l.pods == 8);
  CHECK(l.line == "64 GPUs: 8 nodes dgx-a100-80gb, 8 pods x 8 GPUs; megatron tp 8 pp 4 dp 2 (vp 3)");
}

TEST_CASE("layout line: a bare collective names its op and size", "[models]") {
  auto s = p4d_layout_line(1, 4);
  s.model.reset();
  s.collective.emplace();
  s.collective->op = "all_reduce";
  s.collective->bytes = int64_t{1} << 30;
  s.collective->iterations = 20;
  CHECK(models::describe_layout(s).line ==
        "4 GPUs: 1 node p4d.24xlarge, 1 pod x 4 GPUs (4 of 8 GPUs per node idle); all_reduce of 1 GiB x 20 iterations");
}

TEST_CASE("layout line: a layout that does not tile the node is the placement's error", "[models]") {
  CHECK_THROWS_AS(models::describe_layout(p4d_layout_line(4, 4)), models::SpecError);  // 16 GPUs on an 8-GPU node
}
