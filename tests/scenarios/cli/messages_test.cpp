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
