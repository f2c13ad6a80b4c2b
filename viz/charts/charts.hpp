#pragma once
// The report's charts, one function per chart (one file each), each returning one <svg> element.
// Used by the HTML page (report.cpp); exposed for tests, which check the SVG content.
#include <array>
#include <string>
#include <vector>

#include "models/result.hpp"
#include "viz/viz.hpp"

namespace viz::charts {

// Shared axes for side-by-side comparisons: 0 means "fit this run's own data".
struct Shared {
  double step_time_max_s = 0;  // rank bars' and timeline's time axis
  double busbw_max_bytes_per_s = 0;
  double width = 900;  // viewBox width: narrower in columns so text stays ~12 px on screen
};

// Ranks drawn one bar each up to this count; beyond it, bars per group of ranks (per node when
// nodes fit, else consecutive ranges) with the group's mean components and a max marker.
inline constexpr int kMaxRankBars = 64;
// Timeline rows per rank up to this many ranks; beyond it, the ranks with the least, median and
// most waiting (exposed communication + barrier wait), labelled as such.
inline constexpr int kMaxTimelineRanks = 16;
// Busiest links drawn.
inline constexpr int kMaxLinks = 12;

// The parts of a step (models::RankBreakdown, bottom to top in stacked bars): the legend's name,
// a CSS class, a colour and a short name for legends in one line. Shared by the rank bars, the
// comparison's headline and the sweep page.
struct BreakdownPart {
  const char *name, *css, *color, *short_name;
};
inline constexpr int kBreakdownParts = 7;
const std::array<BreakdownPart, kBreakdownParts>& breakdown_parts();
// `b` in breakdown_parts() order, negative or non-finite terms as 0.
std::array<double, kBreakdownParts> breakdown_values(const models::RankBreakdown& b);

std::string topology(const models::RunResult& r);
std::string rank_bars(const models::RunResult& r, const Shared& shared = {});
std::string timeline(const models::RunResult& r, const Shared& shared = {});
// Whether the timeline holds a bare collective's iterations one after another (no compute, no
// memory estimate, several steps), not one training step.
bool timeline_of_iterations(const models::RunResult& r);
std::string links(const models::RunResult& r, const Shared& shared = {});
std::string busbw(const std::vector<BusBwPoint>& points, const Shared& shared = {});

// A sweep's scaling (chart_scaling.cpp): tokens/s per point with the linear-scaling line from each
// series' first point; scaling efficiency (tokens/s per GPU over the first point's); the mean
// rank's step breakdown per point. One x position per value of the sweep's first --vary key.
// `axis` titles the x axis (the first --vary key).
std::string scaling_throughput(const std::vector<ScalingPoint>& points, const std::string& axis);
std::string scaling_efficiency(const std::vector<ScalingPoint>& points, const std::string& axis);
std::string scaling_breakdown(const std::vector<ScalingPoint>& points);
// Each point's efficiency: tokens/s per GPU over that of the first point of its series with a
// throughput (0 where the point has none). Exposed for tests.
std::vector<double> scaling_efficiencies(const std::vector<ScalingPoint>& points);

// `s` shortened to `room` characters with an ellipsis in the middle (both ends of a link name
// matter: "node3/gpu5 -> nvswitch"). Exposed for tests.
std::string fit_label(const std::string& s, size_t room);

// The ranks a timeline shows, with a row label ("rank 3", "rank 17 · most wait"). Exposed for tests.
struct TimelineRank {
  int rank = 0;
  std::string label;
};
std::vector<TimelineRank> timeline_ranks(const models::RunResult& r);

}  // namespace viz::charts
