#pragma once
// models::World: one scenario's machines as the simulator sees them. It places ranks on
// nodes/pods/GPUs, decides per rank pair what NCCL would decide (P2P read/write, SHM, NET with
// which plugin, GDR or not), and owns the ids of the sim::FlowNetwork links every transfer crosses.
// Built once per run by models/topology + models/nccl/transport; read by collectives and workloads.
// The vocabulary it speaks lives below it: PathType and LinkClass (models/hw), RankInfo
// (models/topology/placement.hpp), Transport (models/nccl/transport_choice.hpp).
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "models/hw/node.hpp"
#include "models/nccl/env.hpp"
#include "models/nccl/transport_choice.hpp"
#include "models/spec.hpp"
#include "models/topology/placement.hpp"
#include "sim/flow_network.hpp"

namespace models {

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
  // the calibration profile): see models/collectives/link_params.hpp.
  // Where the ranks sit (nodes x pods per node x GPUs per pod) and what one node is: facts the
  // World was built from, for the workloads (CPU-Adam shares a node, torchrun starts a pod).
  virtual const topology::Placement& placement() const = 0;
  virtual const hw::NodeSpec& node() const = 0;
  // The run's NCCL environment, parsed once when the World was built (models/nccl/env.hpp): the
  // collective engine and NCCL's tuner read it from here.
  virtual const nccl::NcclEnv& nccl_env() const = 0;
  // Name of the GPU model (catalog key) and its node's description, for reports.
  const std::string& gpu_name() const { return node().gpu.name; }
  virtual std::string describe() const = 0;
};

}  // namespace models
