// [[jobs]] read into the spec (several jobs on one cluster, models/run/jobs.hpp): each entry's
// tables by the single-job code into its own JobSpec, keys and positions under jobs.<i>.
#include <catch2/catch.hpp>

#include "models/error.hpp"
#include "scenarios/load/loader.hpp"

namespace {
const char* kTwoJobs = R"(name = "two jobs"
[cluster]
instance = "p4d.24xlarge"
nodes = 8
[nccl.env]
NCCL_ALGO = "Ring"
[[jobs]]
name = "big"
nodes = [2, 5]
[jobs.model]
preset = "llama-3-8b"
seq = 1024
[jobs.training]
precision = "fp16"
[jobs.parallel]
strategy = "zero3"
[jobs.zero]
reduce_bucket_size = 1e8
[[jobs]]
nodes = 2
[jobs.placement]
pods_per_node = 8
[jobs.collective]
op = "all_gather"
bytes = "1 GiB"
)";
}  // namespace

TEST_CASE("loader: [[jobs]] fill one JobSpec each, the cluster and [nccl.env] stay shared", "[scenarios]") {
  const auto loaded = scenarios::load_scenario_text(kTwoJobs, "jobs.toml");
  const auto& s = loaded.spec;
  CHECK(s.cluster.nodes == 8);
  CHECK(s.nccl_env.at("NCCL_ALGO") == "Ring");
  CHECK_FALSE(s.model.has_value());
  CHECK(s.training.dtype == "bf16");  // the top level's, untouched by job 0's precision
  REQUIRE(s.jobs.size() == 2);
  const auto& big = s.jobs[0];
  CHECK(big.name == "big");
  CHECK(big.first_node == 2);
  CHECK(big.nodes == 4);
  REQUIRE(big.model.has_value());
  CHECK(big.model->preset == "llama-3-8b");
  CHECK(big.model->seq == 1024);
  CHECK(big.training.precision == "fp16");
  CHECK(big.training.dtype == "fp16");
  CHECK(big.parallel.strategy == "zero3");
  CHECK(big.zero.reduce_bucket_size == 1e8);
  CHECK_FALSE(big.collective.has_value());
  const auto& second = s.jobs[1];
  CHECK(second.name == "job1");
  CHECK_FALSE(second.first_node.has_value());
  CHECK(second.nodes == 2);
  CHECK(second.placement.pods_per_node == 8);
  CHECK(second.zero.reduce_bucket_size == 5e8);  // DeepSpeed's default: job 0's [zero] is its own
  REQUIRE(second.collective.has_value());
  CHECK(second.collective->op == "all_gather");
  // A model's error about job 1's placement points into job 1's table.
  const auto err = loaded.to_user_error(models::SpecError("jobs.1.placement.pods_per_node", "bad"));
  CHECK(err.pos().line == 22);
  CHECK(loaded.position_of("jobs.0.nodes").line == 9);
}
