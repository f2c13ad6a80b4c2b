// GPU rotation fold (CollectiveEngine::set_rotation_fold, collective.hpp): an NVLSTree all-reduce
// as the orbits of moving every node's GPUs one on, one flow per orbit.
//
// NVLSTree's inter-node flows are k tree sets (one per NIC group, k = GPUs per node), set r the
// double binary tree over the nodes' local GPU r (comm_plan.cpp rotation()), and each rank's two
// NVLink port flows to and from the switch. Where the rotation sigma (local GPU g -> g + 1 on
// every node) maps the World onto itself (models/world/gpu_rotation.hpp: links alike, paths and
// transports carried over), set r + 1's edges are sigma of set r's and GPU j + 1's port edges
// sigma of GPU j's, with the same bytes, caps and latency: the collective's flows are invariant
// under sigma, which acts freely on the links they use (orbits of k). Then, as for node orbits
// (node_orbits.cpp), the full network's flows on a link l correspond one to one to the kept
// flows (set 0's, GPU 0's) crossing l's orbit, provided no kept flow crosses one orbit twice:
// each flow is sigma^j of exactly one kept flow f, and it crosses l iff f crosses sigma^-j(l).
// Max-min rates are unique and sigma maps the full network onto itself, so a flow's images share
// its rate; the kept flows on one shadow link per orbit (FlowNetwork mirrors, capacity that of
// each of the orbit's links) meet exactly the capacity and bottleneck conditions of those rates,
// and drain at the same instants. Each real link is reported with its orbit's shadow (the same
// bytes and busy time as in the full network: result_fill.cpp).
//
// The plan part is built folded (comm_plan.cpp complete_plan with the rotation): tree set 0 and
// each node's GPU 0 port pair only, with set 0's rings_sharing counted over every set's images;
// the flows are then exactly those kept. Where the shadows cannot be set (the network is busy at
// the first such launch), the part is laid out again unfolded. Tests:
// tests/scenarios/rotation_fold_test.cpp (folded runs equal to --full, the guard).
#include "models/collectives/engine.hpp"

namespace models::collectives {

const GpuRotation* Engine::fold_rotation() {
  if (!rotation_on_ || net_.audit()) return nullptr;
  if (!rotation_) rotation_ = std::make_unique<GpuRotation>(gpu_rotation(world_, net_));
  // The shadows are set at the first folded launch, on an idle network (this engine is the
  // mirrors' only user when the fold is on).
  if (!rotation_->applies() || !(net_.mirrored() || net_.idle())) return nullptr;
  return rotation_.get();
}

void Engine::start_folded() {
  if (!net_.mirrored()) net_.set_mirrors(rotation_->class_of_link, rotation_->model_of_class);
  folded_launch_ = true;
  ++rotation_folds_;
}

}  // namespace models::collectives
