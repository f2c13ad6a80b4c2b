// What plan says around its rows (scenarios/cli/plan/plan_advice.hpp): a near-tie names the other
// measure first where the tied rows differ in it by much, a margin within a row's caveat's error
// is not decisive, and the front's heading says how far it reaches.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <fmt/format.h>

#include "models/workload/steps/data_parallel.hpp"
#include "scenarios/cli/plan/plan_advice.hpp"

using scenarios::PlanOutput;

namespace {

// Rows ranked as the search leaves them: (expected time to train in s, cost in $).
PlanOutput ranked_rows(models::plan::Objective objective, const std::vector<std::pair<double, double>>& rows) {
  PlanOutput p;
  p.options.objective = objective;
  for (const auto& [train_s, usd] : rows) {
    models::plan::Evaluated e;
    e.train_s = train_s;
    e.cost_usd = usd;
    p.result.ranked.push_back(e);
  }
  return p;
}

constexpr double kDay = 86400;

}  // namespace

TEST_CASE("plan: a near-tie on time names first the tied row that costs much less", "[scenarios]") {
  // #2 is 0.1 % slower (within the model's error) at 2.5x less: the advice says so before anything else.
  const auto p = ranked_rows(models::plan::Objective::Time, {{61.7 * kDay, 46.09e6}, {61.76 * kDay, 18.43e6}});
  CHECK(scenarios::near_tie_text(p) ==
        "near-tie: #2 is within 3.1 % of #1's time to train, commsim's median error on measured training steps "
        "(README, docs/accuracy.md): the model does not order them; choose on cost first (#2 costs 2.5x less than #1: "
        "$18.43 M against $46.09 M), then on what else differs (memory headroom, GPUs, framework) or measure them");
}

TEST_CASE("plan: a near-tie where #1 is also the cheapest says how much more the dearest tied row costs",
          "[scenarios]") {
  const auto p =
      ranked_rows(models::plan::Objective::Time, {{100 * kDay, 1.0e6}, {101 * kDay, 1.05e6}, {102 * kDay, 1.3e6}});
  CHECK(scenarios::near_tie_text(p).find("ranks 2-3 are within 3.1 % of #1's time to train") != std::string::npos);
  CHECK(scenarios::near_tie_text(p).find("choose on cost first (#1 costs 23 % less than #3: $1.00 M against "
                                         "$1.30 M), then on what else differs") != std::string::npos);
}

TEST_CASE("plan: a near-tie whose costs differ by under 10 % keeps the plain advice", "[scenarios]") {
  const auto p = ranked_rows(models::plan::Objective::Time, {{100 * kDay, 1.0e6}, {101 * kDay, 1.08e6}});
  CHECK(scenarios::near_tie_text(p).find("the model does not order them; choose on what else differs (memory "
                                         "headroom, GPUs, framework) or measure them") != std::string::npos);
}

TEST_CASE("plan: a near-tie on cost names first the tied row that is much faster", "[scenarios]") {
  const auto p = ranked_rows(models::plan::Objective::Cost, {{10 * kDay, 1.0e6}, {4 * kDay, 1.02e6}});
  CHECK(scenarios::near_tie_text(p) ==
        "near-tie: #2 is within 3.1 % of #1's cost, commsim's median error on measured training steps (README, "
        "docs/accuracy.md): the model does not order them; choose on time first (#2 is 2.5x faster than #1: 4.0 d "
        "against 10.0 d), then on what else differs (memory headroom, GPUs, framework) or measure them");
}

TEST_CASE("plan: no near-tie line where #2 is beyond the model's error", "[scenarios]") {
  const auto p = ranked_rows(models::plan::Objective::Time, {{100 * kDay, 2.0e6}, {110 * kDay, 1.0e6}});
  CHECK(scenarios::near_tie_text(p).empty());
}

TEST_CASE("plan: a front row faster by less than the model's error says what it costs against the next",
          "[scenarios]") {
  // A Capacity Block's H200s run the on-demand H100 row's layout a hair faster (0.44 %), at 9.2x its
  // cost for the whole day paid: both are on the front; the faster one says by how little, at what cost.
  auto p = ranked_rows(models::plan::Objective::Cost, {{113.0 * 60, 207.61}, {112.5 * 60, 1910.0}});
  p.result.pareto = {1, 0};  // by time: the faster row first
  const std::vector<std::string> remarks = scenarios::front_remarks(p);
  REQUIRE(remarks.size() == 2);
  CHECK(remarks[0] == "only 0.44 % faster than #1, at 9.2x its cost");
  CHECK(remarks[1].empty());
  p.result.ranked[0].train_s = 113.2 * 60;  // 0.62 % slower: a margin the front states plainly
  CHECK(scenarios::front_remarks(p)[0].empty());
}

TEST_CASE("plan: the front's heading says it covers the layouts simulated unless the search was exact", "[scenarios]") {
  auto p = ranked_rows(models::plan::Objective::Time, {{100, 2.0}, {110, 1.0}});
  p.result.simulated = 57;
  p.result.skipped_by_bound = 300;
  p.options.exact_rows = 10;
  CHECK(scenarios::front_heading(p) ==
        "Pareto front among the 57 layouts simulated (time vs cost; a skipped layout cannot beat ranks 1-10, but may "
        "be cheaper: --pareto-exact for the whole front)");
  p.options.pareto_exact = true;
  CHECK(scenarios::front_heading(p) == "Pareto front (time vs cost, no other layout both faster and cheaper)");
}

TEST_CASE("plan: why #1 wins gives #2's step against #1's, the near-tie's measure", "[scenarios]") {
  // #2 takes 3.15 % longer: beyond the 3.1 % near-tie, though #1 is only 3.05 % below #2.
  auto p = ranked_rows(models::plan::Objective::Time, {{125.33, 0.76}, {129.28, 0.79}});
  p.result.ranked[0].step_s = 2.507;
  p.result.ranked[1].step_s = 2.586;
  const auto why = scenarios::why_first_wins(p);
  const std::string percent = fmt::format("{:+.1f} %", 100 * (2.586 - 2.507) / 2.507);
  CHECK(why.heading.find("step 2.507 s vs 2.586 s (#2 " + percent + ")") != std::string::npos);
  CHECK(scenarios::near_tie_text(p).empty());
}

// Beyond the model's median error (3.1 %) but within what was measured where #1's or #2's caveats
// apply (ZeRO offload: 37 %), #1's margin is no win: "not decisive", naming whose caveat; beyond
// that error, or with no such caveat, nothing is said; within 3.1 % the near-tie speaks instead.
TEST_CASE("plan advice: a margin within the error of a row's caveat is not decisive", "[scenarios]") {
  auto p = ranked_rows(models::plan::Objective::Time, {{100 * kDay, 1e6}, {112 * kDay, 1e6}});
  CHECK(scenarios::near_tie_text(p).empty());  // no caveats: 12 % is a margin
  p.result.ranked[1].caveats = {models::workload::kOffloadCaveat};
  CHECK(scenarios::near_tie_text(p) ==
        "not decisive: #2's time to train is 12.0 % above #1's, beyond commsim's median error on measured training "
        "steps (3.1 %) but within the 37 % measured where #2's caveat applies (caveats below): the model does not "
        "order them; choose on what else differs or measure them");
  p.result.ranked[0].caveats = {models::workload::kOffloadCaveat};
  CHECK(scenarios::near_tie_text(p).find("where #1's and #2's caveats apply") != std::string::npos);
  p.result.ranked[1].train_s = 140 * kDay;  // 40 %: beyond the caveat's 37 %
  CHECK(scenarios::near_tie_text(p).empty());
  p.result.ranked[1].train_s = 102 * kDay;  // within 3.1 %: the near-tie
  CHECK(scenarios::near_tie_text(p).rfind("near-tie: #2 is within 3.1 %", 0) == 0);
  // Ranked by cost, the cost's margin is the one measured.
  auto c = ranked_rows(models::plan::Objective::Cost, {{100 * kDay, 1e6}, {90 * kDay, 1.2e6}});
  c.result.ranked[0].caveats = {models::workload::kOffloadCaveat};
  CHECK(scenarios::near_tie_text(c).rfind("not decisive: #2's cost is 20.0 % above #1's", 0) == 0);
}
