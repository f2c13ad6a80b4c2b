// The README's first scenario (a token target, its global batch derived from dp) through report,
// compare and sweep: every output states the steps the run takes, rounds a rate as run does, says
// how each column's price is sold and when a Capacity Block bills whole days (in run's words), and
// says when a what-if on the GPU count changed the batch.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/scenarios/command_runner.hpp"

namespace fs = std::filesystem;
using scenarios_test::run_commsim;
using scenarios_test::slurp;

namespace {

// README.md's "Your first scenario", as a user saves it.
constexpr const char* kFirst = R"(name = "Llama-3-8B FSDP on 2 x p5"
[cluster]
instance = "p5.48xlarge"
nodes = 2
[model]
preset = "llama-3-8b"
seq = 4096
[training]
micro_batch = 1
grad_accum = 4
tokens = 1e9  # the run: 1 B tokens (or steps = N)
grad_checkpointing = true
[parallel]
strategy = "fsdp"
)";

struct FirstScenario {
  fs::path dir = scenarios_test::fresh_temp_dir("first");
  std::string file = (dir / "first.toml").string();
  FirstScenario() { std::ofstream(file) << kFirst; }
  ~FirstScenario() { fs::remove_all(dir); }
};

// The text between `from` (included) and the next `to` (excluded) after it; "" if absent.
std::string between(const std::string& text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  if (at == std::string::npos) return "";
  return text.substr(at, text.find(to, at) - at);
}

}  // namespace

TEST_CASE("report: the summary of a token target says the steps the run takes", "[scenarios]") {
  FirstScenario s;
  const auto run = run_commsim({"run", s.file});
  REQUIRE(run.exit_code == 0);
  REQUIRE(run.out.find("(3815 steps)") != std::string::npos);
  const std::string page = (s.dir / "r.html").string();
  REQUIRE(run_commsim({"report", s.file, "--html", page}).exit_code == 0);
  CHECK(slurp(page).find("micro batch 1 x grad accum 4, 1e+09 tokens = 3815 steps of 262144 tokens, bf16") !=
        std::string::npos);
  CHECK(slurp(page).find(", 1 steps,") == std::string::npos);
  const std::string both = (s.dir / "c.html").string();
  REQUIRE(run_commsim({"compare", s.file, s.file, "--set", "2:cluster.nodes=4", "--html", both}).exit_code == 0);
  CHECK(slurp(both).find("1e+09 tokens = 3815 steps of 262144 tokens") != std::string::npos);
  CHECK(slurp(both).find("1e+09 tokens = 1908 steps of 524288 tokens") != std::string::npos);
}

TEST_CASE("compare: interruptions a day are printed as run prints them", "[scenarios]") {
  FirstScenario s;
  const auto four = run_commsim({"run", s.file, "--set", "cluster.nodes=4"});
  REQUIRE(four.exit_code == 0);
  CHECK(four.out.find("failures   0.015 interruptions per day on 32 GPUs") != std::string::npos);
  const auto r = run_commsim({"compare", s.file, s.file, "--set", "1:cluster.nodes=6", "--set", "2:cluster.nodes=4"});
  REQUIRE(r.exit_code == 0);
  const std::string row = between(r.out, "interruptions / day", "\n");
  CHECK(row.find("0.023 (48 GPUs)") != std::string::npos);  // 0.0227, not "0.02"
  CHECK(row.find("0.015 (32 GPUs)") != std::string::npos);  // 0.0152, as run says
}

TEST_CASE("compare and report say how a price is sold and that a Capacity Block bills whole days", "[scenarios]") {
  FirstScenario s;
  const auto run = run_commsim({"run", s.file, "--set", "cluster.instance=p5e.48xlarge"});
  REQUIRE(run.exit_code == 0);
  const std::string window = between(run.out, "Capacity Block windows of ", ")");
  REQUIRE(window == "Capacity Block windows of 1 day in all, paid whole, for a 2 h 09 min run");
  const auto r = run_commsim({"compare", s.file, s.file, "--set", "2:cluster.instance=p5e.48xlarge"});
  REQUIRE(r.exit_code == 0);
  const std::string prices = between(r.out, "price per hour", "\n");
  CHECK(prices.find("$110.08/h on-demand") != std::string::npos);
  CHECK(prices.find("$79.60/h capacity block") != std::string::npos);
  CHECK(r.out.find("\n([2] is billed by the block: " + window +
                   "; its $ per step, per run and per million tokens pay the whole windows)\n") != std::string::npos);
  CHECK(r.out.find("([1] is billed") == std::string::npos);  // on-demand bills the run's time
  const std::string page = (s.dir / "r.html").string();
  REQUIRE(run_commsim({"report", s.file, "--set", "cluster.instance=p5e.48xlarge", "--html", page}).exit_code == 0);
  CHECK(slurp(page).find("2026-01; " + window + ")") != std::string::npos);  // on the cost per run's line
}

TEST_CASE("compare says when a what-if on the GPU count trains another batch", "[scenarios]") {
  FirstScenario s;
  // A GB200 UltraServer's 144 GPUs at micro_batch 1 x grad_accum 4: a global batch 9x the p5 pair's.
  const auto r = run_commsim({"compare", s.file, s.file, "--set", "2:cluster.instance=u-p6e-gb200x72"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("note: [2] runs on 144 GPUs, [1] on 16: its ratios compare different GPU counts and batches: [2] "
                   "trains 576 sequences per step, [1] 64\n") != std::string::npos);
  const std::string row = between(r.out, "tokens / step", "\n");
  CHECK(row.find("262144 (64 seq)") != std::string::npos);
  CHECK(row.find("2359296 (576 seq)") != std::string::npos);
  // The same batch in both columns: no such row.
  const auto same = run_commsim({"compare", s.file, s.file, "--set", "2:nccl.version=\"2.21.5\""});
  REQUIRE(same.exit_code == 0);
  CHECK(same.out.find("tokens / step") == std::string::npos);
}

TEST_CASE("sweep: the scaling efficiencies say when the points train different tokens per step", "[scenarios]") {
  FirstScenario s;
  const std::string page = (s.dir / "s.html").string();
  const auto r = run_commsim({"sweep", s.file, "--vary", "cluster.nodes=1,2,4", "--html", page});
  REQUIRE(r.exit_code == 0);
  const std::string note =
      "the points train different tokens per step (131072 to 524288: the global batch follows the GPUs where "
      "training.global_batch is not set), so an efficiency compares steps of different work";
  CHECK(r.err.find("sweep: scaling efficiency (tokens/s per GPU against the first point): ") != std::string::npos);
  CHECK(r.err.find("; " + note + "\n") != std::string::npos);
  CHECK(slurp(page).find("<p class=\"gpu-note batch-note\">Note: " + note + ".</p>") != std::string::npos);
  // A global batch held by the scenario: the same tokens per step everywhere, nothing to say.
  const auto held = run_commsim({"sweep", s.file, "--vary", "cluster.nodes=1,2,4", "--set", "training.global_batch=64",
                                 "--set", "training.grad_accum=1"});
  REQUIRE(held.exit_code == 0);
  CHECK(held.err.find("sweep: scaling efficiency") != std::string::npos);
  CHECK(held.err.find("different tokens per step") == std::string::npos);
}
