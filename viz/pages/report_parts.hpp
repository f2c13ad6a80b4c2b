#pragma once
// The parts of a run's HTML that the report (report.cpp) and the comparison (compare_page.cpp)
// share: its title, the scenario block with its notes and the key to its numbers, the jobs table,
// and the charts in the order both pages show them.
#include <cstddef>
#include <string>

#include "viz/charts/charts.hpp"
#include "viz/viz.hpp"

namespace viz::report_parts {

// The mean over ranks of one of RankResult's times (0 without ranks).
double mean_of(const models::RunResult& r, double models::RankResult::*field);
// The inputs' title, else the scenario's name, else "run N".
std::string title_of(const models::RunResult& r, const ReportInputs& in, size_t index);
// The scenario: its headline tiles (step, the large parts of the mean rank's step), layout, memory.
std::string scenario_block(const models::RunResult& r, const ReportInputs& in);
// What each number of the scenario block means, one line each.
std::string numbers_key();
// The run's notes as a list; "" without any.
std::string notes_block(const models::RunResult& r);
// Several jobs on one fabric: each job's step alone and together; "" for one job.
std::string jobs_block(const models::RunResult& r);

struct Chart {
  const char* id;
  const char* heading;
  const char* what;
};
inline constexpr Chart kCharts[] = {
    {"topology", "Topology and NCCL transports",
     "Nodes, pods and GPUs (rank rN); line colours show the transport NCCL picks at each level."},
    {"ranks", "Step time per rank",
     "Where each rank's step goes: compute, communication the compute had to wait for, and waiting for slower ranks."},
    {"timeline", "Timeline of one step",
     "A row per rank and stream; collectives labelled with op and size (hover a span for details). Spans too "
     "short to draw one by one are merged: a block banded by each kind's share of its time."},
    {"links", "Link utilisation",
     "The busiest links: solid bar = average utilisation over the step, outline = share of the step with traffic."},
    {"busbw", "Bus bandwidth vs message size",
     "nccl-tests style bus bandwidth of each collective the step runs, replayed on the group it runs on (the "
     "legend names the group, its GPUs and nodes); hollow markers are measurements, over every GPU of the "
     "scenario as nccl-tests ran."},
};
// The chart `id` (one of kCharts) of a run.
std::string chart_svg(const char* id, const models::RunResult& r, const ReportInputs& in, const charts::Shared& sh);

}  // namespace viz::report_parts
