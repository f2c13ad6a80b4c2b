// Chrome trace event JSON (the "JSON Array/Object format" read by Perfetto and chrome://tracing):
// a process per node, a thread per rank and stream, complete ("X") events for compute and
// collectives, and a "links" process with one counter track per link (average utilisation over
// the step, as RunResult holds per-link totals, not a time series).
#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "viz/viz.hpp"

namespace viz {
namespace {

using nlohmann::json;

int stream_index(const std::string& s) {
  if (s == "compute") return 0;
  if (s == "comm") return 1;
  if (s == "offload") return 2;
  return 3;
}
// Microseconds (the format's unit) at nanosecond resolution: no float noise (9724.149765999999).
double us(double s) { return std::isfinite(s) ? std::round(s * 1e9) / 1e3 : 0; }
json meta(const char* what, int pid, int tid, json args) {
  return {{"ph", "M"}, {"name", what}, {"pid", pid}, {"tid", tid}, {"args", std::move(args)}};
}

}  // namespace

std::string chrome_trace(const models::RunResult& r) {
  json events = json::array();
  std::map<int, int> node_of;
  int max_node = 0;
  for (const auto& k : r.ranks) {
    node_of[k.rank] = k.node;
    max_node = std::max(max_node, k.node);
  }
  auto pid_of = [&](int rank) {
    auto it = node_of.find(rank);
    return (it == node_of.end() ? 0 : it->second) + 1;  // pid 0 reads as "idle" in some viewers
  };
  // tid: rank-major, streams in a fixed order, so Perfetto lists rank 0 compute, rank 0 comm, ...
  auto tid_of = [](int rank, const std::string& stream) { return rank * 4 + stream_index(stream) + 1; };

  double t0 = INFINITY, t1 = 0;
  for (const auto& e : r.timeline)
    if (std::isfinite(e.start_s)) t0 = std::min(t0, e.start_s);
  if (!std::isfinite(t0)) t0 = 0;
  std::map<int, bool> named_node;
  std::map<int, bool> named_thread;
  for (const auto& k : r.ranks)
    if (!named_node[k.node]) {
      named_node[k.node] = true;
      events.push_back(meta("process_name", k.node + 1, 0, {{"name", "node " + std::to_string(k.node)}}));
      events.push_back(meta("process_sort_index", k.node + 1, 0, {{"sort_index", k.node}}));
    }
  for (const auto& e : r.timeline) {
    if (!std::isfinite(e.start_s) || !std::isfinite(e.end_s)) continue;
    const int pid = pid_of(e.rank), tid = tid_of(e.rank, e.stream);
    if (!named_thread[tid]) {
      named_thread[tid] = true;
      events.push_back(meta("thread_name", pid, tid, {{"name", "rank " + std::to_string(e.rank) + " " + e.stream}}));
      events.push_back(meta("thread_sort_index", pid, tid, {{"sort_index", tid}}));
    }
    json args = {{"rank", e.rank}, {"stream", e.stream}};
    if (!e.op.empty()) {
      args["op"] = e.op;
      args["bytes"] = e.bytes;
      if (!e.algo.empty()) args["algo"] = e.algo;
      if (!e.proto.empty()) args["proto"] = e.proto;
    }
    std::string name = e.name.empty() ? (e.op.empty() ? e.stream : e.op) : e.name;
    events.push_back({{"ph", "X"},
                      {"name", std::move(name)},
                      {"cat", e.op.empty() ? e.stream : std::string("collective")},
                      {"pid", pid},
                      {"tid", tid},
                      {"ts", us(e.start_s - t0)},
                      {"dur", std::max(0.0, us(e.end_s - e.start_s))},
                      {"args", std::move(args)}});
    t1 = std::max(t1, e.end_s - t0);
  }
  const double step_end = std::max(t1, std::isfinite(r.step_time_s) ? r.step_time_s : 0);
  if (!r.links.empty()) {
    const int links_pid = max_node + 2;
    events.push_back(meta("process_name", links_pid, 0, {{"name", "links (average utilisation over the step)"}}));
    events.push_back(meta("process_sort_index", links_pid, 0, {{"sort_index", max_node + 1}}));
    for (const auto& l : r.links) {
      // A fraction (0..1), as in every commsim output (docs/result.schema.json).
      const double fraction = std::isfinite(l.utilization) ? l.utilization : 0;
      const std::string name = l.name + (l.kind.empty() ? "" : " (" + l.kind + ")");
      events.push_back({{"ph", "C"},
                        {"name", name},
                        {"pid", links_pid},
                        {"tid", 0},
                        {"ts", 0.0},
                        {"args", {{"utilization", fraction}}}});
      events.push_back({{"ph", "C"},
                        {"name", name},
                        {"pid", links_pid},
                        {"tid", 0},
                        {"ts", us(step_end)},
                        {"args", {{"utilization", 0.0}}}});
    }
  }
  json doc = {{"traceEvents", std::move(events)},
              {"displayTimeUnit", "ms"},
              {"otherData",
               {{"generator", "commsim"},
                {"scenario", r.scenario},
                {"step_time_s", std::isfinite(r.step_time_s) ? r.step_time_s : 0.0}}}};
  // Replace invalid UTF-8 instead of throwing: names come from user files.
  return doc.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace viz
