#pragma once
// Physical parameters of NCCL transfers, per link class, that the collective engine applies on
// top of the World's raw link capacities: what one flow's rate cap is made of (efficiency,
// per-channel rate, flow-control round trip; the cap itself is stated once, in flow_cap.hpp) and
// a collective's fixed latency:
//
//   latency     = kernel_latency + sum over pipeline steps of hop_latency[class][proto]
//   nccl-tests  = (launch^p + device^p)^(1/p)          (back-to-back loop: host issue and device
//                                                       work overlap; p -> inf is a hard max)
//
// eta says "with its default channels, protocol P reaches this fraction of the raw bandwidth".
// Defaults are priors (NCCL's own tuning latencies, src/graph/tuning.cc, and efficiencies
// measured on the 4xH200 machine), registered with their sources in models/params_links.hpp;
// `commsim calibrate` fits them to nccl-tests output.
#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <vector>

#include "models/hw/link_class.hpp"

namespace models {
class World;
}
namespace models::hw {
struct NodeSpec;
}

namespace models::collectives {

inline constexpr int kNumLinkClasses = 6;
inline constexpr int kNumProtos = 3;  // LL, LL128, Simple (same order as nccl::Proto)

struct ClassParams {
  std::array<double, kNumProtos> hop_latency_s{};  // per pipeline step
  std::array<double, kNumProtos> efficiency{};     // fraction of raw path bandwidth
  // What one channel (one CTA) moves with Simple, bytes/s; other protocols scale by their
  // efficiency. 0: unknown, then bandwidth scales with channels / default channels (flow_cap.hpp).
  double channel_bandwidth = 0;
  // What one CTA moves with LL in a point-to-point transfer (send/recv, all-to-all), bytes/s; 0:
  // channel_bandwidth x eta[LL] / eta[Simple], as rings and trees (flow_cap.hpp says why they differ).
  double channel_bandwidth_ll = 0;
  // Simple's flow control: a channel has NCCL_BUFFSIZE of its peer's FIFO in flight and waits
  // a round trip for credits (how that bounds a channel: flow_cap.hpp). 0: no window limit.
  double flow_control_rtt_s = 0;
  // The least time one pipeline step takes through a network connection of this class, whatever
  // its latency: a net plugin that serves each message in turn at a fixed cost per message
  // (GPUDirect-TCPX, models/hw/instance_clouds.cpp).
  // Every step of a ring sends a message per channel through each of its edges, so a ring step
  // costs at least the largest floor on the ring (ring.cpp); a tree's network step and a
  // point-to-point message at least their edge's. 0: none (NCCL's own transports poll).
  double step_floor_s = 0;
};

// How many channels' messages one pipeline step pays for, in sequence. NCCL's Socket transport
// moves every channel's data through the rank's one proxy thread (and its socket helper
// threads), so a step costs its per-message latency once per channel: on 4xH200 over TCP
// (ar_g4_sock.txt) Ring/LL all-reduce takes ~105 us at 2-16 KiB on 1 channel and ~220 us at
// 32 KiB, where NCCL's log shows it switching to 2 channels (sock_n4.rank0.log). Other
// transports' channels run in parallel on their own CTAs.
inline int serial_channels(LinkClass c, int channels) { return c == LinkClass::Socket ? std::max(1, channels) : 1; }

// One NVLink channel's Simple rate on a GPU of compute capability `sm` (x10), carried from the
// rate measured on H200 (nvlink.channel_bandwidth's registered default, `h200_rate`) by NCCL's own
// ratio of per-channel Simple ceilings between GPU generations (src/graph/tuning.cc
// perChMaxTreeBws, one node: Volta 26.5, Ampere 24.0, Hopper 38.7, Blackwell 70.0 GB/s):
//   r(sm) = r_H200 x ceiling(sm) / ceiling(Hopper)       (Blackwell: 22.0 x 70.0 / 38.7 = 39.8 GB/s)
// A channel is one CTA moving data with loads and stores; NCCL's ceilings state how much faster its
// developers found one CTA on each generation. Checked on B200 and GB200 nccl-tests
// (scenarios/validation/b200x8, gb200_nvl72; docs/hardware.md). Exactly r_H200 on Hopper.
// For collective algorithms only: NCCL states no ceiling for send/recv, and point-to-point keeps
// r_H200 on every generation (Engine::p2p_params_): OCI's GB300 rack moves its all-to-all's Simple
// parts at 21 GB/s per CTA, its LL parts at 4.8 (docs/accuracy.md).
// Not yet carried below Hopper (A100, V100 keep r_H200; link_params.cpp says why).
double nvlink_channel_bandwidth_for(int sm, double h200_rate);

struct LinkParams {
  std::array<ClassParams, kNumLinkClasses> by_class{};
  double kernel_latency_s = 0;   // device-side fixed cost of one collective
  double launch_overhead_s = 0;  // host-side issue cost per operation in a back-to-back loop, 1 GPU per thread
  double launch_per_gpu_s = 0;   // and per further GPU the same thread launches (nccl-tests -g N)
  double launch_sharpness = 4;   // p above: how sharply host-bound and device-bound regimes meet
  // P2P in read mode (receiver pulls; "P2P/CUMEM/read"): bandwidth relative to write mode and
  // the extra handshake per pipeline step (models/hw/links.cpp p2p_read_model, cited there).
  double p2p_read_bandwidth_factor = 1;  // < 0: by GPU generation (hw::p2p_read_model(sm))
  double p2p_read_extra_latency_s = 0;
  // NVLS: the switch's rate per GPU port relative to a ring's (< 0: by GPU generation,
  // nvls_efficiency_of); SHARP: its aggregation rate per NIC port / line rate, and its latency.
  double nvls_efficiency = -1;
  // NVLS on one node: the kernel's fixed device time (its barriers between the scatter, the
  // switch's reduction and the gather), the rate of one warp copying local memory, which paces
  // the kernel's scatter and gather stages, and the fixed time each NCCL chunk costs a channel's
  // pipeline (nvls.cpp). All registered in models/params_links.hpp.
  double nvls_latency_s = 0;
  double warp_copy_bandwidth = 0;
  double nvls_chunk_latency_s = 0;
  double sharp_efficiency = 0.95;
  double sharp_latency_s = 2e-6;
  double nvls_efficiency_of(int sm) const { return nvls_efficiency > 0 ? nvls_efficiency : sm >= 100 ? 0.72 : 0.85; }
  // The work per byte of an NVLS flow through a GPU's port that carries `frac` x S (all-reduce:
  // 1 + its head share; nvls.cpp, nvls_tree.cpp). NCCL's one nvlsEfficiency per generation is the
  // rate of what binds there:
  //   Hopper (SM 9.x): the port, moving (1 + 1/H) S at eta of its rate    work = 1 / eta
  //   Blackwell (SM 10+): the switch, reducing and multicasting S per GPU at eta of the port's
  //     rate whatever the head's extra S/H, which fits in the port's headroom
  //                                                  work = max(1, 1 / (eta frac)) for frac >= 1
  //     (a flow of less than S, reduce-scatter's or all-gather's S/n side, only at the port: 1).
  // Measured: Blackwell's NVLS all-reduce plateau does not depend on the heads. 8 GPUs (H = 8)
  // run 474-481 GB/s of algorithm bandwidth on four systems (HGX B200, NVIDIA/nccl#1807; HGX B300,
  // OCI; two trays of an NVL72 on OCI GB300 and GCP A4X), 32 and 64 GPUs (H = 32) 462-473 (GCP A4X,
  // OCI GB200 and GB300): the port law gives 434 at 8 and 473 at 32-64, the switch's 488 at every
  // size. Hopper's 8 GPUs (274 on Azure ND H100 v5 and HGX H100) fit the port law (268.6) and not
  // the switch's (302). Blackwell's eta, 0.72, is read off the 8 x B200 plateau (474 GB/s over the
  // port's 660; NCCL's table has 0.74); every other point checks it
  // (scenarios/validation/blackwell_nvls/README.md).
  static double nvls_port_work(double eta, double frac, int sm) {
    if (sm < 100) return 1.0 / eta;
    return frac >= 1.0 ? std::max(1.0, 1.0 / (eta * frac)) : 1.0;
  }

  // Time per iteration of a back-to-back loop of operations taking `device_s` each on the GPU,
  // issued by one host thread that launches on `gpus_per_thread` GPUs (nccl-tests -g N: N kernel
  // launches and N communicators' enqueue per operation):
  //   L = launch_overhead + (gpus_per_thread - 1) x launch_per_gpu,  T = (L^p + D^p)^(1/p).
  double launch_cost(int gpus_per_thread) const {
    return launch_overhead_s + (gpus_per_thread > 1 ? gpus_per_thread - 1 : 0) * launch_per_gpu_s;
  }
  double loop_time(double device_s, int gpus_per_thread = 1) const;

  const ClassParams& of(LinkClass c) const { return by_class[static_cast<int>(c)]; }
  ClassParams& of(LinkClass c) { return by_class[static_cast<int>(c)]; }

  // The registered defaults (models/params_links.hpp holds every number and its source).
  static LinkParams defaults();
  // The defaults for a cluster of `node`: the registered ones, with the node's own network
  // parameters (hw::NodeSpec::link_params) and the EFA parameters of its EFA generation where the
  // catalog has them (models/hw/efa_generations.hpp). A scenario's [cluster.params] are applied
  // on top (apply()).
  static LinkParams for_node(const hw::NodeSpec& node);
  // for_node of the World's machine; in a cluster of several instances ([[cluster.groups]]) of
  // the oldest EFA generation present, whose parameters bound every EFA path that reaches it.
  static LinkParams for_world(const World& world);
  // Applies the parameters this table owns (registry owner models/collectives:
  // "nvlink.efficiency.simple", "socket.hop_latency.ll", "nccl.kernel_latency", ...); the others
  // (raw bandwidths: World; compute: workload) are skipped. An unregistered name or a value out
  // of its range throws SpecError naming "cluster.params.<name>".
  void apply(const std::map<std::string, double>& params);
  double get(const std::string& name) const;
  void set(const std::string& name, double value);
};

}  // namespace models::collectives
