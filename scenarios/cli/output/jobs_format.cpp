// `run --json`'s `jobs` and the summary's jobs table (jobs_format.hpp).
#include "scenarios/cli/output/jobs_format.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "scenarios/cli/output/result_format.hpp"

namespace scenarios {

namespace {
double lost_fraction(const models::JobResult& job) {
  return job.step_alone_s > 0 ? job.lost_s() / job.step_alone_s : 0.0;
}
}  // namespace

Json jobs_json(const models::RunResult& r) {
  Json jobs = Json::array();
  for (const auto& job : r.jobs) {
    const models::RunResult& t = job.together;
    Json links = Json::array();
    for (std::size_t i = 0; i < std::min<std::size_t>(t.links.size(), 8); ++i) links.push_back(link_json(t.links[i]));
    jobs.push_back({{"name", job.name},
                    {"nodes", Json::array({job.first_node, job.last_node})},
                    {"gpus", job.gpus},
                    {"step_alone_s", job.step_alone_s},
                    {"step_together_s", job.step_together_s},
                    {"lost_s", job.lost_s()},
                    {"lost_fraction", lost_fraction(job)},
                    {"run_time_s", t.run_time_s},
                    {"steps", t.steps},
                    {"step_breakdown", breakdown_json(t.step_breakdown)},
                    {"fits", t.fits()},
                    {"memory", memory_json(t.memory)},
                    {"throughput", throughput_json(t.throughput)},
                    {"links", std::move(links)},
                    {"notes", t.notes}});
  }
  return jobs;
}

std::string jobs_summary(const models::RunResult& r) {
  if (r.jobs.empty()) return "";
  std::string out;
  auto line = [&](const std::string& s) { out += s + "\n"; };
  line("jobs on one fabric (each simulated alone and together, one step from t = 0; lost = together - alone)");
  line(fmt::format("  {:<16} {:>9} {:>6} {:>12} {:>14} {:>12} {:>7}", "job", "nodes", "GPUs", "step alone",
                   "step together", "lost", "% lost"));
  for (const auto& job : r.jobs)
    line(fmt::format("  {:<16} {:>9} {:>6} {:>12} {:>14} {:>12} {:>6.1f}%", job.name,
                     fmt::format("{}-{}", job.first_node, job.last_node), job.gpus, format_seconds(job.step_alone_s),
                     format_seconds(job.step_together_s), format_seconds(job.lost_s()), 100 * lost_fraction(job)));
  for (const auto& job : r.jobs) {
    const models::RunResult& t = job.together;
    line("");
    line(fmt::format("job {}: step {} together, run {} ({} steps)", job.name, format_seconds(t.step_time_s),
                     format_seconds(t.run_time_s), t.steps));
    if (t.throughput.estimated) line("  throughput " + throughput_line(t.throughput));
    if (t.memory.estimated) line("  memory     " + memory_line(t.memory, 3));
    if (!t.fits()) line("  WARNING    " + memory_warning(t.memory));
    for (const auto& [label, v] : breakdown_labels(t.step_breakdown))
      if (v > 0)
        line(fmt::format("  {:<20} {:>12} {:>6.1f}%", label, format_seconds(v),
                         t.step_time_s > 0 ? 100 * v / t.step_time_s : 0.0));
  }
  return out;
}

}  // namespace scenarios
