// Host graphs: path types and bottleneck bandwidths, and the nvidia-smi topo -m import.
#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <sstream>

#include "models/error.hpp"
#include "models/hw/instance.hpp"
#include "models/parse_error.hpp"
#include "models/readers/smi_topo.hpp"
#include "models/topology/node_graph.hpp"
#include "models/topology/resolve.hpp"

using models::PathType;
using models::topology::NodeGraph;

namespace {
std::string read(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
// The g6e.12xlarge matrix from seeds/000 (spaces, as pasted in the notes).
const char* kG6e =
    "# nvidia-smi topo -m\n"
    "        GPU0    GPU1    GPU2    GPU3    CPU Affinity    NUMA Affinity   GPU NUMA ID\n"
    "GPU0     X      NODE    NODE    NODE    0-47    0               N/A\n"
    "GPU1    NODE     X      NODE    NODE    0-47    0               N/A\n"
    "GPU2    NODE    NODE     X      NODE    0-47    0               N/A\n"
    "GPU3    NODE    NODE    NODE     X      0-47    0               N/A\n"
    "\nLegend:\n\n  X    = Self\n";
}  // namespace

TEST_CASE("topology: p4d paths are NV12 between GPUs, PIX to the EFA on their switch", "[models]") {
  NodeGraph g(models::hw::find_instance("p4d.24xlarge"));
  // seeds/000 topo -m: every GPU pair NV12 (NVSwitch).
  CHECK(g.gpu_gpu(0, 7).type == PathType::NVL);
  CHECK(g.gpu_gpu(0, 7).nv_links == 12);
  // Bottleneck of GPU->NVSwitch->GPU: 12 links x 25 GB/s (A100 datasheet, 600 GB/s bidirectional).
  CHECK(g.gpu_gpu(0, 7).bytes_per_s == Approx(300e9));
  // PCIe: GPUs 0,1 share a switch (PIX); 0,2 cross host bridges in NUMA 0 (NODE); 0,4 cross sockets (SYS).
  CHECK(g.gpu_gpu_pcie(0, 1).type == PathType::PIX);
  CHECK(g.gpu_gpu_pcie(0, 2).type == PathType::NODE);
  CHECK(g.gpu_gpu_pcie(0, 4).type == PathType::SYS);
  CHECK(g.gpu_nic(0, 0).type == PathType::PIX);
  CHECK(g.gpu_nic(0, 3).type == PathType::SYS);
  // GPU -> EFA bottleneck: the NIC's 100 Gb/s = 12.5 GB/s, below PCIe Gen4 x16 (27 GB/s).
  CHECK(g.gpu_nic(0, 0).bytes_per_s == Approx(12.5e9));
}

TEST_CASE("topology: calibration machine is NV18 everywhere, PHB over PCIe", "[models]") {
  NodeGraph g(models::hw::find_instance("h200x4"));
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b)
      if (a != b) {
        CHECK(g.gpu_gpu(a, b).type == PathType::NVL);
        CHECK(g.gpu_gpu(a, b).nv_links == 18);
        // NCCL's graph (logs/p2p_n4.rank0.log): "GPU/0-70 (2/370.8/NVL)" = 18 x 20.6 GB/s.
        CHECK(g.gpu_gpu(a, b).nccl_bytes_per_s == Approx(370.8e9));
        // log: "CPU/0-ffffffffffffff (1/48.0/PHB)": every GPU on the one CPU, PCIe Gen5 48 GB/s.
        CHECK(g.gpu_gpu_pcie(a, b).type == PathType::PHB);
        CHECK(g.gpu_cpu(a).nccl_bytes_per_s == Approx(48e9));
      }
}

TEST_CASE("topology: import of the calibration topo.txt with ANSI codes and tabs", "[models]") {
  auto m = models::readers::parse_smi_topo(read(COMMSIM_SOURCE_DIR "/scenarios/validation/h200x4/measured/topo.txt"),
                                           "topo.txt");
  REQUIRE(m.gpus == 4);
  CHECK(m.nics == 0);
  CHECK(m.gpu_gpu[0][3] == PathType::NVL);
  CHECK(m.nv_links[2][1] == 18);
  CHECK(m.gpu_numa[3] == 0);
  CHECK(m.cpu_affinity[0] == "0-63");
  // As a custom node: the graph rebuilt from the matrix prints the same matrix.
  models::CustomNodeSpec spec;
  spec.gpu = "H200";
  spec.topo_file = "topo.txt";
  NodeGraph g(models::topology::node_from_matrix(spec, m));
  auto back = g.smi_matrix();
  CHECK(back.gpu_gpu == m.gpu_gpu);
  CHECK(back.nv_links == m.nv_links);
}

TEST_CASE("topology: import of seeds' g6e.12xlarge matrix reproduces NODE paths", "[models]") {
  auto m = models::readers::parse_smi_topo(kG6e, "g6e.txt");
  REQUIRE(m.gpus == 4);
  CHECK(m.gpu_gpu[1][2] == PathType::NODE);
  models::CustomNodeSpec spec;
  spec.gpu = "L40S";
  spec.pcie = "gen4";
  NodeGraph g(models::topology::node_from_matrix(spec, m));
  CHECK(g.smi_matrix().gpu_gpu == m.gpu_gpu);
  // The catalog entry agrees with the seed's matrix.
  NodeGraph cat(models::hw::find_instance("g6e.12xlarge"));
  CHECK(cat.smi_matrix().gpu_gpu == m.gpu_gpu);
}

TEST_CASE("topology: a matrix with switches and NICs round-trips through the graph", "[models]") {
  const char* text =
      "\tGPU0\tGPU1\tGPU2\tGPU3\tNIC0\tNIC1\tCPU Affinity\tNUMA Affinity\n"
      "GPU0\t X \tPIX\tPXB\tSYS\tPIX\tSYS\t0-15\t0\n"
      "GPU1\tPIX\t X \tPXB\tSYS\tPIX\tSYS\t0-15\t0\n"
      "GPU2\tPXB\tPXB\t X \tSYS\tPXB\tSYS\t0-15\t0\n"
      "GPU3\tSYS\tSYS\tSYS\t X \tSYS\tPIX\t16-31\t1\n"
      "NIC0\tPIX\tPIX\tPXB\tSYS\t X \tSYS\n"
      "NIC1\tSYS\tSYS\tSYS\tPIX\tSYS\t X \n"
      "\nNIC Legend:\n\n  NIC0: mlx5_0\n  NIC1: mlx5_1\n";
  auto m = models::readers::parse_smi_topo(text, "t.txt");
  CHECK(m.nic_names[1] == "mlx5_1");
  models::CustomNodeSpec spec;
  spec.gpu = "A100-80GB";
  spec.nics = 2;
  spec.nic_bytes_per_s = 25e9;
  spec.nic_kind = "ib";
  NodeGraph g(models::topology::node_from_matrix(spec, m));
  auto back = g.smi_matrix();
  CHECK(back.gpu_gpu == m.gpu_gpu);
  CHECK(back.gpu_nic == m.gpu_nic);
}

TEST_CASE("topology: garbage in a matrix is reported at its line and column", "[models]") {
  const char* bad =
      "        GPU0    GPU1    CPU Affinity    NUMA Affinity\n"
      "GPU0     X      NV1X    0-47    0\n"
      "GPU1    NV12     X      0-47    0\n";
  try {
    models::readers::parse_smi_topo(bad, "bad.txt");
    FAIL("no error");
  } catch (const models::ParseError& e) {
    CHECK(e.line() == 2);
    CHECK(e.col() == 17);  // "GPU0" 4 + 5 spaces + "X" + 6 spaces: NV1X starts at column 17
    CHECK(std::string(e.what()).find("NV1X") != std::string::npos);
  }
  CHECK_THROWS_AS(models::readers::parse_smi_topo("hello\nworld\n", "x.txt"), models::ParseError);
  const char* short_row = "        GPU0    GPU1    CPU Affinity\nGPU0     X      NV12\nGPU1\n";
  CHECK_THROWS_AS(models::readers::parse_smi_topo(short_row, "s.txt"), models::ParseError);
}

TEST_CASE("topology: topo file NIC count must match the scenario", "[models]") {
  const char* text =
      "\tGPU0\tGPU1\tNIC0\tCPU Affinity\tNUMA Affinity\n"
      "GPU0\t X \tNV4\tPIX\t0-7\t0\n"
      "GPU1\tNV4\t X \tPIX\t0-7\t0\n"
      "NIC0\tPIX\tPIX\t X \n";
  auto m = models::readers::parse_smi_topo(text, "t.txt");
  models::CustomNodeSpec spec;
  spec.gpu = "A100-80GB";
  spec.nics = 2;
  spec.nic_bytes_per_s = 25e9;
  try {
    models::topology::node_from_matrix(spec, m);
    FAIL("no error");
  } catch (const models::SpecError& e) {
    CHECK(e.key() == "cluster.node.nics");
  }
}

// NVB: GPU0 reaches GPU2 and GPU3 only through other GPUs' NVLinks (NCCL's PATH_NVB, paths.cc);
// the path's NV# is its narrowest bond. The same output as the pair-by-pair search it replaced.
TEST_CASE("topology: NVLink through another GPU is NVB, bounded by its narrowest bond", "[models]") {
  const char* text =
      "\tGPU0\tGPU1\tGPU2\tGPU3\tNIC0\tCPU Affinity\tNUMA Affinity\n"
      "GPU0\t X \tNV2\tPIX\tSYS\tPIX\t0-15\t0\n"
      "GPU1\tNV2\t X \tNV2\tSYS\tPIX\t0-15\t0\n"
      "GPU2\tPIX\tNV2\t X \tNV1\tPIX\t0-15\t0\n"
      "GPU3\tSYS\tSYS\tNV1\t X \tSYS\t16-31\t1\n"
      "NIC0\tPIX\tPIX\tPIX\tSYS\t X \n";
  models::CustomNodeSpec spec;
  spec.gpu = "A100-80GB";
  spec.nics = 1;
  spec.nic_bytes_per_s = 25e9;
  spec.nic_kind = "ib";
  NodeGraph g(models::topology::node_from_matrix(spec, models::readers::parse_smi_topo(text, "nvb.txt")));
  CHECK(g.gpu_gpu(0, 1).type == PathType::NVL);
  CHECK(g.gpu_gpu(0, 2).type == PathType::NVB);
  CHECK(g.gpu_gpu(0, 2).nv_links == 2);
  CHECK(g.gpu_gpu(0, 2).hops == 2);
  CHECK(g.gpu_gpu(0, 3).type == PathType::NVB);
  CHECK(g.gpu_gpu(0, 3).nv_links == 1);
  CHECK(g.gpu_gpu(0, 3).hops == 3);
  CHECK(g.gpu_gpu_pcie(0, 2).type == PathType::PIX);
  CHECK(g.gpu_gpu_pcie(0, 3).type == PathType::SYS);
  CHECK(g.gpu_nic(3, 0).type == PathType::SYS);
  CHECK(g.smi_matrix().gpu_gpu[0][2] == PathType::PIX);  // nvidia-smi prints the PCIe relation
}

// A 1,024-GPU custom node took minutes to set up (two searches per pair of devices;
// 256 GPUs: 51 s, a 256-GPU topology file: 33 s). Two searches per GPU now: seconds at most.
TEST_CASE("topology: 1,024-GPU nodes and a 512-GPU topology file set up in seconds", "[models]") {
  using clock = std::chrono::steady_clock;
  for (bool nvswitch : {true, false}) {
    models::hw::NodeSpec node = models::topology::resolve_node([&] {
      models::ClusterSpec c;
      c.node = models::CustomNodeSpec{};
      c.node->gpu = "H200";
      c.node->gpus = 1024;
      c.node->nvlink = "nvlink4";
      c.node->nvlink_links = 18;
      c.node->nvswitch = nvswitch;
      return c;
    }());
    const auto start = clock::now();
    NodeGraph g(node);
    CHECK(clock::now() - start < std::chrono::seconds(30));
    CHECK(g.gpus() == 1024);
    // NVSwitch: every pair NV18 in 2 hops; full mesh: 18 links cannot reach 1,023 peers, 1 each.
    CHECK(g.gpu_gpu(0, 1023).type == PathType::NVL);
    CHECK(g.gpu_gpu(0, 1023).nv_links == (nvswitch ? 18 : 1));
    CHECK(g.gpu_gpu(0, 1023).hops == (nvswitch ? 2 : 1));
    CHECK(g.gpu_gpu(1023, 5).type == PathType::NVL);
  }
  // 512 GPUs, 32 NICs, 16 GPUs and a NIC per switch, two NUMA nodes.
  const int ng = 512, nn = 32;
  auto numa = [&](int g) { return g < ng / 2 ? 0 : 1; };
  std::ostringstream t;
  t << "\t";
  for (int i = 0; i < ng; ++i) t << "GPU" << i << "\t";
  for (int i = 0; i < nn; ++i) t << "NIC" << i << "\t";
  t << "CPU Affinity\tNUMA Affinity\n";
  auto rel = [&](int a, int b_switch) {
    return a / 16 == b_switch ? "PIX" : numa(a) == numa(b_switch * 16) ? "NODE" : "SYS";
  };
  for (int a = 0; a < ng; ++a) {
    t << "GPU" << a;
    for (int b = 0; b < ng; ++b) t << "\t" << (a == b ? " X " : "NV18");
    for (int n = 0; n < nn; ++n) t << "\t" << rel(a, n);
    t << "\t0-63\t" << numa(a) << "\n";
  }
  for (int n = 0; n < nn; ++n) {
    t << "NIC" << n;
    for (int a = 0; a < ng; ++a) t << "\t" << rel(a, n);
    for (int m = 0; m < nn; ++m) t << "\t" << (m == n ? " X " : numa(m * 16) == numa(n * 16) ? "NODE" : "SYS");
    t << "\n";
  }
  models::CustomNodeSpec spec;
  spec.gpu = "H200";
  spec.nics = nn;
  spec.nic_bytes_per_s = 50e9;
  spec.nic_kind = "ib";
  const auto m = models::readers::parse_smi_topo(t.str(), "big.txt");
  const auto start = clock::now();
  NodeGraph g(models::topology::node_from_matrix(spec, m));
  CHECK(clock::now() - start < std::chrono::seconds(30));
  const auto back = g.smi_matrix();
  CHECK(back.gpu_gpu == m.gpu_gpu);
  CHECK(back.gpu_nic == m.gpu_nic);
}
