#pragma once
// Hand-made RunResults for the viz tests (viz never runs the simulator). They are built by a tiny
// schedule, not typed in, so totals agree with the timeline the way a real run's do: a ZeRO-3
// step in blocks, the all_gather of block i+1 prefetched while block i computes, reduce_scatter
// after each backward block, collectives starting when the last rank arrives (barrier wait), and
// the optimizer on the CPU at the end. Per-rank compute speed varies by a few percent.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "models/result.hpp"
#include "viz/viz.hpp"

namespace viz_test {

struct Layout {
  std::string name = "p4d: 1 pod x 4 GPUs";
  int nodes = 1, pods_per_node = 1, gpus_per_pod = 4;
  // Transport labels and link classes at each level, as a real run would report them.
  std::string intra_label = "P2P/CUMEM/read", intra_class = "NVLink";
  std::string pod_label = "SHM/direct/direct", pod_class = "SHM";
  std::string node_label = "NET/Libfabric/0/GDRDMA", node_class = "EFA";
  double busbw_bytes_per_s = 130e9;  // the slowest level the collectives cross
  double link_capacity_bytes_per_s = 150e9;
  int micro_batches = 2, blocks = 4;  // forward blocks per micro-batch (backward has as many)
  double compute_block_s = 0.45;
  double block_bytes = 4e9;  // all_gather size per block (nccl-tests convention)
  double optimizer_cpu_s = 1.5;
  int steps = 50;
};

inline double jitter(int rank) {  // deterministic, in [0, 1)
  const double v = std::sin(rank * 12.9898 + 78.233) * 43758.5453;
  return v - std::floor(v);
}

inline models::RunResult make_run(const Layout& L) {
  models::RunResult r;
  r.scenario = L.name;
  r.steps = L.steps;
  const int n = L.nodes * L.pods_per_node * L.gpus_per_pod;
  for (int k = 0; k < n; ++k) {
    models::RankResult rr;
    rr.rank = k;
    rr.node = k / (L.pods_per_node * L.gpus_per_pod);
    rr.pod = k / L.gpus_per_pod;
    rr.gpu = k % (L.pods_per_node * L.gpus_per_pod);
    r.ranks.push_back(rr);
  }
  std::vector<double> comp_end(n, 0), barrier(n, 0), compute(n, 0);
  double comm_free = 0, comm_busy = 0;
  const double lat = 30e-6;
  auto collective = [&](const std::string& op, double bytes, const std::vector<double>& ready) {
    // Ring time for all_gather / reduce_scatter: T = a + (n-1)/n * S / busbw (nccl-tests busbw).
    const double d = lat + (n > 1 ? (n - 1.0) / n : 0.0) * bytes / L.busbw_bytes_per_s;
    double start = comm_free;
    for (double t : ready) start = std::max(start, t);
    for (int k = 0; k < n; ++k) {
      barrier[k] += start - std::max(ready[k], comm_free);
      models::TimelineEvent e;
      e.rank = k;
      e.stream = "comm";
      e.op = op;
      e.bytes = static_cast<int64_t>(bytes);
      e.name = op + " " + std::to_string(static_cast<int>(bytes / 1e6 + 0.5)) + " MB";
      e.start_s = start;
      e.end_s = start + d;
      e.algo = "Ring";
      e.proto = "Simple";
      r.timeline.push_back(e);
    }
    comm_free = start + d;
    comm_busy += d;
    return comm_free;
  };
  std::vector<double> issue(n, 0);
  const int per_mb = 2 * L.blocks;
  for (int mb = 0; mb < L.micro_batches; ++mb) {
    for (int s = 0; s < per_mb; ++s) {
      const bool bwd = s >= L.blocks;
      const int layer0 = (bwd ? per_mb - 1 - s : s) * 32 / L.blocks;
      const double ag_end = collective("all_gather", L.block_bytes, issue);
      for (int k = 0; k < n; ++k) {
        const double start = std::max(comp_end[k], ag_end);
        const double dur = L.compute_block_s * (bwd ? 2.0 : 1.0) * (1 + 0.04 * jitter(k));
        models::TimelineEvent e;
        e.rank = k;
        e.stream = "compute";
        e.name = std::string(bwd ? "bwd" : "fwd") + " L" + std::to_string(layer0) + "-" +
                 std::to_string(layer0 + 32 / L.blocks - 1);
        e.start_s = start;
        e.end_s = start + dur;
        r.timeline.push_back(e);
        issue[k] = start;  // the next block's all_gather is prefetched when this one starts
        comp_end[k] = start + dur;
        compute[k] += dur;
      }
      if (bwd) collective("reduce_scatter", L.block_bytes, comp_end);
    }
  }
  // Optimizer on the CPU once gradients are reduced.
  double step_end = 0;
  for (int k = 0; k < n; ++k) {
    models::TimelineEvent e;
    e.rank = k;
    e.stream = "offload";
    e.name = "optimizer (CPU)";
    e.start_s = std::max(comp_end[k], comm_free);
    e.end_s = e.start_s + L.optimizer_cpu_s;
    step_end = std::max(step_end, e.end_s);
    r.timeline.push_back(e);
  }
  r.step_time_s = step_end;
  r.run_time_s = step_end * L.steps;
  for (int k = 0; k < n; ++k) {
    auto& rr = r.ranks[k];
    rr.compute_s = compute[k];
    rr.offload_s = L.optimizer_cpu_s;
    rr.comm_s = comm_busy;
    const double idle = std::max(0.0, step_end - compute[k] - rr.offload_s);
    rr.barrier_wait_s = std::min(idle, barrier[k]);
    rr.exposed_comm_s = idle - rr.barrier_wait_s;
  }
  // Transports between ring neighbours, by level.
  auto level = [&](int a, int b, std::string& label, std::string& cls) {
    const auto &ra = r.ranks[a], &rb = r.ranks[b];
    if (ra.node != rb.node)
      label = L.node_label, cls = L.node_class;
    else if (ra.pod != rb.pod)
      label = L.pod_label, cls = L.pod_class;
    else
      label = L.intra_label, cls = L.intra_class;
  };
  for (int k = 0; n > 1 && k < n; ++k) {
    models::PairTransport p;
    p.a = k;
    p.b = (k + 1) % n;
    level(p.a, p.b, p.label, p.link_class);
    r.pair_transports.push_back(p);
    auto it = std::find_if(r.transports.begin(), r.transports.end(), [&](auto& t) { return t.label == p.label; });
    if (it == r.transports.end())
      r.transports.push_back({p.label, 1, p.link_class});
    else
      it->pairs++;
  }
  // Links: each GPU's NVLink port (or PCIe), and a NIC per pod when anything uses the network.
  const bool net = L.pods_per_node > 1 ? L.pod_class == "EFA" || L.pod_class == "Socket" : L.nodes > 1;
  const double moved = L.micro_batches * (3.0 * L.blocks) * L.block_bytes * (n - 1.0) / std::max(1, n);
  for (int k = 0; k < n && k < 64; ++k) {
    models::LinkResult l;
    l.name = "node" + std::to_string(r.ranks[k].node) + "/gpu" + std::to_string(r.ranks[k].gpu) +
             (net ? "/pcie" : "/nvlink");
    l.kind = net ? "pcie" : "nvlink";
    l.capacity_bytes_per_s = net ? 32e9 : L.link_capacity_bytes_per_s;
    l.bytes = moved * (1 + 0.01 * jitter(k));
    l.busy_s = comm_busy;
    l.utilization = l.bytes / (l.capacity_bytes_per_s * step_end);
    r.links.push_back(l);
  }
  if (net)
    for (int p = 0; p < L.nodes * L.pods_per_node && p < 32; ++p) {
      models::LinkResult l;
      l.name = "node" + std::to_string(p / L.pods_per_node) + "/efa" + std::to_string(p % L.pods_per_node);
      l.kind = "efa";
      l.capacity_bytes_per_s = 12.5e9;
      l.bytes = moved * L.gpus_per_pod;
      l.busy_s = comm_busy;
      l.utilization = l.bytes / (l.capacity_bytes_per_s * step_end);
      r.links.push_back(l);
    }
  std::sort(r.links.begin(), r.links.end(), [](auto& a, auto& b) { return a.utilization > b.utilization; });
  r.notes.push_back("hand-made result for tests (a small schedule, not the simulator)");
  // The price as models/run/cost.hpp states it: the nodes' $ per hour over the step and the run.
  r.cost.known = true;
  r.cost.nodes = L.nodes;
  r.cost.gpus = L.nodes * L.pods_per_node * L.gpus_per_pod;
  r.cost.usd_per_hour = 21.957642 * L.nodes;
  r.cost.usd_per_step = r.step_time_s * r.cost.usd_per_hour / 3600;
  r.cost.billed_s = r.run_time_s;
  r.cost.usd_per_run = r.run_time_s * r.cost.usd_per_hour / 3600;
  r.cost.source = "catalog: on-demand, us-east-1, AWS EC2 on-demand price list (p4d.24xlarge), 2026-08";
  r.cost.pricing = "on-demand";
  return r;
}

// The seeds' comparison on p4d.24xlarge: one pod with 4 GPUs (P2P over NVLink in read mode) vs
// four pods with one GPU each, which talk over EFA although they share the host.
inline Layout one_pod_four_gpus() { return Layout{}; }
inline Layout four_pods_one_gpu() {
  Layout L;
  L.name = "p4d: 4 pods x 1 GPU";
  L.pods_per_node = 4;
  L.gpus_per_pod = 1;
  L.pod_label = "NET/Libfabric/0/GDRDMA";
  L.pod_class = "EFA";
  L.busbw_bytes_per_s = 9e9;  // one 100 Gb/s EFA per pod, less protocol overhead
  return L;
}
inline Layout eight_ranks() {
  Layout L;
  L.name = "2 nodes x 4 GPUs";
  L.nodes = 2;
  L.busbw_bytes_per_s = 20e9;
  return L;
}
inline Layout ranks_1024() {
  Layout L;
  L.name = "128 nodes x 8 GPUs";
  L.nodes = 128;
  L.gpus_per_pod = 8;
  L.micro_batches = 1;
  L.busbw_bytes_per_s = 40e9;
  return L;
}

// An nccl-tests style curve: busbw(S) = S / (a + S / B) from 8 B to 4 GB, doubling.
inline std::vector<viz::BusBwPoint> busbw_curve(double peak, double latency_s, bool measured) {
  std::vector<viz::BusBwPoint> pts;
  for (const char* op : {"all_gather", "reduce_scatter"})
    for (int64_t s = 8; s <= (int64_t{1} << 32); s *= 2) {
      viz::BusBwPoint p;
      p.op = op;
      p.size_bytes = s;
      p.predicted_bytes_per_s = s / (latency_s + s / peak) * (std::string(op) == "all_gather" ? 1.0 : 0.93);
      if (measured && s >= 1024)
        p.measured_bytes_per_s = p.predicted_bytes_per_s * (0.92 + 0.1 * viz_test::jitter(int(s % 977)));
      pts.push_back(p);
    }
  return pts;
}

inline viz::ReportInputs inputs_for(const Layout& L, bool measured) {
  viz::ReportInputs in;
  in.title = L.name;
  in.source_file = "scenarios/seeds/example.toml";
  in.summary = {{"cluster", "p4d.24xlarge x " + std::to_string(L.nodes)},
                {"placement",
                 std::to_string(L.pods_per_node) + " pod(s) per node x " + std::to_string(L.gpus_per_pod) + " GPU(s)"},
                {"parallel", "ZeRO-3, overlap_comm, offload_optimizer = cpu"},
                {"NCCL env", "NCCL_P2P_LEVEL=NVL"}};
  in.busbw = busbw_curve(L.busbw_bytes_per_s, 25e-6, measured);
  // Each curve names the group it ran on, as the report's do (scenarios/cli/output/report_inputs.hpp).
  const int gpus = L.nodes * L.pods_per_node * L.gpus_per_pod;
  for (auto& p : in.busbw)
    p.group = "dp group of " + std::to_string(gpus) + " GPUs on " + std::to_string(L.nodes) + " node" +
              (L.nodes == 1 ? "" : "s");
  return in;
}

}  // namespace viz_test
