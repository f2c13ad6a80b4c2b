#pragma once
// The one place that decides how a run simulates a step: which fold of models/scale/README.md's
// table applies, and why each other one does not (`commsim run --explain-mode`).
//
// A run is a cascade of attempts (ModeCascade): the first tries every fold in the table's order;
// a fold whose guard fails during the run stops it, and the step is simulated again by the
// attempt the failure names (replica orbits after the replicas' guard, ECMP orbits where replica
// orbits refuse only the fabric's shared links, else rank classes alone), whose note says what was
// abandoned. Within an attempt, at most one fold owns the network's
// folded links (data-parallel replicas, replica orbits, ECMP orbits, alike nodes, node orbits or
// the GPU rotation, in that order of preference); rank classes, the all-to-all fold and closed-form
// blocks need no folded links and combine with the others.
//
// Adding a mechanism: a row in the Mechanism list below and in kMechanismNames (mode.cpp), its
// precondition in choose_mode (after the folds it yields to, before those it beats), its start in
// start_mode, its guard's reading in finish_mode, its row in models/scale/README.md's table, and
// a test that runs a shipped scenario with --explain-mode (tests/scenarios/scale/explain_mode_test.cpp).
#include <optional>
#include <string>
#include <vector>

#include "models/collectives/collective.hpp"
#include "models/result.hpp"
#include "models/scale/step_fold.hpp"
#include "models/workload/executor.hpp"
#include "models/workload/steps/strategy.hpp"
#include "models/world/world.hpp"
#include "sim/flow_network.hpp"
#include "sim/simulator.hpp"

namespace models::scale {

// The table's rows, in order (models/scale/README.md).
enum class Mechanism {
  Replicas,       // data-parallel replicas simulated once per class (replicas.hpp)
  ReplicaOrbits,  // ... and their data-parallel collectives' flows as orbits (replicas.hpp)
  EcmpOrbits,     // ... on ECMP pod uplinks, approximate (replicas.hpp, models/scale/ecmp_orbits.hpp)
  AlikeNodes,     // every node alike simulated once, with offload copies (replicas.hpp)
  RankClasses,    // ranks with the same program, speed and communicators (rank_classes.hpp)
  NodeOrbits,     // beside rank classes: the collectives' flows of node 0 (collectives/node_orbits.cpp)
  GpuRotation,    // tree all-reduces as the orbits of moving every node's GPUs on (gpu_rotation.hpp)
  AllToAllFold,   // all-to-all as a few weighted flows per rank (collectives/all_to_all_fold.hpp)
  ClosedForms,    // collectives on idle links in closed form (sim/flow_block.cpp)
};
inline constexpr int kMechanisms = 9;
const char* mechanism_name(Mechanism m);

// The attempts of a run, in the order the cascade may take them.
enum class Attempt {
  Folded,           // every fold of the table may apply
  ReplicaOrbits,    // the replicas' guard failed: replicas with their data-parallel flows as orbits
  EcmpOrbits,       // ... and replica orbits refused the fabric's shared links: ECMP orbits
  RankClassesOnly,  // a guard failed (or RunOptions::replicas is off): rank classes only
};

struct ModeRequest {
  Attempt attempt = Attempt::Folded;
  bool full = false;     // --full: every rank and every flow
  bool audit = false;    // --check: every flow (byte audits per rank)
  bool jobs = false;     // one of several jobs on one network (rank classes only)
  bool replicas = true;  // RunOptions::replicas (off: the benches' every-replica comparison)
};

// A guard stopped the run: which mechanism, the note that says so, and (after the replicas'
// guard) why replica orbits cannot follow ("": they may).
struct Abandoned {
  Mechanism mechanism;
  std::string note;
  std::optional<std::string> orbits_why;
};

// What a step simulates, decided before the executor is built.
struct StepMode {
  ModeRequest request;
  StepFold fold;                     // replicas, replica orbits or alike nodes (fold.applies())
  StepFold node_orbits;              // beside rank classes (node_orbits.applies())
  bool rotation = false;             // the GPU rotation fold may run
  std::optional<StepFold> alike;     // replicas of one class: kept for replica orbits
  bool copies = false;               // the programs have offload copies
  std::vector<ScaleModeLine> lines;  // one per Mechanism, in order
  // Set when the attempt cannot run at all (replica orbits that do not apply): the cascade moves on.
  std::optional<Abandoned> refused;
};

StepMode choose_mode(const ModeRequest& request, const World& world, const sim::FlowNetwork& net,
                     const workload::StepPlan& plan, const collectives::CollectiveEngine& engine);

// Applies the mode to the engine and the executor (before run()) and writes the mode's note.
// `recorded`: the timeline's ranks (simulated on their own).
void start_mode(StepMode& mode, collectives::CollectiveEngine& engine, workload::StepExecutor& exec,
                const std::vector<int>& recorded, int world_size, std::vector<std::string>& notes);

// After run(): nullopt when every guard held (then the rotation's note is added and the lines get
// each fold's outcome), else what was abandoned.
std::optional<Abandoned> finish_mode(StepMode& mode, const collectives::CollectiveEngine& engine,
                                     const sim::FlowNetwork& net, const sim::Simulator& sim, const World& world,
                                     const workload::StepExecutor& exec, std::vector<std::string>& notes);

// The run's attempts: begin(), then failed() after each abandoned attempt, until one holds; then
// finish() adds the note on what was abandoned and the lines of the abandoned folds.
class ModeCascade {
 public:
  // `approximate` off: ECMP orbits (within kEcmpOrbitsBound of --full) are never tried; where replica
  // orbits refuse the fabric's shared links, rank classes alone follow.
  explicit ModeCascade(bool replicas, bool approximate = true)
      : attempt_(replicas ? Attempt::Folded : Attempt::RankClassesOnly), approximate_(approximate) {}
  Attempt attempt() const { return attempt_; }
  // After the last attempt held: whether the step ran approximate (ECMP orbits).
  bool approximate_ran() const { return attempt_ == Attempt::EcmpOrbits; }
  void failed(const Abandoned& a);
  void finish(RunResult& result) const;

 private:
  Attempt attempt_;
  bool approximate_ = true;
  bool failed_ = false;
  std::string abandoned_;              // the first attempt's note
  std::optional<std::string> orbits_;  // why replica orbits could not follow ("": they could)
  std::string orbits_failed_;          // the replica orbits (or ECMP orbits) attempt's note
  std::vector<std::pair<Mechanism, std::string>> given_up_;
};

}  // namespace models::scale
