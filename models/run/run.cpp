// models::run_scenario: scenario -> World -> collective engine -> step programs -> StepExecutor ->
// RunResult. One training step is simulated (steps are identical in steady state, each ends
// with the optimizer); run_time = step_time x training.steps.
#include "models/run/run.hpp"
#include "models/params.hpp"

#include <algorithm>
#include <unordered_set>

#include "models/collectives/collective.hpp"
#include "models/error.hpp"
#include "models/nccl/env_names.hpp"
#include "models/run/memory_estimate.hpp"
#include "models/run/result_fill.hpp"
#include "models/topology/resolve.hpp"
#include "models/workload/data_parallel.hpp"
#include "models/workload/executor.hpp"
#include "models/workload/megatron.hpp"
#include "sim/check.hpp"

namespace models {

namespace {
using workload::Program;
using workload::RankSetup;

// A bare collective repeated `iterations` times over every rank (the engine's end-to-end run).
void bare_collective(const ScenarioSpec& spec, int n, std::vector<Program>& programs,
                     std::vector<collectives::Group>& groups, std::vector<RankSetup>& ranks) {
  const CollectiveSpec& c = *spec.collective;
  nccl::CollOp op;
  if (!nccl::parse_coll_op(c.op, op)) throw SpecError("collective.op", "unknown collective '" + c.op + "'");
  if (c.bytes <= 0) throw SpecError("collective.bytes", "collective size must be positive");
  if (c.iterations < 1) throw SpecError("collective.iterations", "iterations must be at least 1");
  ranks.assign(n, RankSetup{});
  if (op == nccl::CollOp::SendRecv) {
    if (n < 2) throw SpecError("collective.op", "sendrecv needs at least 2 ranks");
    Program idle({"compute"}), sender({"compute"}), receiver({"compute"});
    for (int i = 0; i < c.iterations; ++i) {
      sender.send(0, 0, c.bytes, "send");
      receiver.recv(0, 0, c.bytes, "recv");
    }
    programs = {std::move(idle), std::move(sender), std::move(receiver)};
    ranks[0].program = 1;
    ranks[0].peer[0] = 1;
    ranks[1].program = 2;
    ranks[1].peer[0] = 0;
    return;
  }
  Program p({"compute"});
  for (int i = 0; i < c.iterations; ++i) p.collective(0, 0, op, c.bytes, std::string(nccl::coll_op_name(op)));
  programs = {std::move(p)};
  collectives::Group world{{}, 0, "world"};
  for (int r = 0; r < n; ++r) {
    world.ranks.push_back(r);
    ranks[r].group[0] = 0;
  }
  groups.push_back(std::move(world));
}

}  // namespace

RunResult run_scenario(const ScenarioSpec& spec, const RunOptions& options) {
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  if (options.audit) net.set_audit(true);
  check_params(spec.cluster.params);
  auto world = World::build(spec, net);
  check_memory_budget(spec, world->size());  // refuse what would not fit before building flows
  auto engine = collectives::make_collective_engine(sim, net, *world, spec);
  double overlap_slowdown = 0;  // compute.overlap_slowdown, for training steps
  const int n = world->size();

  std::vector<Program> programs;
  std::vector<collectives::Group> groups;
  std::vector<RankSetup> ranks;
  std::vector<std::string> notes;
  int iterations = 1;

  if (spec.collective) {
    bare_collective(spec, n, programs, groups, ranks);
    iterations = spec.collective->iterations;
    notes.push_back("bare " + spec.collective->op + " of " + std::to_string(spec.collective->bytes) + " B over " +
                    std::to_string(n) + " ranks, " + std::to_string(iterations) + " iterations back to back");
  } else {
    if (!spec.model) throw SpecError("model", "a scenario needs [model] (a training step) or [collective]");
    const workload::ModelShape shape = workload::resolve_model(*spec.model);
    const hw::NodeSpec node = topology::resolve_node(spec.cluster);
    const workload::ComputeRates rates =
        workload::make_rates(node.gpu.bf16_flops, node.gpu.hbm_bytes_per_s,
                             node.host_mem_bytes_per_s > 0 ? node.host_mem_bytes_per_s : 200e9,
                             spec.training.compute_efficiency, spec.cluster.params);
    overlap_slowdown = rates.overlap_slowdown;
    const auto& par = spec.parallel;
    if (par.strategy == "megatron") {
      workload::MegatronConfig c;
      c.model = shape;
      c.training = spec.training;
      c.tp = std::max(1, par.tp);
      c.pp = std::max(1, par.pp);
      if (n % (c.tp * c.pp) != 0)
        throw SpecError("parallel.tp", "tp x pp = " + std::to_string(c.tp * c.pp) + " does not divide the " +
                                           std::to_string(n) + " GPUs");
      c.dp = n / (c.tp * c.pp);
      if (par.dp != 0 && par.dp != c.dp)
        throw SpecError("parallel.dp", "tp x pp x dp = " + std::to_string(c.tp * c.pp * par.dp) + " but there are " +
                                           std::to_string(n) + " GPUs");
      c.micro_batches = par.micro_batches > 0 ? par.micro_batches : std::max(1, spec.training.grad_accum);
      c.rates = rates;
      programs = workload::build_megatron_programs(c);
      workload::megatron_layout(c, groups, ranks);
      notes.push_back("Megatron TP " + std::to_string(c.tp) + " x PP " + std::to_string(c.pp) + " x DP " +
                      std::to_string(c.dp) + ", 1F1B over " + std::to_string(c.micro_batches) +
                      " micro-batches; embedding and head replicated across TP");
    } else {
      if (par.tp > 1 || par.pp > 1)
        throw SpecError("parallel.tp",
                        "tp and pp need strategy = \"megatron\" (" + par.strategy + " is pure data parallelism)");
      if (par.dp != 0 && par.dp != n)
        throw SpecError("parallel.dp",
                        "dp = " + std::to_string(par.dp) + " but there are " + std::to_string(n) + " GPUs");
      if (par.strategy == "zero3" && spec.zero.stage != 3)
        throw SpecError("zero.stage", "only ZeRO stage 3 is modelled (use strategy ddp for plain data parallelism)");
      workload::DataParallelConfig c;
      c.model = shape;
      c.training = spec.training;
      c.zero = spec.zero;
      c.strategy = par.strategy;
      c.dp = n;
      for (int r = 0; r < n; ++r) c.node_ranks += world->rank(r).node == world->rank(0).node ? 1 : 0;
      c.node_ranks -= 1;
      c.cpu_threads = spec.training.cpu_threads;
      c.launcher_procs = 0;  // ranks of rank 0's pod: one launcher (torchrun) per pod
      for (int r = 0; r < n; ++r)
        c.launcher_procs +=
            world->rank(r).node == world->rank(0).node && world->rank(r).pod == world->rank(0).pod ? 1 : 0;
      c.rates = rates;
      programs = {workload::build_data_parallel_program(c)};
      collectives::Group dp{{}, 0, "dp"};
      ranks.assign(n, RankSetup{});
      for (int r = 0; r < n; ++r) {
        dp.ranks.push_back(r);
        ranks[r].group[0] = 0;
      }
      groups.push_back(std::move(dp));
      notes.push_back(par.strategy + " over " + std::to_string(n) + " ranks, " +
                      std::to_string(spec.training.grad_accum) + " micro-batch(es) of " +
                      std::to_string(spec.training.micro_batch) + " x " + std::to_string(shape.seq) +
                      " tokens per step");
      if (par.strategy == "zero3" && !spec.zero.unmodelled.empty()) {
        std::string keys;
        for (const auto& k : spec.zero.unmodelled) keys += (keys.empty() ? "" : ", ") + k;
        notes.push_back("zero: " + keys + (spec.zero.unmodelled.size() == 1 ? " is" : " are") +
                        " set but not modelled (simulated as DeepSpeed's default)");
      }
    }
    char buf[160];
    std::snprintf(buf, sizeof buf, "compute: %s at %.0f TFLOP/s achieved (%.3f of peak), HBM %.0f GB/s achieved",
                  node.gpu.name.c_str(), rates.flops_per_s() / 1e12, rates.efficiency, rates.hbm_rate() / 1e9);
    notes.emplace_back(buf);
  }

  for (auto& note : nccl::unmodelled_nccl_env_notes(spec.nccl_env)) notes.push_back(std::move(note));

  workload::StepExecutor exec(sim, net, *engine, world.get(), std::move(programs), std::move(groups), std::move(ranks));
  exec.overlap_slowdown = overlap_slowdown;
  if (options.timeline) exec.record_timeline(timeline_ranks(exec));
  exec.set_wall_limit(options.time_limit_s);
  exec.run();
  SIM_CHECK(exec.all_done() || exec.stopped(), "step programs deadlocked: a rank waits for a peer that never comes");
  // Audit: every flow ends (a run stopped by --time-limit leaves its flows in flight on purpose).
  if (options.audit && !exec.stopped())
    SIM_CHECK(net.active_flows() == 0, "flows still in flight after every rank finished its program");

  RunResult result = fill_result(exec, net, *world, spec, options);
  result.notes.insert(result.notes.begin(), notes.begin(), notes.end());
  if (spec.collective) {
    result.step_time_s /= iterations;
    result.run_time_s = result.step_time_s * iterations;
    result.steps = iterations;
  }
  result.events = sim.events_run();
  return result;
}

}  // namespace models
