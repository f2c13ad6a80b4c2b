#pragma once
// models::World: one scenario's machines as the simulator sees them. It places ranks on
// nodes/pods/GPUs, decides per rank pair what NCCL would decide (P2P read/write, SHM, NET with
// which plugin, GDR or not), and owns the ids of the sim::FlowNetwork links every transfer crosses.
// Built once per run by models/topology + models/nccl/transport; read by collectives and workloads.
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "models/spec.hpp"
#include "sim/flow_network.hpp"

namespace models {

// NCCL's path types, near to far (src/graph/topo.h). Order matters: P2P is allowed when
// path <= NCCL_P2P_LEVEL. NODE is nvidia-smi's name for what NCCL calls PHB-across-bridges (we
// keep it separate for printing `topo -m`).
enum class PathType { LOC, NVL, NVB, C2C, PIX, PXB, P2C, PXN, PHB, NODE, SYS, NET, DIS };
const char* path_type_name(PathType p);

enum class TransportKind { P2P, SHM, NET };

// Which physical model (latency per hop, bandwidth per channel) applies to a transfer.
enum class LinkClass { NVLink, PCIe, SHM, EFA, IB, Socket };
const char* link_class_name(LinkClass c);

struct Transport {
  TransportKind kind = TransportKind::NET;
  LinkClass link_class = LinkClass::Socket;
  std::string label;              // as NCCL logs it: "P2P/CUMEM/read", "P2P/direct pointer",
                                  // "SHM/direct/direct", "NET/Libfabric/0/GDRDMA", "NET/Socket/0"
  bool p2p_read = false;          // P2P in read mode (receiver pulls)
  bool gdr = false;               // NET with GPUDirect RDMA (else staged through host memory)
  std::string net_plugin;         // "IB", "Socket", "Libfabric" (NET only)
  PathType path = PathType::NVL;  // GPU-to-GPU path type on the node (NET between nodes)
};

struct RankInfo {
  int rank = 0;
  int node = 0;       // host index
  int pod = 0;        // pod index within the cluster
  int local_gpu = 0;  // physical GPU index on the node
  int pod_rank = 0;   // index within its pod (its CUDA device there)
};

class World {
 public:
  // Builds placement, topology, transports and the links in `net`. Throws SpecError on an
  // impossible layout or a bad NCCL variable.
  static std::unique_ptr<World> build(const ScenarioSpec& spec, sim::FlowNetwork& net);
  virtual ~World() = default;

  virtual int size() const = 0;
  virtual int nodes() const = 0;
  virtual const RankInfo& rank(int r) const = 0;
  // NCCL's choice between ranks a and b (a != b), computed on demand (16k ranks have 268M pairs:
  // nothing per pair is stored), and the links a flow a->b crosses, appended to `out`.
  virtual Transport transport(int a, int b) const = 0;
  virtual void path(int a, int b, std::vector<sim::LinkId>& out) const = 0;
  // Host-side links of a rank's GPU, for CPU offload traffic: pinned host->GPU and GPU->host
  // copies (PCIe, then host memory), appended to `out`.
  virtual void host_to_gpu(int r, std::vector<sim::LinkId>& out) const = 0;
  virtual void gpu_to_host(int r, std::vector<sim::LinkId>& out) const = 0;
  // Physical parameters the collectives need, by link class (from the catalog, overrides and
  // the calibration profile): see models/nccl/link_params.hpp.
  // Name of the GPU model (catalog key) and its node's description, for reports.
  virtual const std::string& gpu_name() const = 0;
  virtual std::string describe() const = 0;
};

}  // namespace models
