// models::run_scenario, the pipeline: scenario -> World -> collective engine -> strategy (what
// every rank runs) -> StepExecutor -> RunResult. One training step is simulated (steps are
// identical in steady state, each ends with the optimizer); run_time = step_time x training.steps.
#include "models/run/run.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>

#include "models/collectives/collective.hpp"
#include "models/nccl/env.hpp"
#include "models/params.hpp"
#include "models/run/breakdown.hpp"
#include "models/run/cost.hpp"
#include "models/run/jobs.hpp"
#include "models/run/memory_estimate.hpp"
#include "models/run/memory_fill.hpp"
#include "models/run/mixed_gpus.hpp"
#include "models/run/result_fill.hpp"
#include "models/run/stragglers.hpp"
#include "models/run/throughput.hpp"
#include "models/run/wall_budget.hpp"
#include "models/topology/placement.hpp"
#include "models/topology/resolve.hpp"
#include "models/workload/executor.hpp"
#include "models/workload/layout.hpp"
#include "models/workload/model_shape.hpp"
#include "models/workload/replicas.hpp"
#include "models/workload/strategy.hpp"
#include "sim/check.hpp"

namespace models {

namespace {
// A run whose --time-limit passed during set-up: nothing was simulated (exit 3 like any run the
// limit stopped), and the notes say where it stopped.
RunResult stopped_in_setup(const ScenarioSpec& spec, const WallBudget& budget) {
  RunResult res;
  res.scenario = spec.name;
  res.partial = true;
  res.steps = std::max(1, spec.training.steps);
  res.breakdown["simulated_fraction"] = 0;
  char when[64];
  std::snprintf(when, sizeof when, "%.3g s", budget.elapsed_s());
  res.notes.push_back(std::string("stopped by --time-limit after ") + when + " of set-up, while " +
                      budget.stopped_in() + ": no operation simulated");
  return res;
}

bool has_copies(const std::vector<workload::Program>& programs) {
  for (const auto& p : programs)
    for (const auto& stream : p.ops)
      for (const auto& op : stream)
        if (op.kind == workload::OpKind::Copy) return true;
  return false;
}

// Every collective the programs issue is an all-gather, reduce-scatter or all-reduce that NCCL's
// tuner runs on rings (or PAT, replayed on them).
bool ring_collectives_only(const workload::StepPlan& plan, const collectives::CollectiveEngine& engine) {
  for (std::size_t p = 0; p < plan.programs.size(); ++p) {
    const auto runner = std::find_if(plan.ranks.begin(), plan.ranks.end(),
                                     [&](const workload::RankSetup& r) { return r.program == static_cast<int>(p); });
    if (runner == plan.ranks.end()) continue;
    for (const auto& stream : plan.programs[p].ops)
      for (const auto& op : stream) {
        if (op.kind != workload::OpKind::Collective) continue;
        const int g = runner->group[op.slot];
        if (g < 0 || plan.groups[g].ranks.size() <= 1) continue;
        if (op.coll != nccl::CollOp::AllGather && op.coll != nccl::CollOp::ReduceScatter &&
            op.coll != nccl::CollOp::AllReduce)
          return false;
        const nccl::Algo algo = engine.choose(plan.groups[g], op.coll, op.bytes).algo;
        if (algo != nccl::Algo::Ring && algo != nccl::Algo::PAT) return false;
      }
  }
  return true;
}

// Which symmetry a step may use: none (every replica simulated), the data-parallel replicas
// (workload/replicas.hpp: the guard may abandon them), or the replicas with their data-parallel
// collectives as orbits too (workload/replica_orbits.cpp).
enum class Quotient { None, Replicas, ReplicaOrbits };

// One simulated step. `mode` Replicas: simulate one data-parallel replica per class where they
// are alike; nullopt if the network's guard then found the replicas' own traffic meeting other
// traffic (`abandoned` says where), with `orbits_why` saying why replica orbits do not apply ("" if
// they may). ReplicaOrbits: nullopt if they do not apply, or a collective's flows lacked the
// invariance (`abandoned` says why). The caller then simulates every replica.
std::optional<RunResult> simulate_step(const ScenarioSpec& spec, const RunOptions& options, Quotient mode,
                                       WallBudget& budget, std::string& abandoned,
                                       std::optional<std::string>* orbits_why = nullptr) {
  const bool replicas = mode != Quotient::None;
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  if (options.audit) net.set_audit(true);
  net.set_closed_forms(!options.full);
  check_params(spec.cluster.params);

  // Refuse what would not fit before anything big is built: the ranks come from the placement
  // alone (the node's GPU count), the operations from the scenario (memory_estimate.hpp).
  check_memory_budget(
      spec, topology::make_placement(spec.cluster, spec.placement, topology::resolve_node(spec.cluster).gpus).size(),
      options.full);
  // Scenario -> World: placement, topology, NCCL's transports, the links (and [nccl.env], parsed once).
  auto world = World::build(spec, net);
  if (budget.spent("building the world (placement, transports, links)")) return stopped_in_setup(spec, budget);
  // -> the collective engine on that World.
  auto engine = collectives::make_collective_engine(sim, net, *world, spec);
  if (budget.spent("building the collective engine")) return stopped_in_setup(spec, budget);
  // -> what every rank runs (the layout is validated there, once).
  workload::StepPlan plan = workload::plan_step(spec, *world);
  give_ranks_their_gpus(spec, *world, plan);  // [[cluster.groups]] of other GPUs: each rank on its own
  for (auto& note : nccl::unmodelled_nccl_env_notes(spec.nccl_env)) plan.notes.push_back(std::move(note));
  if (auto note = nccl::collnet_note(spec.nccl_env, spec.cluster.fabric.sharp)) plan.notes.push_back(std::move(*note));
  apply_stragglers(spec, *world, plan.ranks);  // [[stragglers]]: slower compute on listed ranks/nodes
  if (budget.spent("writing every rank's step program")) return stopped_in_setup(spec, budget);
  // -> the GPU memory each rank needs (a layout that does not fit still runs, flagged).
  MemoryFill memory = estimate_step_memory(spec, *world, plan, *engine);
  if (budget.spent("estimating every rank's memory")) return stopped_in_setup(spec, budget);

  // -> which replicas are alike (before the programs move into the executor).
  workload::ReplicaQuotient quotient;
  if (replicas && !options.full && !plan.replica.empty())
    quotient = workload::replica_quotient(*world, net, plan.programs, plan.groups, plan.ranks, plan.replica);
  if (mode == Quotient::ReplicaOrbits) {
    quotient = workload::replica_orbits(std::move(quotient), *world, net, plan.groups);
    if (!quotient.applies()) {
      abandoned = quotient.why_not;
      return std::nullopt;
    }
  }
  // Kept for replica orbits, should the guard abandon the replicas (one class only).
  std::optional<workload::ReplicaQuotient> alike;
  if (orbits_why && quotient.applies() && quotient.simulated_replicas == 1) alike = quotient;
  // Offload copies share each node's host links, so ranks are simulated for their images on other
  // nodes only with those nodes' copies: every node alike simulated once (audit mode checks each
  // collective's bytes per rank: every rank simulated).
  if (replicas && !options.full && !options.audit && !quotient.applies() && world->nodes() > 1 &&
      has_copies(plan.programs))
    quotient = workload::node_quotient(*world, net, plan.programs, plan.groups, plan.ranks);
  // Without copies rank classes simulate the ranks, but every collective's flows are every node's:
  // node orbits cut them to node 0's where the nodes are alike and every collective runs on rings
  // (a tree's or a rooted chain's flows are not invariant under moving the nodes on).
  workload::ReplicaQuotient orbits;
  if (replicas && !options.full && !options.audit && !quotient.applies() && world->nodes() > 1 &&
      !has_copies(plan.programs) && ring_collectives_only(plan, *engine))
    orbits = workload::node_quotient(*world, net, plan.programs, plan.groups, plan.ranks);
  // Nothing else owns the network's mirrors: NVLSTree all-reduces may run as GPU rotation orbits
  // (models/collectives/rotation_fold.cpp; the guard abandons them if other traffic meets them).
  if (replicas && !options.full && !options.audit && !quotient.applies() && !orbits.applies())
    engine->set_rotation_fold(true);
  // -> the executor.
  workload::StepExecutor exec(sim, net, *engine, world.get(), std::move(plan.programs), std::move(plan.groups),
                              std::move(plan.ranks));
  exec.overlap_slowdown = plan.overlap_slowdown;
  exec.comm_overlap_slowdown = plan.comm_overlap_slowdown;
  std::vector<int> recorded;
  if (options.timeline) exec.record_timeline(recorded = timeline_ranks(exec));
  if (options.full) {
    plan.notes.push_back("full simulation (--full): every rank and every flow simulated");
  } else if (quotient.applies() && !quotient.spanning_group.empty()) {
    plan.notes.push_back("symmetry: 1 of " + std::to_string(quotient.replicas) + " data-parallel replicas simulated (" +
                         std::to_string(quotient.simulated_ranks) + " of " + std::to_string(world->size()) +
                         " ranks), each for the replicas alike to it, and the data-parallel collectives' flows "
                         "leaving it, each for its images on every replica, all on its links standing for every "
                         "replica's (its own traffic meets the data-parallel traffic), checked at each collective's "
                         "first launch (--full: all)");
    exec.simulate_replicas(std::move(quotient));
  } else if (quotient.applies() && quotient.node_orbits) {
    plan.notes.push_back("symmetry: 1 of " + std::to_string(quotient.replicas) + " alike nodes simulated (" +
                         std::to_string(quotient.simulated_ranks) + " of " + std::to_string(world->size()) +
                         " ranks), its links standing for every node's and each collective's flows for their images "
                         "on every node, checked at the collective's first launch (--full: all)");
    exec.simulate_replicas(std::move(quotient));
  } else if (quotient.applies()) {
    plan.notes.push_back("symmetry: " + std::to_string(quotient.simulated_replicas) + " of " +
                         std::to_string(quotient.replicas) + " data-parallel replicas simulated (" +
                         std::to_string(quotient.simulated_ranks) + " of " + std::to_string(world->size()) +
                         " ranks), each for the replicas alike to it" +
                         (quotient.apart.empty() ? "" : " (" + quotient.apart + ")") +
                         "; their own traffic checked at every instant never to meet other traffic (--full: all)");
    exec.simulate_replicas(std::move(quotient));
  } else if (const auto classes = exec.simulate_classes(recorded); classes.simulated < world->size()) {
    std::string flows;
    if (orbits.applies()) {
      flows = "; the collectives' flows of 1 of " + std::to_string(orbits.replicas) +
              " alike nodes, each for its images on every node, checked at the collective's first launch";
      exec.simulate_node_orbits(std::move(orbits));
    }
    plan.notes.push_back("symmetry: " + std::to_string(classes.simulated) + " of " + std::to_string(world->size()) +
                         " ranks simulated, each for the ranks with its program and communicators" + flows +
                         " (--full: all)");
  } else if (world->size() > 1) {  // the mode, and why nothing was saved
    plan.notes.push_back(
        "symmetry: every rank simulated (" +
        (!quotient.why_not.empty()
             ? (quotient.node_orbits ? "nodes simulated once: " : "data-parallel replicas: ") + quotient.why_not
         : !classes.why_full.empty()
             ? classes.why_full
             : std::string("no two unrecorded ranks with the same program, speed and communicators")) +
        ")");
  }
  if (budget.spent("finding the rank classes")) return stopped_in_setup(spec, budget);
  exec.set_wall_limit(options.time_limit_s, budget.start());
  exec.run();
  if (const std::string failed = engine->orbit_failure(); !failed.empty()) {
    abandoned = std::string(mode == Quotient::ReplicaOrbits ? "replica orbits abandoned"
                                                            : "symmetry: nodes simulated once abandoned") +
                " (at " + std::to_string(sim.now().seconds()) + " s the " + failed + ")";
    if (mode != Quotient::ReplicaOrbits) abandoned += ": every rank simulated";
    return std::nullopt;
  }
  if (net.mirror_violated() && engine->rotation_folds() > 0) {
    const std::string name(net.link_name(net.mirror_violation_link()));
    abandoned = "symmetry: GPU rotation fold abandoned (at " + std::to_string(net.mirror_violation_time().seconds()) +
                " s other traffic met a folded all-reduce's flows on " +
                (name.rfind("mirror/", 0) == 0 ? name.substr(7) : name) + "): every flow simulated";
    return std::nullopt;
  }
  if (net.mirror_violated()) {
    const sim::LinkId at = net.mirror_violation_link();
    const std::string name(net.link_name(at));
    abandoned = "symmetry: replicas simulated once abandoned (at " +
                std::to_string(net.mirror_violation_time().seconds()) +
                " s a replica's own traffic met other traffic on " +
                (name.rfind("mirror/", 0) == 0 ? name.substr(7) : name) + "): every replica simulated";
    if (orbits_why)  // (audit mode checks each collective's bytes per rank: not as orbits)
      *orbits_why = options.audit ? std::string("audit mode (--check) simulates every flow")
                    : alike       ? workload::replica_orbits(std::move(*alike), *world, net, exec.groups()).why_not
                                  : std::string("replicas of several kinds");
    return std::nullopt;
  }
  SIM_CHECK(exec.all_done() || exec.stopped(), "step programs deadlocked: a rank waits for a peer that never comes");
  // Audit: every flow ends (a run stopped by --time-limit leaves its flows in flight on purpose).
  if (options.audit && !exec.stopped())
    SIM_CHECK(net.active_flows() == 0, "flows still in flight after every rank finished its program");

  if (const uint64_t folds = engine->rotation_folds(); folds > 0)
    plan.notes.push_back("symmetry: " + std::to_string(folds) +
                         " tree all-reduce(s) (NVLSTree, Tree) as the orbits of moving every node's GPUs on: one "
                         "flow per orbit (one tree set's, the first GPUs' ports and chains), each for its images, on "
                         "links standing for their orbits (--full: all)");
  net.settle_blocks();  // link totals of repeated closed-form collectives
  // -> the result.
  RunResult result = fill_result(exec, net, *world, spec, options);
  complete_result(result, spec, *world, plan.notes, plan.iterations, std::move(memory));
  result.events = sim.events_run();
  return result;
}

}  // namespace

namespace {
RunResult run_step(const ScenarioSpec& spec, const RunOptions& options);
}

// The step, then its run's length (training.tokens) and cost (cost.hpp).
RunResult run_scenario(const ScenarioSpec& spec, const RunOptions& options) {
  RunResult result = spec.jobs.empty() ? run_step(spec, options) : run_jobs(spec, options);
  apply_token_target(spec, result);
  result.cost = make_cost(spec, result);
  return result;
}

namespace {
RunResult run_step(const ScenarioSpec& spec, const RunOptions& options) {
  // --time-limit counts the set-up too: checked between its stages (wall_budget.hpp).
  WallBudget budget(options.time_limit_s, WallBudget::Clock::now());
  std::string abandoned;
  std::optional<std::string> orbits;  // the guard abandoned the replicas: why not as orbits ("": try them)
  RunResult result;
  if (auto once = simulate_step(spec, options, options.replicas ? Quotient::Replicas : Quotient::None, budget,
                                abandoned, &orbits)) {
    result = std::move(*once);
  } else if (std::string why;
             orbits && orbits->empty() && (once = simulate_step(spec, options, Quotient::ReplicaOrbits, budget, why))) {
    // The replicas' own traffic met the data-parallel traffic: replicas and their data-parallel
    // collectives as orbits (the mode note says so).
    result = std::move(*once);
  } else {
    if (orbits && !orbits->empty()) abandoned += " (replica orbits: " + *orbits + ")";
    if (!why.empty()) abandoned += " (" + why + ")";
    result = *simulate_step(spec, options, Quotient::None, budget, abandoned);
    // One note on the mode: this one says why every replica (so, with send/recv, every rank) ran.
    std::erase_if(result.notes, [](const std::string& n) { return n.rfind("symmetry: every rank simulated", 0) == 0; });
    result.notes.insert(result.notes.begin(), abandoned);
  }
  if (!spec.stragglers.empty() && !result.partial) {  // what they cost: the same step without them
    RunOptions calm = options;
    calm.timeline = false;
    if (options.time_limit_s) calm.time_limit_s = *options.time_limit_s - budget.elapsed_s();
    add_straggler_cost(result, run_scenario(without_stragglers(spec), calm));
  }
  return result;
}
}  // namespace

}  // namespace models
