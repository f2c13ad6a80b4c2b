// The run's mode (mode.hpp): the folds' preconditions in the table's order, their notes, their
// guards' readings, and the cascade of attempts.
#include "models/scale/step/mode.hpp"

#include <algorithm>

#include "models/scale/ecmp_orbits.hpp"
#include "models/scale/step/rank_classes.hpp"
#include "models/scale/step/replicas.hpp"

namespace models::scale {

namespace {

constexpr const char* kMechanismNames[kMechanisms] = {
    "data-parallel replicas", "replica orbits",  "ECMP orbits",       "alike nodes", "rank classes",
    "node orbits",            "GPU rotation",    "all-to-all fold",   "closed-form blocks"};

ScaleModeLine& line(StepMode& mode, Mechanism m) { return mode.lines[static_cast<int>(m)]; }

void set(StepMode& mode, Mechanism m, bool applied, std::string why) {
  ScaleModeLine& l = line(mode, m);
  l.applied = applied;
  l.why = std::move(why);
}

bool has_copies(const std::vector<workload::Program>& programs) {
  for (const auto& p : programs)
    for (const auto& stream : p.ops)
      for (const auto& op : stream)
        if (op.kind == workload::OpKind::Copy) return true;
  return false;
}

bool has_all_to_all(const std::vector<workload::Program>& programs) {
  for (const auto& p : programs)
    for (const auto& stream : p.ops)
      for (const auto& op : stream)
        if (op.kind == workload::OpKind::Collective && op.coll == nccl::CollOp::AllToAll) return true;
  return false;
}

// A group running an all-to-all whose ranks lie in more than one replica (`replica_of`: per rank),
// by name; "" where none. Megatron carves expert-parallel groups out of the data-parallel
// dimension, so its MoE layers' all-to-alls span replicas.
std::string all_to_all_across(const workload::StepPlan& plan, const std::vector<int>& replica_of) {
  // Each program's all-to-all group slots, read once: ranks share programs, and a step's programs
  // hold every micro-batch's operations (131,072 ranks over them would be billions of visits).
  std::vector<std::vector<uint8_t>> slots(plan.programs.size());
  bool any = false;
  for (std::size_t p = 0; p < plan.programs.size(); ++p)
    for (const auto& stream : plan.programs[p].ops)
      for (const auto& op : stream)
        if (op.kind == workload::OpKind::Collective && op.coll == nccl::CollOp::AllToAll &&
            std::find(slots[p].begin(), slots[p].end(), op.slot) == slots[p].end()) {
          slots[p].push_back(op.slot);
          any = true;
        }
  if (!any) return "";
  std::vector<char> checked(plan.groups.size(), 0);
  for (const workload::RankSetup& rank : plan.ranks)
    for (uint8_t slot : slots[rank.program]) {
      const int g = rank.group[slot];
      if (g < 0 || checked[g]) continue;
      checked[g] = 1;
      for (int r : plan.groups[g].ranks)
        if (replica_of[r] != replica_of[plan.groups[g].ranks.front()]) return plan.groups[g].name;
    }
  return "";
}

// Every collective the programs issue is an all-gather, reduce-scatter or all-reduce that NCCL's
// tuner runs on rings (or PAT, replayed on them); else why not.
std::string ring_collectives_only(const workload::StepPlan& plan, const collectives::CollectiveEngine& engine) {
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
          return std::string(nccl::coll_op_name(op.coll)) + " in the step (its flows are not the same from every node)";
        const nccl::Algo algo = engine.choose(plan.groups[g], op.coll, op.bytes).algo;
        if (algo != nccl::Algo::Ring && algo != nccl::Algo::PAT)
          return std::string(nccl::coll_op_name(op.coll)) + " on " + nccl::algo_name(algo) +
                 " in the step (a tree's or a rooted chain's flows are not invariant under moving the nodes on)";
      }
  }
  return "";
}

// "16 data-parallel replicas", or for blocks of replicas that share nodes (replicas.hpp,
// node_whole_replicas) "16 blocks of 2 data-parallel replicas".
std::string replicas_text(const StepFold& q, const std::string& what) {
  if (q.replica_block <= 1) return std::to_string(q.replicas) + " " + what;
  return std::to_string(q.replicas) + " blocks of " + std::to_string(q.replica_block) + " " + what;
}

// Why no fold of the table's first rows may run in this attempt ("" when they may).
std::string why_no_folds(const ModeRequest& r) {
  if (r.full) return "--full simulates every rank and every flow";
  if (r.jobs) return "several jobs share one network: each job's ranks by rank classes only";
  if (!r.replicas) return "off (RunOptions::replicas = false: every replica simulated, for comparison)";
  if (r.attempt == Attempt::RankClassesOnly) return "an earlier attempt's guard failed (see the notes)";
  return "";
}

}  // namespace

const char* mechanism_name(Mechanism m) { return kMechanismNames[static_cast<int>(m)]; }

StepMode choose_mode(const ModeRequest& request, const World& world, const sim::FlowNetwork& net,
                     const workload::StepPlan& plan, const collectives::CollectiveEngine& engine) {
  StepMode mode;
  mode.request = request;
  for (int m = 0; m < kMechanisms; ++m) mode.lines.push_back({kMechanismNames[m], false, ""});
  mode.copies = has_copies(plan.programs);
  const std::string closed = why_no_folds(request);
  const bool may = closed.empty();
  const bool orbits_attempt = request.attempt == Attempt::ReplicaOrbits;
  const bool ecmp_attempt = request.attempt == Attempt::EcmpOrbits;

  // Data-parallel replicas (and, in their own attempts, replica orbits or ECMP orbits).
  if (!may) {
    set(mode, Mechanism::Replicas, false, closed);
  } else if (plan.replica.empty()) {
    set(mode, Mechanism::Replicas, false, "the step names no data-parallel replicas");
  } else {
    // Replicas that share nodes as blocks holding whole nodes; where the blocks do not fold either,
    // the replicas' own refusal (that they share nodes) is the one the run reports.
    const std::vector<int> blocks = node_whole_replicas(world, plan.replica);
    mode.fold = replica_fold(world, net, plan.programs, plan.groups, plan.ranks, blocks);
    const std::vector<int>* replica_of = &blocks;  // the replicas the fold folds
    if (blocks != plan.replica && mode.fold.applies()) {
      mode.fold.replica_block = (1 + *std::max_element(plan.replica.begin(), plan.replica.end())) / mode.fold.replicas;
    } else if (blocks != plan.replica) {
      mode.fold = replica_fold(world, net, plan.programs, plan.groups, plan.ranks, plan.replica);
      replica_of = &plan.replica;
    }
    if (orbits_attempt) {
      set(mode, Mechanism::Replicas, false, "their guard failed in the first attempt: replica orbits instead");
      mode.fold = replica_orbit_fold(std::move(mode.fold), world, net, plan.groups);
      if (mode.fold.applies())
        set(mode, Mechanism::ReplicaOrbits, true,
            "1 of " + replicas_text(mode.fold, "replicas") + ", with its data-parallel flows as orbits");
      else
        set(mode, Mechanism::ReplicaOrbits, false, mode.fold.why_not);
      if (!mode.fold.applies()) mode.refused = Abandoned{Mechanism::ReplicaOrbits, mode.fold.why_not, std::nullopt};
    } else if (ecmp_attempt) {
      set(mode, Mechanism::Replicas, false, "their guard failed in the first attempt: ECMP orbits instead");
      mode.fold = ecmp_orbit_fold(std::move(mode.fold), world, net, plan.groups);
      if (mode.fold.applies())
        set(mode, Mechanism::EcmpOrbits, true,
            "1 of " + std::to_string(mode.fold.replicas) + " replicas, its data-parallel flows as orbits; " +
                std::to_string(mode.fold.climbing_edges) + " of " + std::to_string(mode.fold.ring_edges) +
                " ring edges climb to ECMP-picked uplinks (approximate: step time within " +
                std::to_string(static_cast<int>(kEcmpOrbitsBound * 100 + 0.5)) + " % of --full)");
      else
        set(mode, Mechanism::EcmpOrbits, false, mode.fold.why_not);
      if (!mode.fold.applies()) mode.refused = Abandoned{Mechanism::EcmpOrbits, mode.fold.why_not, std::nullopt};
    } else if (const std::string across =
                   mode.fold.applies() && !request.audit ? all_to_all_across(plan, *replica_of) : "";
               !across.empty()) {
      // Under the fold the all-to-all would run as its n(n-1) pairs (the fold owns the folded links
      // the all-to-all fold needs), and its flows would meet the replicas' own traffic, which the
      // guard refuses only after the whole step: rank classes with the all-to-all fold instead.
      StepFold refused;
      refused.replicas = mode.fold.replicas;
      refused.why_not =
          "an all-to-all spans the replicas (group " + across + "): rank classes with the all-to-all fold instead";
      mode.fold = std::move(refused);
      set(mode, Mechanism::Replicas, false, mode.fold.why_not);
    } else if (mode.fold.applies()) {
      set(mode, Mechanism::Replicas, true,
          std::to_string(mode.fold.simulated_replicas) + " of " + replicas_text(mode.fold, "replicas") +
              " simulated; their own traffic checked at every instant never to meet other traffic");
      if (mode.fold.simulated_replicas == 1) mode.alike = mode.fold;  // for replica orbits, should the guard fail
    } else {
      set(mode, Mechanism::Replicas, false, mode.fold.why_not);
    }
  }
  if (!orbits_attempt && !ecmp_attempt)
    set(mode, Mechanism::ReplicaOrbits, false,
        !may ? closed
             : "tried only when the replicas' guard fails (their own traffic meets the data-parallel traffic)");
  if (ecmp_attempt)  // (the cascade's finish names the refusal)
    set(mode, Mechanism::ReplicaOrbits, false, std::string(kFabricRefusal));
  if (!ecmp_attempt)
    set(mode, Mechanism::EcmpOrbits, false,
        !may ? closed
             : "tried only when replica orbits refuse the fabric's shared links alone (pods whose uplinks ECMP picks "
               "per node pair)");

  // Alike nodes (steps with offload copies): the copies share each node's host links, so ranks
  // stand for their images on other nodes only with those nodes' copies.
  const bool owned = mode.fold.applies();
  std::string nodes_why = !may                ? closed
                          : request.audit     ? "--check audits each collective's bytes per rank: every rank simulated"
                          : owned             ? "data-parallel replicas own the folded links"
                          : world.nodes() < 2 ? "a single node"
                                              : "";
  if (nodes_why.empty() && !mode.copies) {
    set(mode, Mechanism::AlikeNodes, false, "no offload copies (rank classes and node orbits cover the step)");
  } else if (!nodes_why.empty()) {
    set(mode, Mechanism::AlikeNodes, false, nodes_why);
  } else {
    mode.fold = alike_nodes_fold(world, net, plan.programs, plan.groups, plan.ranks);
    if (mode.fold.applies())
      set(mode, Mechanism::AlikeNodes, true,
          "1 of " + std::to_string(mode.fold.replicas) + " nodes simulated, its links standing for every node's");
    else
      set(mode, Mechanism::AlikeNodes, false, mode.fold.why_not);
  }

  // Node orbits beside rank classes (no copies): the collectives' flows of node 0 where the nodes
  // are alike and every collective runs on rings.
  if (nodes_why.empty() && mode.copies) nodes_why = "offload copies (alike nodes cover the step)";
  if (nodes_why.empty() && mode.fold.applies()) nodes_why = "a fold of replicas or nodes owns the folded links";
  if (nodes_why.empty()) nodes_why = ring_collectives_only(plan, engine);
  if (nodes_why.empty()) {
    mode.node_orbits = alike_nodes_fold(world, net, plan.programs, plan.groups, plan.ranks);
    nodes_why = mode.node_orbits.why_not;
  }
  set(mode, Mechanism::NodeOrbits, false, nodes_why);  // applied: start_mode, with rank classes

  // Nothing else owns the network's folded links: tree all-reduces may run as GPU rotation orbits.
  mode.rotation = may && !request.audit && !mode.fold.applies() && !mode.node_orbits.applies();
  set(mode, Mechanism::GpuRotation, false,
      !may             ? closed
      : request.audit  ? "--check audits every flow"
      : !mode.rotation ? "another fold owns the folded links"
                       : "");

  const bool alltoall = has_all_to_all(plan.programs);
  set(mode, Mechanism::AllToAllFold, false,
      !alltoall                       ? "the step has no all-to-all"
      : request.full || request.audit ? "--full or --check: every pair's flow"
                                      : "");
  set(mode, Mechanism::ClosedForms, false,
      request.full    ? "--full rates every flow"
      : request.audit ? "--check audits every flow"
                      : "");
  return mode;
}

void start_mode(StepMode& mode, collectives::CollectiveEngine& engine, workload::StepExecutor& exec,
                const std::vector<int>& recorded, int world_size, std::vector<std::string>& notes) {
  if (mode.rotation) engine.set_rotation_fold(true);
  const std::string n = std::to_string(world_size);
  const StepFold& q = mode.fold;
  const std::string ranks_of = std::to_string(q.simulated_ranks) + " of " + n + " ranks";
  if (mode.request.full) {
    if (!mode.request.jobs) notes.push_back("full simulation (--full): every rank and every flow simulated");
    set(mode, Mechanism::RankClasses, false, "--full simulates every rank");
  } else if (q.applies() && !q.spanning_group.empty() && mode.request.attempt == Attempt::EcmpOrbits) {
    notes.push_back(ecmp_orbits_note(q.replicas, q.simulated_ranks, world_size, q.climbing_edges, q.ring_edges));
    set(mode, Mechanism::RankClasses, false, "ECMP orbits applied");
    exec.simulate_fold(std::move(mode.fold));
  } else if (q.applies() && !q.spanning_group.empty()) {
    notes.push_back("symmetry: 1 of " + replicas_text(q, "data-parallel replicas") + " simulated (" + ranks_of +
                    "), each for the replicas alike to it, and the data-parallel collectives' flows "
                    "leaving it, each for its images on every replica, all on its links standing for every "
                    "replica's (its own traffic meets the data-parallel traffic), checked at each collective's "
                    "first launch (--full: all)");
    set(mode, Mechanism::RankClasses, false, "replica orbits applied");
    exec.simulate_fold(std::move(mode.fold));
  } else if (q.applies() && q.node_orbits) {
    notes.push_back("symmetry: 1 of " + std::to_string(q.replicas) + " alike nodes simulated (" + ranks_of +
                    "), its links standing for every node's and each collective's flows for their images "
                    "on every node, checked at the collective's first launch (--full: all)");
    set(mode, Mechanism::RankClasses, false, "alike nodes applied");
    exec.simulate_fold(std::move(mode.fold));
  } else if (q.applies()) {
    notes.push_back("symmetry: " + std::to_string(q.simulated_replicas) + " of " +
                    replicas_text(q, "data-parallel replicas") + " simulated (" + ranks_of + "), each for the replicas alike to it" +
                    (q.apart.empty() ? "" : " (" + q.apart + ")") +
                    "; their own traffic checked at every instant never to meet other traffic (--full: all)");
    set(mode, Mechanism::RankClasses, false, "data-parallel replicas applied");
    exec.simulate_fold(std::move(mode.fold));
  } else if (const RankClasses classes = rank_classes(exec.programs(), exec.ranks(), recorded);
             classes.simulated < world_size) {
    exec.simulate_classes(classes);
    std::string flows;
    if (mode.node_orbits.applies()) {
      flows = "; the collectives' flows of 1 of " + std::to_string(mode.node_orbits.replicas) +
              " alike nodes, each for its images on every node, checked at the collective's first launch";
      set(mode, Mechanism::NodeOrbits, true,
          "the collectives' flows of 1 of " + std::to_string(mode.node_orbits.replicas) + " alike nodes");
      exec.simulate_node_orbits(std::move(mode.node_orbits));
    }
    notes.push_back("symmetry: " + std::to_string(classes.simulated) + " of " + n +
                    " ranks simulated, each for the ranks with its program and communicators" + flows +
                    " (--full: all)");
    set(mode, Mechanism::RankClasses, true, std::to_string(classes.simulated) + " of " + n + " ranks simulated");
  } else {
    const std::string why = !q.why_not.empty()
                                ? (q.node_orbits ? "nodes simulated once: " : "data-parallel replicas: ") + q.why_not
                            : !classes.why_not.empty()
                                ? classes.why_not
                                : std::string("no two unrecorded ranks with the same program, speed and communicators");
    if (world_size > 1 && !mode.request.jobs) notes.push_back("symmetry: every rank simulated (" + why + ")");
    set(mode, Mechanism::RankClasses, false, !classes.why_not.empty() ? classes.why_not : "no two ranks alike");
    if (mode.node_orbits.applies()) set(mode, Mechanism::NodeOrbits, false, "they run beside rank classes only");
  }
}

std::optional<Abandoned> finish_mode(StepMode& mode, const collectives::CollectiveEngine& engine,
                                     const sim::FlowNetwork& net, const sim::Simulator& sim, const World& world,
                                     const workload::StepExecutor& exec, std::vector<std::string>& notes) {
  const bool ecmp_attempt = mode.request.attempt == Attempt::EcmpOrbits;
  const bool orbits_attempt = mode.request.attempt == Attempt::ReplicaOrbits || ecmp_attempt;
  if (const std::string failed = engine.orbit_failure(); !failed.empty()) {
    Abandoned a{ecmp_attempt                                ? Mechanism::EcmpOrbits
                : orbits_attempt                            ? Mechanism::ReplicaOrbits
                : line(mode, Mechanism::AlikeNodes).applied ? Mechanism::AlikeNodes
                                                            : Mechanism::NodeOrbits,
                std::string(ecmp_attempt     ? "ECMP orbits abandoned"
                            : orbits_attempt ? "replica orbits abandoned"
                                             : "symmetry: nodes simulated once abandoned") +
                    " (at " + std::to_string(sim.now().seconds()) + " s the " + failed + ")",
                std::nullopt};
    if (!orbits_attempt) a.note += ": every rank simulated";
    return a;
  }
  const std::optional<GuardFailure> guard = guard_failure(net);
  if (guard && engine.rotation_folds() > 0)
    return Abandoned{Mechanism::GpuRotation,
                     "symmetry: GPU rotation fold abandoned (at " + std::to_string(guard->at.seconds()) +
                         " s other traffic met a folded all-reduce's flows on " + guard->link +
                         "): every flow simulated",
                     std::nullopt};
  if (guard) {
    Abandoned a{ecmp_attempt ? Mechanism::EcmpOrbits : orbits_attempt ? Mechanism::ReplicaOrbits : Mechanism::Replicas,
                "symmetry: replicas simulated once abandoned (at " + std::to_string(guard->at.seconds()) +
                    " s a replica's own traffic met other traffic on " + guard->link + "): every replica simulated",
                std::nullopt};
    a.orbits_why = mode.request.audit ? std::string("audit mode (--check) simulates every flow")
                   : mode.alike       ? replica_orbit_fold(std::move(*mode.alike), world, net, exec.groups()).why_not
                                      : std::string("replicas of several kinds");
    return a;
  }
  if (const uint64_t folds = engine.rotation_folds(); folds > 0) {
    notes.push_back("symmetry: " + std::to_string(folds) +
                    " tree all-reduce(s) (NVLSTree, Tree) as the orbits of moving every node's GPUs on: one "
                    "flow per orbit (one tree set's, the first GPUs' ports and chains), each for its images, on "
                    "links standing for their orbits (--full: all)");
    set(mode, Mechanism::GpuRotation, true, std::to_string(folds) + " tree all-reduce launch(es) folded");
  } else if (mode.rotation) {
    set(mode, Mechanism::GpuRotation, false,
        "allowed, but no tree all-reduce ran folded (rings, or no rotation symmetry)");
  }
  if (line(mode, Mechanism::AllToAllFold).why.empty()) {
    const auto a2a = engine.alltoall_folds();
    set(mode, Mechanism::AllToAllFold, a2a.folded > 0,
        std::to_string(a2a.folded) + " of " + std::to_string(a2a.folded + a2a.whole) + " all-to-all launch(es) folded" +
            (a2a.why_not.empty() ? "" : " (the others: " + a2a.why_not + ")"));
  }
  if (line(mode, Mechanism::ClosedForms).why.empty())
    set(mode, Mechanism::ClosedForms, net.blocks_closed() > 0,
        std::to_string(net.blocks_closed()) + " collective(s) in closed form, " +
            std::to_string(net.blocks_repeated()) + " of them repeated, " + std::to_string(net.blocks_materialized()) +
            " turned into flows by the guard");
  return std::nullopt;
}

void ModeCascade::failed(const Abandoned& a) {
  failed_ = true;
  given_up_.emplace_back(a.mechanism, "abandoned: " + a.note);
  if (attempt_ == Attempt::Folded) {
    abandoned_ = a.note;
    orbits_ = a.orbits_why;
    attempt_ = orbits_ && orbits_->empty() ? Attempt::ReplicaOrbits : Attempt::RankClassesOnly;
    if (orbits_ && orbits_->rfind(kFabricRefusal, 0) == 0) {  // the fabric's shared links alone: ECMP orbits
      given_up_.emplace_back(Mechanism::ReplicaOrbits, "refused: " + *orbits_);
      if (approximate_) {
        attempt_ = Attempt::EcmpOrbits;
      } else {
        given_up_.emplace_back(Mechanism::EcmpOrbits,
                               "not tried: this run is exact (the straggler-free step of a step that ran exact)");
        orbits_ = *orbits_ + "; ECMP orbits not tried: this run is exact";
      }
    }
  } else {
    orbits_failed_ = a.note;
    attempt_ = Attempt::RankClassesOnly;
  }
}

void ModeCascade::finish(RunResult& result) const {
  for (const auto& [m, why] : given_up_) {
    if (result.scale_mode.empty()) break;  // not asked for (RunOptions::explain_mode)
    ScaleModeLine& l = result.scale_mode.at(static_cast<int>(m));
    l.applied = false;
    l.why = why;
  }
  // Replica orbits (or ECMP orbits) held after the replicas' guard failed: their own note says so.
  if (!failed_ || attempt_ == Attempt::ReplicaOrbits || attempt_ == Attempt::EcmpOrbits) return;
  std::string note = abandoned_;
  if (orbits_ && !orbits_->empty()) note += " (replica orbits: " + *orbits_ + ")";
  if (!orbits_failed_.empty()) note += " (" + orbits_failed_ + ")";
  // One note on the mode: this one says why every replica (so, with send/recv, every rank) ran.
  std::erase_if(result.notes, [](const std::string& n) { return n.rfind("symmetry: every rank simulated", 0) == 0; });
  result.notes.insert(result.notes.begin(), note);
}

}  // namespace models::scale
