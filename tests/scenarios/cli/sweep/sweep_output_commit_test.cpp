// What a sweep does to a file that is already there, and what other commands do to a file a
// sweep is writing (scenarios/cli/sweep/sweep_output.hpp, output/output_files.hpp), through the
// real binary:
//   - a file a running sweep holds locked is never replaced by another command (report, run,
//     the sweep's own --html): refused, exit 2, the rows intact;
//   - a sweep without --resume over a file with rows writes beside it and replaces it only when
//     every point has its row: a sweep that fails first leaves the old file byte for byte;
//   - the system refusing threads (a memory limit) runs the sweep on fewer: every row, exit 0.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <iterator>
#include <fstream>
#include <string>
#include <vector>

#include "tests/scenarios/command_runner.hpp"

namespace fs = std::filesystem;
using scenarios_test::run_commsim;
using scenarios_test::run_commsim_with;
using scenarios_test::slurp;

namespace {
const std::string kCommitAllReduce = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/examples/allreduce_h200x4.toml";
const std::vector<std::string> kSweepOfSweepOutputCommit = {"sweep", kCommitAllReduce, "--vary", "collective.bytes=1 MiB,16 MiB,64 MiB",
                                         "--vary", "collective.op=all_reduce,all_gather"};

std::vector<std::string> with_sweep_output_commit(std::vector<std::string> args, const std::vector<std::string>& extra) {
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

// Holds the lock a running sweep holds on its file (flock, exclusive), as long as it lives.
struct HeldLock {
  int fd = -1;
  explicit HeldLock(const std::string& path) : fd(::open(path.c_str(), O_RDWR)) {
    REQUIRE(fd >= 0);
    REQUIRE(::flock(fd, LOCK_EX | LOCK_NB) == 0);
  }
  ~HeldLock() { ::close(fd); }
};
}  // namespace

TEST_CASE("scenarios: no command replaces a file a running sweep is writing", "[scenarios]") {
  const fs::path dir = scenarios_test::fresh_temp_dir("sweeplock");
  const std::string csv = (dir / "rows.csv").string();
  std::ofstream(csv) << "index,rows of a sweep still running\n";
  {
    const HeldLock sweep(csv);
    const auto report = run_commsim({"report", kCommitAllReduce, "--no-busbw", "--csv", csv});
    CHECK(report.exit_code == 2);
    CHECK(report.err.rfind(csv + ":1:1: cannot write: another commsim (a sweep) is writing this file", 0) == 0);
    const auto trace = run_commsim({"report", kCommitAllReduce, "--no-busbw", "--trace", csv});
    CHECK(trace.exit_code == 2);
    CHECK(slurp(csv) == "index,rows of a sweep still running\n");
  }
  // The lock released (the sweep done): the same report replaces it.
  CHECK(run_commsim({"report", kCommitAllReduce, "--no-busbw", "--csv", csv}).exit_code == 0);
  CHECK(slurp(csv) != "index,rows of a sweep still running\n");
  // A sweep's own --html on its --csv is one file written twice.
  const auto same = run_commsim(with_sweep_output_commit(kSweepOfSweepOutputCommit, {"--csv", csv, "--html", csv}));
  CHECK(same.exit_code == 2);
  CHECK(same.err.find("--html: '" + csv + "' is also the file of --csv") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("scenarios: a sweep over a file with rows replaces it only once every point has its row", "[scenarios]") {
  const fs::path dir = scenarios_test::fresh_temp_dir("sweepkeep");
  const std::string csv = (dir / "rows.csv").string();
  const auto fresh = run_commsim(kSweepOfSweepOutputCommit);
  REQUIRE(fresh.exit_code == 0);
  REQUIRE(fresh.out.size() > 1024);
  // An earlier run of the same sweep (its header) with one row.
  const std::string old = fresh.out.substr(0, fresh.out.find('\n') + 1) + "0,kept\n";
  std::ofstream(csv) << old;
  ::chmod(csv.c_str(), 0640);

  // The rows cannot all be written (a 1 KiB file size limit; SIGXFSZ ignored, so write() fails
  // with EFBIG): the sweep stops with an error and the old file is as it was, no temporary left.
  std::string cmd = "trap '' XFSZ; ulimit -f 2; exec";  // dash counts 512-byte blocks
  const auto cut = run_commsim_with(cmd, with_sweep_output_commit(kSweepOfSweepOutputCommit, {"--csv", csv}));
  CHECK(cut.exit_code == 2);
  CHECK(cut.err.find("cannot write") != std::string::npos);
  CHECK(slurp(csv) == old);
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}) == 1);

  // Every row written: the file is replaced, its permissions kept.
  const auto done = run_commsim(with_sweep_output_commit(kSweepOfSweepOutputCommit, {"--csv", csv}));
  REQUIRE(done.exit_code == 0);
  CHECK(slurp(csv) == fresh.out);
  struct stat st {};
  REQUIRE(::stat(csv.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0640);

  // A new file is written in place (a killed sweep keeps its rows for --resume), as before.
  const std::string fresh_csv = (dir / "new.csv").string();
  REQUIRE(run_commsim(with_sweep_output_commit(kSweepOfSweepOutputCommit, {"--csv", fresh_csv})).exit_code == 0);
  CHECK(slurp(fresh_csv) == fresh.out);
  fs::remove_all(dir);
}

TEST_CASE("scenarios: a sweep the system refuses threads runs on fewer, with every row", "[scenarios]") {
  const fs::path dir = scenarios_test::fresh_temp_dir("sweepthreads");
  const std::string csv = (dir / "rows.csv").string();
  std::string sizes = "collective.bytes=";  // 300 points: more threads than the limit allows
  for (int k = 1; k <= 300; ++k) sizes += (k > 1 ? "," : "") + std::to_string(k) + " KiB";
  const std::vector<std::string> many = {"sweep", kCommitAllReduce, "--vary", sizes};
  const auto serial = run_commsim(with_sweep_output_commit(many, {"--jobs", "1"}));
  REQUIRE(serial.exit_code == 0);
  // 1 GiB of address space: each thread's 8 MiB stack counts, so 1,024 threads cannot all start
  // (one malloc arena per process keeps the arenas' reservations out of the way).
  const auto r = run_commsim_with("MALLOC_ARENA_MAX=1 sh -c 'ulimit -v 1048576; exec \"$0\" \"$@\"'",
                                  with_sweep_output_commit(many, {"--jobs", "1024", "--csv", csv}));
  INFO("stderr: " << r.err.substr(0, 2000));
  CHECK(r.exit_code == 0);
  CHECK(r.err.find("the system refused another") != std::string::npos);
  CHECK(slurp(csv) == serial.out);
  fs::remove_all(dir);
}

TEST_CASE("scenarios: a sweep point that runs out of memory is its row's error, the others run", "[scenarios]") {
  // 8 GPUs as tp 2 x pp 2 leave dp 2, so global_batch 16384 is 16384 / (micro_batch 1 x dp 2) =
  // 8,192 micro-batches per step: about 400 MB of step programs (measured peak RSS 418 MB), under
  // the 4 GiB budget refused at load, over a 256 MiB address-space limit; 64 needs about 10 MB.
  const std::string scenario = std::string(COMMSIM_SOURCE_DIR) + "/tests/scenarios/bad/memory_global_batch.toml";
  const auto r = run_commsim_with("MALLOC_ARENA_MAX=1 sh -c 'ulimit -v 262144; exec \"$0\" \"$@\"'",
                                  {"sweep", scenario, "--vary", "training.global_batch=64,16384", "--jobs", "1",
                                   "--json"});
  CHECK(r.exit_code == 0);
  std::vector<std::string> rows;
  for (size_t at = 0, nl; (nl = r.out.find('\n', at)) != std::string::npos; at = nl + 1)
    rows.push_back(r.out.substr(at, nl - at));
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].find("\"error\":null") != std::string::npos);
  CHECK(rows[1].find("\"error\":\"out of memory running this point") != std::string::npos);
  CHECK(r.err.find("1 of 2 points failed") != std::string::npos);
}
