// Interruptions per component (models/goodput/failures.hpp) and a checkpoint's cost (checkpoint.hpp).
#include <catch2/catch.hpp>

#include "models/error.hpp"
#include "models/goodput/checkpoint.hpp"
#include "models/goodput/failures.hpp"

using namespace models::goodput;

TEST_CASE("failures: the defaults give Llama 3's 419 interruptions in 54 days on 16,384 GPUs", "[goodput]") {
  // The registry's rates are Table 5's counts over 16,384 GPUs and 2,048 hosts x 1,296 h.
  const FailureModel m = failure_model({}, 16384, 2048);
  CHECK(m.per_hour() * 24 * 54 == Approx(419).epsilon(1e-9));
  CHECK(m.mtbf_s() / 3600 == Approx(54 * 24 / 419.0).epsilon(1e-9));  // 3.09 h
  double gpu = 0, hbm = 0, host = 0;
  for (const auto& c : m.components) {
    if (c.name == "gpu") gpu = c.per_hour;
    if (c.name == "hbm") hbm = c.per_hour;
    if (c.name == "host") host = c.per_hour;
  }
  CHECK(gpu * 24 * 54 == Approx(196));
  CHECK(hbm * 24 * 54 == Approx(72));
  CHECK(host * 24 * 54 == Approx(46));
  // Linear in the job's size: 1,024 GPUs on 128 hosts fail 16 x less often.
  CHECK(failure_model({}, 1024, 128).per_hour() == Approx(m.per_hour() / 16));
  // A scenario's own rate replaces the default; out of range is refused.
  CHECK(failure_model({{"failures.hbm", 0}}, 16384, 2048).per_hour() * 24 * 54 == Approx(419 - 72));
  CHECK_THROWS_AS(failure_model({{"failures.gpu", -1}}, 8, 1), models::SpecError);
}

TEST_CASE("checkpoint: size, write time, and what async saves", "[goodput]") {
  // Llama 3 405B with Adam: 405e9 x (2 + 12) B = 5.67 TB; at Tectonic's 2 TB/s, 2.835 s.
  const CheckpointCost sync = checkpoint_cost(
      {.params = 405e9, .bytes_per_param = 14, .gpus = 16384, .storage_bandwidth = 2e12, .host_copy_bandwidth = 64e9});
  CHECK(sync.bytes == Approx(5.67e12));
  CHECK(sync.write_s == Approx(2.835));
  CHECK(sync.blocking_s == sync.write_s);
  // Async: each GPU copies its 346 MB shard at 64 GB/s (PCIe 5 x16), 5.4 ms.
  const CheckpointCost async = checkpoint_cost({.params = 405e9, .bytes_per_param = 14, .gpus = 16384,
                                                .storage_bandwidth = 2e12, .host_copy_bandwidth = 64e9, .async = true});
  CHECK(async.write_s == sync.write_s);
  CHECK(async.blocking_s == Approx(5.67e12 / 16384 / 64e9));
}
