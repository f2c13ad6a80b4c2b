#include "models/readers/nccl_inspector.hpp"

#include <fstream>
#include <map>
#include <sstream>

#include "models/parse_error.hpp"
#include "models/readers/json_place.hpp"

namespace models::readers {

namespace {

InspectorRow inspector_line(std::string_view line, const std::string& source, int no) {
  const JsonDoc doc{line, source, no};
  const nlohmann::json j = parse_json_text(line, source, no);
  if (!j.is_object()) doc.fail({}, "expected one NCCL Inspector object per line");
  InspectorRow r;
  r.line = no;
  const JsonPath h_at{std::string("header")};
  const auto& h = doc.object(j, {}, "header");
  r.comm_id = doc.string(h, h_at, "id");
  if (h.contains("comm_name") && h["comm_name"].is_string()) r.comm_name = h["comm_name"].get<std::string>();
  r.rank = int(doc.integer(h, h_at, "rank", 0, 1 << 24));
  r.n_ranks = int(doc.integer(h, h_at, "n_ranks", 1, 1 << 24));
  r.nnodes = int(doc.integer(h, h_at, "nnodes", 1, 1 << 24));
  const bool coll = j.contains("coll_perf");
  if (!coll && !j.contains("p2p_perf")) doc.fail({}, "no \"coll_perf\" or \"p2p_perf\" member");
  const std::string p = coll ? "coll" : "p2p";
  const JsonPath at{p + "_perf"};
  const auto& perf = doc.object(j, {}, p + "_perf");
  r.p2p = !coll;
  r.op = doc.string(perf, at, p);
  r.sn = uint64_t(doc.integer(perf, at, p + "_sn", 0, int64_t(1) << 62));
  if (!coll) r.peer = int(doc.integer(perf, at, "p2p_peer", 0, 1 << 24));
  r.bytes = doc.integer(perf, at, p + "_msg_size_bytes", 0, int64_t(1) << 60);
  // Per rank for these two, the whole buffer for the rest (InspectorRow::total_bytes). 2^60 x 2^24
  // would overflow: a total above 2^62 is no message NCCL sends.
  const bool per_rank = coll && (r.op == "AllGather" || r.op == "ReduceScatter");
  if (per_rank && r.bytes > (int64_t(1) << 62) / r.n_ranks)
    doc.fail(json_child(at, p + "_msg_size_bytes"),
             "this size x n_ranks is beyond any NCCL buffer (expected bytes per rank)");
  r.total_bytes = per_rank ? r.bytes * r.n_ranks : r.bytes;
  r.exec_s = double(doc.integer(perf, at, p + "_exec_time_us", 0, int64_t(1) << 50)) * 1e-6;
  if (auto t = perf.find(p + "_timing_source"); t != perf.end() && t->is_string()) r.timing = t->get<std::string>();
  r.algbw_gbs = doc.number(perf, at, p + "_algobw_gbs");
  r.busbw_gbs = doc.number(perf, at, p + "_busbw_gbs");
  return r;
}

}  // namespace

std::vector<InspectorRow> parse_nccl_inspector(std::string_view text, const std::string& source) {
  std::vector<InspectorRow> rows;
  int no = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++no;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    rows.push_back(inspector_line(line, source, no));
  }
  if (rows.empty()) throw ParseError(source, 1, 1, "no NCCL Inspector lines (expected JSON lines with coll_perf or p2p_perf)");
  return rows;
}

std::vector<InspectorRow> read_nccl_inspector_files(const std::vector<std::string>& paths) {
  std::vector<InspectorRow> all;
  for (const auto& p : paths) {
    std::ifstream in(p, std::ios::binary);
    if (!in) throw ParseError(p, 1, 1, "cannot open the file");
    std::stringstream ss;
    ss << in.rdbuf();
    for (auto& r : parse_nccl_inspector(ss.str(), p)) all.push_back(std::move(r));
  }
  return all;
}

bool looks_like_nccl_inspector(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return false;
  const auto line = text.substr(first, text.find('\n', first) - first);
  return line.find("\"header\"") != std::string_view::npos &&
         (line.find("\"coll_perf\"") != std::string_view::npos || line.find("\"p2p_perf\"") != std::string_view::npos);
}

std::string inspector_op_name(const std::string& op) {
  static const std::map<std::string, std::string> names{
      {"AllReduce", "all_reduce"}, {"AllGather", "all_gather"}, {"ReduceScatter", "reduce_scatter"},
      {"Broadcast", "broadcast"},  {"Reduce", "reduce"},        {"AllToAll", "alltoall"},
      {"Send", "send"},            {"Recv", "recv"}};
  const auto it = names.find(op);
  return it == names.end() ? "" : it->second;
}

}  // namespace models::readers
