// Training steps over TCP between "pods" of one 4 x H200 host (scenarios/validation/h200x4/
// measured/tcp/: NCCL 2.28.9 through PyTorch, NCCL_HOSTID per pod so NCCL falls back to NET/Socket
// between pods; README there). Predicted by scenarios/validation/h200x4/{z3,tp,pp}_*_n4.toml with
// the machine's nccl-tests profile (fitted on nccl-tests curves, not on these steps).
// Target: within 10 %. The mechanism: each rank's NCCL proxy thread moves all of its Socket
// traffic (no helper threads off AWS/GCP NICs), so a rank that only sends over TCP (a ring's one
// network edge per pod boundary) moves 1/socket.thread_duplex of what a rank that sends and
// receives does per direction: 0.45 measured through NCCL on this host (7.6 GB/s per one-way
// edge, 2 pods x 2, against 3.4 GB/s both ways, all pairs Socket; all_gather 64 MiB).
// As it stands: FSDP2 all Socket -5.4 %, 2 pods x 2 -1.0 %, PP all Socket -3.4 %. Not explained:
// FSDP2 as 4 pods x 1 (NCCL sees what it sees in the all-Socket run: 4 nodes, 2 channels) ran
// 25 % faster than the all-Socket run, and TP 4 over Socket 23 % faster than the model; both
// are asserted as they stand so a change shows.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "models/run/run.hpp"
#include "scenarios/load/loader.hpp"

namespace {
double error_of(const std::string& tag) {
  const std::string dir = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/h200x4/";
  std::ifstream in(dir + "measured/tcp/torch/" + tag + ".json");
  REQUIRE(in.good());
  const double measured = nlohmann::json::parse(in).at("mean_step_s").get<double>();
  const double predicted = models::run_scenario(scenarios::load_scenario(dir + tag + ".toml").spec).step_time_s;
  const double err = predicted / measured - 1;
  std::printf("%-12s measured %.4f s, predicted %.4f s, %+5.1f %%\n", tag.c_str(), measured, predicted, err * 100);
  return err;
}
}  // namespace

TEST_CASE("validation: 4 x H200 steps over TCP between pods within 10 %", "[validation][workload]") {
  CHECK(std::fabs(error_of("z3_sock_n4")) <= 0.10);
  CHECK(std::fabs(error_of("z3_pod2_n4")) <= 0.05);
  CHECK(std::fabs(error_of("pp_sock_n4")) <= 0.05);
}

TEST_CASE("validation: 4 x H200 TCP steps the model does not explain yet", "[validation][workload]") {
  // See the header: the model over-predicts both by ~25 %.
  const double pod1 = error_of("z3_pod1_n4"), tp = error_of("tp_sock_n4");
  CHECK(pod1 > 0);
  CHECK(pod1 <= 0.30);
  CHECK(tp > 0);
  CHECK(tp <= 0.30);
}
