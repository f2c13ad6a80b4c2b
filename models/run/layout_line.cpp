// One line saying what a run ran on (layout_line.hpp).
#include "models/run/layout_line.hpp"

#include <string>

#include "models/topology/placement.hpp"
#include "models/topology/resolve.hpp"

namespace models {

namespace {
std::string count(int n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string human_bytes(int64_t b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(b);
  int u = 0;
  while (v >= 1024 && u < 4) v /= 1024, ++u;
  char buf[32];
  std::snprintf(buf, sizeof buf, v == static_cast<int64_t>(v) ? "%.0f %s" : "%.3g %s", v, units[u]);
  return buf;
}

// The machines: "p4d.24xlarge", "2 x p5.48xlarge + 2 x p4d.24xlarge", "custom H200 x 4".
std::string machines(const ScenarioSpec& spec, int gpus_per_node) {
  const ClusterSpec& c = spec.cluster;
  if (!c.groups.empty()) {
    std::string out;
    for (const auto& g : c.groups) out += (out.empty() ? "" : " + ") + std::to_string(g.nodes) + " x " + g.instance;
    return out;
  }
  if (c.node) return "custom " + c.node->gpu + " x " + std::to_string(gpus_per_node);
  return c.instance;
}

// " (4 of 8 GPUs per node idle)" where the pods leave GPUs of a node unused: the node is still
// paid whole, so the line says what the $ rows pay for besides the GPUs that run.
std::string idle_text(int used, int node_gpus) {
  if (used >= node_gpus) return "";
  return " (" + std::to_string(node_gpus - used) + " of " + std::to_string(node_gpus) + " GPUs per node idle)";
}

}  // namespace

std::string parallel_text(const ParallelSpec& p, const std::optional<CollectiveSpec>& collective, int gpus) {
  if (collective) {
    return collective->op + " of " + human_bytes(collective->bytes) +
           (collective->iterations > 1 ? " x " + std::to_string(collective->iterations) + " iterations" : "");
  }
  if (p.strategy == "megatron") {
    const int tp = std::max(1, p.tp), pp = std::max(1, p.pp), cp = std::max(1, p.cp);
    // A layout that does not divide the GPUs (a refused what-if's row) has no whole dp: "dp ?".
    const int model_ranks = std::max(1, tp * pp * cp);
    const std::string dp = p.dp > 0                  ? std::to_string(p.dp)
                           : gpus % model_ranks == 0 ? std::to_string(gpus / model_ranks)
                                                     : std::string("?");
    std::string s = "megatron tp " + std::to_string(tp) + " pp " + std::to_string(pp) + " dp " + dp;
    if (cp > 1) s += " cp " + std::to_string(cp);
    if (p.ep > 1) s += " ep " + std::to_string(p.ep);
    // Expert tensor parallelism apart from tp: two expert grids must not read alike.
    if (p.ep > 1 && p.etp > 0 && p.etp != tp) s += " etp " + std::to_string(p.etp);
    if (p.vp > 1) s += " (vp " + std::to_string(p.vp) + ")";
    return s;
  }
  std::string s = p.strategy + ", dp " + std::to_string(gpus);
  if (p.strategy == "hsdp" && p.dp_shard > 0) s += " (shard " + std::to_string(p.dp_shard) + ")";
  return s;
}

LayoutSummary describe_layout(const ScenarioSpec& spec) {
  const int node_gpus = topology::resolve_node(spec.cluster).gpus;
  const topology::Placement place = topology::make_placement(spec.cluster, spec.placement, node_gpus);
  LayoutSummary s;
  s.nodes = spec.cluster.nodes;
  if (spec.jobs.empty()) {
    s.gpus = place.size();
    s.pods = place.nodes * place.pods_per_node;
    s.line = count(s.gpus, "GPU", "GPUs") + ": " + count(s.nodes, "node", "nodes") + " " + machines(spec, node_gpus) +
             ", " + count(s.pods, "pod", "pods") + " x " + count(place.gpus_per_pod, "GPU", "GPUs") +
             idle_text(place.pods_per_node * place.gpus_per_pod, node_gpus) + "; " +
             parallel_text(spec.parallel, spec.collective, s.gpus);
    return s;
  }
  // Several jobs: each on its node range, with its own placement and layout.
  std::string jobs;
  for (const auto& j : spec.jobs) {
    ClusterSpec own = spec.cluster;
    own.nodes = j.nodes;
    const topology::Placement p = topology::make_placement(own, j.placement, node_gpus);
    s.gpus += p.size();
    s.pods += p.nodes * p.pods_per_node;
    jobs += (jobs.empty() ? "" : "; ") + j.name + " " + count(p.size(), "GPU", "GPUs") + " (" +
            parallel_text(j.parallel, j.collective, p.size()) + ")";
  }
  s.line = count(s.gpus, "GPU", "GPUs") + ": " + count(s.nodes, "node", "nodes") + " " + machines(spec, node_gpus) +
           ", " + count(s.pods, "pod", "pods") + "; " + count(static_cast<int>(spec.jobs.size()), "job", "jobs") +
           ": " + jobs;
  return s;
}

}  // namespace models
