#pragma once
// What `commsim plan` says around its ranked rows, in sentences the text and the page (--html)
// both print, so that neither reads more certain than the other: how far the Pareto front covers
// the candidates, the front rows that are on it by less than the model's error, the instances the
// search skipped that may be cheaper, the near-tie the model cannot order (and what differs
// between the tied rows besides what they are ranked by), and why #1 wins over #2 term by term.
#include <string>
#include <vector>

#include "scenarios/cli/plan/plan_json.hpp"

namespace scenarios {

// "Pareto front (time vs cost, no other layout both faster and cheaper)" where it covers every
// candidate; else "Pareto front among the N layouts simulated (...: --pareto-exact for the whole
// front)".
std::string front_heading(const PlanOutput& p);
// One entry per front row (PlanResult::pareto's order): "only 0.32 % faster than #15, at 9.3x its
// cost" where the next, cheaper front row is less than 0.5 % slower; "" otherwise.
std::vector<std::string> front_remarks(const PlanOutput& p);
// Under a front that is not exact, one sentence per instance whose layouts skipped on time may
// cost less than the front's cheapest row: "not searched: 215 layout(s) on p5.48xlarge ...".
std::vector<std::string> not_searched_lines(const PlanOutput& p);
// Where ranks 2.. are within kStepModelError of #1 in what they are ranked by: the "near-tie: ..."
// sentence, naming first the other measure where the tied rows differ in it by more than
// kNearTieOtherShare (cost under --objective time, time under --objective cost). Else, where #2
// is beyond it but within the error measured where #1's or #2's caveats apply
// (models::caveats_measured_error: 37 % for ZeRO offload, 24 % and more across NVL72 racks), the
// "not decisive: ..." sentence: such a margin is no win either. "" otherwise.
std::string near_tie_text(const PlanOutput& p);
// Tied rows whose cost (or time) differ by less than this share are told apart by what else
// differs; by more, that difference is named first.
inline constexpr double kNearTieOtherShare = 0.10;

// Why #1 wins over #2: the steps compared, then one row per step term either has, the goodput,
// the time to train and the run's cost (where both have a price). Empty with fewer than 2 rows.
struct WhyRow {
  std::string what, first, second, difference;  // difference: "+1.2 ms", "-3 ms", "same", or ""
};
struct WhyFirstWins {
  // "why #1 wins over #2: step 1.21 s vs 1.25 s (#2 +3.3 %); where the mean rank's step goes:", #2's
  // step against #1's, as the near-tie measures #2 against #1 (a "-3.1 %" of #1 against #2 read
  // as within the 3.1 % the near-tie line would name, where #2 was 3.15 % slower).
  std::string heading;
  std::vector<WhyRow> rows;
};
WhyFirstWins why_first_wins(const PlanOutput& p);

}  // namespace scenarios
