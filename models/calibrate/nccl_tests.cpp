#include "models/calibrate/nccl_tests.hpp"

#include <algorithm>
#include "models/params.hpp"

#include <cmath>
#include <cstdio>

#include "models/collectives/collective.hpp"
#include "models/comm_plan/link_params.hpp"
#include "models/world/world.hpp"
#include "sim/check.hpp"
#include "sim/flow_network.hpp"

namespace models::calibrate {

using collectives::CollectiveRecord;
using collectives::Group;
using collectives::LinkParams;
using collectives::make_collective_engine;
using nccl::algo_name;
using nccl::coll_op_name;
using nccl::CollOp;
using nccl::proto_name;

double bus_factor(CollOp op, int n) {
  // nccl-tests src/*.cu: busbw = algbw x factor.
  switch (op) {
    case CollOp::AllReduce: return 2.0 * (n - 1) / n;
    case CollOp::AllGather:
    case CollOp::ReduceScatter:
    case CollOp::AllToAll: return static_cast<double>(n - 1) / n;
    default: return 1.0;
  }
}

std::vector<int64_t> nccl_tests_sizes(const NcclTestsOptions& o) {
  std::vector<int64_t> sizes;
  for (int64_t s = o.min_bytes; s <= o.max_bytes;) {
    sizes.push_back(s);
    // src/common.cu: size = stepfactor > 1 ? size * stepfactor : size + stepbytes (size_t; -f is an
    // integer there, the command line refuses a fraction).
    const int64_t next = o.factor > 1 ? s * static_cast<int64_t>(o.factor) : s + std::max<int64_t>(1, o.step_bytes);
    if (next <= s) break;
    s = next;
  }
  return sizes;
}

std::vector<NcclTestsRow> run_nccl_tests_at(const ScenarioSpec& spec, nccl::CollOp op,
                                            const std::vector<int64_t>& sizes, std::vector<std::string>* link_classes) {
  std::vector<int64_t> sorted = sizes;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::vector<NcclTestsRow> rows;
  if (sorted.empty()) return rows;
  NcclTestsOptions o;
  o.op = op;
  o.min_bytes = sorted.front();
  o.max_bytes = sorted.back();
  if (nccl_tests_sizes(o) == sorted) {
    NcclTestsResult r = run_nccl_tests(spec, o);
    rows = std::move(r.rows);
    if (link_classes) *link_classes = std::move(r.link_classes);
  } else {
    for (int64_t size : sorted) {
      o.min_bytes = o.max_bytes = size;
      NcclTestsResult r = run_nccl_tests(spec, o);
      rows.push_back(r.rows.front());
      if (link_classes) *link_classes = std::move(r.link_classes);
    }
  }
  std::vector<NcclTestsRow> out;
  out.reserve(sizes.size());
  for (int64_t size : sizes) out.push_back(rows[std::lower_bound(sorted.begin(), sorted.end(), size) - sorted.begin()]);
  return out;
}

// Where the host's loop, not the GPUs, sets a row's time and that loop's cost is the default, the
// rows say so: measured hosts differ twofold (one process per GPU: 6.6 us per call on an H200 VM,
// at most 12.9 on a p5; one thread for 8 GPUs: 25-30 us on Azure ND H100/H200 v5, 45 on ND A100
// v4: docs/accuracy.md, the host loop), more than any network parameter moves a small size.
static std::string host_loop_note(const std::vector<NcclTestsRow>& rows, double launch_us, int gpus_per_thread) {
  int64_t largest = -1;
  for (const auto& r : rows)
    if (r.device_us < launch_us) largest = std::max(largest, r.size);
  if (largest < 0) return "";
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "sizes up to %lld B are bound by the host's loop, not the GPUs: %.1f us per call "
                "(nccl.launch_overhead%s, a default). Measured hosts differ twofold (6.6-13 us per call with one "
                "GPU per process, 25-45 us with 8 GPUs per thread): `commsim calibrate` on your own small sizes, "
                "or --set cluster.params.nccl.launch_overhead, sets yours (docs/accuracy.md, the host loop)",
                static_cast<long long>(largest), launch_us,
                gpus_per_thread > 1 ? (" + nccl.launch_per_gpu x " + std::to_string(gpus_per_thread - 1)).c_str() : "");
  return buf;
}

NcclTestsResult run_nccl_tests(const ScenarioSpec& spec, const NcclTestsOptions& o) {
  sim::Simulator sim;
  sim::FlowNetwork net(sim);
  check_params(spec.cluster.params);
  auto world = World::build(spec, net);
  auto engine = make_collective_engine(sim, net, *world, spec);
  LinkParams params = LinkParams::for_world(*world);
  params.apply(spec.cluster.params);

  // nccl-tests -g N: one thread launches on every GPU of its process (single_process), else one.
  const int gpus_per_thread = spec.placement.single_process ? world->placement().gpus_per_pod : 1;

  // The communicator: the ranks given (one group of a step), else every rank in World order.
  Group group;
  group.name = o.ranks.empty() ? "world" : "group";
  group.ranks = o.ranks;
  if (group.ranks.empty())
    for (int r = 0; r < world->size(); ++r) group.ranks.push_back(r);
  for (int r : group.ranks) SIM_CHECK(r >= 0 && r < world->size(), "an nccl-tests rank outside the World");
  const int n = int(group.ranks.size());

  NcclTestsResult result;
  result.nranks = n;
  result.gpu_name = world->gpu_name();
  result.network_note = world->network_note();
  result.nvlink_note = world->nvlink_note();
  for (int i = 0; i < n; ++i) {
    const int r = group.ranks[i];
    const RankInfo& info = world->rank(r);
    char line[160];
    std::snprintf(line, sizeof line, "#  Rank %2d Group  0 Pid %6d on %10s device %2d [0000:%02x:00] NVIDIA %s", i,
                  1000 + info.pod, ("node" + std::to_string(info.node)).c_str(), info.pod_rank, info.local_gpu,
                  world->gpu_name().c_str());
    result.rank_lines.push_back(line);
  }
  for (int i = 0; i + 1 < n; ++i) {
    const std::string c = link_class_name(world->route(group.ranks[i], group.ranks[i + 1]).link_class);
    if (std::find(result.link_classes.begin(), result.link_classes.end(), c) == result.link_classes.end())
      result.link_classes.push_back(c);
  }
  double busbw_sum = 0;
  for (int64_t size : nccl_tests_sizes(o)) {
    // nccl-tests' sizes (src/common.cu setupArgs): count = size / element size; all_gather,
    // reduce_scatter and alltoall give each rank base = (count / n) & ~(16 / element size - 1)
    // elements, 16-byte aligned (src/all_gather.cu, reduce_scatter.cu, alltoall.cu
    // GetCollByteCount), and print max(send, receive) bytes = base x n x element size with the
    // count column base (paramcount); the other collectives pass the count as it is.
    int64_t count = size / o.type_size;
    const bool per_rank = o.op == CollOp::AllGather || o.op == CollOp::ReduceScatter || o.op == CollOp::AllToAll;
    if (per_rank) count = (count / n) & ~(std::max<int64_t>(1, 16 / o.type_size) - 1);
    const int64_t bytes = count * o.type_size * (per_rank ? n : 1);
    NcclTestsRow row;
    row.size = bytes;
    row.count = count;
    CollectiveRecord rec;
    auto device_seconds = [&](bool in_place) {
      const double t0 = sim.now().seconds();
      if (o.op == CollOp::SendRecv) {
        // sendrecv_perf: every rank sends to the next and receives from the previous, at once.
        for (int i = 0; i < n; ++i)
          engine->send_recv(
              group.ranks[i], group.ranks[(i + 1) % n], bytes, [&rec](const CollectiveRecord& c) { rec = c; },
              &group.ranks);
      } else {
        engine->launch(
            group, o.op, bytes, [&rec](const CollectiveRecord& c) { rec = c; }, in_place);
      }
      sim.run();
      return sim.now().seconds() - t0;
    };
    const double device_s = device_seconds(false);
    row.device_us = device_s * 1e6;
    row.time_us = params.loop_time(device_s, gpus_per_thread) * 1e6;
    // Only all_gather's in-place run differs (models/collectives/copy_work.hpp), and any on one rank
    // (no copy at all); others repeat the same time.
    row.ip_time_us = o.op == CollOp::AllGather || n == 1 ? params.loop_time(device_seconds(true), gpus_per_thread) * 1e6
                                                         : row.time_us;
    row.algo = algo_name(rec.algo);
    row.proto = proto_name(rec.proto);
    row.channels = rec.channels;
    row.algbw_gbs = bytes / (row.time_us * 1e-6) / 1e9;
    row.busbw_gbs = row.algbw_gbs * bus_factor(o.op, n);
    row.ip_algbw_gbs = bytes / (row.ip_time_us * 1e-6) / 1e9;
    row.ip_busbw_gbs = row.ip_algbw_gbs * bus_factor(o.op, n);
    busbw_sum += row.busbw_gbs + row.ip_busbw_gbs;  // nccl-tests averages both columns (BenchTime)
    result.rows.push_back(row);
  }
  if (!result.rows.empty()) result.avg_busbw_gbs = busbw_sum / (2.0 * result.rows.size());
  if (!spec.cluster.params.count("nccl.launch_overhead"))
    result.host_loop_note = host_loop_note(result.rows, params.launch_cost(gpus_per_thread) * 1e6, gpus_per_thread);
  return result;
}

std::string nccl_tests_time(double us) {
  char buf[32];
  if (us < 10000)
    std::snprintf(buf, sizeof buf, "%7.2f", us);
  else if (us < 100000)
    std::snprintf(buf, sizeof buf, "%7.1f", us);
  else
    std::snprintf(buf, sizeof buf, "%7.0f", us);
  return buf;
}

std::string format_nccl_tests(const NcclTestsResult& r, const NcclTestsOptions& o) {
  std::string out;
  char buf[512];
  const std::string name = std::string(coll_op_name(o.op)) + "_perf";
  out += "# nccl-tests version 2.19.6 format, predicted by commsim (not measured)\n";
  out += "# Collective test starting: " + name + "\n";
  std::snprintf(buf, sizeof buf,
                "# nThread 1 nGpus %d minBytes %lld maxBytes %lld step: %g(factor) warmup iters: 1 iters: %d agg "
                "iters: 1 validation: 1 graph: 0 unalign: 0\n#\n# Using devices\n",
                r.nranks, static_cast<long long>(o.min_bytes), static_cast<long long>(o.max_bytes), o.factor, o.iters);
  out += buf;
  for (const auto& l : r.rank_lines) out += l + "\n";
  out += "#\n";
  out +=
      "#                                                              out-of-place                       in-place      "
      "    \n";
  out +=
      "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  "
      "#wrong \n";
  out +=
      "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)  "
      "       \n";
  const bool rooted = o.op == CollOp::Broadcast || o.op == CollOp::Reduce;
  const bool reducing = o.op == CollOp::AllReduce || o.op == CollOp::Reduce || o.op == CollOp::ReduceScatter;
  for (const auto& row : r.rows) {
    const std::string t = nccl_tests_time(row.time_us), tip = nccl_tests_time(row.ip_time_us);
    std::snprintf(buf, sizeof buf, "%12lld  %12lld  %8s  %6s  %6d  %s  %6.2f  %6.2f  %6d  %s  %6.2f  %6.2f  %6d\n",
                  static_cast<long long>(row.size), static_cast<long long>(row.count), o.type.c_str(),
                  reducing ? o.redop.c_str() : "none", rooted ? o.root : -1, t.c_str(), row.algbw_gbs, row.busbw_gbs, 0,
                  tip.c_str(), row.ip_algbw_gbs, row.ip_busbw_gbs, 0);
    out += buf;
  }
  out += "# Out of bounds values : 0 OK\n";
  std::snprintf(buf, sizeof buf, "# Avg bus bandwidth    : %g \n#\n", r.avg_busbw_gbs);
  out += buf;
  out += "# Collective test concluded: " + name + "\n#\n";
  return out;
}

}  // namespace models::calibrate
