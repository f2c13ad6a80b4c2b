// import k8s writes placement.nics_per_pod from the pods' vpc.amazonaws.com/efa limit.
#include <catch2/catch.hpp>

#include "scenarios/import/k8s_job.hpp"

TEST_CASE("import k8s: vpc.amazonaws.com/efa: N becomes placement.nics_per_pod", "[scenarios]") {
  const std::string inputs = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/examples/inputs/";
  // MPIJob: 2 workers x 8 GPUs on p4d.24xlarge, each asking for its host's 4 EFAs.
  const auto job = scenarios::read_k8s_job(inputs + "mpijob_p4d_2x8.yaml");
  const std::string toml = scenarios::scenario_from_k8s(job, scenarios::ImportOptions{});
  CHECK(toml.find("nics_per_pod = 4") != std::string::npos);
}
