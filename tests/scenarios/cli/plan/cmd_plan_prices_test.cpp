// `commsim plan`'s prices through the real binary: a price file over the catalog, an instance
// without a price (the reason, never a figure), instances sold under different pricings side by
// side, and a scenario's own per-GPU price beside a price file's.
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/scenarios/command_runner.hpp"

using scenarios_test::run_commsim;

namespace {
const std::string kPlanDir = std::string(COMMSIM_SOURCE_DIR) + "/tests/scenarios/cli/plan/";
const std::string kPlanSmall = kPlanDir + "small.toml";
const std::vector<std::string> kPricedPlan = {"plan",
                                              kPlanSmall,
                                              "--gpus",
                                              "8..16",
                                              "--strategies",
                                              "megatron,zero3,fsdp",
                                              "--micro-batches",
                                              "1",
                                              "--cp",
                                              "1",
                                              "--max-pp",
                                              "4",
                                              "--max-vp",
                                              "2",
                                              "--jobs",
                                              "2"};

std::vector<std::string> with_args(std::vector<std::string> args, const std::vector<std::string>& extra) {
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}
}  // namespace

TEST_CASE("scenarios: plan says when its instances are priced under different pricings", "[scenarios]") {
  // p5 on demand beside p5e at a Capacity Block's rate (AWS sells p5e on no on-demand price).
  const std::string example = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/examples/plan_llama3_8b.toml";
  const std::vector<std::string> args = {
      "plan",         example,    "--gpus",          "8", "--instances", "p5.48xlarge,p5e.48xlarge",
      "--strategies", "megatron", "--micro-batches", "1", "--cp",        "1",
      "--recompute",  "none",     "--jobs",          "1"};
  auto with_json = args;
  with_json.push_back("--json");
  const auto js = run_commsim(with_json);
  REQUIRE(js.exit_code == 0);
  // Each instance's pricing as its rows give it.
  std::map<std::string, std::string> pricing;
  const auto j = nlohmann::json::parse(js.out);
  for (const auto& row : j["rows"]) pricing[row["instance"].get<std::string>()] = row["pricing"].get<std::string>();
  REQUIRE(pricing.size() == 2);
  REQUIRE(pricing["p5.48xlarge"] != pricing["p5e.48xlarge"]);
  const auto r = run_commsim(args);
  REQUIRE(r.exit_code == 0);
  INFO(r.out);
  CHECK(r.out.find("pricing    not like for like (" + pricing["p5e.48xlarge"] + " p5e.48xlarge; " +
                   pricing["p5.48xlarge"] + " p5.48xlarge): ") != std::string::npos);
  // One instance, one pricing: nothing to say.
  auto one = args;
  one[5] = "p5.48xlarge";
  const auto single = run_commsim(one);
  REQUIRE(single.exit_code == 0);
  CHECK(single.out.find("not like for like") == std::string::npos);
}

TEST_CASE("scenarios: plan and run read a price file over the catalog", "[scenarios]") {
  const auto r = run_commsim({"run", kPlanSmall, "--prices", kPlanDir + "prices.toml", "--json"});
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["usd_per_hour"].get<double>() == 60.0);  // one node at the file's $60
  CHECK(j["price_source"].get<std::string>().find("prices.toml") != std::string::npos);
  const auto p = run_commsim(with_args(
      kPricedPlan, {"--instances", "p5en.48xlarge", "--budget", "$1M", "--prices", kPlanDir + "prices.toml"}));
  INFO(p.err);
  CHECK(p.exit_code == 0);
  // The rows say the $ is the user's own figure, and the price list under the table names the file.
  CHECK(p.out.find("$80.00  given          test quote, 2026-11") != std::string::npos);
  const auto inst = run_commsim({"instances", "--prices", kPlanDir + "prices.toml"});
  REQUIRE(inst.exit_code == 0);
  CHECK(inst.out.find("test quote, 2026-11") != std::string::npos);
}

TEST_CASE("scenarios: plan and instances say 'no price' for an instance without one, with the reason", "[scenarios]") {
  // dgx-h100 has no catalog price (models/hw/prices.cpp unpriced_catalog: bought, not rented):
  // without a budget or the cost objective the plan ranks by time and shows "no price" in the cost
  // column, never a figure.
  const auto p = run_commsim({"plan", kPlanSmall, "--instances", "dgx-h100", "--gpus", "8", "--strategies", "megatron",
                              "--micro-batches", "1", "--cp", "1", "--max-pp", "2", "--max-vp", "1"});
  REQUIRE(p.exit_code == 0);
  CHECK(p.out.find("  no price ") != std::string::npos);
  CHECK(p.out.find("Pareto front: none, no row has a price (dgx-h100: --prices FILE or [cluster] price_per_hour)") !=
        std::string::npos);
  CHECK(p.out.find("dgx-h100: bought, not rented") != std::string::npos);
  const auto inst = run_commsim({"instances"});
  REQUIRE(inst.exit_code == 0);
  CHECK(inst.out.find("No price (") != std::string::npos);
  // The pricing model is listed with each price: p5e.48xlarge is sold on a Capacity Block's rate only.
  CHECK(inst.out.find("p5e.48xlarge         39.8000  capacity block") != std::string::npos);
  CHECK(inst.out.find("p5.48xlarge          55.0400  on-demand") != std::string::npos);
  const auto j = nlohmann::json::parse(run_commsim({"instances", "--json"}).out);
  for (const auto& i : j["instances"]) {
    INFO(i["name"]);
    CHECK(i["usd_per_hour"].is_null() != i["no_price_reason"].is_null());  // a price or the reason, never both
    CHECK(i["usd_per_hour"].is_null() == i["pricing"].is_null());
    CHECK(i["usd_per_hour"].is_null() == i["price_date"].is_null());
  }
}

TEST_CASE("scenarios: plan prices the scenario's instance with its per-GPU price, another from --prices",
          "[scenarios]") {
  // [cluster.params] "price.gpu_hour" is the scenario's instance's (p5.48xlarge: $4 x 8 GPUs); the
  // other instance keeps the price file's figure (p5en.48xlarge: $80 per node-hour).
  const auto r = run_commsim(
      with_args({"plan", kPlanSmall, "--gpus", "8..16", "--instances", "p5.48xlarge,p5en.48xlarge", "--strategies",
                 "megatron", "--micro-batches", "1", "--cp", "1", "--max-pp", "2", "--max-vp", "1", "--jobs", "2"},
                {"--prices", kPlanDir + "prices.toml", "--set", "cluster.params.\"price.gpu_hour\"=4", "--json"}));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::set<std::string> seen;
  const auto j = nlohmann::json::parse(r.out);
  for (const auto& row : j["rows"]) {
    const std::string instance = row["instance"];
    seen.insert(instance);
    CHECK(row["usd_per_hour"].get<double>() ==
          Approx((instance == "p5.48xlarge" ? 32.0 : 80.0) * row["nodes"].get<int>()));
  }
  CHECK(seen == std::set<std::string>{"p5.48xlarge", "p5en.48xlarge"});
}
