// `commsim sweep` through the real binary: rows identical across --jobs and concatenated shards
// (byte for byte, shards after the first writing no header), CSV and JSON lines from one row
// builder, --resume, --no-header, --fail-on-error, --progress, the lock on the output file, and
// a bad --vary value refused before anything runs.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/scenarios/command_runner.hpp"

namespace fs = std::filesystem;
using scenarios_test::run_commsim;
using scenarios_test::slurp;

namespace {
const std::string kSweepAllReduce = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/examples/allreduce_h200x4.toml";
const std::vector<std::string> kSweep = {"sweep",  kSweepAllReduce,
                                         "--vary", "collective.bytes=1 MiB,16 MiB,64 MiB",
                                         "--vary", "collective.op=all_reduce,all_gather"};

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& extra) {
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

size_t lines(const std::string& s) { return static_cast<size_t>(std::count(s.begin(), s.end(), '\n')); }
}  // namespace

TEST_CASE("scenarios: sweep rows do not depend on --jobs, and shards concatenate to the whole", "[scenarios]") {
  const auto runs = scenarios_test::sweep_three_ways(kSweep, 3, 4);
  REQUIRE(runs.serial.exit_code == 0);
  CHECK(runs.threaded == runs.serial.out);
  // Header + 3 x 2 rows.
  CHECK(lines(runs.serial.out) == 7);
  CHECK(runs.serial.out.rfind("index,collective.bytes,collective.op,scenario,step_time_s,", 0) == 0);
  // Byte for byte: shards 1..3 write no header, so `cat` of the shards is the unsharded CSV.
  CHECK(runs.merged == runs.serial.out);
}

TEST_CASE("scenarios: sweep header is written by shard 0 only unless --header or --no-header says otherwise",
          "[scenarios]") {
  const auto shard1 = run_commsim(with(kSweep, {"--shard", "1/2"}));
  REQUIRE(shard1.exit_code == 0);
  CHECK(lines(shard1.out) == 3);
  CHECK(shard1.out.rfind("3,", 0) == 0);
  const auto shard1_header = run_commsim(with(kSweep, {"--shard", "1/2", "--header"}));
  CHECK(shard1_header.out.rfind("index,", 0) == 0);
  const auto no_header = run_commsim(with(kSweep, {"--no-header"}));
  CHECK(lines(no_header.out) == 6);
  CHECK(no_header.out.rfind("0,1 MiB,all_reduce,", 0) == 0);
}

TEST_CASE("scenarios: a sweep that replaces a file of rows says how many lines it held", "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("sweep-replace");
  const std::string file = (dir / "rows.csv").string();
  const auto first = run_commsim(with(kSweep, {"--csv", file}));
  REQUIRE(first.exit_code == 0);
  CHECK(first.err.find("replaced") == std::string::npos);  // a new file: nothing replaced
  // The same sweep again: its rows replace the earlier run's, said on stderr.
  const auto again = run_commsim(with(kSweep, {"--csv", file}));
  REQUIRE(again.exit_code == 0);
  CHECK(again.err == "sweep: replaced " + file +
                         ", which held 7 lines written before (--resume keeps a file's rows and runs only the missing "
                         "points)\n");
  // Another sweep (other --vary keys, another header): another experiment's rows are not
  // replaced; the file is left as it was.
  const std::string before = slurp(file);
  const auto other = run_commsim({"sweep", kSweepAllReduce, "--vary", "collective.iterations=1,2", "--csv", file});
  CHECK(other.exit_code == 2);
  CHECK(other.err.find(file + ":1:1: holds rows of another sweep") != std::string::npos);
  CHECK(slurp(file) == before);
  fs::remove_all(dir);
}

TEST_CASE("scenarios: sweep CSV and JSON lines carry the same columns, values typed, inputs recorded", "[scenarios]") {
  const auto csv = run_commsim(with(kSweep, {"--set", "collective.iterations=2"}));
  const auto json = run_commsim(with(kSweep, {"--set", "collective.iterations=2", "--json"}));
  REQUIRE(csv.exit_code == 0);
  REQUIRE(json.exit_code == 0);
  std::istringstream csv_lines(csv.out), json_lines(json.out);
  std::string header, line;
  std::getline(csv_lines, header);
  std::vector<std::string> columns;
  for (std::stringstream h(header); std::getline(h, line, ',');) columns.push_back(line);
  size_t rows = 0;
  while (std::getline(json_lines, line)) {
    const auto row = nlohmann::ordered_json::parse(line);
    std::vector<std::string> keys;
    for (const auto& item : row.items()) keys.push_back(item.key());
    CHECK(keys == columns);
    CHECK(row["schema_version"] == 1);
    CHECK(row["index"] == rows);
    CHECK(row["overrides"] == nlohmann::json::array({"collective.iterations=2"}));
    CHECK(row["file"] == kSweepAllReduce);
    CHECK(row["collective.bytes"].is_string());                   // "1 MiB": not TOML, kept as text
    CHECK(row["busiest_link_bytes"].is_number_integer());         // counts are integers
    CHECK(row["busiest_link_utilization"].get<double>() <= 1.0);  // a fraction
    CHECK(row["steps"] == 2);
    ++rows;
  }
  CHECK(rows == 6);
  // A --vary value that is TOML keeps its type in JSON (4 is a number, "Ring" a string).
  const auto typed = run_commsim(
      {"sweep", kSweepAllReduce, "--vary", "collective.iterations=3,4", "--vary", "nccl.env.NCCL_ALGO=\"Ring\"", "--json"});
  REQUIRE(typed.exit_code == 0);
  const auto first = nlohmann::json::parse(typed.out.substr(0, typed.out.find('\n')));
  CHECK(first["collective.iterations"] == 3);
  CHECK(first["nccl.env.NCCL_ALGO"] == "Ring");
}

TEST_CASE("scenarios: sweep --resume keeps the rows a killed sweep wrote and runs the rest", "[scenarios]") {
  const fs::path dir = scenarios_test::fresh_temp_dir("resume");
  const std::string full = (dir / "full.csv").string(), part = (dir / "part.csv").string();
  REQUIRE(run_commsim(with(kSweep, {"--csv", full})).exit_code == 0);
  const std::string whole = slurp(full);
  // As a kill leaves it: the header, two rows and half of the third.
  const size_t cut = whole.find('\n', whole.find('\n', whole.find('\n') + 1) + 1) + 20;
  std::ofstream(part, std::ios::binary) << whole.substr(0, cut);
  const auto r = run_commsim(with(kSweep, {"--csv", part, "--resume", "--progress"}));
  REQUIRE(r.exit_code == 0);
  CHECK(slurp(part) == whole);
  CHECK(r.err.find("sweep 6/6 points (100%), 2 from the earlier run") != std::string::npos);
  // Resuming a finished file runs nothing and changes nothing.
  CHECK(run_commsim(with(kSweep, {"--csv", part, "--resume"})).exit_code == 0);
  CHECK(slurp(part) == whole);
  // JSON lines resume the same way.
  const std::string jfull = (dir / "full.jsonl").string(), jpart = (dir / "part.jsonl").string();
  REQUIRE(run_commsim(with(kSweep, {"--jsonl", jfull})).exit_code == 0);
  const std::string jwhole = slurp(jfull);
  std::ofstream(jpart, std::ios::binary) << jwhole.substr(0, jwhole.find('\n') + 30);
  REQUIRE(run_commsim(with(kSweep, {"--jsonl", jpart, "--resume"})).exit_code == 0);
  CHECK(slurp(jpart) == jwhole);
  // A file of another sweep is refused, untouched.
  const auto other = run_commsim({"sweep", kSweepAllReduce, "--vary", "collective.bytes=1 MiB,16 MiB,64 MiB", "--vary",
                                  "collective.op=all_reduce,broadcast", "--csv", part, "--resume"});
  CHECK(other.exit_code == 2);
  CHECK(other.err.find(part + ":3:1: --resume: row 1 has collective.op 'all_gather' where this sweep has "
                              "'broadcast'") == 0);
  CHECK(slurp(part) == whole);
  fs::remove_all(dir);
}

// A CSV cell may hold a line break (RFC 4180 quotes it): --resume reads its own rows back whole.
// The rows there must be the sweep's first ones, in order, each once, as a sweep leaves them.
TEST_CASE("scenarios: sweep --resume reads quoted line breaks, refuses a row twice or a gap", "[scenarios]") {
  const fs::path dir = scenarios_test::fresh_temp_dir("resume-records");
  const std::string full = (dir / "full.csv").string(), part = (dir / "part.csv").string();
  const std::vector<std::string> sweep = {"sweep", kSweepAllReduce, "--vary", "name=\"a\\nb\",c,d"};
  REQUIRE(run_commsim(with(sweep, {"--csv", full})).exit_code == 0);
  const std::string whole = slurp(full);
  REQUIRE(lines(whole) > 4);  // a header, three rows and the name's line break, quoted in its cell
  // Header and the first row (two lines of text), as a kill after it leaves them.
  const size_t row1 = whole.find("\n1,");
  REQUIRE(row1 != std::string::npos);
  std::ofstream(part, std::ios::binary) << whole.substr(0, row1 + 1);
  REQUIRE(run_commsim(with(sweep, {"--csv", part, "--resume"})).exit_code == 0);
  CHECK(slurp(part) == whole);

  const size_t row0 = whole.find('\n') + 1;  // the header's end
  const size_t row2 = whole.find("\n2,") + 1;
  // Row 1 twice: refused at its second line, the file untouched.
  const std::string twice = whole.substr(0, row2) + whole.substr(row1 + 1, row2 - row1 - 1);
  std::ofstream(part, std::ios::binary) << twice;
  const auto dup = run_commsim(with(sweep, {"--csv", part, "--resume"}));
  CHECK(dup.exit_code == 2);
  const auto line_at = [&](size_t offset) { return std::to_string(lines(whole.substr(0, offset)) + 1); };
  CHECK(dup.err == part + ":" + line_at(row2) + ":1: --resume: row 1 is already at line " + line_at(row1 + 1) +
                       " (expected each row once, as the sweep writes it)\n");
  CHECK(slurp(part) == twice);
  // Row 0 missing: the rest would follow row 2, unlike an unsharded sweep's file; refused.
  const std::string gap = whole.substr(0, row0) + whole.substr(row1 + 1);
  std::ofstream(part, std::ios::binary) << gap;
  const auto missing = run_commsim(with(sweep, {"--csv", part, "--resume"}));
  CHECK(missing.exit_code == 2);
  CHECK(missing.err == part +
                           ":2:1: --resume: row 1 where row 0 comes first (expected the rows in sweep order from 0 "
                           "without a gap, as the sweep writes them)\n");
  CHECK(slurp(part) == gap);
  fs::remove_all(dir);
}

// Rows made before the scenario (or a file it reads) was edited are another sweep's: --resume
// refuses them at their line (the last column, inputs_digest, hashes what each point read).
TEST_CASE("scenarios: sweep --resume refuses rows made from an edited scenario", "[scenarios]") {
  const fs::path dir = scenarios_test::fresh_temp_dir("resume-edited");
  const std::string scenario = (dir / "s.toml").string(), full = (dir / "full.csv").string(),
                    part = (dir / "part.csv").string();
  fs::copy_file(kSweepAllReduce, scenario);
  const std::vector<std::string> sweep = {"sweep", scenario, "--vary", "collective.bytes=1 MiB,16 MiB"};
  REQUIRE(run_commsim(with(sweep, {"--csv", full})).exit_code == 0);
  const std::string whole = slurp(full);
  const std::string kept = whole.substr(0, whole.find('\n', whole.find('\n') + 1) + 1);  // header, row 0
  std::ofstream(part, std::ios::binary) << kept;
  // The same inputs: resumed as before.
  REQUIRE(run_commsim(with(sweep, {"--csv", part, "--resume"})).exit_code == 0);
  CHECK(slurp(part) == whole);
  // The scenario edited (one more line, same keys): row 0 was made from other inputs.
  std::ofstream(scenario, std::ios::app) << "# edited\n";
  std::ofstream(part, std::ios::binary) << kept;
  const auto edited = run_commsim(with(sweep, {"--csv", part, "--resume"}));
  CHECK(edited.exit_code == 2);
  CHECK(edited.err.find(part + ":2:1: --resume: row 0 was made from other inputs (inputs_digest ") == 0);
  CHECK(slurp(part) == kept);
  // The header names the column last, and its cells are 16 hex digits.
  CHECK(whole.substr(0, whole.find('\n')).size() >= 14);
  CHECK(whole.substr(whole.find('\n') - 14, 14) == ",inputs_digest");
  fs::remove_all(dir);
}

TEST_CASE("scenarios: sweep refuses a file another sweep is writing, so shards cannot lose rows", "[scenarios]") {
  const fs::path dir = scenarios_test::fresh_temp_dir("lock");
  const std::string csv = (dir / "rows.csv").string();
  std::ofstream(csv) << "kept\n";
  // Hold the lock as a running sweep holds it.
  const int fd = ::open(csv.c_str(), O_RDWR);
  REQUIRE(fd >= 0);
  REQUIRE(::flock(fd, LOCK_EX | LOCK_NB) == 0);
  const auto r = run_commsim(with(kSweep, {"--shard", "1/2", "--csv", csv}));
  ::close(fd);
  CHECK(r.exit_code == 2);
  CHECK(r.err.rfind(csv + ":1:1: another commsim sweep is writing this file", 0) == 0);
  CHECK(slurp(csv) == "kept\n");
  fs::remove_all(dir);
}

TEST_CASE("scenarios: sweep --fail-on-error exits 1 when a point failed, its row keeps the error", "[scenarios]") {
  // Megatron TP 3 on 4 GPUs: the model rejects the layout at run time.
  const std::string seed = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/seeds/p4d_1pod_4gpu.toml";
  const std::vector<std::string> args = {"sweep",           seed,     "--vary",
                                         "parallel.tp=1,3", "--vary", "parallel.strategy=megatron"};
  const auto plain = run_commsim(args);
  CHECK(plain.exit_code == 0);
  CHECK(plain.err.find("sweep: 1 of 2 points failed") != std::string::npos);
  const auto strict = run_commsim(with(args, {"--fail-on-error"}));
  CHECK(strict.exit_code == 1);
  CHECK(strict.out == plain.out);
  const std::string last = strict.out.substr(strict.out.find("\n1,") + 1);
  CHECK(last.find(",,,,") != std::string::npos);  // no numbers
  CHECK(last.find("--vary:1:15: tp x cp x pp = 3 does not divide the 4 GPUs") != std::string::npos);
  // The refused layout's row still says what it would have run on; a placement that does not
  // fit the node gives the GPUs it asked for, and says so in its layout.
  const auto json = run_commsim(with(args, {"--json"}));
  const auto refused = nlohmann::json::parse(json.out.substr(json.out.find('\n') + 1));
  CHECK(refused["gpus"] == 4);
  CHECK(refused["nodes"] == 1);
  CHECK(refused["layout"] ==
        "4 GPUs: 1 node p4d.24xlarge, 1 pod x 4 GPUs (4 of 8 GPUs per node idle); megatron tp 3 pp 1 dp ?");
  const auto untiled = run_commsim({"sweep", seed, "--vary", "placement.gpus_per_pod=16", "--json"});
  const auto asked = nlohmann::json::parse(untiled.out);
  CHECK(asked["gpus"] == 16);
  CHECK(asked["nodes"] == 1);
  CHECK(asked["pods"] == 1);
  CHECK(asked["layout"] == "16 GPUs asked: 1 node, 1 pod x 16 GPUs (do not fit the node)");
  CHECK_FALSE(asked["error"].is_null());
}

TEST_CASE("scenarios: a point's error at a line of the file names the --vary values that made it wrong",
          "[scenarios]") {
  // GPT-3's 16-sequence batch divides dp 1 on 64 DGX A100 GPUs; on 8 GB200 NVL72 trays (576 GPUs,
  // dp 9) it does not: the error is at global_batch's line, and the point's --vary is the cause.
  const std::string gpt3 = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/examples/gpt3_175b_zb_h1.toml";
  const auto r = run_commsim({"sweep", gpt3, "--vary", "cluster.instance=dgx-a100-80gb,gb200-nvl72", "--json"});
  REQUIRE(r.exit_code == 0);
  const std::string last = r.out.substr(r.out.find("\n") + 1);
  const auto row = nlohmann::json::parse(last);
  CHECK(row["error"] == gpt3 +
                            ":22:16: global_batch = 16 is not a multiple of micro_batch x dp = 1 x 9 = 9 (expected a "
                            "multiple of micro_batch x dp) (at this point's --vary cluster.instance=gb200-nvl72)");
}

TEST_CASE("scenarios: sweep --progress prints done/total, rate and failures on standard error", "[scenarios]") {
  const auto r = run_commsim(with(kSweep, {"--progress", "--jobs", "2"}));
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("sweep 6/6 points (100%)") != std::string::npos);
  CHECK(r.err.find("points/s") != std::string::npos);
  CHECK(r.err.find("0 failed") != std::string::npos);
  // Without --progress and without a terminal: nothing on standard error.
  CHECK(run_commsim(kSweep).err.empty());
}

TEST_CASE("scenarios: a typo in --vary stops the sweep before it runs, pointing at the value", "[scenarios]") {
  const fs::path dir = scenarios_test::fresh_temp_dir("typo");
  const std::string csv = (dir / "rows.csv").string();
  std::ofstream(csv) << "kept\n";
  const auto r = run_commsim({"sweep", kSweepAllReduce, "--vary", "collective.bytes=1 MiB,-3 MB", "--csv", csv});
  CHECK(r.exit_code == 2);
  CHECK(r.err.rfind("--vary:1:24: collective.bytes: size \"-3 MB\" must be positive", 0) == 0);
  CHECK(slurp(csv) == "kept\n");  // the output is not touched
  fs::remove_all(dir);
}

// A shard retried with --resume (a Slurm requeue, a pod restarted by its Job) finds its failed
// point's row already written: --fail-on-error and --require-fit count the rows kept from the file
// as an uninterrupted sweep counts them, so the retry fails as the first attempt did.
TEST_CASE("scenarios: sweep --resume counts the failed and not-fitting rows it keeps", "[scenarios]") {
  const fs::path dir = scenarios_test::fresh_temp_dir("resume-failed");
  const std::string csv = (dir / "rows.csv").string();
  // 2 PiB is over what a collective may move: that point fails, its row holds the error.
  const std::vector<std::string> sweep = {
      "sweep", kSweepAllReduce, "--vary", "collective.bytes=1 MiB,2 PiB,4 MiB", "--csv", csv, "--fail-on-error"};
  const auto first = run_commsim(sweep);
  CHECK(first.exit_code == 1);
  CHECK(first.err == "sweep: 1 of 3 points failed (see the error column)\n");
  const std::string rows = slurp(csv);
  const auto again = run_commsim(with(sweep, {"--resume"}));
  CHECK(again.exit_code == 1);
  CHECK(again.err == "sweep: 1 of 3 points failed (see the error column; 1 of them in rows kept by --resume)\n");
  CHECK(slurp(csv) == rows);
  // The header and the failed row kept, the last point run again: still one failure in three.
  std::ofstream(csv, std::ios::binary) << rows.substr(0, rows.find("\n2,") + 1);
  const auto rest = run_commsim(with(sweep, {"--resume"}));
  CHECK(rest.exit_code == 1);
  CHECK(rest.err == "sweep: 1 of 3 points failed (see the error column; 1 of them in rows kept by --resume)\n");
  CHECK(slurp(csv) == rows);

  // Llama-3-8B in plain DDP does not fit 8 x H100 80 GB (cmd_run_test.cpp): exit 4 again on resume.
  const std::string p5 = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/seeds/p5_1pod_8gpu.toml";
  const std::string fit = (dir / "fit.csv").string();
  const std::vector<std::string> fits = {"sweep", p5,  "--vary",       "parallel.strategy=zero3,ddp", "--jobs", "1",
                                         "--csv", fit, "--require-fit"};
  const auto over = run_commsim(fits);
  CHECK(over.exit_code == 4);
  const auto over_again = run_commsim(with(fits, {"--resume"}));
  CHECK(over_again.exit_code == 4);
  CHECK(over_again.err.find("sweep: 1 of 2 points do not fit in GPU memory (fits=false; their times are not real; "
                            "1 of them in rows kept by --resume)\n") != std::string::npos);
  fs::remove_all(dir);
}

// The rows' step_mean_s ... come from --samples draws of --seed, the goodput and cost from the
// --prices file: --resume refuses rows made with other ones (columns samples and seed; the
// prices file is among the inputs inputs_digest hashes) instead of mixing two sweeps in one file.
TEST_CASE("scenarios: sweep --resume refuses rows made with another --samples, --seed or --prices", "[scenarios]") {
  const fs::path dir = scenarios_test::fresh_temp_dir("resume-draws");
  const std::string seed = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/seeds/p4d_1pod_4gpu.toml";
  const std::string full = (dir / "full.csv").string(), part = (dir / "part.csv").string(),
                    prices = (dir / "prices.toml").string();
  const std::vector<std::string> sweep = {"sweep", seed, "--vary", "training.steps=1,2", "--jobs", "1"};
  REQUIRE(run_commsim(with(sweep, {"--samples", "2", "--seed", "3", "--csv", full})).exit_code == 0);
  const std::string whole = slurp(full);
  const std::string header = whole.substr(0, whole.find('\n'));
  CHECK(header.substr(header.size() - 27) == ",samples,seed,inputs_digest");
  const std::string row0 = whole.substr(whole.find('\n') + 1, whole.find("\n1,") - whole.find('\n'));
  CHECK(row0.substr(row0.size() - 22, 5) == ",2,3,");                // samples 2, seed 3, then 16 hex digits
  const std::string kept = whole.substr(0, whole.find("\n1,") + 1);  // header, row 0
  auto resume = [&](const std::vector<std::string>& extra) {
    std::ofstream(part, std::ios::binary) << kept;
    return run_commsim(with(with(sweep, {"--csv", part, "--resume"}), extra));
  };
  const auto same = resume({"--samples", "2", "--seed", "3"});
  CHECK(same.exit_code == 0);
  CHECK(slurp(part) == whole);
  const auto other_seed = resume({"--samples", "2", "--seed", "4"});
  CHECK(other_seed.exit_code == 2);
  CHECK(other_seed.err == part +
                              ":2:1: --resume: row 0 has seed '3' where this sweep has '4' (expected the rows of "
                              "the same sweep: same scenario, --vary, --set, --samples, --seed)\n");
  CHECK(slurp(part) == kept);
  const auto no_samples = resume({});
  CHECK(no_samples.exit_code == 2);
  CHECK(no_samples.err.find(part + ":2:1: --resume: row 0 has samples '2' where this sweep has '0'") == 0);
  const auto fewer = resume({"--samples", "1", "--seed", "3"});
  CHECK(fewer.exit_code == 2);
  CHECK(fewer.err.find(part + ":2:1: --resume: row 0 has samples '2' where this sweep has '1'") == 0);
  // A --prices file the rows were not made with: other inputs.
  std::ofstream(prices) << "[prices.\"p4d.24xlarge\"]\nusd_per_hour = 20\nsource = \"mine\"\n";
  const auto priced = resume({"--samples", "2", "--seed", "3", "--prices", prices});
  CHECK(priced.exit_code == 2);
  CHECK(priced.err.find(part + ":2:1: --resume: row 0 was made from other inputs (inputs_digest ") == 0);
  CHECK(priced.err.find("): the scenario, a file it reads or the --prices file changed since") != std::string::npos);
  CHECK(slurp(part) == kept);
  // A JSON line without the columns samples and seed (written by an older commsim): refused.
  const std::string jfull = (dir / "full.jsonl").string(), jpart = (dir / "part.jsonl").string();
  REQUIRE(run_commsim(with(sweep, {"--jsonl", jfull})).exit_code == 0);
  const std::string jwhole = slurp(jfull);
  auto old_row = nlohmann::ordered_json::parse(jwhole.substr(0, jwhole.find('\n')));
  old_row.erase("samples");
  old_row.erase("seed");
  std::ofstream(jpart, std::ios::binary) << old_row.dump() << "\n";
  const auto older = run_commsim(with(sweep, {"--jsonl", jpart, "--resume"}));
  CHECK(older.exit_code == 2);
  CHECK(older.err == jpart + ":1:1: --resume: row 0 has no 'samples' (expected the columns of this sweep)\n");
  // Without --samples the seed cell is empty: it changes nothing.
  const auto plain = run_commsim(with(sweep, {"--seed", "9"}));
  REQUIRE(plain.exit_code == 0);
  const std::string plain_row = plain.out.substr(plain.out.find('\n') + 1);
  CHECK(plain_row.substr(plain_row.find('\n') - 20, 4) == ",0,,");  // samples 0, seed empty
  fs::remove_all(dir);
}

// [[jobs]] simulate each job without draws of its GPUs' speeds: --samples is refused at the
// option before anything runs (docs/limitations.md).
TEST_CASE("scenarios: --samples on a scenario with [[jobs]] is refused at the option", "[scenarios]") {
  const std::string jobs = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/examples/two_jobs_fat_tree.toml";
  const std::string message = "--samples:1:1: --samples 3: not modelled for " + jobs +
                              ", a scenario with [[jobs]] (expected no --samples with [[jobs]], or each job run as a "
                              "scenario of its own)\n";
  const auto run = run_commsim({"run", jobs, "--samples", "3"});
  CHECK(run.exit_code == 2);
  CHECK(run.err == message);
  CHECK(run.out.empty());
  const auto sweep = run_commsim({"sweep", jobs, "--vary", "name=a,b", "--samples", "3"});
  CHECK(sweep.exit_code == 2);
  CHECK(sweep.err == message);
  CHECK(sweep.out.empty());
  CHECK(run_commsim({"run", jobs, "--samples", "0"}).exit_code == 0);
}
