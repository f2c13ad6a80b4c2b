// `commsim plan` through the real binary: the ranked table with GPUs and $, JSON that the shards'
// merge ranks like one run, emitted scenarios that `commsim run` runs with the planned step, the
// user's layout ranked, and bad input (an empty range, contradictory options, a missing price, a
// budget nothing meets) as one sentence and exit 2. Its prices:
// tests/scenarios/cli/plan/cmd_plan_prices_test.cpp.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tests/scenarios/command_runner.hpp"

namespace fs = std::filesystem;
using scenarios_test::run_commsim;

namespace {
const std::string kDir = std::string(COMMSIM_SOURCE_DIR) + "/tests/scenarios/cli/plan/";
const std::string kSmall = kDir + "small.toml";
const std::vector<std::string> kPlan = {"plan", kSmall, "--gpus", "8..16", "--strategies", "megatron,zero3,fsdp",
                                        "--micro-batches", "1", "--cp", "1", "--max-pp", "4", "--max-vp", "2",
                                        "--jobs", "2"};

std::vector<std::string> plan_args_with(std::vector<std::string> args, const std::vector<std::string>& extra) {
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}
}  // namespace

TEST_CASE("scenarios: plan prints a ranked table with GPUs, nodes, $ and the Pareto front", "[scenarios]") {
  const auto r = run_commsim(kPlan);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("target     1e+09 tokens = 15259 steps of 65536 tokens") != std::string::npos);
  CHECK(r.out.find("rank       time goodput       cost") != std::string::npos);
  CHECK(r.out.find("x p5.48xlarge") != std::string::npos);
  CHECK(r.out.find("Pareto front") != std::string::npos);
  CHECK(r.out.find("why #1 wins over #2") != std::string::npos);
  CHECK(r.out.find("$") != std::string::npos);
}

TEST_CASE("scenarios: plan --json rows, and --merge of shards ranks like one run", "[scenarios]") {
  const auto whole = run_commsim(plan_args_with(kPlan, {"--json"}));
  REQUIRE(whole.exit_code == 0);
  const auto j = nlohmann::json::parse(whole.out);
  CHECK(j["command"] == "plan");
  REQUIRE(j["rows"].size() > 1);
  CHECK(j["rows"][0]["rank"] == 1);
  CHECK(j["rows"][0]["gpus"].get<int>() >= 8);
  CHECK(j["rows"][0]["cost_usd"].get<double>() > 0);
  const auto dir = scenarios_test::fresh_temp_dir("plan-shards");
  std::vector<std::string> merge = {"plan", kSmall, "--merge"};
  for (int i = 0; i < 2; ++i) {
    const auto s = run_commsim(plan_args_with(kPlan, {"--json", "--shard", std::to_string(i) + "/2"}));
    REQUIRE(s.exit_code == 0);
    const auto f = dir / ("shard" + std::to_string(i) + ".json");
    std::ofstream(f) << s.out;
    merge.push_back(f.string());
  }
  const auto merged = run_commsim(plan_args_with(merge, {"--json"}));
  REQUIRE(merged.exit_code == 0);
  const auto m = nlohmann::json::parse(merged.out);
  CHECK(m["rows"][0]["layout"] == j["rows"][0]["layout"]);
  CHECK(m["rows"][0]["train_time_s"] == j["rows"][0]["train_time_s"]);
  // Per instance: the shards' space is the whole run's; the ranked rows are counted again.
  CHECK(m["space"]["instances"]["p5.48xlarge"]["candidates"] == j["space"]["instances"]["p5.48xlarge"]["candidates"]);
  CHECK(m["space"]["instances"]["p5.48xlarge"]["ranked"] == m["rows"].size());
  fs::remove_all(dir);
}

TEST_CASE("scenarios: plan --merge keeps the shards' deadline, names the nearest layout, refuses another one",
          "[scenarios]") {
  // Shards searched under a deadline nothing meets. Merged without repeating it, the answer is
  // the one run's: the same error naming the same fastest layout, with the misses counted (not
  // "nothing fits"). Another deadline at the merge would rank a search made under other bounds
  // (a looser one: layouts never simulated; a tighter one: layouts skipped as slower than the
  // best): refused, as are shards of different constraints.
  const auto whole = run_commsim(plan_args_with(kPlan, {"--deadline", "1s"}));
  REQUIRE(whole.exit_code == 2);
  const auto named = whole.err.find("the fastest simulated takes ");
  REQUIRE(named != std::string::npos);
  const std::string fastest = whole.err.substr(named, whole.err.find(';', named) - named);
  const auto dir = scenarios_test::fresh_temp_dir("plan-shards-deadline");
  std::vector<std::string> merge = {"plan", kSmall, "--merge"};
  for (int i = 0; i < 2; ++i) {
    const auto s =
        run_commsim(plan_args_with(kPlan, {"--deadline", "1s", "--json", "--shard", std::to_string(i) + "/2"}));
    REQUIRE(s.exit_code == 0);  // a shard is not the answer: it writes what it has
    const auto f = dir / ("shard" + std::to_string(i) + ".json");
    std::ofstream(f) << s.out;
    merge.push_back(f.string());
    CHECK(nlohmann::json::parse(s.out)["rows"].empty());
  }
  const auto merged = run_commsim(merge);
  INFO(merged.err);
  CHECK(merged.exit_code == 2);
  CHECK(merged.out.empty());
  CHECK(merged.err.find("no layout meets the constraints (deadline 1.000 s)") != std::string::npos);
  CHECK(merged.err.find(fastest) != std::string::npos);
  CHECK(merged.err.find("more could not meet them even at their lower bound") != std::string::npos);
  for (const char* other : {"30d", "0.5s"}) {
    const auto r = run_commsim(plan_args_with(merge, {"--deadline", other}));
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("--deadline:1:1: the shards searched under budget none, deadline 1.000 s; a merge ranks what "
                     "they searched (expected no --deadline here, or the shards run again with this one)") !=
          std::string::npos);
  }
  // Shard 1 searched under another deadline than shard 0: refused at its file, in either order.
  const auto s1 = run_commsim(plan_args_with(kPlan, {"--deadline", "30d", "--json", "--shard", "1/2"}));
  REQUIRE(s1.exit_code == 0);
  const auto f1 = dir / "shard1_30d.json";
  std::ofstream(f1) << s1.out;
  const auto mixed = run_commsim({"plan", kSmall, "--merge", merge[3], f1.string()});
  INFO(mixed.err);
  CHECK(mixed.exit_code == 2);
  CHECK(mixed.err.find(f1.string() + ":1:1: searched under budget none, deadline 30.0 d, " + merge[3] +
                       " under budget none, deadline 1.000 s (expected the shards of one plan: the same --budget "
                       "and --deadline on every shard)") != std::string::npos);
  const auto swapped = run_commsim({"plan", kSmall, "--merge", f1.string(), merge[3]});
  CHECK(swapped.exit_code == 2);
  CHECK(swapped.err.find(merge[3] + ":1:1: searched under budget none, deadline 1.000 s") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("scenarios: plan --emit writes scenarios that run with the planned step", "[scenarios]") {
  // ZeRO-1 and -2 too, whose DeepSpeed default (overlap_comm off) differs from the planner's.
  for (const char* strategies : {"megatron,zero3,fsdp", "zero1,zero2"}) {
    INFO(strategies);
    const auto dir = scenarios_test::fresh_temp_dir("plan-emit");
    std::vector<std::string> plan = kPlan;
    plan[std::find(plan.begin(), plan.end(), "--strategies") - plan.begin() + 1] = strategies;
    const auto r = run_commsim(plan_args_with(plan, {"--json", "--emit", dir.string(), "--emit-count", "3"}));
    REQUIRE(r.exit_code == 0);
    const auto j = nlohmann::json::parse(r.out);
    const int emitted = std::min<int>(3, static_cast<int>(j["rows"].size()));
    REQUIRE(emitted >= 2);
    CHECK_FALSE(fs::exists(dir / ("rank-0" + std::to_string(emitted + 1) + ".toml")));
    for (int i = 1; i <= emitted; ++i) {
      const auto f = dir / ("rank-0" + std::to_string(i) + ".toml");
      REQUIRE(fs::exists(f));
      const auto run = run_commsim({"run", f.string(), "--json"});
      REQUIRE(run.exit_code == 0);
      const auto rj = nlohmann::json::parse(run.out);
      INFO(f.string());
      CHECK(rj["step_time_s"].get<double>() == Approx(j["rows"][i - 1]["step_time_s"].get<double>()).epsilon(1e-9));
      CHECK(rj["gpus"] == j["rows"][i - 1]["gpus"]);
      CHECK(rj["cost_per_step_usd"].get<double>() > 0);
    }
    fs::remove_all(dir);
  }
}

// The seeds' scenario keeps a DeepSpeed stage-3 file with CPU offload of the optimizer and the
// parameters. An emitted ZeRO layout without offload says, at its top, that its [zero] keys
// override that file; another strategy's file carries no [zero] table at all.
TEST_CASE("scenarios: plan --emit says where a layout overrides the scenario's DeepSpeed file", "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("plan-emit-deepspeed");
  const std::string seeds = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/seeds/p4d_1pod_4gpu.toml";
  const auto r = run_commsim({"plan", seeds, "--strategies", "zero3,fsdp", "--micro-batches", "1", "--recompute",
                              "none", "--emit", dir.string(), "--emit-count", "2", "--json"});
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  for (int i = 1; i <= 2; ++i) {
    const std::string layout = j["rows"][i - 1]["layout"].get<std::string>();
    const std::string text = scenarios_test::slurp(dir / ("rank-0" + std::to_string(i) + ".toml"));
    INFO(layout << "\n" << text);
    if (layout.rfind("zero3 ", 0) == 0) {
      CHECK(text.find("# [zero] offload_optimizer = 'none' (was 'cpu') and offload_param = 'none' (was 'cpu') "
                      "override ") != std::string::npos);
      CHECK(text.find("llama-3-8b-stage3.json: this layout's, which commsim runs") != std::string::npos);
    } else {
      CHECK(text.find("[zero]") == std::string::npos);
      CHECK(text.find("deepspeed_config") == std::string::npos);
    }
  }
  fs::remove_all(dir);
}

TEST_CASE("scenarios: plan --include says how many times faster the winner is, not a percent near 100", "[scenarios]") {
  // The seeds' 4 pods of 1 GPU over EFA with CPU offload, ranked on its own node: far behind #1.
  const std::string seed = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/seeds/p4d_4pod_1gpu_efa.toml";
  const std::vector<std::string> args = {"plan", seed, "--include", seed, "--jobs", "1"};
  auto with_json = args;
  with_json.push_back("--json");
  const auto js = run_commsim(with_json);
  REQUIRE(js.exit_code == 0);
  const auto j = nlohmann::json::parse(js.out);
  const double mine_s = j["included"]["expected_train_time_s"].get<double>();
  const double best_s = j["rows"][0]["expected_train_time_s"].get<double>();
  const double mine_usd = j["included"]["expected_cost_usd"].get<double>();
  const double best_usd = j["rows"][0]["expected_cost_usd"].get<double>();
  REQUIRE(mine_s >= 1.5 * best_s);
  REQUIRE(mine_usd >= 1.5 * best_usd);
  const auto r = run_commsim(args);
  REQUIRE(r.exit_code == 0);
  INFO(r.out);
  CHECK(r.out.find(fmt::format("the winner takes {:.1f}x less time and costs {:.1f}x less\n", mine_s / best_s,
                               mine_usd / best_usd)) != std::string::npos);
  CHECK(r.out.find("% less time") == std::string::npos);
}

TEST_CASE("scenarios: plan --include ranks the user's own layout", "[scenarios]") {
  const auto r = run_commsim(plan_args_with(kPlan, {"--include", kSmall}));
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("yours      " + kSmall) != std::string::npos);
  CHECK(r.out.find("would rank") != std::string::npos);
  // A layout leaving GPUs of its node idle is shown with the GPUs it uses, not the node's.
  const auto dir = scenarios_test::fresh_temp_dir("plan-include");
  const auto half = dir / "half.toml";
  std::ofstream(half) << "name = \"half a node\"\n[cluster]\ninstance = \"p5.48xlarge\"\nnodes = 1\n"
                         "[placement]\ngpus_per_pod = 4\n[model]\npreset = \"llama-3-8b\"\nseq = 2048\n"
                         "[training]\nglobal_batch = 32\nmicro_batch = 1\ntokens = 1e9\n"
                         "[parallel]\nstrategy = \"megatron\"\ntp = 2\npp = 2\nsequence_parallel = true\n";
  const auto h = run_commsim(plan_args_with(kPlan, {"--include", half.string(), "--json"}));
  REQUIRE(h.exit_code == 0);
  const auto j = nlohmann::json::parse(h.out);
  CHECK(j["included"]["error"].is_null());
  CHECK(j["included"]["gpus"] == 4);
  CHECK(j["included"]["node_gpus"] == 8);
  CHECK(j["included"]["layout"].get<std::string>().find(", 4 of 8 GPUs per node") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("scenarios: plan keeps a scenario's own batch when it sets no global_batch, and says so", "[scenarios]") {
  // The seeds' run: micro_batch 1 x grad_accum 4 on 4 ranks, 16 sequences of 2048 tokens a step.
  const std::string seed = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/seeds/p4d_4pod_1gpu_efa.toml";
  const auto r = run_commsim({"plan", seed, "--strategies", "fsdp,zero3", "--micro-batches", "1", "--cp", "1"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("target     1.638e+06 tokens = 50 steps of 32768 tokens") != std::string::npos);
  CHECK(r.out.find("batch      16 sequences per step, the scenario's own (dp 4 x micro_batch 1 x 4 micro-batches)") !=
        std::string::npos);
  // With global_batch set there is no such line.
  const auto set = run_commsim({"plan", seed, "--strategies", "fsdp,zero3", "--micro-batches", "1", "--cp", "1",
                                "--set", "training.global_batch=32"});
  REQUIRE(set.exit_code == 0);
  CHECK(set.out.find("batch      ") == std::string::npos);
}

TEST_CASE("scenarios: plan names every instance asked for, and why one has no row", "[scenarios]") {
  // 8..16 GPUs: a GB200 NVL72 rack gives 64 or 72, so it has no candidate; it is named, not dropped.
  const auto r = run_commsim(plan_args_with(kPlan, {"--instances", "p5.48xlarge,gb200-nvl72"}));
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("instances (what became of each one's candidates):") != std::string::npos);
  CHECK(r.out.find("gb200-nvl72             0 candidates: no layout divides its nodes' GPUs and the global batch "
                   "(--gpus, training.global_batch, --hosts-per-domain)") != std::string::npos);
  CHECK(r.out.find("p5.48xlarge") != std::string::npos);
  CHECK(r.out.find("ranked (best #1)") != std::string::npos);
  const auto j = nlohmann::json::parse(
      run_commsim(plan_args_with(kPlan, {"--instances", "p5.48xlarge,gb200-nvl72", "--json"})).out);
  CHECK(j["space"]["instances"]["gb200-nvl72"]["candidates"] == 0);
  CHECK(j["space"]["instances"]["p5.48xlarge"]["ranked"] == j["rows"].size());
  const auto bad = run_commsim(plan_args_with(kPlan, {"--instances", "gb200-nvl72", "--hosts-per-domain", "20"}));
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("gb200-nvl72 is one NVLink domain of 18 hosts, not 20") != std::string::npos);
  const auto one_host = run_commsim(plan_args_with(kPlan, {"--hosts-per-domain", "16"}));
  CHECK(one_host.exit_code == 2);
  CHECK(one_host.err.find("--hosts-per-domain applies to multi-host NVLink domains") != std::string::npos);
}

TEST_CASE("scenarios: plan's per-instance counts add up to the candidates under a cost objective and a deadline",
          "[scenarios]") {
  const auto args =
      plan_args_with(kPlan, {"--instances", "p5.48xlarge,p5en.48xlarge", "--objective", "cost", "--deadline", "3h"});
  const auto r = run_commsim(args);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("skipped (their cost bound cannot beat #10)") != std::string::npos);
  CHECK(r.out.find("cannot meet the constraints even at their bound, ") != std::string::npos);
  const auto j = nlohmann::json::parse(run_commsim(plan_args_with(args, {"--json"})).out);
  int64_t infeasible = 0;
  for (const auto& [name, t] : j["space"]["instances"].items()) {
    INFO(name);
    // Every candidate is simulated, skipped by its bound, out of the constraints at its bound,
    // over the memory bound or refused: one of them, once.
    CHECK(t["simulated"].get<int64_t>() + t["skipped_by_bound"].get<int64_t>() +
              t["infeasible_by_bound"].get<int64_t>() + t["over_memory_bound"].get<int64_t>() +
              t["refused_by_layout"].get<int64_t>() ==
          t["candidates"].get<int64_t>());
    infeasible += t["infeasible_by_bound"].get<int64_t>();
  }
  CHECK(infeasible == j["space"]["infeasible_by_bound"].get<int64_t>());
  CHECK(infeasible > 0);
}

TEST_CASE("scenarios: plan shows where a row's machine is known to differ from the model, once per caveat",
          "[scenarios]") {
  // GB200 NVL72 racks across their trays and across racks: the catalog's two measured caveats
  // (hw::NodeSpec::nvlink_note, network_note) reach the rows they apply to, named by rank.
  const std::vector<std::string> racks =
      plan_args_with({"plan", std::string(COMMSIM_SOURCE_DIR) + "/scenarios/examples/plan_llama3_8b.toml"},
                     {"--gpus", "64..144", "--instances", "u-p6e-gb200x72", "--strategies", "megatron",
                      "--micro-batches", "1", "--cp", "1", "--max-pp", "2", "--top", "40"});
  const auto r = run_commsim(racks);
  REQUIRE(r.exit_code == 0);
  const auto at = r.out.find("caveats (where these rows' machines at their size are known to differ from the model):");
  REQUIRE(at != std::string::npos);
  const std::string caveats = r.out.substr(at, r.out.find("\n\n", at) - at);
  // NVLS across a rack's trays applies to every row; NVLSTree across racks to the two-rack rows only
  // (the one-rack rows of 64 GPUs do not cross the network).
  CHECK(caveats.find("  every row above: u-p6e-gb200x72: NVLS across the rack's hosts is an optimistic bound") !=
        std::string::npos);
  // The ranks' label, then the caveat on the same line or (a long label) wrapped to the next.
  auto across = caveats.find(": u-p6e-gb200x72: across NVLink domains NVLSTree");
  if (across == std::string::npos) across = caveats.find(": u-p6e-gb200x72:\n    across NVLink domains NVLSTree");
  REQUIRE(across != std::string::npos);
  const std::string rows = caveats.substr(caveats.rfind('\n', across) + 3, across - caveats.rfind('\n', across) - 3);
  CHECK(rows.rfind("#1", 0) == 0);
  const auto j = nlohmann::json::parse(run_commsim(plan_args_with(racks, {"--json"})).out);
  REQUIRE(j["rows"].size() > 1);
  size_t one_rack = 0, listed = 0;
  for (const auto& row : j["rows"]) {
    const bool two_racks = row["nodes"] == 2;
    CHECK(row["caveats"].size() == (two_racks ? 2u : 1u));
    one_rack += !two_racks;
    listed += two_racks && row["rank"].get<int>() <= 40;  // the table's --top 40 rows
  }
  CHECK(one_rack > 0);
  CHECK(std::count(rows.begin(), rows.end(), '#') == static_cast<std::ptrdiff_t>(listed));
  // The page (--html): the chart, the table of every ranked row, and the caveats with their ranks.
  const auto dir = scenarios_test::fresh_temp_dir("plan-html");
  const auto page_file = (dir / "racks.html").string();
  REQUIRE(run_commsim(plan_args_with(racks, {"--html", page_file})).exit_code == 0);
  const std::string page = scenarios_test::slurp(page_file);
  CHECK(page.find("Time against cost") != std::string::npos);
  CHECK(page.find("<section id=\"ranked\">") != std::string::npos);
  CHECK(page.find("<section id=\"caveats\"><h2>Caveats</h2>") != std::string::npos);
  CHECK(page.find("<li><b>every ranked layout</b>: u-p6e-gb200x72: NVLS across the rack&#39;s hosts") !=
        std::string::npos);
  CHECK(page.find("<li><b>#1 ") != std::string::npos);
  // A machine with no known caveat (p5 over EFA): no section, empty lists.
  const auto p5 = run_commsim(kPlan);
  CHECK(p5.out.find("caveats (") == std::string::npos);
  REQUIRE(run_commsim(plan_args_with(kPlan, {"--html", (dir / "p5.html").string()})).exit_code == 0);
  const std::string p5_page = scenarios_test::slurp((dir / "p5.html").string());
  CHECK(p5_page.find("id=\"caveats\"") == std::string::npos);
  // The legend names what the chart draws: no --include, no "your layout".
  CHECK(p5_page.find("your layout (--include)") == std::string::npos);
  // ... and the front as far as it reaches: this search skipped layouts, so it is the simulated ones'.
  CHECK(p5_page.find("on the front of the layouts simulated (line)") != std::string::npos);
  // Each $ says what it rests on: the price per node-hour and how it is sold, beside each row's.
  CHECK(p5_page.find("<th>price p5.48xlarge</th><td>$") != std::string::npos);
  CHECK(p5_page.find("per node-hour, on-demand (paid whole") != std::string::npos);
  CHECK(p5_page.find("<th>pricing</th>") != std::string::npos);
  CHECK(p5_page.find("<th>memory headroom</th>") != std::string::npos);
  const auto p5j = nlohmann::json::parse(run_commsim(plan_args_with(kPlan, {"--json"})).out);
  CHECK(p5j["rows"][0]["caveats"].empty());
}

TEST_CASE("scenarios: plan with no layout inside a deadline or budget names the nearest ones, simulated",
          "[scenarios]") {
  // Every candidate misses a 1 s deadline and a $1 budget even at its bound, so none would be
  // simulated; the answer still names the fastest and the cheapest layouts, as the unconstrained
  // plans rank them first (objective time, then cost), with their GPUs, nodes and instance.
  auto first_row = [](const std::vector<std::string>& args) {
    const auto j = nlohmann::json::parse(run_commsim(plan_args_with(args, {"--json"})).out);
    REQUIRE(!j["rows"].empty());
    return j["rows"][0];
  };
  const auto fastest = first_row(kPlan);
  const auto cheapest = first_row(plan_args_with(kPlan, {"--objective", "cost"}));
  auto named = [](const nlohmann::json& row) {
    return fmt::format("on {} GPUs, {} x {} ({})", row["gpus"].get<int>(), row["nodes"].get<int>(),
                       row["instance"].get<std::string>(), row["layout"].get<std::string>());
  };
  const auto late = run_commsim(plan_args_with(kPlan, {"--deadline", "1s"}));
  INFO(late.err);
  CHECK(late.exit_code == 2);
  CHECK(late.out.empty());
  CHECK(late.err.find("no layout meets the constraints (deadline 1.000 s); the fastest simulated takes ") !=
        std::string::npos);
  CHECK(late.err.find(named(fastest)) != std::string::npos);
  CHECK(late.err.find("the cheapest") == std::string::npos);  // no budget was given
  const auto poor = run_commsim(plan_args_with(kPlan, {"--budget", "$1", "--deadline", "1s"}));
  INFO(poor.err);
  CHECK(poor.err.find(named(fastest)) != std::string::npos);
  CHECK(poor.err.find("; the cheapest simulated takes ") != std::string::npos);
  CHECK(poor.err.find(named(cheapest)) != std::string::npos);
  CHECK(poor.err.find(fmt::format("${:.2f}", cheapest["expected_cost_usd"].get<double>())) != std::string::npos);
  // The shipped 8B example, whose cheapest layout (ZeRO-1 on one node) has neither the lowest
  // cost bound nor one of the eight lowest: found all the same.
  const std::string example = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/examples/plan_llama3_8b.toml";
  const std::vector<std::string> space = {"plan", example, "--gpus", "8..16", "--jobs", "2"};
  const auto cheapest_8b = first_row(plan_args_with(space, {"--objective", "cost"}));
  const auto fastest_8b = first_row(space);
  const auto both = run_commsim(plan_args_with(space, {"--budget", "10", "--deadline", "1s"}));
  INFO(both.err);
  CHECK(both.err.find("the cheapest simulated takes") != std::string::npos);
  CHECK(both.err.find(named(cheapest_8b)) != std::string::npos);
  CHECK(both.err.find(named(fastest_8b)) != std::string::npos);
}

TEST_CASE("scenarios: plan refuses what has no answer, in one sentence with exit 2", "[scenarios]") {
  struct Case {
    std::vector<std::string> extra;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"--gpus", "64..8"}, "--gpus:1:1: empty range 64..8"},
      {{"--gpus", "8..16", "--max-gpus", "4"}, "contradicts --gpus"},
      {{"--gpus", "9..15"},
       "--gpus:1:1: no layout in the space: no number of whole nodes, nor a half, quarter or eighth of one node, has 9 "
       "to 15 GPUs"},
      {{"--strategies", "zero3", "--recompute", "selective"},
       "refused by the layout checks (selective recompute is modelled for strategy = \"megatron\" only"},
      // At the option that named the instance; the scenario's price_per_hour would not price it.
      {{"--instances", "dgx-h100", "--budget", "1M"},
       "--instances:1:1: no price for dgx-h100, and a budget needs one (expected --prices FILE with "
       "[prices.\"dgx-h100\"] usd_per_hour ([cluster] price_per_hour prices the scenario's own instance only)"},
      {{"--budget", "$1"}, "no layout meets the constraints"},
      {{"--deadline", "1s"}, "no layout meets the constraints"},
      {{"--strategies", "zero4"}, "unknown strategy 'zero4'"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args = {"plan", kSmall, "--micro-batches", "1", "--cp", "1", "--max-pp", "2", "--max-vp", "1"};
    auto given = [&](const char* o) { return std::find(c.extra.begin(), c.extra.end(), o) != c.extra.end(); };
    if (!given("--gpus")) args = plan_args_with(args, {"--gpus", "8"});
    if (!given("--strategies")) args = plan_args_with(args, {"--strategies", "megatron"});
    const auto r = run_commsim(plan_args_with(args, c.extra));
    INFO(c.says << "\n" << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(c.says) != std::string::npos);
    CHECK(r.out.empty());  // never a table that looks like an answer
  }
}

TEST_CASE("scenarios: a plan whose front is not exact names the instances its time bound skipped that may be cheaper",
          "[scenarios]") {
  // Llama-3-8B on p5 nodes or GB200 UltraServers: the UltraServers are faster, so every p5 layout
  // is skipped on time, yet a p5 run costs a small part of an UltraServer's whole-day block.
  const std::string s = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/examples/plan_llama3_8b.toml";
  const auto r = run_commsim({"plan", s, "--gpus", "64..144", "--instances", "p5.48xlarge,u-p6e-gb200x72",
                              "--strategies", "megatron", "--micro-batches", "1", "--cp", "1", "--jobs", "1"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  // 216 of the 218: the third simulated before the data-parallel communication's bound (tp 4 dp 32
  // on 16 nodes: its gradients' reduce-scatter across the nodes' NICs) is skipped on time too.
  CHECK(r.out.find("not searched: 216 layout(s) on p5.48xlarge skipped on time may cost as little as") !=
        std::string::npos);
  // With --pareto-exact the front is exact: nothing to say, and the p5 layouts are on it.
  const auto exact =
      run_commsim({"plan", s, "--gpus", "64..144", "--instances", "p5.48xlarge,u-p6e-gb200x72", "--strategies",
                   "megatron", "--micro-batches", "1", "--cp", "1", "--jobs", "1", "--pareto-exact"});
  REQUIRE(exact.exit_code == 0);
  CHECK(exact.out.find("not searched") == std::string::npos);
  const auto front = exact.out.substr(exact.out.find("Pareto front"));
  CHECK(front.find("p5.48xlarge") != std::string::npos);
}

TEST_CASE(
    "scenarios: a plan that ranks PyTorch's and DeepSpeed's or Megatron's strategies says their precision differs",
    "[scenarios]") {
  const std::string s = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/examples/plan_llama3_8b.toml";
  const std::vector<std::string> args = {"plan", s,   "--gpus", "8..16", "--strategies", "megatron,zero3,fsdp",
                                         "--cp", "1", "--jobs", "1"};
  const auto mixed = run_commsim(args);
  REQUIRE(mixed.exit_code == 0);
  CHECK(mixed.out.find("precision  each strategy at its framework's default: fsdp, hsdp and ddp") != std::string::npos);
  // A scenario that sets the parameters' dtype is not at the frameworks' defaults: no such line.
  auto set = args;
  set.insert(set.end(), {"--set", "training.param_dtype=\"fp32\""});
  CHECK(run_commsim(set).out.find("precision  each strategy") == std::string::npos);
}
