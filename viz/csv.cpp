// CSV export: one row per rank, then one per timeline event (collectives and compute spans), with
// units in the header names and RFC 4180 quoting, so spreadsheets and pandas read it unchanged.
#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "viz/viz.hpp"

namespace viz {
namespace {

// RFC 4180: quote a field holding a comma, quote, CR or LF; double the quotes inside. A leading
// = + - @ is prefixed with ' so a spreadsheet does not evaluate a scenario name as a formula.
std::string field(const std::string& s) {
  std::string v = s;
  if (!v.empty() && (v[0] == '=' || v[0] == '+' || v[0] == '-' || v[0] == '@')) v = "'" + v;
  if (v.find_first_of(",\"\r\n") == std::string::npos) return v;
  std::string out = "\"";
  for (char c : v) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + '"';
}

// 9 significant digits, as every commsim output (docs/result.schema.json): far finer than any
// model's accuracy, without float noise (0.097241497659999995 -> 0.0972414977); empty for a
// value that is not finite.
std::string number(double v) {
  if (!std::isfinite(v)) return "";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

}  // namespace

std::string to_csv(const models::RunResult& r) {
  std::string out =
      "kind,rank,node,pod,gpu,compute_s,comm_s,exposed_comm_s,barrier_wait_s,offload_s,stream,name,op,"
      "start_s,end_s,duration_s,bytes_B,algo,proto,"
      // The rank's step breakdown (models::RankBreakdown): these seven add up to the step time.
      "breakdown_compute_s,breakdown_interference_s,breakdown_exposed_comm_s,breakdown_host_s,breakdown_bubble_s,"
      "breakdown_barrier_wait_s,breakdown_other_s,"
      // How many event rows below belong to the rank: 0 for a rank the timeline did not record.
      "timeline_events\r\n";
  std::map<int, long long> events_of;
  for (const auto& e : r.timeline) ++events_of[e.rank];
  for (const auto& k : r.ranks) {
    const auto& b = k.breakdown;
    out += "rank," + std::to_string(k.rank) + ',' + std::to_string(k.node) + ',' + std::to_string(k.pod) + ',' +
           std::to_string(k.gpu) + ',' + number(k.compute_s) + ',' + number(k.comm_s) + ',' + number(k.exposed_comm_s) +
           ',' + number(k.barrier_wait_s) + ',' + number(k.offload_s) + ",,,,,,,,,," + number(b.compute_s) + ',' +
           number(b.interference_s) + ',' + number(b.exposed_comm_s) + ',' + number(b.host_s) + ',' +
           number(b.bubble_s) + ',' + number(b.barrier_wait_s) + ',' + number(b.other_s) + ',' +
           std::to_string(events_of.count(k.rank) ? events_of[k.rank] : 0) + "\r\n";
  }
  for (const auto& e : r.timeline) {
    out += (e.op.empty() ? field(e.stream.empty() ? std::string("span") : e.stream) : std::string("collective")) + ',' +
           std::to_string(e.rank) + ",,,,,,,,," + field(e.stream) + ',' + field(e.name) + ',' + field(e.op) + ',' +
           number(e.start_s) + ',' + number(e.end_s) + ',' + number(e.end_s - e.start_s) + ',' +
           std::to_string(e.bytes) + ',' + field(e.algo) + ',' + field(e.proto) + ",,,,,,,,\r\n";
  }
  return out;
}

}  // namespace viz
