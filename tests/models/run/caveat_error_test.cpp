// The error measured where a run's caveats apply (models/run/caveat_error.hpp): ZeRO offload's
// whole steps (28-37 % slower than predicted: 0.37), the network across NVL72 racks (two racks
// 9-24 % slower from 512 MiB: 0.24; twenty 2.3x the model's time: 1.3 from three on); any other
// caveat states no error of a whole step (0), and the largest of a run's caveats is its figure.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "models/hw/instance.hpp"
#include "models/run/caveat_error.hpp"
#include "models/workload/steps/data_parallel.hpp"

TEST_CASE("caveat error: ZeRO offload and the network across NVL72 racks, by rack count", "[models]") {
  using models::caveats_measured_error;
  CHECK(caveats_measured_error({}, 1) == 0);
  CHECK(caveats_measured_error({models::workload::kOffloadCaveat}, 1) == 0.37);
  const models::hw::NodeSpec& rack = models::hw::find_instance("u-p6e-gb200x72");
  const std::string two = rack.network_caveat(2), three = rack.network_caveat(3);
  REQUIRE(!two.empty());
  CHECK(caveats_measured_error({two}, 2) == 0.24);
  CHECK(caveats_measured_error({three}, 3) == 1.3);
  CHECK(caveats_measured_error({models::workload::kOffloadCaveat, two}, 2) == 0.37);  // the largest
  // A caveat with no figure for a whole step moves nothing: NVLS across the rack's hosts, a price.
  CHECK(caveats_measured_error({rack.nvlink_caveat(64)}, 1) == 0);
  CHECK(caveats_measured_error({"p5.48xlarge: the given $4.40 per node-hour is 0.08 x the catalog's"}, 1) == 0);
}
