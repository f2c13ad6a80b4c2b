#pragma once
// Link technology catalog: physical bandwidth (bytes/s, per direction, what a long transfer
// reaches) and one-way latency of each interconnect, plus the bandwidth NCCL's own topology
// code assumes for it (src/graph/topo.h), which is what NCCL's decisions (GDR, NET vs SHM,
// channels) compare. Sources in links.cpp. The collective engine applies NCCL's per-channel and
// protocol limits on top of the physical numbers (models/comm_plan/link_params.hpp).
#include <string>
#include <string_view>

namespace models::hw {

struct LinkTech {
  std::string name;
  double bytes_per_s = 0;       // physical, per direction
  double latency_s = 0;         // one-way, small message, hardware only
  double nccl_bytes_per_s = 0;  // what NCCL's topology graph assumes (decisions only)
  std::string citation;
};

// NVLink generation 2..5, one link. Throws SpecError(key) for another generation.
LinkTech nvlink(int gen, const std::string& key = "cluster.node.nvlink");
// The fraction of a GPU's raw NVLink port NCCL's Simple protocol moves, by NVLink generation, where
// the scenario does not set nvlink.efficiency.simple: `registered` (its registered default, measured
// on NVLink 4) up to NVLink 4, 0.74 on NVLink 5 (links.cpp says why).
double nvlink_simple_efficiency(int nvlink_gen, double registered);
// "nvlink4" / "NVLink4" / "4" -> 4; "" -> 0. Throws SpecError(key) otherwise.
int parse_nvlink_gen(std::string_view text, const std::string& key);
// The NVSwitch hop a GPU-to-GPU NVLink transfer adds (NVSwitch is non-blocking: no bandwidth
// limit of its own beyond the GPU's links).
LinkTech nvswitch(int nvlink_gen);
// PCIe generation 3..6 with `lanes` (x16, x8, ...). Throws SpecError(key) otherwise.
LinkTech pcie(int gen, int lanes, const std::string& key = "cluster.node.pcie");
// "gen5" / "Gen5" / "5" -> 5. Throws SpecError(key) otherwise.
int parse_pcie_gen(std::string_view text, const std::string& key);

// Between CPU sockets (NUMA nodes): Intel UPI or AMD xGMI.
LinkTech inter_socket(std::string_view cpu_family);
// Host memory bandwidth of one socket's DDR channels: `channels` x `mt_per_s` x 8 bytes.
double ddr_bytes_per_s(int channels, double mt_per_s);

// Network interfaces. `gbit` is the line rate in Gb/s.
LinkTech ena(double gbit);                   // AWS ENA (ordinary Ethernet, TCP sockets)
LinkTech efa(int generation, double gbit);   // AWS Elastic Fabric Adapter v1..v4
LinkTech infiniband(std::string_view rate);  // "HDR" (200 Gb/s), "NDR" (400 Gb/s) or "XDR" (800 Gb/s)
// The InfiniBand rate name for a per-NIC line rate in bytes/s: up to 200 Gb/s HDR, 400 NDR, else XDR.
const char* infiniband_rate_for(double bytes_per_s);
LinkTech roce(double gbit);        // RDMA over Converged Ethernet v2 (ConnectX, Spectrum)
LinkTech virtio_nic(double gbit);  // a VM's paravirtual NIC
// TCP between two processes of one host (kernel loopback): bounded by the kernel's copies.
LinkTech tcp_loopback();

// One thread's TCP rate per direction when it both sends and receives, as a rank's NCCL proxy
// thread does in a ring: the basis the fitted socket efficiency is relative to (single-stream
// iperf3 over lo, ~40 Gb/s; one H200 host's thread measured 3.6 GB/s per direction at 4 MiB
// calls, scenarios/validation/h200x1/ANALYSIS.md section 5). A thread that only sends or only
// receives moves 1 / socket.thread_duplex of it: 0.61 measured through NCCL in one launch on one
// H200 VM (scenarios/validation/h200x1/measured/nccl_socket: a 4-rank ring against a 2-rank
// broadcast); a lone test pair alternating non-blocking calls on one H200 host measured 4.7 GB/s
// one way against 3.6 both ways (0.77), and both-way rates fall ~20 % at 4 pairs. The absolute
// rate of a thread depends on where the OS runs it (35 % between vCPU placements of one launch,
// 25 % between two boots of the 4 x H200 host); the ratio does not.
inline constexpr double kTcpThreadBytesPerS = 5e9;
// Said with every run that has Socket pairs: the rate above moves with the host, and one level
// cannot be right for every boot of it (scenarios/validation/h200x4/measured/tcp/: boots A and B).
inline constexpr const char* kSocketRateNote =
    "Socket (NCCL over TCP) carries some pairs: CPU threads copy every byte, so its rate is where the OS "
    "runs them; on one 4 x H200 host the same FSDP step (the same NCCL layout) moved 3.2 GB/s per "
    "direction in one boot and 4.2 in another, and this run takes one level (socket.efficiency.*: "
    "`commsim calibrate` on the host's own nccl-tests sets it) (docs/accuracy.md, TCP steps)";
// The same where the scenario (or its calibration profile) sets the level: its value follows.
inline constexpr const char* kSocketRateNoteGiven =
    "Socket (NCCL over TCP) carries some pairs: CPU threads copy every byte, so its rate is where the OS "
    "runs them; on one 4 x H200 host the same FSDP step (the same NCCL layout) moved 3.2 GB/s per "
    "direction in one boot and 4.2 in another, and this run takes the level it sets (socket.efficiency.simple = ";

// Software cost per message of NCCL's Socket transport (a send/recv system call pair and the
// proxy thread's hand-off), added per chunk by the collective engine.
inline constexpr double kSocketMessageCostS = 5e-6;

// P2P read vs write (NCCL_P2P_READ_ENABLE): read mode makes the receiver pull. Parameters of the
// model: bandwidth factor of read relative to write and the extra handshake latency per chunk.
struct P2pReadModel {
  double bandwidth_factor = 1.0;
  double extra_latency_s = 0;
  std::string citation;
};
// Read-mode cost on NVLink for GPUs of compute capability `sm` (80 = A100, 90 = H100/H200).
P2pReadModel p2p_read_model(int sm);

}  // namespace models::hw
