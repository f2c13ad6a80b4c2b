// The error contract on the command line: a user error is one stderr line, exit 2, whose message
// ends with what was expected, for every command's own checks (options, importers, inputs).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/scenarios/command_runner.hpp"

namespace fs = std::filesystem;
using scenarios_test::run_commsim;

TEST_CASE("messages: every command's user errors say what was expected", "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("messages");
  const std::string src = COMMSIM_SOURCE_DIR;
  const std::string s = src + "/scenarios/examples/allreduce_h200x4.toml";
  const std::string machine = src + "/scenarios/validation/h200x4.toml";
  const std::string measured = src + "/scenarios/validation/h200x4/measured/nccl-tests/ar_g4.txt";
  auto file = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  };
  const std::string out = (dir / "out.toml").string();
  const std::string zero_time = file("zero.txt",
                                     "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n"
                                     "8 2 float sum -1 0.0 0.00 0.00 0 0.0 0.00 0.00 0\n");
  const std::vector<std::vector<std::string>> cases = {
      {"nccl-tests", s, "--op", "all_reduse"},
      {"nccl-tests", s, "-b", "1X"},
      {"nccl-tests", s, "-b", "1G", "-e", "1M"},
      {"calibrate", "--scenario", machine, measured + ":P2P=1", "--out", out},
      {"calibrate", "--scenario", machine, measured, "--fix", "nvlink.bw", "--out", out},
      {"sweep", s, "--vary", "collective.bytes=1MB", "--shard", "3/2"},
      {"sweep", s, "--vary", "collective.bytes=1MB", "--vary", " collective.bytes=2MB"},
      {"sweep", s, "--vary", "zero.max_reuse_distance=1", "--vary", "zero.stage3_max_reuse_distance=2"},
      {"report", s},
      {"import", "k8s", file("syntax.yaml", "kind: Pod\nspec: [\n"), "--out", out},
      {"import", "k8s", file("gpus.yaml", "containers:\n- resources:\n    limits:\n      nvidia.com/gpu: four\n"),
       "--out", out},
      {"import", "k8s", file("shape.yaml", "containers:\n- resources: 4\n"), "--out", out},
      {"import", "k8s", file("noinstance.yaml", "containers:\n- resources:\n    limits:\n      nvidia.com/gpu: 4\n"),
       "--out", out},
      {"import", "k8s", file("toomany.yaml", "containers:\n- resources:\n    limits:\n      nvidia.com/gpu: 16\n"),
       "--instance", "p4d.24xlarge", "--out", out},
      {"import", "k8s", file("trainjob.yaml", "kind: TrainJob\nmetadata:\n  name: x\n"), "--out", out},
      {"import", "k8s", file("pod.yaml", "containers:\n- resources:\n    limits:\n      nvidia.com/gpu: 4\n"),
       "--instance", "p4d.24xlarge", "--trainer-args", file("args.txt", "gradient_accumulation_steps=zero\n"), "--out",
       out},
      {"nccl-log", file("nolog.log", "NCCL INFO nothing here\n"), "--scenario", out, "--instance", "p4d.24xlarge"},
      // an older NCCL's log ("Init COMPLETE" only) holding one host's ranks of two
      {"nccl-log",
       file("old.log",
            "a:1:1 [0] NCCL INFO NCCL version 2.18.3+cuda12.2\n"
            "a:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 busId 1000 - Init COMPLETE\n"),
       "--scenario", out, "--instance", "p4d.24xlarge"},
      // a crashed nccl-tests run given to --compare and to calibrate
      {"nccl-tests", s, "--compare",
       file("crash.txt",
            "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n"
            "vm: Test NCCL failure common.cu:1005 'unhandled cuda error / '\n")},
      {"calibrate", "--scenario", machine,
       file("killed.txt",
            "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n"
            "8 2 float sum -1 33.38 0.00 0.00 0 33.97 0.00 0.00 0\nSegmentation fault (core dumped)\n"),
       "--out", out},
      // a row whose time is 0, to each command that reads measurements
      {"nccl-tests", s, "--compare", zero_time},
      {"calibrate", "--scenario", machine, zero_time, "--out", out},
      {"diff", zero_time, machine},
      {"run", s, "--time-limit", "1e300"},
  };
  for (const auto& args : cases) {
    INFO(args[0] << " " << args.back() << " " << args[args.size() - 2]);
    const auto r = run_commsim(args);
    CHECK(r.exit_code == 2);
    REQUIRE(!r.err.empty());
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    const std::string line = r.err.substr(0, r.err.size() - 1);
    CHECK(line.back() == ')');
    CHECK((line.find(" (expected ") != std::string::npos || line.find(" (did you mean ") != std::string::npos));
  }
  CHECK_FALSE(fs::exists(out));
  fs::remove_all(dir);
}

// What a user wrote may hold a line break (a TOML "\n" escape, a YAML quoted string, a --set
// value): the error quotes it escaped, on its one line (models/one_line.hpp).
TEST_CASE("messages: a line break in a quoted value or key never breaks the error's line", "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("one-line");
  auto scenario = [&](const std::string& name, const std::string& instance, const std::string& extra) {
    std::ofstream(dir / name) << "[cluster]\ninstance = " << instance << "\n"
                              << extra << "[collective]\nop = \"all_reduce\"\nbytes = \"1 GiB\"\n";
    return (dir / name).string();
  };
  const std::string yaml = (dir / "job.yaml").string();
  std::ofstream(yaml) << "containers:\n- resources:\n    limits:\n      nvidia.com/gpu: 4\n  env:\n"
                         "  - name: NCCL_P2P_LEVEL\n    value: \"NV\\nL\"\n";
  const std::string imported = (dir / "imported.toml").string();
  const std::vector<std::vector<std::string>> cases = {
      {"run", scenario("op.toml", "\"h200x4\"", ""), "--set", "collective.op=\"all_re\\nduce\""},
      {"run", scenario("key.toml", "\"h200x4\"", "[placement]\n\"gpus\\nper_pod\" = 1\n")},
      {"run", scenario("instance.toml", "\"p4d\\n.24xlarge\"", "")},
      {"run", scenario("unit.toml", "\"h200x4\"", "[cluster.params]\n\"nccl.kernel_latency\" = \"1 G\\niB\"\n")},
      {"run", scenario("env.toml", "\"h200x4\"", "[nccl.env]\nNCCL_P2P_LEVEL = \"NV\\nL\"\n")},
      {"run", scenario("name.toml", "\"h200x4\"", "[nccl.env]\n\"NCCL_\\nALGO\" = \"Ring\"\n")},
  };
  for (const auto& args : cases) {
    INFO(args[1]);
    const auto r = run_commsim(args);
    CHECK(r.exit_code == 2);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(r.err.find("\\n") != std::string::npos);  // the break is shown, escaped
  }
  // An imported job's variable keeps its line break in the scenario (a TOML escape), and the run
  // that refuses it says so on one line.
  REQUIRE(run_commsim({"import", "k8s", yaml, "--instance", "p4d.24xlarge", "--out", imported}).exit_code == 0);
  const auto r = run_commsim({"run", imported});
  CHECK(r.exit_code == 2);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  fs::remove_all(dir);
}
