// What every command does with the files it reads: an output over one of them is refused before
// any work (device and inode compared: hard links and symlinks too), and an input that is not a
// regular file (a FIFO with no writer, a folder) or holds nothing is an error naming that file,
// at once. Through the real binary.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/scenarios/command_runner.hpp"

namespace fs = std::filesystem;
using scenarios_test::run_commsim_with;
using scenarios_test::slurp;

namespace {

const fs::path kFilesSource = COMMSIM_SOURCE_DIR;
const fs::path kInputs = kFilesSource / "scenarios/examples/inputs";
const fs::path kMeasured = kFilesSource / "scenarios/validation/h200x4/measured/nccl-tests/ar_g4.txt";

// The files the commands below read, copied into a fresh folder.
struct Workspace {
  fs::path dir = scenarios_test::fresh_temp_dir("inputs");
  fs::path scenario = dir / "s.toml";  // a bare all-reduce
  fs::path seed = dir / "seed.toml";   // names ds.json
  fs::path ds = dir / "llama-3-8b-stage3.json";
  fs::path machine = dir / "h200x4.toml";  // names h200x4.profile.toml
  fs::path profile = dir / "h200x4.profile.toml";
  fs::path measured = dir / "ar_g4.txt";
  fs::path job = dir / "job.yaml";
  fs::path trainer = dir / "trainer_args.txt";
  fs::path log = dir / "nccl.log";
  Workspace() {
    fs::copy_file(kFilesSource / "scenarios/examples/allreduce_h200x4.toml", scenario);
    fs::copy_file(kFilesSource / "scenarios/seeds/p4d_1pod_4gpu.toml", seed);
    fs::copy_file(kFilesSource / "scenarios/seeds/llama-3-8b-stage3.json", ds);
    fs::copy_file(kFilesSource / "scenarios/validation/h200x4.toml", machine);
    fs::copy_file(kFilesSource / "scenarios/validation/h200x4.profile.toml", profile);
    fs::copy_file(kMeasured, measured);
    fs::copy_file(kInputs / "seed002_pod_spec.yaml", job);
    fs::copy_file(kInputs / "seed002_trainer_args.txt", trainer);
    fs::copy_file(kInputs / "seed000_p4d_4pods_efa.log", log);
  }
  ~Workspace() { fs::remove_all(dir); }
  std::string operator()(const fs::path& p) const { return p.string(); }
};

struct Refusal {
  std::vector<std::string> args;
  fs::path input;  // must come out unchanged
  std::string err_start;
};

}  // namespace

TEST_CASE("inputs: an output over one of the command's inputs is refused before any work", "[scenarios]") {
  Workspace w;
  fs::create_hard_link(w.scenario, w.dir / "hard.html");
  fs::create_symlink("s.toml", w.dir / "soft.html");
  const std::string s = w(w.scenario);
  const std::string input_of =
      "' is an input of this command; writing it would destroy it (expected an output path "
      "that is not one of the inputs)\n";
  const std::vector<Refusal> cases = {
      {{"report", s, "--html", s}, w.scenario, s + ":1:1: --html: '" + s + input_of},
      {{"report", s, "--html", w(w.dir / "hard.html")},
       w.scenario,
       w(w.dir / "hard.html") + ":1:1: --html: '" + w(w.dir / "hard.html") + "' is the same file as the input '" + s},
      {{"report", s, "--csv", w(w.dir / "soft.html")}, w.scenario, w(w.dir / "soft.html") + ":1:1: --csv: "},
      {{"report", w(w.seed), "--html", w(w.ds)}, w.ds, w(w.ds) + ":1:1: --html: "},
      {{"report", s, "--measured", w(w.measured), "--html", w(w.measured)}, w.measured, w(w.measured) + ":1:1: "},
      {{"report", s, "--html", w(w.dir / "x"), "--csv", w(w.dir / "x")},
       w.scenario,
       w(w.dir / "x") + ":1:1: --csv: '" + w(w.dir / "x") +
           "' is also the file of --html (expected a different path for each output)\n"},
      {{"compare", s, w(w.seed), "--html", w(w.seed)}, w.seed, w(w.seed) + ":1:1: --html: "},
      {{"sweep", s, "--vary", "collective.bytes=1MB", "--csv", s}, w.scenario, s + ":1:1: --csv: '" + s + input_of},
      {{"calibrate", "--scenario", w(w.machine), w(w.measured), "--out", w(w.measured)},
       w.measured,
       w(w.measured) + ":1:1: --out: "},
      {{"calibrate", "--scenario", w(w.machine), w(w.measured), "--out", w(w.machine)},
       w.machine,
       w(w.machine) + ":1:1: --out: "},
      {{"import", "k8s", w(w.job), "--out", w(w.job)}, w.job, w(w.job) + ":1:1: --out: "},
      {{"import", "k8s", w(w.job), "--deepspeed", w(w.ds), "--out", w(w.ds)}, w.ds, w(w.ds) + ":1:1: --out: "},
      {{"import", "k8s", w(w.job), "--trainer-args", w(w.trainer), "--out", w(w.trainer)},
       w.trainer,
       w(w.trainer) + ":1:1: --out: "},
      {{"nccl-log", w(w.log), "--scenario", w(w.log)}, w.log, w(w.log) + ":1:1: --scenario: "},
      // the DeepSpeed JSON the trainer arguments name (deepspeed="llama-3-8b-stage3.json"), found beside them
      {{"import", "k8s", w(w.job), "--trainer-args", w(w.trainer), "--out", w(w.ds)}, w.ds, w(w.ds) + ":1:1: --out: "},
  };
  for (const auto& c : cases) {
    INFO(c.args[0] << " " << c.args.back());
    const std::string before = slurp(c.input);
    struct stat st_before {};
    ::stat(c.input.c_str(), &st_before);
    const auto r = run_commsim_with("timeout 60", c.args);
    CHECK(r.exit_code == 2);
    CHECK(r.err.rfind(c.err_start, 0) == 0);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(r.out.empty());
    CHECK(slurp(c.input) == before);
    struct stat st_after {};
    ::stat(c.input.c_str(), &st_after);
    CHECK(st_after.st_ino == st_before.st_ino);
  }
  // The one exception: calibrate refits the machine's own profile in place (the documented workflow).
  const auto refit =
      run_commsim_with("timeout 120", {"calibrate", "--scenario", w(w.machine), w(w.measured), "--out", w(w.profile)});
  CHECK(refit.exit_code == 0);
  CHECK(slurp(w.profile).find("commsim calibration profile") != std::string::npos);
  // run --out into the folder holding the scenario, named result.json: refused too.
  fs::copy_file(w.scenario, w.dir / "result.json");
  const auto r = run_commsim_with("timeout 60", {"run", w(w.dir / "result.json"), "--out", w(w.dir)});
  CHECK(r.exit_code == 2);
  CHECK(r.err.rfind(w(w.dir / "result.json") + ":1:1: --out: ", 0) == 0);
  CHECK(fs::is_symlink(w.dir / "soft.html"));
}

TEST_CASE("inputs: a FIFO with no writer is refused at once, wherever a file is read", "[scenarios]") {
  Workspace w;
  const fs::path fifo = w.dir / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const std::string f = fifo.string();
  auto scenario_naming = [&](const std::string& name, const std::string& table) {
    const fs::path p = w.dir / (name + ".toml");
    std::ofstream(p) << table;
    return p.string();
  };
  const std::string with_profile =
      scenario_naming("profile",
                      "[cluster]\ninstance = \"h200x4\"\nprofile = \"fifo\"\n[collective]\nop = "
                      "\"all_reduce\"\nbytes = \"1 GiB\"\n");
  const std::string with_ds = scenario_naming(
      "ds", "deepspeed_config = \"fifo\"\n[cluster]\ninstance = \"h200x4\"\n[model]\npreset = \"llama-3-8b\"\n");
  const std::string with_topo =
      scenario_naming("topo",
                      "[cluster.node]\ngpu = \"H200\"\ngpus = 4\ntopo_file = \"fifo\"\n[collective]\nop = "
                      "\"all_reduce\"\nbytes = \"1 GiB\"\n");
  const std::string s = w(w.scenario);
  const std::string fifo_said = "it is a named pipe (expected ";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"run", f}, f + ":1:1: cannot read scenario '" + f + "': " + fifo_said},
      {{"run", with_profile}, with_profile + ":3:11: cannot read calibration profile '" + f + "': " + fifo_said},
      {{"run", with_ds}, with_ds + ":1:20: cannot read DeepSpeed config '" + f + "': " + fifo_said},
      {{"run", with_topo}, with_topo + ":4:13: cannot read topology file '" + f + "': " + fifo_said},
      {{"report", s, "--measured", f, "--html", w(w.dir / "r.html")}, f + ":1:1: cannot read --measured file"},
      {{"nccl-tests", s, "--compare", f}, f + ":1:1: cannot read --compare file '" + f + "': " + fifo_said},
      {{"calibrate", "--scenario", w(w.machine), f, "--out", w(w.dir / "p.toml")}, f + ":1:1: cannot read calibrate"},
      {{"import", "k8s", f, "--out", w(w.dir / "i.toml")}, f + ":1:1: cannot read the job '" + f + "': " + fifo_said},
      {{"import", "k8s", w(w.job), "--deepspeed", f, "--out", w(w.dir / "i.toml")}, "--deepspeed:1:1: cannot read"},
      {{"import", "k8s", w(w.job), "--trainer-args", f, "--out", w(w.dir / "i.toml")}, f + ":1:1: cannot read the"},
      {{"nccl-log", f}, f + ":1:1: cannot read NCCL log '" + f + "': " + fifo_said},
  };
  for (const auto& [args, err_start] : cases) {
    INFO(args[0] << " " << args[1]);
    const auto r = run_commsim_with("timeout 20", args);
    CHECK(r.exit_code == 2);  // 124 would be the timeout: the command blocked on the FIFO
    CHECK(r.err.rfind(err_start, 0) == 0);
    CHECK(r.out.empty());
  }
  CHECK(fs::is_fifo(fifo));
  for (const char* out : {"r.html", "p.toml", "i.toml"}) CHECK_FALSE(fs::exists(w.dir / out));
}

TEST_CASE("inputs: a folder or an empty file given as nccl-tests output is an error naming it", "[scenarios]") {
  Workspace w;
  const fs::path folder = w.dir / "measured";
  fs::create_directories(folder);
  const fs::path empty = w.dir / "empty.txt";
  std::ofstream(empty).close();
  const fs::path other = w.dir / "other.txt";
  std::ofstream(other) << "this is not the output of nccl-tests\n";
  const std::string expected = " (expected the output of an nccl-tests binary such as all_reduce_perf)\n";
  const std::string s = w(w.scenario);
  struct Case {
    std::vector<std::string> args;
    std::string err;
  };
  auto for_each_option = [&](const fs::path& p, const std::string& what_compare, const std::string& what_measured,
                             const std::string& what_calibrate) {
    return std::vector<Case>{
        {{"nccl-tests", s, "--compare", p.string()}, p.string() + ":1:1: " + what_compare + expected},
        {{"report", s, "--measured", p.string(), "--html", w(w.dir / "r.html")},
         p.string() + ":1:1: " + what_measured + expected},
        {{"calibrate", "--scenario", w(w.machine), w(w.measured), p.string(), "--out", w(w.dir / "p.toml")},
         p.string() + ":1:1: " + what_calibrate + expected}};
  };
  std::vector<Case> cases;
  for (auto list : {for_each_option(folder, "cannot read --compare file '" + folder.string() + "': it is a folder",
                                    "cannot read --measured file '" + folder.string() + "': it is a folder",
                                    "cannot read calibrate file '" + folder.string() + "': it is a folder"),
                    for_each_option(empty, "--compare: the file is empty", "--measured: the file is empty",
                                    "calibrate: the file is empty"),
                    for_each_option(other, "--compare: no nccl-tests result rows in this file",
                                    "--measured: no nccl-tests result rows in this file",
                                    "calibrate: no nccl-tests result rows in this file")})
    cases.insert(cases.end(), list.begin(), list.end());
  for (const auto& c : cases) {
    INFO(c.args[0] << " " << c.err);
    const auto r = run_commsim_with("timeout 60", c.args);
    CHECK(r.exit_code == 2);
    CHECK(r.err == c.err);
    CHECK(r.out.empty());  // nothing printed as if it had worked: the file is read before any work
  }
  CHECK_FALSE(fs::exists(w.dir / "r.html"));
  CHECK_FALSE(fs::exists(w.dir / "p.toml"));
  // A table's rows without nccl-tests' column header: the message says what to keep.
  const fs::path bare = w.dir / "bare.txt";
  std::ofstream(bare) << "           8             2     float     sum      -1    69.12    0.00    0.00      0    72.43"
                         "    0.00    0.00      0\n";
  const auto r = run_commsim_with("timeout 60", {"nccl-tests", s, "--compare", bare.string()});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("no nccl-tests result rows in this file (its rows of numbers have no column header above them") !=
        std::string::npos);
}
