// `commsim compare` says why a column's step differs from the first's (the mean rank's terms that
// moved most, whether its NCCL transports differ), and where two training steps are closer than
// the model's median error, that the model does not order them, in the text and the JSON's notes.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "scenarios/cli/output/result_format.hpp"
#include "tests/scenarios/command_runner.hpp"

using scenarios_test::run_commsim;
namespace fs = std::filesystem;

namespace {
const std::string kWhySource = COMMSIM_SOURCE_DIR;
const std::string kWhyOnePod = kWhySource + "/scenarios/seeds/p4d_1pod_4gpu.toml";
const std::string kWhyFourPodsEfa = kWhySource + "/scenarios/seeds/p4d_4pod_1gpu_efa.toml";
const std::string kWhyPlan8b = kWhySource + "/scenarios/examples/plan_llama3_8b.toml";

// The rest of the line of `text` that starts with `prefix`, prefix included but not "note: "; "" if none.
std::string why_line_after(const std::string& text, const std::string& prefix) {
  const auto at = text.find(prefix);
  if (at == std::string::npos) return "";
  const auto from = at + std::string("note: ").size();
  return text.substr(from, text.find('\n', from) - from);
}

// HTML's five entities back to their characters.
std::string why_unescaped(std::string s) {
  for (const auto& [entity, c] : std::vector<std::pair<std::string, std::string>>{
           {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"}, {"&amp;", "&"}})
    for (size_t at = s.find(entity); at != std::string::npos; at = s.find(entity, at + c.size()))
      s.replace(at, entity.size(), c);
  return s;
}

// The text with its wrapped lines joined, so a sentence is found wherever the wrap fell.
std::string why_unwrapped(std::string s) {
  for (auto at = s.find("\n  "); at != std::string::npos; at = s.find("\n  ", at)) s.replace(at, 3, " ");
  return s;
}
}  // namespace

TEST_CASE("scenarios: compare says why the seeds' 4 pods over EFA are slower than 1 pod, term by term", "[scenarios]") {
  const auto json = run_commsim({"compare", kWhyOnePod, kWhyFourPodsEfa, "--json"});
  REQUIRE(json.exit_code == 0);
  const auto j = nlohmann::json::parse(json.out);
  const auto &a = j["results"][0], &b = j["results"][1];
  const double step_a = a["step_time_s"].get<double>(), step_b = b["step_time_s"].get<double>();
  REQUIRE(step_b > (1 + scenarios::kStepModelError) * step_a);
  // The mean rank's term that moved most, from the JSON's terms.
  const std::vector<std::pair<const char*, const char*>> terms = {{"step_compute_s", "compute"},
                                                                  {"step_interference_s", "interference"},
                                                                  {"step_exposed_comm_s", "exposed comm"},
                                                                  {"step_host_s", "host (CPU/offload)"},
                                                                  {"step_bubble_s", "pipeline bubble"},
                                                                  {"step_barrier_wait_s", "barrier wait"},
                                                                  {"step_other_s", "other"}};
  std::string most;
  double moved = 0;
  for (const auto& [key, label] : terms) {
    const double d = b[key].get<double>() - a[key].get<double>();
    if (std::abs(d) > std::abs(moved)) moved = d, most = label;
  }
  const auto text = run_commsim({"compare", kWhyOnePod, kWhyFourPodsEfa});
  REQUIRE(text.exit_code == 0);
  const std::string out = why_unwrapped(text.out);
  INFO(out);
  CHECK(out.find("why [2] is slower than [1]: step " + scenarios::format_seconds(step_b) + " against " +
                 scenarios::format_seconds(step_a)) != std::string::npos);
  CHECK(out.find("the mean rank's terms that moved most: " + most + (moved > 0 ? " +" : " -") +
                 scenarios::format_seconds(std::abs(moved))) != std::string::npos);
  // P2P between the pod's GPUs against the NIC between pods: the legend's transports differ.
  CHECK(out.find("[2]'s NCCL transports differ from [1]'s (the legend)") != std::string::npos);
  // Beyond the model's error: no near-tie note.
  CHECK(out.find("the model does not order them") == std::string::npos);
}

TEST_CASE("scenarios: compare says where two training steps are closer than the model's error", "[scenarios]") {
  // The plan example (Megatron tp 2 pp 4) with and without sequence parallelism: under 1 % apart.
  const std::vector<std::string> args = {"compare", kWhyPlan8b, kWhyPlan8b, "--set",
                                         "2:parallel.sequence_parallel=false"};
  auto with_json = args;
  with_json.push_back("--json");
  const auto json = run_commsim(with_json);
  REQUIRE(json.exit_code == 0);
  const auto j = nlohmann::json::parse(json.out);
  const double ratio = j["results"][1]["step_time_ratio"].get<double>();
  REQUIRE(ratio != 1.0);
  REQUIRE(std::max(ratio, 1 / ratio) <= 1 + scenarios::kStepModelError);
  const std::string tie = "[2]'s step is within 3.1 % of [1]'s";
  bool in_notes = false;
  for (const auto& n : j["notes"]) in_notes = in_notes || n.get<std::string>().find(tie) != std::string::npos;
  CHECK(in_notes);
  const auto text = run_commsim(args);
  REQUIRE(text.exit_code == 0);
  INFO(text.out);
  CHECK(text.out.find("note: " + tie) != std::string::npos);
  CHECK(text.out.find("the model does not order them") != std::string::npos);
  // No "why" where the model cannot tell them apart.
  CHECK(text.out.find("why [2]") == std::string::npos);
  // The page says it beside the ratio, in the same words; so does report's page of the two.
  const auto dir = scenarios_test::fresh_temp_dir("compare-tie");
  const std::string note = why_line_after(text.out, "note: " + tie);
  REQUIRE_FALSE(note.empty());
  for (const char* command : {"compare", "report"}) {
    std::vector<std::string> page_args = args;
    page_args[0] = command;
    page_args.push_back("--html");
    page_args.push_back((dir / "tie.html").string());
    REQUIRE(run_commsim(page_args).exit_code == 0);
    INFO(command);
    CHECK(why_unescaped(scenarios_test::slurp(dir / "tie.html")).find(note) != std::string::npos);
  }
  fs::remove_all(dir);
  // The same scenario twice is no near-tie: the steps are equal.
  const auto same = run_commsim({"compare", kWhyPlan8b, kWhyPlan8b});
  REQUIRE(same.exit_code == 0);
  CHECK(same.out.find("does not order them") == std::string::npos);
  CHECK(same.out.find("why [2]") == std::string::npos);
}
