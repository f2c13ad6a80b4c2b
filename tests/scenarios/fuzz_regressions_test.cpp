// Inputs the fuzzers found (tests/fuzz/regressions/<target>/) and the fuzzers' seed corpora
// (tests/fuzz/corpus/<target>/), replayed through each parser in the normal test suite, so a
// crash found once stays fixed without a clang build. Each input must either parse or be
// rejected with the parser's user error carrying a place; any other exception (a failed SIM_CHECK
// among them) fails, and a sanitizer report (under scripts/test-sanitize.sh) stops the program.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "models/error.hpp"
#include "models/nccl/diagnosis.hpp"
#include "models/parse_error.hpp"
#include "models/readers/kineto_trace.hpp"
#include "models/readers/nccl_inspector.hpp"
#include "models/readers/nccl_log.hpp"
#include "models/readers/nccl_tests_json.hpp"
#include "models/readers/nccl_tests_output.hpp"
#include "models/readers/smi_topo.hpp"
#include "scenarios/import/k8s_job.hpp"
#include "scenarios/import/trainer_args.hpp"
#include "scenarios/load/deepspeed_config.hpp"
#include "scenarios/load/loader.hpp"
#include "tests/scenarios/command_runner.hpp"

namespace fs = std::filesystem;

namespace {

const fs::path kFuzzDir = fs::path(COMMSIM_SOURCE_DIR) / "tests" / "fuzz";

// Outcome of one input: "" when it parsed or was rejected properly, else what went wrong.
using Replay = std::function<std::string(const std::string& text)>;

std::string placed(int line, int col, const std::string& what) {
  return line >= 1 && col >= 1 ? "" : "error without a place: " + what;
}

// The same drivers as tests/fuzz/fuzz_<target>.cpp (parsers only; flow_network is structural).
const std::map<std::string, Replay>& replays() {
  static const std::map<std::string, Replay> table = {
      {"scenario_loader",
       [](const std::string& text) {
         try {
           (void)scenarios::load_scenario_text(text, "fuzz.toml", {}, "/nonexistent-fuzz-dir");
         } catch (const scenarios::UserError& e) {
           return placed(e.pos().line, e.pos().col, e.what());
         }
         return std::string();
       }},
      {"nccl_tests",
       [](const std::string& text) {
         try {
           (void)models::readers::parse_nccl_tests(text, "fuzz.txt");
         } catch (const models::ParseError& e) {
           return placed(e.line(), e.col(), e.what());
         }
         return std::string();
       }},
      {"nccl_log",
       [](const std::string& text) {
         try {
           (void)models::nccl::diagnose_log(models::readers::parse_nccl_log(text, "fuzz.log"));
         } catch (const models::ParseError& e) {
           return placed(e.line(), e.col(), e.what());
         }
         return std::string();
       }},
      {"smi_topo",
       [](const std::string& text) {
         try {
           (void)models::readers::parse_smi_topo(text, "fuzz.txt");
         } catch (const models::ParseError& e) {
           return placed(e.line(), e.col(), e.what());
         }
         return std::string();
       }},
      {"k8s_job",
       [](const std::string& text) {
         try {
           scenarios::ImportOptions opt;
           opt.instance = "p4d.24xlarge";
           (void)scenarios::scenario_from_k8s(scenarios::parse_k8s_job(text, "fuzz.yaml"), opt);
         } catch (const scenarios::UserError& e) {
           return placed(e.pos().line, e.pos().col, e.what());
         }
         try {
           (void)scenarios::parse_trainer_args(text, "fuzz.txt");
         } catch (const scenarios::UserError& e) {
           return placed(e.pos().line, e.pos().col, e.what());
         }
         return std::string();
       }},
      {"measured",  // the first byte picks the reader (mod 3): Kineto trace, nccl-tests JSON, Inspector
       [](const std::string& text) {
         if (text.empty()) return std::string();
         const std::string_view rest = std::string_view(text).substr(1);
         try {
           switch (static_cast<unsigned char>(text[0]) % 3) {
             case 0: (void)models::readers::parse_kineto_trace(rest, "fuzz.json"); break;
             case 1: (void)models::readers::parse_nccl_tests_json(rest, "fuzz.json"); break;
             default: (void)models::readers::parse_nccl_inspector(rest, "fuzz.jsonl"); break;
           }
         } catch (const models::ParseError& e) {
           return placed(e.line(), e.col(), e.what());
         }
         return std::string();
       }},
      {"deepspeed_json",
       [](const std::string& text) {
         const fs::path dir = scenarios_test::fresh_temp_dir("ds");
         const fs::path path = dir / "ds.json";
         std::ofstream(path, std::ios::binary) << text;
         std::string outcome;
         try {
           const auto settings = scenarios::read_deepspeed_json(path.string(), "ds.json", {"fuzz.toml", 3, 20});
           models::ScenarioSpec spec;
           std::map<std::string, scenarios::SourcePos> positions;
           scenarios::apply_deepspeed(settings, spec, positions);
         } catch (const scenarios::UserError& e) {
           outcome = placed(e.pos().line, e.pos().col, e.what());
         } catch (const models::SpecError&) {
         }
         fs::remove_all(dir);
         return outcome;
       }},
  };
  return table;
}

// Replays every file of `folder`/<target>/ through its parser; returns the number of inputs.
int replay_folder(const fs::path& folder) {
  int inputs = 0;
  if (!fs::exists(folder)) return 0;
  for (const auto& target : fs::directory_iterator(folder)) {
    if (!target.is_directory()) continue;
    const std::string name = target.path().filename().string();
    if (name == "flow_network") continue;  // replayed by its fuzzer's CTest (structured input)
    const auto it = replays().find(name);
    INFO("folder " << target.path());
    REQUIRE(it != replays().end());  // a new fuzz target needs its replay here
    for (const auto& f : fs::directory_iterator(target.path())) {
      if (!f.is_regular_file() || f.path().filename().string().front() == '.') continue;
      std::string outcome;
      try {
        outcome = it->second(scenarios_test::slurp(f.path()));
      } catch (const std::exception& e) {
        outcome = std::string("unexpected exception: ") + e.what();
      }
      INFO(f.path().string());
      CHECK(outcome == "");
      ++inputs;
    }
  }
  return inputs;
}

}  // namespace

TEST_CASE("scenarios: inputs the fuzzers found stay fixed (tests/fuzz/regressions)", "[scenarios]") {
  // Each file there once crashed a parser or let a wrong exception escape; it must now be
  // parsed or rejected with a placed user error.
  replay_folder(kFuzzDir / "regressions");
}

TEST_CASE("scenarios: the fuzzers' seed corpora parse or fail with a placed error", "[scenarios]") {
  // The seeds are real files (shipped scenarios, the calibration measurements and the seeds' inputs).
  CHECK(replay_folder(kFuzzDir / "corpus") >= 80);
}
