#include "models/readers/nccl_tests_json.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "models/readers/json_place.hpp"

namespace models::readers {

namespace {

// A number nccl-tests may also print as the string "nan" (jsonDouble), or a number in a string
// ("root": "    -1").
bool nccl_json_number(const nlohmann::json& v, double& out) {
  if (v.is_number()) {
    out = v.get<double>();
    return true;
  }
  if (!v.is_string()) return false;
  std::string s = v.get<std::string>();
  s.erase(0, s.find_first_not_of(' '));
  if (s == "nan" || s == "N/A") {
    out = std::nan("");
    return true;
  }
  try {
    std::size_t pos = 0;
    out = std::stod(s, &pos);
    return pos == s.size();
  } catch (...) {
    return false;
  }
}

// One group (out_of_place, in_place). -C 1 writes "cpu_time" for "time": the host's launch time,
// the collective's being size / alg_bw (NcclTestsRun::cputime; JSON keeps every digit of alg_bw).
NcclTestsResult nccl_json_group(const JsonDoc& doc, const nlohmann::json& g, const JsonPath& at, int64_t size,
                                bool& cputime) {
  NcclTestsResult r;
  auto num = [&](const char* key) {
    double v = 0;
    const auto& m = doc.member(g, at, key);
    if (!nccl_json_number(m, v) || !std::isfinite(v)) doc.fail(json_child(at, std::string(key)), "expected a number");
    return v;
  };
  cputime = !g.contains("time") && g.contains("cpu_time");
  const char* time_key = cputime ? "cpu_time" : "time";
  r.time_us = num(time_key);
  r.algbw_gbs = num("alg_bw");
  r.busbw_gbs = num("bus_bw");
  if (auto w = g.find("nwrong"); w != g.end()) {
    double v = 0;
    if (!nccl_json_number(*w, v)) doc.fail(json_child(at, std::string("nwrong")), "expected a count of wrong values");
    if (!std::isnan(v) && !(v >= 0 && v <= 9e15))
      doc.fail(json_child(at, std::string("nwrong")), "expected a count of wrong values");
    if (!std::isnan(v)) r.wrong = static_cast<int64_t>(v);
  }
  if (r.time_us < 0) doc.fail(json_child(at, std::string(time_key)), "a negative time");
  if (r.time_us == 0)  // no collective takes no time: 0 is no measurement (its bandwidths would be infinite)
    doc.fail(json_child(at, std::string(time_key)),
             "a time of 0 is not a measurement (expected a time in us above 0, as nccl-tests measures it)");
  if (cputime) {
    r.cpu_time_us = r.time_us;
    r.time_us = cputime_time_us(size, r.algbw_gbs);
    if (r.time_us <= 0)
      doc.fail(json_child(at, std::string("alg_bw")),
               "a cpu_time row needs alg_bw above 0: nccl-tests' -C 1 prints the host's launch time, and the "
               "collective's time is size / alg_bw (expected alg_bw above 0)");
  }
  return r;
}

}  // namespace

std::vector<NcclTestsRun> parse_nccl_tests_json(std::string_view text, const std::string& source) {
  const JsonDoc doc{text, source};
  const nlohmann::json root = parse_json_text(text, source);
  if (!root.is_object()) doc.fail({}, "expected nccl-tests' JSON object (written by -J FILE.json)");
  NcclTestsRun run;
  run.source = source;
  const auto& args = doc.array(root, {}, "args");
  if (args.empty() || !args[0].is_string())
    doc.fail({std::string("args")}, "expected the command line, first the nccl-tests binary (all_reduce_perf)");
  std::string bin = args[0].get<std::string>();
  bin = bin.substr(bin.find_last_of('/') + 1);
  if (const auto p = bin.find("_perf"); p != std::string::npos) bin = bin.substr(0, p);
  run.op = bin;
  if (auto v = root.find("nccl_version"); v != root.end() && v->is_number_integer())
    run.version = "nccl-library=" + std::to_string(v->get<long long>());
  const JsonPath cfg_at{std::string("config")};
  const auto& cfg = doc.object(root, {}, "config");
  run.nthreads = int(doc.integer(cfg, cfg_at, "nthreads", 1, 1 << 20));
  run.ngpus = int(doc.integer(cfg, cfg_at, "ngpus", 1, 1 << 20));
  run.min_bytes = doc.integer(cfg, cfg_at, "minimum_bytes", 0, int64_t(1) << 60);
  run.max_bytes = doc.integer(cfg, cfg_at, "maximum_bytes", 0, int64_t(1) << 60);
  run.iters = int(doc.integer(cfg, cfg_at, "iterations", 0, 1 << 30));
  std::set<long long> pids;
  if (auto d = cfg.find("devices"); d != cfg.end()) {
    if (!d->is_array()) doc.fail(json_child(cfg_at, std::string("devices")), "expected an array of ranks");
    for (std::size_t i = 0; i < d->size(); ++i) {
      const auto& dev = (*d)[i];
      const JsonPath at = json_child(json_child(cfg_at, std::string("devices")), i);
      if (!dev.is_object()) doc.fail(at, "expected a rank object");
      ++run.ranks;
      if (auto p = dev.find("pid"); p != dev.end() && p->is_number_integer()) pids.insert(p->get<long long>());
      for (const auto& [key, list] : {std::pair{"hostname", &run.hosts}, std::pair{"device_info", &run.gpus}})
        if (auto h = dev.find(key); h != dev.end() && h->is_string() &&
                                    std::find(list->begin(), list->end(), h->get<std::string>()) == list->end())
          list->push_back(h->get<std::string>());
    }
  }
  run.processes = int(pids.size());
  if (run.ranks == 0) run.ranks = run.nthreads * run.ngpus;
  run.columns = {"size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong",
                 "time", "algbw", "busbw", "#wrong"};
  const auto& results = doc.array(root, {}, "results");
  // -C 1 names the time "cpu_time" (NcclTestsRun::cputime); the columns say so as the text's do.
  for (const auto& r : results)
    if (r.is_object() && r.contains("out_of_place") && r["out_of_place"].is_object() &&
        r["out_of_place"].contains("cpu_time"))
      run.columns[5] = run.columns[9] = "cputime";
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    const JsonPath at{std::string("results"), i};
    if (!r.is_object()) doc.fail(at, "expected a result object");
    NcclTestsRow row;
    row.size_bytes = doc.integer(r, at, "size", 0, int64_t(1) << 60);
    row.count = doc.integer(r, at, "count", 0, int64_t(1) << 60);
    row.type = doc.string(r, at, "type");
    row.redop = doc.string(r, at, "redop");
    if (auto rt = r.find("root"); rt != r.end()) {
      double v = 0;
      if (!nccl_json_number(*rt, v) || !(v >= -1 && v <= (1 << 30))) doc.fail(json_child(at, std::string("root")), "expected a root rank");
      row.root = int(v);
    }
    const JsonPath oop = json_child(at, std::string("out_of_place"));
    bool cputime = false;
    row.oop = nccl_json_group(doc, doc.object(r, at, "out_of_place"), oop, row.size_bytes, cputime);
    run.cputime = run.cputime || cputime;
    if (r.contains("in_place"))
      row.ip = nccl_json_group(doc, doc.object(r, at, "in_place"), json_child(at, std::string("in_place")),
                               row.size_bytes, cputime);
    row.line = json_place(text, at).line;
    run.rows.push_back(std::move(row));
  }
  if (auto a = root.find("average_bus_bandwidth"); a != root.end() && a->is_object())
    if (auto b = a->find("bandwidth"); b != a->end() && b->is_number()) run.avg_busbw_gbs = b->get<double>();
  return {run};
}

}  // namespace models::readers
