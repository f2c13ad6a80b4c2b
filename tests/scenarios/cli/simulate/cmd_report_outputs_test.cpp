// What report's outputs show of the run: the bus bandwidth curves replay each collective on the
// group the step ran it on; the timeline keeps a straggler's rank at scale and says which ranks it
// holds; each of several jobs lists its own nodes' links; the page carries the run's $ (with the
// user's --prices); with --samples the goodput's failure-free cost says which step it rests on.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "models/calibrate/nccl_tests.hpp"
#include "models/readers/nccl_tests_output.hpp"
#include "models/run/jobs.hpp"
#include "models/run/run.hpp"
#include "scenarios/cli/output/report_inputs.hpp"
#include "scenarios/load/loader.hpp"
#include "tests/scenarios/command_runner.hpp"
#include "viz/format.hpp"

using scenarios_test::run_commsim;

namespace {
const std::string kOutputsExamples = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/examples/";

const models::CollectiveUse* find_use(const models::RunResult& r, const std::string& op, const std::string& group) {
  for (const auto& u : r.collectives_used)
    if (u.op == op && u.group == group) return &u;
  return nullptr;
}
// nccl-tests' all_gather from 8 B to 1 GiB (x4 a size, one iteration) on `ranks`: the replay the
// report's curve of that group must equal.
models::calibrate::NcclTestsOptions gather_sweep(const std::vector<int>& ranks) {
  models::calibrate::NcclTestsOptions o;
  o.op = models::nccl::CollOp::AllGather;
  o.min_bytes = 8;
  o.max_bytes = int64_t{1} << 30;
  o.factor = 4;
  o.iters = 1;
  o.ranks = ranks;
  return o;
}
}  // namespace

TEST_CASE("report: the bus bandwidth curves replay each collective on the group the step ran it on", "[scenarios]") {
  // HSDP over 4 p4d nodes: all-gathers and reduce-scatters on each node's 8 GPUs (the shard
  // group), all-reduces across the 4 nodes (the replicate group); nothing spans all 32 GPUs.
  const auto loaded = scenarios::load_scenario(kOutputsExamples + "p4d_4node_hsdp_llama3_8b.toml");
  models::RunOptions options;
  options.timeline = true;
  const models::RunResult r = models::run_scenario(loaded.spec, options);
  const auto* gather = find_use(r, "all_gather", "shard");
  const auto* reduce = find_use(r, "all_reduce", "replicate");
  REQUIRE(gather);
  REQUIRE(reduce);
  CHECK(gather->ranks == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7});
  CHECK(gather->nodes == 1);
  CHECK(reduce->ranks == std::vector<int>{0, 8, 16, 24});
  CHECK(reduce->nodes == 4);
  CHECK(gather->min_bytes > 0);
  CHECK(gather->max_bytes >= gather->min_bytes);
  for (const auto& u : r.collectives_used) CHECK(u.ranks.size() < 32);

  const auto points = scenarios::busbw_curves(loaded.spec, r, {});
  // The shard group's all-gather: exactly nccl-tests replayed on ranks 0-7.
  models::calibrate::NcclTestsOptions o = gather_sweep(gather->ranks);
  const auto on_node = models::calibrate::run_nccl_tests(loaded.spec, o);
  CHECK(on_node.nranks == 8);
  std::vector<const viz::BusBwPoint*> curve;
  std::set<std::string> groups;
  for (const auto& p : points) {
    groups.insert(p.op + ", " + p.group);
    if (p.op == "all_gather") curve.push_back(&p);
  }
  CHECK(groups.count("all_gather, shard group of 8 GPUs on 1 node") == 1);
  CHECK(groups.count("reduce_scatter, shard group of 8 GPUs on 1 node") == 1);
  CHECK(groups.count("all_reduce, replicate group of 4 GPUs on 4 nodes") == 1);
  for (const auto& g : groups) CHECK(g.find("32 GPUs") == std::string::npos);  // no curve over the cluster
  REQUIRE(curve.size() == on_node.rows.size());
  for (std::size_t i = 0; i < curve.size(); ++i) {
    CHECK(curve[i]->size_bytes == on_node.rows[i].size);
    CHECK(curve[i]->predicted_bytes_per_s == std::max(on_node.rows[i].busbw_gbs, on_node.rows[i].ip_busbw_gbs) * 1e9);
  }
  // Over NVSwitch inside the node, 128 MiB all-gathers run far above the 32-GPU EFA ring's busbw.
  o.ranks.clear();
  o.min_bytes = o.max_bytes = int64_t{1} << 27;
  const auto cluster = models::calibrate::run_nccl_tests(loaded.spec, o);
  o.ranks = gather->ranks;
  const auto node = models::calibrate::run_nccl_tests(loaded.spec, o);
  REQUIRE(cluster.rows.size() == 1);
  REQUIRE(node.rows.size() == 1);
  CHECK(node.rows[0].busbw_gbs > 4 * cluster.rows[0].busbw_gbs);

  // The page's legend names each curve's group.
  const auto dir = scenarios_test::fresh_temp_dir("report-busbw-groups");
  const auto html = dir / "h.html";
  const auto rep = run_commsim({"report", kOutputsExamples + "p4d_4node_hsdp_llama3_8b.toml", "--html", html.string()});
  REQUIRE(rep.exit_code == 0);
  const std::string page = scenarios_test::slurp(html);
  CHECK(page.find("all_gather, shard group of 8 GPUs on 1 node predicted") != std::string::npos);
  CHECK(page.find("all_reduce, replicate group of 4 GPUs on 4 nodes predicted") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("report: with [[jobs]], each job's collectives get curves on the job's own groups", "[scenarios]") {
  // Two 4-node jobs of a 12-node p4d cluster: each job's all-gathers over its own 32 GPUs,
  // replayed on the job's own nodes, never over the cluster's 96.
  const auto loaded = scenarios::load_scenario(kOutputsExamples + "two_jobs_fat_tree.toml");
  models::RunOptions options;
  options.timeline = true;
  const models::RunResult r = models::run_scenario(loaded.spec, options);
  REQUIRE(r.jobs.size() == 2);
  const auto* gather = find_use(r.jobs[0].together, "all_gather", "dp");
  REQUIRE(gather);
  CHECK(gather->ranks.size() == 32);
  CHECK(gather->nodes == 4);
  const auto points = scenarios::busbw_curves(loaded.spec, r, {});
  std::set<std::string> groups;
  std::vector<const viz::BusBwPoint*> curve;
  for (const auto& p : points) {
    groups.insert(p.op + ", " + p.group);
    if (p.group == "job zero3: dp group of 32 GPUs on 4 nodes" && p.op == "all_gather") curve.push_back(&p);
  }
  CHECK(groups.count("all_gather, job zero3: dp group of 32 GPUs on 4 nodes") == 1);
  CHECK(groups.count("all_gather, job fsdp: dp group of 32 GPUs on 4 nodes") == 1);
  for (const auto& g : groups) CHECK(g.find("96 GPUs") == std::string::npos);
  // Exactly nccl-tests replayed on the job's own scenario (its nodes 2-5).
  const models::calibrate::NcclTestsOptions o = gather_sweep(gather->ranks);
  const auto job = models::job_scenario(loaded.spec, loaded.spec.jobs[0], models::place_jobs(loaded.spec)[0], 0);
  const auto alone = models::calibrate::run_nccl_tests(job, o);
  CHECK(alone.nranks == 32);
  REQUIRE(curve.size() == alone.rows.size());
  for (std::size_t i = 0; i < curve.size(); ++i)
    CHECK(curve[i]->predicted_bytes_per_s == std::max(alone.rows[i].busbw_gbs, alone.rows[i].ip_busbw_gbs) * 1e9);
}

TEST_CASE("report: the timeline keeps a straggler's rank beyond 16 ranks and says which ranks it holds",
          "[scenarios]") {
  // 4 nodes (32 ranks) with rank 5 computing 30 % slower: rank 5 runs rank 0's program at another
  // speed, so it gets its own row beside the first and the last rank.
  const auto loaded = scenarios::load_scenario(kOutputsExamples + "p4d_2node_straggler.toml", {"cluster.nodes=4"});
  models::RunOptions options;
  options.timeline = true;
  const models::RunResult r = models::run_scenario(loaded.spec, options);
  CHECK(r.timeline_ranks == std::vector<int>{0, 5, 31});
  CHECK(r.timeline_ranks_why ==
        "the first rank of each program (pipeline stage, GPU kind) at each compute speed (stragglers), and the last "
        "rank");
  std::set<int> with_events;
  for (const auto& e : r.timeline) with_events.insert(e.rank);
  CHECK(with_events == std::set<int>{0, 5, 31});
  // Recording one more rank changes no figure.
  const models::RunResult quiet = models::run_scenario(loaded.spec, {});
  CHECK(quiet.step_time_s == r.step_time_s);
  CHECK(quiet.ranks[5].compute_s == r.ranks[5].compute_s);

  const auto dir = scenarios_test::fresh_temp_dir("report-straggler-timeline");
  const auto trace = dir / "s.json", csv = dir / "s.csv";
  const auto rep = run_commsim({"report", kOutputsExamples + "p4d_2node_straggler.toml", "--set", "cluster.nodes=4",
                                "--trace", trace.string(), "--csv", csv.string()});
  REQUIRE(rep.exit_code == 0);
  const auto doc = nlohmann::json::parse(scenarios_test::slurp(trace));
  CHECK(doc["otherData"]["timeline_ranks"] == nlohmann::json::array({0, 5, 31}));
  CHECK(doc["otherData"]["timeline_ranks_why"] == r.timeline_ranks_why);
  std::set<int> traced;
  for (const auto& e : doc["traceEvents"])
    if (e["ph"] == "X" && e["args"].contains("rank")) traced.insert(e["args"]["rank"].get<int>());
  CHECK(traced == std::set<int>{0, 5, 31});
  // The CSV's rank rows count each rank's events: 0 for a rank the timeline did not record.
  const std::string text = scenarios_test::slurp(csv);
  CHECK(text.find(",timeline_events\r\n") != std::string::npos);
  long long rank5_events = 0;
  for (const auto& e : r.timeline) rank5_events += e.rank == 5;
  CHECK(rank5_events > 0);
  std::size_t rows = 0, recorded_rows = 0;
  for (std::size_t at = text.find("\r\nrank,"); at != std::string::npos; at = text.find("\r\nrank,", at + 2)) {
    const std::string row = text.substr(at + 2, text.find("\r\n", at + 2) - at - 2);
    const std::string count = row.substr(row.rfind(',') + 1);
    ++rows;
    recorded_rows += count != "0";
    if (row.rfind("rank,5,", 0) == 0) CHECK(count == std::to_string(rank5_events));
    if (row.rfind("rank,6,", 0) == 0) CHECK(count == "0");
  }
  CHECK(rows == 32);
  CHECK(recorded_rows == 3);
  std::filesystem::remove_all(dir);
}

TEST_CASE("run --json: each of several jobs lists the busiest links of its own nodes", "[scenarios]") {
  const auto loaded = scenarios::load_scenario(kOutputsExamples + "two_jobs_fat_tree.toml");
  const models::RunResult r = models::run_scenario(loaded.spec, {});
  REQUIRE(r.jobs.size() == 2);
  for (const auto& job : r.jobs) {
    INFO(job.name);
    REQUIRE(!job.together.links.empty());
    CHECK(job.together.links.size() <= 32);
    for (const auto& l : job.together.links) {
      INFO(l.name);
      const int node = std::stoi(l.name.substr(4, l.name.find('/') - 4));
      CHECK(l.name.rfind("node", 0) == 0);
      CHECK(node >= job.first_node);
      CHECK(node <= job.last_node);
      CHECK(l.utilization <= 1.0);
      // Its bytes are the shared run's on that link, over the job's own capacity.
      CHECK(l.utilization == Approx(l.bytes / (l.capacity_bytes_per_s * job.together.step_time_s)).epsilon(1e-12));
    }
    for (std::size_t i = 1; i < job.together.links.size(); ++i)
      CHECK(job.together.links[i - 1].utilization >= job.together.links[i].utilization);
  }
  // The zero3 job (nodes 2-5) sends over its nodes' NICs, as the shared run's list shows.
  bool nic = false;
  for (const auto& l : r.jobs[0].together.links) nic |= l.name.find("/nic") != std::string::npos;
  CHECK(nic);
}

TEST_CASE("report: the page puts $ beside the times, at the --prices file's price as run does", "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("report-prices");
  const auto prices = dir / "prices.toml";
  std::ofstream(prices) << "[prices]\n\"p4d.24xlarge\" = 100.0\n";
  const std::string scenario = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/seeds/p4d_1pod_4gpu.toml";
  const auto run = run_commsim({"run", scenario, "--prices", prices.string(), "--json"});
  REQUIRE(run.exit_code == 0);
  const auto j = nlohmann::json::parse(run.out);
  CHECK(j["usd_per_hour"].get<double>() == 100.0);
  const auto html = dir / "r.html";
  const auto rep = run_commsim({"report", scenario, "--prices", prices.string(), "--html", html.string()});
  REQUIRE(rep.exit_code == 0);
  const std::string page = scenarios_test::slurp(html);
  auto tile = [](const std::string& value, const std::string& key) {
    return "<div class=\"v\">" + value + "</div><div class=\"k\">" + key;
  };
  CHECK(page.find(tile(viz::fmt::usd(j["cost_per_step_usd"].get<double>()), "cost per step")) != std::string::npos);
  CHECK(page.find(tile(viz::fmt::usd(j["cost_per_run_usd"].get<double>()),
                       "cost per run (1 node at " + viz::fmt::usd(100) + "/h")) != std::string::npos);
  CHECK(page.find(tile(viz::fmt::usd(j["cost_per_million_tokens_usd"].get<double>()), "cost per million tokens")) !=
        std::string::npos);
  // Several jobs on one fabric: no goodput, yet the run's price is known and shown.
  const auto jobs_html = dir / "j.html";
  const auto jobs =
      run_commsim({"report", kOutputsExamples + "two_jobs_fat_tree.toml", "--html", jobs_html.string(), "--no-busbw"});
  REQUIRE(jobs.exit_code == 0);
  const auto jobs_run = run_commsim({"run", kOutputsExamples + "two_jobs_fat_tree.toml", "--json"});
  REQUIRE(jobs_run.exit_code == 0);
  const auto jj = nlohmann::json::parse(jobs_run.out);
  CHECK(scenarios_test::slurp(jobs_html).find(
            tile(viz::fmt::usd(jj["cost_per_step_usd"].get<double>()), "cost per step")) != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("run --samples: the goodput's failure-free cost says it is at the sampled mean step", "[scenarios]") {
  const std::string scenario = kOutputsExamples + "p4d_2node_straggler.toml";
  const auto j = nlohmann::json::parse(run_commsim({"run", scenario, "--samples", "20", "--json"}).out);
  const double mean = j["variability"]["step_mean_s"].get<double>(), step = j["step_time_s"].get<double>();
  REQUIRE(mean != step);
  CHECK(j["goodput"]["step_s"].get<double>() == mean);
  CHECK(j["goodput"]["work_cost_usd"].get<double>() ==
        Approx(j["cost_per_run_usd"].get<double>() * mean / step).epsilon(1e-8));  // 9 digits each
  const auto text = run_commsim({"run", scenario, "--samples", "20"});
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find(" of steps at the sampled mean step ") != std::string::npos);
  // The run's own $ per run, as its cost line prints it, beside the goodput's.
  const auto per_run = viz::fmt::usd(j["cost_per_run_usd"].get<double>());
  CHECK(text.out.find("cost       ") != std::string::npos);
  CHECK(text.out.find(" without failures at the sampled mean step; the run's " + per_run +
                      " per run is at the simulated step ") != std::string::npos);
}

TEST_CASE("report: a measured file's bus bandwidth is its time's, not the two decimals nccl-tests prints",
          "[scenarios]") {
  // ar_g4.txt at 8 B prints 0.00 GB/s; its time gives the point, with nccl-tests' 2(n-1)/n.
  const std::string dir = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/validation/";
  const auto loaded = scenarios::load_scenario(dir + "h200x4.toml");
  models::RunOptions opt;
  const auto r = models::run_scenario(loaded.spec, opt);
  const std::string file = dir + "h200x4/measured/nccl-tests/ar_g4.txt";
  const auto runs = models::readers::parse_nccl_tests_files({file});
  REQUIRE(!runs.empty());
  const auto& first = runs.front().rows.front();
  REQUIRE(first.size_bytes == 8);
  const auto points = scenarios::busbw_curves(loaded.spec, r, {file});
  const auto at8 = std::find_if(points.begin(), points.end(), [](const viz::BusBwPoint& p) {
    return p.op == "all_reduce" && p.size_bytes == 8 && p.measured_bytes_per_s > 0;
  });
  REQUIRE(at8 != points.end());
  CHECK(at8->measured_bytes_per_s == Approx(2.0 * 3 / 4 * 8 / (first.oop.time_us * 1e-6)));
}
