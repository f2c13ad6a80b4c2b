// nccl-tests' table, laid out as the predicted run would print it (see nccl_tests_table.hpp).
#include "scenarios/cli/output/nccl_tests_table.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "models/world/world.hpp"
#include "sim/flow_network.hpp"
#include "sim/simulator.hpp"

namespace scenarios {

const std::vector<NcclDataType>& nccl_data_types() {
  // nccl-tests src/common.cu test_typenames (NCCL >= 2.10 with bf16), then the fp8 types newer
  // nccl-tests builds add (NCCL >= 2.24); "all" runs the first ten.
  static const std::vector<NcclDataType> types = {{"int8", 1},   {"uint8", 1},    {"int32", 4},  {"uint32", 4},
                                                  {"int64", 8},  {"uint64", 8},   {"half", 2},   {"float", 4},
                                                  {"double", 8}, {"bfloat16", 2}, {"f8e4m3", 1}, {"f8e5m2", 1}};
  return types;
}

const std::vector<std::string>& nccl_redops() {
  // nccl-tests src/common.cu test_opnames (NCCL >= 2.11).
  static const std::vector<std::string> ops = {"sum", "prod", "max", "min", "avg", "mulsum"};
  return ops;
}

std::vector<NcclTestsRank> nccl_tests_ranks(const models::ScenarioSpec& spec) {
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  const auto world = models::World::build(spec, net);
  std::vector<NcclTestsRank> ranks;
  for (int r = 0; r < world->size(); ++r) {
    const models::RankInfo& info = world->rank(r);
    ranks.push_back({r, 0, info.pod_rank, info.local_gpu, info.pod, "node" + std::to_string(info.node)});
  }
  return ranks;
}

void assign_processes(std::vector<NcclTestsRank>& ranks, int gpus_per_process) {
  std::map<std::pair<int, int>, int> pid_of;  // (pod, process within the pod) -> pid
  for (auto& r : ranks) {
    const auto key = std::make_pair(r.pod, r.device / std::max(1, gpus_per_process));
    r.pid = pid_of.emplace(key, 1000 + static_cast<int>(pid_of.size())).first->second;
  }
}

int gpus_per_pod(const std::vector<NcclTestsRank>& ranks) {
  return static_cast<int>(
      std::count_if(ranks.begin(), ranks.end(), [&](const auto& r) { return r.pod == ranks.front().pod; }));
}

double NcclTestsTable::avg_busbw_gbs() const {
  double sum = 0;
  size_t n = 0;
  // nccl-tests' average takes the out-of-place and the in-place column of every row (BenchTime adds
  // each run's busBw), over every pass (-N cycles, every data type and reduction).
  for (const auto& p : passes)
    for (const auto& row : p.result.rows) sum += row.busbw_gbs + row.ip_busbw_gbs, n += 2;
  return n ? sum / static_cast<double>(n) : 0.0;
}

namespace {

bool rooted(models::nccl::CollOp op) {
  return op == models::nccl::CollOp::Broadcast || op == models::nccl::CollOp::Reduce;
}
bool reducing(models::nccl::CollOp op) {
  using models::nccl::CollOp;
  return op == CollOp::AllReduce || op == CollOp::Reduce || op == CollOp::ReduceScatter;
}
}  // namespace

std::string format_nccl_tests_table(const NcclTestsTable& t) {
  const auto& first = t.passes.front().options;
  const auto& h = t.header;
  std::string out;
  char buf[512];
  const std::string name = std::string(models::nccl::coll_op_name(first.op)) + "_perf";
  out += "# nccl-tests version 2.19.6 format, predicted by commsim (not measured)\n";
  out += "# Collective test starting: " + name + "\n";
  char step[64];
  if (first.factor > 1)
    std::snprintf(step, sizeof step, "%g(factor)", first.factor);
  else
    std::snprintf(step, sizeof step, "%lld(bytes)", static_cast<long long>(first.step_bytes));
  std::snprintf(buf, sizeof buf,
                "# nThread %d nGpus %d minBytes %lld maxBytes %lld step: %s warmup iters: %d iters: %d agg iters: %d "
                "validation: %d graph: %d unalign: 0\n",
                h.threads, h.gpus, static_cast<long long>(first.min_bytes), static_cast<long long>(first.max_bytes),
                step, h.warmup_iters, h.iters, h.agg_iters, h.check, h.graph);
  out += buf;
  if (h.blocking) out += "# Blocking Enabled: wait for completion and barrier after each collective \n";
  if (h.parallel_init) out += "# Parallel Init Enabled: threads call into NcclInitRank concurrently \n";
  out += "#\n# Using devices\n";
  for (const auto& r : t.ranks) {
    std::snprintf(buf, sizeof buf, "#  Rank %2d Group  0 Pid %6d on %10s device %2d [0000:%02x:00] NVIDIA %s\n", r.rank,
                  r.pid, r.host.c_str(), r.device, r.bus, t.gpu.c_str());
    out += buf;
  }
  out += "#\n";
  out +=
      "#                                                              out-of-place                       in-place      "
      "    \n";
  const char* time_col = h.cputime ? "cputime" : "   time";
  std::snprintf(buf, sizeof buf,
                "#       size         count      type   redop    root  %s   algbw   busbw  #wrong  %s   algbw   busbw  "
                "#wrong \n",
                time_col, time_col);
  out += buf;
  out +=
      "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)  "
      "       \n";
  for (int cycle = 0; cycle < std::max(1, h.cycles); ++cycle)
    for (const auto& pass : t.passes) {
      const auto& o = pass.options;
      for (const auto& row : pass.result.rows) {
        const std::string tm = models::calibrate::nccl_tests_time(row.time_us),
                          tip = models::calibrate::nccl_tests_time(row.ip_time_us);
        std::snprintf(buf, sizeof buf, "%12lld  %12lld  %8s  %6s  %6d  %s  %6.2f  %6.2f  %6d  %s  %6.2f  %6.2f  %6d\n",
                      static_cast<long long>(row.size), static_cast<long long>(row.count), o.type.c_str(),
                      reducing(o.op) ? o.redop.c_str() : "none", rooted(o.op) ? o.root : -1, tm.c_str(), row.algbw_gbs,
                      row.busbw_gbs, 0, tip.c_str(), row.ip_algbw_gbs, row.ip_busbw_gbs, 0);
        out += buf;
      }
    }
  out += "# Out of bounds values : 0 OK\n";
  std::snprintf(buf, sizeof buf, "# Avg bus bandwidth    : %g \n#\n", t.avg_busbw_gbs());
  out += buf;
  out += "# Collective test concluded: " + name + "\n#\n";
  return out;
}

Json nccl_tests_table_json(const NcclTestsTable& t, const CommandInputs& inputs) {
  const auto& first = t.passes.front().options;
  const auto& h = t.header;
  Json j = json_header("nccl-tests", inputs);
  j["op"] = models::nccl::coll_op_name(first.op);
  j["gpu"] = t.gpu;
  j["nranks"] = t.ranks.size();
  std::set<int> pids;
  for (const auto& r : t.ranks) pids.insert(r.pid);
  j["processes"] = pids.size();
  j["threads_per_process"] = h.threads;
  j["gpus_per_thread"] = h.gpus;
  j["min_bytes"] = first.min_bytes;
  j["max_bytes"] = first.max_bytes;
  j["step_factor"] = first.factor > 1 ? Json(first.factor) : Json(nullptr);
  j["step_bytes"] = first.factor > 1 ? Json(nullptr) : Json(first.step_bytes);
  Json ranks = Json::array();
  for (const auto& r : t.ranks)
    ranks.push_back({{"rank", r.rank}, {"pid", r.pid}, {"host", r.host}, {"device", r.device}});
  j["ranks"] = std::move(ranks);
  Json rows = Json::array();
  for (const auto& pass : t.passes) {
    const auto& o = pass.options;
    for (const auto& row : pass.result.rows)
      rows.push_back({{"size_bytes", row.size},
                      {"count", row.count},
                      {"type", o.type},
                      {"redop", reducing(o.op) ? Json(o.redop) : Json(nullptr)},
                      {"root", rooted(o.op) ? Json(o.root) : Json(nullptr)},
                      {"time_us", row.time_us},
                      {"algbw_gbs", row.algbw_gbs},
                      {"busbw_gbs", row.busbw_gbs},
                      {"in_place_time_us", row.ip_time_us},
                      {"in_place_algbw_gbs", row.ip_algbw_gbs},
                      {"in_place_busbw_gbs", row.ip_busbw_gbs},
                      {"algo", row.algo},
                      {"proto", row.proto},
                      {"channels", row.channels}});
  }
  j["rows"] = std::move(rows);
  j["avg_busbw_gbs"] = t.avg_busbw_gbs();
  return j;
}

}  // namespace scenarios
