// Catalog contents: every entry cites a source, and a few numbers checked against datasheets.
#include <catch2/catch.hpp>

#include "models/error.hpp"
#include "models/hw/gpu.hpp"
#include "models/hw/instance.hpp"
#include "models/hw/links.hpp"
#include "models/suggest.hpp"

TEST_CASE("hw: every catalog entry has a citation and sane numbers", "[models]") {
  for (const auto& g : models::hw::gpu_catalog()) {
    CHECK_FALSE(g.citation.empty());
    CHECK(g.hbm_bytes_per_s > 0);
    CHECK(g.fp32_flops > 0);
  }
  for (const auto& n : models::hw::instance_catalog()) {
    CHECK_FALSE(n.citation.empty());
    CHECK(n.gpus >= 1);
    CHECK(n.host_mem_bytes_per_s > 0);
    CHECK(n.eth_bytes_per_s > 0);
  }
}

TEST_CASE("hw: link bandwidths from their specifications", "[models]") {
  // H100 datasheet: 18 NVLink-4 links = 900 GB/s bidirectional -> 450 GB/s per direction.
  CHECK(18 * models::hw::nvlink(4).bytes_per_s == Approx(450e9));
  // B200: 1.8 TB/s bidirectional over 18 links.
  CHECK(18 * models::hw::nvlink(5).bytes_per_s == Approx(900e9));
  // PCIe Gen5 x16: 63 GB/s raw x 0.87 payload efficiency ~ 54.8 GB/s (measured 55.3 on h200x4).
  CHECK(models::hw::pcie(5, 16).bytes_per_s == Approx(54.8e9).epsilon(0.01));
  CHECK(models::hw::pcie(4, 8).bytes_per_s == Approx(models::hw::pcie(4, 16).bytes_per_s / 2));
  // NCCL's graph: Gen4 x16 24 GB/s (topo.h).
  CHECK(models::hw::pcie(4, 16).nccl_bytes_per_s == Approx(24e9));
  // p5en: 16 x 200 Gb/s EFA = 3200 Gb/s = 400 GB/s per direction.
  const auto& p5en = models::hw::find_instance("p5en.48xlarge");
  CHECK(p5en.nics * p5en.nic_bytes_per_s == Approx(400e9));
  // p4d host memory: 2 sockets x 6 DDR4-2933 channels x 8 B = 281.6 GB/s.
  CHECK(models::hw::find_instance("p4d.24xlarge").host_mem_bytes_per_s == Approx(281.6e9).epsilon(0.001));
  CHECK_THROWS_AS(models::hw::nvlink(6), models::SpecError);
  CHECK_THROWS_AS(models::hw::pcie(5, 12), models::SpecError);
}

TEST_CASE("hw: did-you-mean lists the closest names", "[models]") {
  auto close = models::closest_names("p4d.24xl", models::hw::instance_names());
  REQUIRE_FALSE(close.empty());
  CHECK(close[0] == "p4d.24xlarge");
  CHECK(models::edit_distance("H100", "h200") == 1);
  try {
    models::hw::find_gpu("H1000");
    FAIL("no error");
  } catch (const models::SpecError& e) {
    CHECK(std::string(e.what()).find("H100") != std::string::npos);
  }
}
