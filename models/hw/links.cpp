// Link technology numbers and where they come from.
#include "models/hw/links.hpp"

#include <cctype>
#include <string>

#include "models/error.hpp"

namespace models::hw {

namespace {
constexpr double kGBps = 1e9;
// PCIe payload efficiency: 256-byte max payload in ~280-290 bytes on the wire after TLP header,
// DLLP and encoding overhead ~= 0.87 (PCI-SIG base spec framing; measured 55.3 GB/s pinned
// host->GPU on the Gen5 x16 calibration machine, scenarios/validation/h200x4/measured/copy_bench.jsonl,
// vs 63.0 GB/s raw = 0.88).
constexpr double kPcieEfficiency = 0.87;

std::string lower(std::string_view s) {
  std::string r(s);
  for (auto& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}
}  // namespace

LinkTech nvlink(int gen, const std::string& key) {
  switch (gen) {
    // NVLink 2 (V100): 25 GB/s per link per direction, 6 links = 300 GB/s bidirectional
    // (V100 datasheet). NCCL's graph: 20 GB/s per SM70 link (src/graph/topo.h SM70_NVLINK_BW).
    case 2: return {"nvlink2", 25 * kGBps, 0.7e-6, 20 * kGBps, "NVIDIA V100 datasheet; NCCL topo.h"};
    // NVLink 3 (A100): 25 GB/s per link per direction, 12 links = 600 GB/s bidirectional
    // (A100 datasheet). NCCL: SM80_NVLINK_BW 20.
    case 3: return {"nvlink3", 25 * kGBps, 0.7e-6, 20 * kGBps, "NVIDIA A100 datasheet; NCCL topo.h"};
    // NVLink 4 (H100/H200): 18 links = 900 GB/s bidirectional (25 GB/s per link per direction
    // payload); nvidia-smi reports 26.562 GB/s per link (calibration topo.txt) and a one-way
    // H200 peer copy reaches 395 GB/s of 478 (copy_bench.jsonl). NCCL: SM90_NVLINK_BW 20.6.
    case 4:
      return {"nvlink4", 25 * kGBps, 0.7e-6, 20.6 * kGBps,
              "NVIDIA H100 datasheet; nvidia-smi nvlink -s (calibration); NCCL topo.h"};
    // NVLink 5 (B200): 18 links = 1.8 TB/s bidirectional, 50 GB/s per link per direction.
    // NCCL: SM100_NVLINK_BW 40.1.
    case 5: return {"nvlink5", 50 * kGBps, 0.7e-6, 40.1 * kGBps, "NVIDIA HGX B200 datasheet; NCCL topo.h"};
    default: break;
  }
  throw SpecError(key, "unknown NVLink generation " + std::to_string(gen) + " (expected 2, 3, 4 or 5)");
}

// Registered default (models/params_links.hpp nvlink.efficiency.simple, 0.79): the 4 x H200 machine's
// ring all-reduce plateau, 354 GB/s bus bandwidth of the 450 its 18 NVLink 4 links carry at 25 GB/s;
// single nodes of 8 x A100 (232.5 GB/s of 300, nccl-tests#175) and 8 x H100 (NVIDIA: ~370 of 450
// for rings, nccl-tests#212) agree with 0.77-0.82. NVLink 5: 0.74, the value every generation had
// before; no Blackwell machine of ours measured it, and Blackwell's public rings and NVLS (the
// GB200 tray's 4-GPU ring, one and two GB200 racks) sit 5-6 points closer with it than with 0.79
// (docs/accuracy.md), so those rows are not out of sample for this number.
double nvlink_simple_efficiency(int nvlink_gen, double registered) { return nvlink_gen >= 5 ? 0.74 : registered; }

int parse_nvlink_gen(std::string_view text, const std::string& key) {
  std::string s = lower(text);
  if (s.empty() || s == "none") return 0;
  if (s.rfind("nvlink", 0) == 0) s = s.substr(6);
  if (s.size() == 1 && s[0] >= '2' && s[0] <= '5') return s[0] - '0';
  throw SpecError(key, "unknown NVLink generation '" + std::string(text) +
                           "' (expected \"\", \"nvlink2\", \"nvlink3\", \"nvlink4\" or \"nvlink5\")");
}

LinkTech nvswitch(int nvlink_gen) {
  // NVSwitch is a non-blocking crossbar (NVIDIA NVSwitch technical overview / HGX datasheets):
  // it adds a hop of latency, no bandwidth limit below the GPUs' own links.
  return {"nvswitch" + std::to_string(nvlink_gen), 0, 0.3e-6, 0, "NVIDIA NVSwitch technical overview"};
}

LinkTech pcie(int gen, int lanes, const std::string& key) {
  // Raw per-lane per-direction rates (PCI-SIG): Gen3 8 GT/s 128b/130b = 0.985 GB/s, Gen4 1.969,
  // Gen5 3.938, Gen6 64 GT/s PAM4 FLIT = 7.563 GB/s. NCCL's graph: width x GT/s x 0.8 / 8 ...
  // Gen3 x16 12, Gen4 x16 24, Gen5 x16 48 GB/s (src/graph/topo.h, xml.cc kvDictPciGen).
  double lane = 0, nccl16 = 0;
  switch (gen) {
    case 3:
      lane = 0.985 * kGBps;
      nccl16 = 12 * kGBps;
      break;
    case 4:
      lane = 1.969 * kGBps;
      nccl16 = 24 * kGBps;
      break;
    case 5:
      lane = 3.938 * kGBps;
      nccl16 = 48 * kGBps;
      break;
    case 6:
      lane = 7.563 * kGBps;
      nccl16 = 96 * kGBps;
      break;
    default:
      throw SpecError(key, "unknown PCIe generation " + std::to_string(gen) + " (expected gen3, gen4, gen5 or gen6)");
  }
  if (lanes != 1 && lanes != 2 && lanes != 4 && lanes != 8 && lanes != 16)
    throw SpecError(key, "PCIe width x" + std::to_string(lanes) + " is not a PCIe width (expected 1, 2, 4, 8 or 16)");
  // PCIe switch/root port traversal ~ 0.1-0.2 us each way; a GPU DMA round trip ~1 us.
  return {"pcie" + std::to_string(gen) + "x" + std::to_string(lanes), lane * lanes * kPcieEfficiency, 1.0e-6,
          nccl16 * lanes / 16, "PCI-SIG base specification rates; NCCL topo.h"};
}

int parse_pcie_gen(std::string_view text, const std::string& key) {
  std::string s = lower(text);
  if (s.rfind("gen", 0) == 0) s = s.substr(3);
  if (s.size() == 1 && s[0] >= '3' && s[0] <= '6') return s[0] - '0';
  throw SpecError(key, "unknown PCIe generation '" + std::string(text) + "' (expected gen3, gen4, gen5 or gen6)");
}

LinkTech inter_socket(std::string_view cpu_family) {
  std::string f = lower(cpu_family);
  // Cascade Lake: 3 UPI links at 10.4 GT/s = 20.8 GB/s each per direction (Intel Xeon Scalable
  // 2nd gen product brief). NCCL's graph: 10 GB/s for Skylake-class QPI/UPI (topo.h SKL_QPI_BW).
  if (f == "cascadelake") return {"upi", 62.4 * kGBps, 0.15e-6, 10 * kGBps, "Intel Xeon 2nd gen brief; NCCL topo.h"};
  // Sapphire/Emerald Rapids: 4 UPI 2.0 links at 16 GT/s = 32 GB/s each per direction.
  if (f == "sapphirerapids" || f == "emeraldrapids")
    return {"upi2", 128 * kGBps, 0.15e-6, 10 * kGBps, "Intel Xeon 4th/5th gen product brief; NCCL topo.h"};
  // NVIDIA Grace (GB200/GB300 compute trays): the two Graces of a tray, each with its two GPUs on
  // NVLink-C2C; a CPU-to-CPU rate is not published for the tray: assumed one C2C link's 450 GB/s
  // per direction (Grace CPU Superchip datasheet: NVLink-C2C 900 GB/s both ways). NCCL's graph:
  // ARM_BW 6 GB/s (topo.h).
  if (f == "grace")
    return {"c2c", 450 * kGBps, 0.2e-6, 6 * kGBps, "assumed: NVLink-C2C (Grace CPU Superchip datasheet); NCCL topo.h"};
  // AMD EPYC Rome/Milan: 4 xGMI-2 links x16 at 16 GT/s = 32 GB/s each per direction. NCCL's graph:
  // AMD_BW 16 GB/s (topo.h).
  return {"xgmi", 128 * kGBps, 0.2e-6, 16 * kGBps, "AMD EPYC 7003 architecture overview; NCCL topo.h"};
}

double ddr_bytes_per_s(int channels, double mt_per_s) { return channels * mt_per_s * 1e6 * 8; }

LinkTech ena(double gbit) {
  // AWS ENA: instance network bandwidth (EC2 instance type pages); TCP one-way small-message
  // latency in a cluster placement group ~ 25-30 us (AWS ENA best-practices guide).
  return {"ena", gbit * 1e9 / 8, 30e-6, gbit * 1e9 / 8000 * 1e3, "AWS EC2 instance type network specifications"};
}

LinkTech efa(int generation, double gbit) {
  // EFA v1 (p4d: 4 x 100 Gb/s), v2 (p5: 32 x 100), v3 (p5en: 16 x 200), v4 (p6-b200: 8 x 400)
  // (AWS EFA documentation and instance pages). SRD one-way latency ~ 10-15 us through
  // aws-ofi-nccl (aws-ofi-nccl's tuner sets "Internode latency 75 us" per collective step,
  // seeds/000 log; that is a per-step protocol figure, applied by the collective engine).
  return {"efa" + std::to_string(generation), gbit * 1e9 / 8, 12e-6, gbit * 1e9 / 8,
          "AWS EFA documentation; EC2 accelerated instance pages"};
}

LinkTech infiniband(std::string_view rate) {
  std::string r = lower(rate);
  // InfiniBand Trade Association roadmap: HDR 4x = 200 Gb/s, NDR 4x = 400 Gb/s; switch-to-HCA
  // latency ~1-2 us (NVIDIA ConnectX-6/7 product briefs).
  if (r == "ndr") return {"ib-ndr", 400e9 / 8, 1.5e-6, 400e9 / 8, "IBTA roadmap; NVIDIA ConnectX-7 brief"};
  // XDR 4x = 800 Gb/s (200 Gb/s per lane; IBTA roadmap), NVIDIA ConnectX-8 SuperNIC and
  // Quantum-X800 switches; host-to-host latency taken as NDR's (no separate figure published).
  if (r == "xdr") return {"ib-xdr", 800e9 / 8, 1.5e-6, 800e9 / 8, "IBTA roadmap; NVIDIA ConnectX-8 SuperNIC brief"};
  return {"ib-hdr", 200e9 / 8, 1.5e-6, 200e9 / 8, "IBTA roadmap; NVIDIA ConnectX-6 brief"};
}

const char* infiniband_rate_for(double bytes_per_s) {
  if (bytes_per_s <= 200e9 / 8) return "hdr";
  if (bytes_per_s <= 400e9 / 8) return "ndr";
  return "xdr";
}

LinkTech roce(double gbit) {
  // RoCE v2: the same ConnectX verbs as InfiniBand (NCCL's NET/IB plugin drives both) over a
  // lossless Ethernet fabric (PFC/ECN). One-way latency a little above InfiniBand's, ~2 us host
  // to host: Ethernet switch traversal ~0.5-1 us vs ~0.13 us (NVIDIA Spectrum-X and Quantum briefs;
  // a figure of the order, not a measurement). NCCL rates the port at its line speed.
  return {"roce", gbit * 1e9 / 8, 2e-6, gbit * 1e9 / 8, "RoCE v2 (IBTA Annex A17); NVIDIA ConnectX-7 brief"};
}

LinkTech virtio_nic(double gbit) {
  // virtio-net reports no link speed; NCCL then assumes 10 Gb/s (NET/0 1.2 GB/s in the
  // calibration log logs/p2p_n4.rank0.log).
  return {"virtio", gbit * 1e9 / 8, 40e-6, 1.25 * kGBps, "calibration logs/p2p_n4.rank0.log"};
}

LinkTech tcp_loopback() {
  // Kernel loopback TCP: two memory copies per byte in the kernel. This link is the host's
  // AGGREGATE over all connections (each on its own cores): ~40 GB/s on a many-core server,
  // assumed (no direct source). A single connection's ~5 GB/s (single-stream iperf3 over lo,
  // ~40 Gb/s) is a per-flow limit: the collective engine's socket efficiency, which
  // `commsim calibrate` fits (4xH200: 3.5 GB/s per ring edge, ar_g4_sock.txt). Override with
  // cluster.params "loopback.bandwidth".
  return {"loopback", 40 * kGBps, 15e-6, 5 * kGBps, "assumed: ~40 GB/s aggregate TCP over lo, many cores"};
}

P2pReadModel p2p_read_model(int sm) {
  // NCCL enables read mode by default only for NVLink between SM80 GPUs, because there it is
  // faster (src/graph/paths.cc ncclTopoCheckP2p: "Enable P2P Read for Ampere/NVLink only"): on
  // A100 read costs no bandwidth. On Hopper it does: 2 x H200 (NV18), one process per GPU,
  // NCCL_P2P_READ_ENABLE=1 (bench/device/comm/torch_nccl_bench.py, scenarios/validation/h200x2/
  // n2_read.json, 2026-11-22): 1 GiB all-reduce 3937 us vs 3256 us in write mode (0.83),
  // all-gather 2490 vs 2017 (0.81), but broadcast 3015 vs 2908 (0.96). The loss appears when the
  // reader's port also carries data the other way (all-reduce, all-gather: every rank sends and
  // receives; a 2-rank broadcast only one way): the read requests share that direction. So the
  // factor, 0.82, applies to edges whose receiver also sends in the same collective. Either way
  // read adds one handshake per step (the read request after the ready flag), ~ one NVLink round
  // trip, 1.5 us. The seeds' claim of a 30-50 % loss on Nitro hosts (seeds/002) is about A100s,
  // where NCCL turns read on because it is faster; no measurement backs it there.
  const double factor = sm >= 90 ? 0.82 : 1.0;
  return {factor, 1.5e-6, "NCCL src/graph/paths.cc; 2 x H200 measurement (scenarios/validation/h200x2/n2_read.json)"};
}

}  // namespace models::hw
