// The Blackwell and cloud entries of the catalogs (gpu.cpp, instance_blackwell.cpp,
// instance_clouds.cpp): datasheet numbers per GPU, the NVLink domain as a node of hosts, NICs per
// GPU, and the names users type for them.
#include <catch2/catch.hpp>

#include <string>

#include "models/error.hpp"
#include "models/hw/gpu.hpp"
#include "models/hw/instance.hpp"

using models::hw::find_gpu;
using models::hw::find_instance;

TEST_CASE("hw: Blackwell GPUs carry their datasheets' dense peaks and memory", "[models]") {
  // HGX B200, per GPU (board / 8, sparse / 2): bf16 2.25, fp8 4.5, fp4 9 PF; 180 GB at 8 TB/s.
  const auto& b200 = find_gpu("B200");
  CHECK(b200.bf16_flops == Approx(2.25e15));
  CHECK(b200.fp8_flops == Approx(4.5e15));
  CHECK(b200.fp4_flops == Approx(9e15));
  CHECK(b200.hbm_bytes == Approx(180e9));
  CHECK(b200.hbm_bytes_per_s == Approx(8e12));
  // GB200 NVL72 / 72: bf16 360/2/72 = 2.5, fp8 720/2/72 = 5, fp4 1440/2/72 = 10 PF; 13.4 TB / 72 = 186 GB.
  const auto& gb200 = find_gpu("GB200");
  CHECK(gb200.bf16_flops == Approx(2.5e15));
  CHECK(gb200.fp8_flops == Approx(5e15));
  CHECK(gb200.fp4_flops == Approx(10e15));
  CHECK(gb200.hbm_bytes == Approx(186e9));
  // Blackwell Ultra: fp4 dense HGX B300 108 PF / 8 = 13.5, GB300 NVL72 1,080 / 72 = 15 PF.
  CHECK(find_gpu("B300").fp4_flops == Approx(13.5e15));
  CHECK(find_gpu("GB300").fp4_flops == Approx(15e15));
  CHECK(find_gpu("B300").hbm_bytes == Approx(288e9));
  for (const char* g : {"B200", "B300", "GB200", "GB300"}) {
    CHECK(find_gpu(g).sm >= 100);
    CHECK(find_gpu(g).nvlink_gen == 5);
  }
  // Hopper has fp8 but no fp4.
  CHECK(find_gpu("H100").fp4_flops == 0);
}

TEST_CASE("hw: NVL72 racks are one node of 18 hosts of 4 GPUs, one NIC per GPU", "[models]") {
  for (const char* name : {"gb200-nvl72", "gb200-nvl36x2", "gb300-nvl72", "u-p6e-gb200x72", "nd-gb200-v6-nvl72",
                           "a4x-nvl72"}) {
    INFO(name);
    const auto& n = find_instance(name);
    CHECK(n.gpus == 72);
    CHECK(n.host_gpus == 4);
    CHECK(n.hosts() == 18);
    CHECK(n.host_of(71) == 17);
    CHECK(n.nics == 72);
    CHECK(n.nvswitch);
    CHECK(n.nvls);
    CHECK_FALSE(n.nic_tech.empty());
  }
  // GB300: ConnectX-8 at 800 Gb/s per GPU; GB200 racks: 400 Gb/s per GPU.
  CHECK(find_instance("gb300-nvl72").nic_bytes_per_s == Approx(100e9));
  CHECK(find_instance("gb200-nvl72").nic_bytes_per_s == Approx(50e9));
  CHECK(find_instance("u-p6e-gb200x36").gpus == 36);
  CHECK(find_instance("u-p6e-gb200x36").hosts() == 9);
  // One-host nodes keep host_gpus 0: one host.
  CHECK(find_instance("dgx-b200").hosts() == 1);
}

TEST_CASE("hw: every multi-host NVLink domain says what the model leaves out, across its hosts and across racks",
          "[models]") {
  // Whoever sells the rack (the catalog's, AWS's UltraServers, Azure's and GCP's racks of VMs),
  // NVLS over its hosts and NVLSTree between racks are the same mechanisms: a run spanning hosts
  // carries the NVLS caveat, a run on two racks or more the NVLSTree one, one rack of one host none.
  int racks = 0;
  for (const auto& n : models::hw::instance_catalog()) {
    if (n.host_gpus == 0 || n.host_gpus >= n.gpus) continue;
    INFO(n.name);
    ++racks;
    CHECK(n.nvlink_caveat(n.gpus).find("NVLS across the rack's hosts") != std::string::npos);
    CHECK(n.nvlink_caveat(n.host_gpus).empty());
    CHECK(n.network_caveat(2).find("across NVLink domains NVLSTree is an optimistic bound") != std::string::npos);
    CHECK(n.network_caveat(1).empty());
  }
  CHECK(racks >= 7);
}

TEST_CASE("hw: cloud machines carry their NIC technology and rates", "[models]") {
  // Per node, per direction: A3 High 4 x 200 Gb/s = 100 GB/s, A3 Mega 8 x 200 = 200, A3 Ultra and
  // A4 8 x 400 = 400, ND H100 v5 8 x 400 = 400 GB/s.
  auto total = [](const char* n) { return find_instance(n).nics * find_instance(n).nic_bytes_per_s; };
  CHECK(total("a3-highgpu-8g") == Approx(100e9));
  CHECK(total("a3-megagpu-8g") == Approx(200e9));
  CHECK(total("a3-ultragpu-8g") == Approx(400e9));
  CHECK(total("a4-highgpu-8g") == Approx(400e9));
  CHECK(total("nd-h100-v5") == Approx(400e9));
  CHECK(find_instance("nd-h200-v5").gpu.name == "H200");
  CHECK(find_instance("a3-highgpu-8g").nic_tech.find("TCPX") != std::string::npos);
  CHECK(find_instance("a3-megagpu-8g").nic_tech.find("TCPXO") != std::string::npos);
  CHECK(find_instance("nd-h100-v5").nic_tech.find("InfiniBand NDR") != std::string::npos);
  CHECK(find_instance("p6-b200.48xlarge").nic_tech == "EFA v4");
  CHECK(find_instance("dgx-b300").nic_bytes_per_s == Approx(100e9));  // ConnectX-8, 800 Gb/s
  // p6-b300: 6.4 Tbps as the 16 EFA interfaces NCCL finds (AWS's compute-test.md), two per GPU.
  CHECK(find_instance("p6-b300.48xlarge").nics == 16);
  CHECK(find_instance("p6-b300.48xlarge").nics_per_switch == 2);
  CHECK(total("p6-b300.48xlarge") == Approx(800e9));
  // Both ND v5 VMs run NVLS (Azure's own NVLS all_reduce_perf, scenarios/validation/azure_nd_v5).
  CHECK(find_instance("nd-h100-v5").nvls);
  CHECK(find_instance("nd-h200-v5").nvls);
}

TEST_CASE("hw: instance names as users type them, and the VM of an NVLink domain", "[models]") {
  // Case and - _ . do not matter.
  CHECK(find_instance("GB200_NVL72").name == "gb200-nvl72");
  CHECK(find_instance("gb200nvl72").name == "gb200-nvl72");
  CHECK(find_instance("Standard_ND96isr_H100_v5").name == "nd-h100-v5");
  // A near miss names the rack among its suggestions.
  try {
    find_instance("gb200-nvl27");
    FAIL("expected a SpecError");
  } catch (const models::SpecError& e) {
    CHECK(std::string(e.what()).find("gb200-nvl72") != std::string::npos);
  }
  // One VM of an NVL72 domain is not a node: the message names the domain's entry.
  try {
    find_instance("a4x-highgpu-4g");
    FAIL("expected a SpecError");
  } catch (const models::SpecError& e) {
    CHECK(e.key() == "cluster.instance");
    CHECK(std::string(e.what()).find("expected instance = \"a4x-nvl72\": 72 GPUs per node") != std::string::npos);
  }
}
