#pragma once
// Several jobs on one cluster ([[jobs]]): each job has its own model, training,
// parallel layout and placement on a range of the cluster's nodes; all of them share the
// cluster's fabric ([cluster.fabric]).
//
// The model: one simulator and one sim::FlowNetwork; one World per job on its nodes
// (ClusterSlot: the cluster's node numbers, one fabric built once and crossed by every job's NET
// flows), one collective engine and one StepExecutor per job. Every job starts one step at t = 0
// and all run in one simulation, so where two jobs' flows cross one link (a pod's uplink to the
// spine of an oversubscribed fat-tree) max-min fair sharing splits it between them. Each job is
// also simulated alone (the same nodes and fabric, the other jobs' nodes idle), and
//   lost = step together - step alone
// is what it lost to the others. Closed form (tests/models/run/jobs_test.cpp): two jobs whose
// only bottleneck is one pod uplink C each get C/2 of it, so a 2-rank ring all-reduce of S bytes
// takes S/C alone and 2S/C together (+ the same latency), and loses S/C.
//
// One step each, from t = 0: a job that ends first leaves the fabric to the others for the rest
// of their step, so a longer job's loss is a lower bound of its steady-state loss (where every
// job keeps stepping); the run's notes say so.
// A mixed cluster ([[cluster.groups]]) holds jobs each on the nodes of one group (its own instance);
// on a rail or fat-tree fabric their NICs must match (the fabric is built for the first job's).
// Not with several jobs: [[stragglers]] (a SpecError), a DeepSpeed JSON per job.
#include <vector>

#include "models/result.hpp"
#include "models/run/run.hpp"
#include "models/spec.hpp"

namespace models {

// Each job's first node on the cluster, in the order of spec.jobs: ranges as given, then jobs
// given by a node count placed first-fit (the lowest run of free consecutive nodes). Throws
// SpecError("jobs.<i>.nodes") for a range beyond the cluster, overlapping ranges, a count that
// finds no room; SpecError("jobs.<i>.name") for a name two jobs share.
std::vector<int> place_jobs(const ScenarioSpec& spec);

// The job's own scenario: the cluster's machine and [nccl.env] on `job.nodes` nodes from
// `first_node` (place_jobs), its tables. On a mixed cluster ([[cluster.groups]]) the machine is the
// group's whose nodes hold the job; a job over nodes of two groups throws SpecError("jobs.<index>.nodes").
ScenarioSpec job_scenario(const ScenarioSpec& spec, const JobSpec& job, int first_node, std::size_t index);

// run_scenario for a spec with jobs: RunResult::jobs holds each job's result; the top level is the
// shared run (step_time_s: the longest job's step together; ranks: every job's ranks, numbered
// job after job; links: every link over that step, the fabric's included).
RunResult run_jobs(const ScenarioSpec& spec, const RunOptions& options);

}  // namespace models
