#pragma once
// models::RunResult: what one simulated run produced. Printed by `commsim run`, serialised by
// `run --json` (keys of the command contract in docs/design.md), drawn by viz/.
// Times are seconds (double) here: this is the edge where the engine's picoseconds are converted.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/goodput_result.hpp"

namespace models {

// Where one rank's step went: a partition of [step start, step end), so the terms add up to
// RunResult::step_time_s (models/workload/step_breakdown.hpp states how each instant is assigned).
struct RankBreakdown {
  double compute_s = 0;       // the compute stream ran GPU work (at the rate it would run alone)
  double interference_s = 0;  // compute lost to communication in flight (compute.overlap_slowdown)
  double exposed_comm_s = 0;  // compute stream idle while the rank's communication moved data
  double host_s = 0;          // compute stream idle while host work (CPU-Adam) or PCIe copies ran
  double bubble_s = 0;        // idle waiting for a pipeline peer (warm-up, cool-down, drain)
  double barrier_wait_s = 0;  // idle at a collective some member had not reached, or at the step's end
  double other_s = 0;         // idle for another reason (GPU work on a side stream)
  double total() const {
    return compute_s + interference_s + exposed_comm_s + host_s + bubble_s + barrier_wait_s + other_s;
  }
};

struct RankResult {
  int rank = 0, node = 0, pod = 0, gpu = 0;
  double compute_s = 0;          // time the compute stream was busy
  double comm_s = 0;             // time at least one collective of this rank was in flight
  double exposed_comm_s = 0;     // communication the compute stream had to wait for
  double barrier_wait_s = 0;     // = breakdown.barrier_wait_s (idle only; a pipeline peer's wait is bubble)
  double offload_s = 0;          // CPU offload (optimizer on CPU, PCIe copies) not hidden
  double memory_peak_bytes = 0;  // estimated GPU memory peak of this rank (0: not estimated)
  RankBreakdown breakdown;       // sums to the step time
};

// One named part of a rank's GPU memory ("weights", "activations", ...; models/memory/memory_peak.hpp).
struct MemoryTerm {
  std::string name;
  double bytes = 0;
};

// The GPU memory estimate of a training step (models/memory/memory_peak.hpp): the rank with the
// largest peak, its phase of the step and its terms, against the GPU's capacity.
struct MemoryResult {
  bool estimated = false;         // false for a bare collective
  // The rank with the least room left on its own GPU (on one kind of GPU: the largest peak).
  std::string gpu;                // catalog name of that rank's GPU
  double capacity_bytes = 0;      // what a process can allocate on it (hw/gpu_memory.hpp), not the datasheet's HBM
  double peak_bytes = 0;          // that rank's peak
  int peak_rank = 0;              // the first such rank
  std::string phase;              // "forward_backward", "backward_end" or "optimizer"
  std::string recompute;          // activation recompute assumed: "none", "selective", "full"
  std::vector<MemoryTerm> terms;  // the peak rank's terms at its peak phase, biggest first
  bool fits = true;               // peak_bytes <= capacity_bytes
};

// Throughput of the simulated step (models/run/throughput.hpp states the FLOP count).
struct ThroughputResult {
  bool estimated = false;
  double tokens_per_step = 0, samples_per_step = 0;
  double tokens_per_s = 0, samples_per_s = 0;
  double model_flops_per_step = 0;     // Megatron's num_floating_point_operations, no recompute
  double hardware_flops_per_step = 0;  // the same with the recompute's extra forward
  double model_tflops_per_gpu = 0, hardware_tflops_per_gpu = 0;
  double peak_tflops_per_gpu = 0;  // dense bf16 (catalog)
  double mfu = 0, hfu = 0;         // model / hardware TFLOP/s over peak
};

// What the run costs at the cluster's on-demand price (models/run/cost.hpp): the nodes' $/hour
// (catalog, the user's price file or [cluster] price_per_hour) times the simulated time.
// Part of a cluster's price sold one way (a mixed cluster's Capacity Block nodes beside on-demand ones).
struct PricePart {
  std::string pricing;  // as CostResult::pricing, never "mixed"
  double usd_per_hour = 0;
};

struct CostResult {
  bool known = false;        // false: some node has no price (missing names it) or no model
  double usd_per_hour = 0;   // the whole cluster
  double usd_per_step = 0;   // usd_per_run / steps: step_time_s x usd_per_hour / 3600 x billed_s / run_time_s
  double usd_per_run = 0;    // billed_s x usd_per_hour / 3600
  double billed_s = 0;       // the time paid for: run_time_s, or a Capacity Block's whole window (run/cost.hpp)
  double usd_per_million_tokens = 0;  // 0 without a throughput estimate
  std::string source;        // where the price came from (catalog entry and date, file, scenario)
  std::string pricing;       // how the nodes are sold: "on-demand", "capacity block", "given" (the user's), "mixed"
  std::string missing;       // an instance with no price ("" when known)
  int nodes = 0, gpus = 0;   // what usd_per_hour bills: every node of the cluster and its GPUs (0: unknown)
  std::vector<PricePart> parts;  // usd_per_hour by how it is sold (run/cost.hpp usd_for_seconds bills each)
};

struct LinkResult {
  std::string name, kind;
  double bytes = 0;
  double busy_s = 0;
  double utilization = 0;  // bytes / (capacity * step time)
  double capacity_bytes_per_s = 0;
};

// Every link of one kind over the step (RunResult::links keeps only the busiest 32).
struct LinkClassResult {
  std::string kind;
  int64_t links = 0;
  double bytes = 0;
  double mean_utilization = 0, max_utilization = 0;
};

// One span on a timeline: a compute block or a collective, on one rank and stream.
struct TimelineEvent {
  int rank = 0;
  std::string stream;  // "compute", "comm", "offload"
  std::string name;    // "fwd L3", "all_gather 218 MB"
  std::string op;      // collective op, empty for compute
  double start_s = 0, end_s = 0;
  int64_t bytes = 0;
  std::string algo, proto;  // for collectives: NCCL's choice
};

// One kind of collective the step launched: an op on a group of a given name and size (the first
// such group; the others of that name and size are its copies in other places). The report's
// bus-bandwidth curves replay each on that group's ranks, as the step ran them.
struct CollectiveUse {
  std::string op;                        // "all_gather" (nccl::coll_op_name)
  std::string group;                     // the group's name: "dp", "tp", "shard", "replicate", "world", ...
  std::vector<int> ranks;                // World ranks of the first such group, in communicator order
  int nodes = 0;                         // nodes those ranks are on
  int64_t min_bytes = 0, max_bytes = 0;  // sizes it was launched with (nccl-tests convention)
};

struct TransportCount {
  std::string label;       // "P2P/CUMEM/read", "NET/Socket/0"...
  int pairs = 0;           // ordered rank pairs connected this way (ring/tree neighbours used)
  std::string link_class;  // optional: models::link_class_name ("nvlink", "pcie", "shm", "efa",
                           // "ib", "socket"); the label alone cannot tell NVLink from PCIe P2P
};

// Optional, for pictures: one connected rank pair (ring/tree neighbours), as NCCL would log it.
struct PairTransport {
  int a = 0, b = 0;
  std::string label;       // "P2P/CUMEM/read", "NET/Libfabric/0/GDRDMA", ...
  std::string link_class;  // as in TransportCount
};

// One mechanism of the scale engine (models/scale/README.md) and whether this run used it, and
// why or why not (`commsim run --explain-mode`).
struct ScaleModeLine {
  std::string mechanism;  // "data-parallel replicas", "rank classes", ... (the README's table)
  bool applied = false;
  std::string why;
};

struct JobResult;  // below: one job of several on one fabric

struct RunResult {
  std::string scenario;
  // What it ran on (models/run/layout_line.hpp): GPU, node and pod counts and the one line every
  // output prints beside the numbers ("4 GPUs: 1 node p4d.24xlarge, 4 pods x 1 GPU; zero3, dp 4").
  int gpus = 0, nodes = 0, pods = 0;
  // A training step's micro-batches per rank and their size (Megatron: per pipeline; the others:
  // gradient accumulation); 0 for a collective. A what-if that changes dp changes them.
  int micro_batches = 0, micro_batch_size = 0;
  std::string layout;
  double step_time_s = 0;
  double run_time_s = 0;  // step_time * training.steps (+ one-off costs if modelled)
  int steps = 1;
  std::vector<RankResult> ranks;
  std::vector<LinkResult> links;              // busiest first, at most 32
  std::vector<LinkClassResult> link_classes;  // every link, by kind, busiest kind first
  std::vector<TransportCount> transports;
  std::vector<PairTransport> pair_transports;  // optional (viz draws the topology from it)
  std::vector<TimelineEvent> timeline;         // one step
  // The ranks `timeline` holds events for, ascending, and why these (models/run/result_fill.hpp
  // timeline_ranks): every rank up to 16, beyond that one per program and compute speed.
  std::vector<int> timeline_ranks;
  std::string timeline_ranks_why;
  std::vector<CollectiveUse> collectives_used;  // each (op, group name, size) once, in launch order of programs
  std::map<std::string, double> breakdown;     // named totals for the summary, e.g. "compute_s"
  RankBreakdown step_breakdown;                // mean of the ranks' breakdowns: sums to step_time_s
  std::vector<std::string> notes;              // what the model assumed, in plain words
  // Of the notes, those that say where this machine at this size is known to differ from the model,
  // with the measured size (hw::NodeSpec::network_caveat, nvlink_caveat, hw::kSocketRateNote):
  // `plan` and `compare` show them beside their rows.
  std::vector<std::string> caveats;
  std::vector<ScaleModeLine> scale_mode;       // RunOptions::explain_mode: every mechanism, in order
  bool partial = false;                        // stopped by --time-limit
  uint64_t events = 0;                         // simulator events processed
  MemoryResult memory;                         // GPU memory estimate (training steps)
  ThroughputResult throughput;                 // tokens/s, TFLOP/s, MFU (training steps)
  CostResult cost;                             // $ per step, run and million tokens (run/cost.hpp)
  // [[stragglers]]: the same step without them (run/stragglers.hpp); what they cost is the difference.
  std::optional<double> straggler_free_step_s;
  // Per [[stragglers]] entry, the pipeline stages its slowed GPUs hold (Megatron with pp > 1; empty
  // otherwise, and for a link entry): a slow GPU costs the step by its stage's place.
  std::vector<std::vector<int>> straggler_stages;
  int pipeline_stages = 1;  // pp of that layout
  // Several jobs on one fabric ([[jobs]], models/run/jobs.hpp): each job's own figures; the fields
  // above then describe the shared run (step_time_s: the longest job's step together).
  std::vector<JobResult> jobs;
  // At scale (models/goodput_result.hpp): the step over seeded GPU speeds (--samples), and the
  // run's failures, checkpoints, expected wall time, goodput and cost.
  VariabilityResult variability;
  GoodputResult goodput;
  bool fits() const { return !memory.estimated || memory.fits; }
};

// One job of a scenario with [[jobs]]: its step simulated alone on the cluster (the other jobs'
// nodes idle) and together with the others (all jobs' flows sharing the fabric, from t = 0).
struct JobResult {
  std::string name;
  int first_node = 0, last_node = 0;  // the cluster's nodes it holds
  int gpus = 0;
  double step_alone_s = 0, step_together_s = 0;
  double lost_s() const { return step_together_s - step_alone_s; }  // what it lost to the others
  RunResult together;  // its run among the others (ranks numbered within the job, nodes the cluster's)
};

}  // namespace models
