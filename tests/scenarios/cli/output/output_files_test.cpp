// How commsim writes its outputs (scenarios/cli/output/output_files.hpp), through the real binary and on
// OutputSet itself: devices, pipes and symlinks written through, permissions kept, outputs of one
// command committed together, nothing left behind on failure; as root and as an ordinary user.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>

#include "scenarios/cli/output/output_files.hpp"
#include "scenarios/load/loader.hpp"
#include "tests/scenarios/command_runner.hpp"

namespace fs = std::filesystem;
using scenarios_test::run_commsim;
using scenarios_test::run_commsim_with;
using scenarios_test::slurp;

namespace {

const std::string kAllReduceOfOutputFiles = std::string(COMMSIM_SOURCE_DIR) + "/scenarios/examples/allreduce_h200x4.toml";

std::vector<std::string> sweep_to(const std::string& csv) {
  return {"sweep", kAllReduceOfOutputFiles, "--vary", "collective.bytes=1MB,2MB", "--jobs", "1", "--csv", csv};
}

void write(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

// An earlier run of the sweep sweep_to runs: its header and one row (a sweep replaces only that;
// another sweep's rows are refused and left as they are).
std::string earlier_sweep_rows() {
  const auto r = run_commsim(sweep_to("/dev/stdout"));
  return r.out.substr(0, r.out.find('\n') + 1) + "0,old\n";
}

std::set<std::string> listing(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

mode_t mode_of(const fs::path& p) {
  struct stat st {};
  ::stat(p.c_str(), &st);
  return st.st_mode & 07777;
}

bool is_char_device(const char* p) {
  struct stat st {};
  return ::stat(p, &st) == 0 && S_ISCHR(st.st_mode);
}

// The ordinary user of the tests: nobody, through setpriv; only root can switch to it.
bool can_switch_user() { return ::geteuid() == 0 && std::system("command -v setpriv >/dev/null 2>&1") == 0; }
const char* kAsNobody = "setpriv --reuid=65534 --regid=65534 --clear-groups --";

}  // namespace

TEST_CASE("output files: --csv /dev/stdout prints, through a file and a pipe", "[scenarios]") {
  const auto r = run_commsim(sweep_to("/dev/stdout"));
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.rfind("index,collective.bytes,", 0) == 0);
  CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 3);
  const auto dir = scenarios_test::fresh_temp_dir("out-pipe");
  std::string cmd = scenarios_test::shell_quote(COMMSIM_BINARY);
  for (const auto& a : sweep_to("/dev/stdout")) cmd += " " + scenarios_test::shell_quote(a);
  cmd += " | cat > " + scenarios_test::shell_quote((dir / "piped.csv").string());
  REQUIRE(std::system(cmd.c_str()) == 0);
  CHECK(slurp(dir / "piped.csv") == r.out);
  fs::remove_all(dir);
}

TEST_CASE("output files: /dev/full is an error exit 2 and stays a device, /dev/null takes the bytes", "[scenarios]") {
  const auto r = run_commsim(sweep_to("/dev/full"));
  CHECK(r.exit_code == 2);
  CHECK(r.err ==
        "/dev/full:1:1: cannot write: No space left on device (expected a device or pipe that takes the "
        "bytes)\n");
  CHECK(is_char_device("/dev/full"));
  const auto null = run_commsim(sweep_to("/dev/null"));
  CHECK(null.exit_code == 0);
  CHECK(null.out.empty());
  CHECK(is_char_device("/dev/null"));
}

TEST_CASE("output files: a symlink's target is replaced, the link stays a link, permissions are kept", "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("out-link");
  write(dir / "target.csv", earlier_sweep_rows());
  fs::permissions(dir / "target.csv", fs::perms(0640));
  fs::create_symlink("target.csv", dir / "link.csv");
  REQUIRE(run_commsim(sweep_to((dir / "link.csv").string())).exit_code == 0);
  CHECK(fs::is_symlink(dir / "link.csv"));
  CHECK(slurp(dir / "target.csv").rfind("index,", 0) == 0);
  CHECK(mode_of(dir / "target.csv") == 0640);
  // A dangling link: its target is created, with the mode a new file gets.
  fs::create_symlink("new.csv", dir / "dangling.csv");
  REQUIRE(run_commsim(sweep_to((dir / "dangling.csv").string())).exit_code == 0);
  CHECK(fs::is_symlink(dir / "dangling.csv"));
  CHECK(slurp(dir / "new.csv").rfind("index,", 0) == 0);
  const mode_t mask = ::umask(0);
  ::umask(mask);
  CHECK(mode_of(dir / "new.csv") == (0666 & ~mask));
  CHECK(listing(dir) == std::set<std::string>{"target.csv", "link.csv", "dangling.csv", "new.csv"});  // no temp
  fs::remove_all(dir);
}

TEST_CASE("output files: a FIFO is written through when read, refused at once without a reader", "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("out-fifo");
  const fs::path fifo = dir / "out.fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const auto lonely = run_commsim_with("timeout 20", sweep_to(fifo.string()));
  CHECK(lonely.exit_code == 2);
  CHECK(lonely.err == fifo.string() +
                          ":1:1: cannot write: no process is reading this pipe (expected a pipe with a "
                          "reader)\n");
  const std::string reader = "timeout 20 cat " + scenarios_test::shell_quote(fifo.string()) + " > " +
                             scenarios_test::shell_quote((dir / "got.csv").string()) + " &";
  REQUIRE(std::system(reader.c_str()) == 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // let cat open the FIFO
  const auto r = run_commsim_with("timeout 20", sweep_to(fifo.string()));
  CHECK(r.exit_code == 0);
  for (int i = 0; i < 100 && slurp(dir / "got.csv").find("\n1,") == std::string::npos; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK(slurp(dir / "got.csv").rfind("index,", 0) == 0);
  CHECK(fs::is_fifo(fifo));
  fs::remove_all(dir);
}

TEST_CASE("output files: report commits its outputs together or leaves them all as they were", "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("out-report");
  const std::string html = (dir / "report.html").string(), csv = (dir / "new.csv").string();
  write(html, "<old>");
  const std::string missing = (dir / "no-such-folder" / "t.json").string();
  auto r = run_commsim({"report", kAllReduceOfOutputFiles, "--no-busbw", "--html", html, "--csv", csv, "--trace", missing});
  CHECK(r.exit_code == 2);
  CHECK(r.err.rfind(missing + ":1:1: cannot write: No such file or directory", 0) == 0);
  CHECK(slurp(html) == "<old>");
  CHECK(listing(dir) == std::set<std::string>{"report.html"});
  r = run_commsim({"report", kAllReduceOfOutputFiles, "--no-busbw", "--html", html, "--csv", "/dev/full"});
  CHECK(r.exit_code == 2);
  CHECK(slurp(html) == "<old>");
  CHECK(listing(dir) == std::set<std::string>{"report.html"});
  r = run_commsim({"report", kAllReduceOfOutputFiles, "--no-busbw", "--html", html, "--csv", csv});
  CHECK(r.exit_code == 0);
  CHECK(slurp(html).find("<html") != std::string::npos);
  CHECK(slurp(csv).size() > 0);
  CHECK(listing(dir) == std::set<std::string>{"report.html", "new.csv"});
  fs::remove_all(dir);
}

TEST_CASE("output files: a rename that fails puts back every file already replaced", "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("out-rollback");
  write(dir / "a.txt", "old-a");
  struct stat before {};
  ::stat((dir / "a.txt").c_str(), &before);
  scenarios::OutputSet set;
  set.add((dir / "a.txt").string(), "new-a");
  set.add((dir / "b.txt").string(), "new-b");
  set.stage();
  // b.txt becomes a non-empty folder between staging and renaming: its rename fails after a.txt's.
  fs::create_directories(dir / "b.txt" / "inside");
  CHECK_THROWS_AS(set.commit(), scenarios::UserError);
  CHECK(slurp(dir / "a.txt") == "old-a");
  struct stat after {};
  ::stat((dir / "a.txt").c_str(), &after);
  CHECK(after.st_ino == before.st_ino);  // the very file, not a copy
  CHECK(fs::is_directory(dir / "b.txt" / "inside"));
  CHECK(listing(dir) == std::set<std::string>{"a.txt", "b.txt"});
  fs::remove_all(dir);
}

TEST_CASE("output files: a failed run --out keeps the previous result.json", "[scenarios]") {
  const auto dir = scenarios_test::fresh_temp_dir("out-run");
  const fs::path out = dir / "res";
  REQUIRE(run_commsim({"run", kAllReduceOfOutputFiles, "--out", out.string()}).exit_code == 0);
  const std::string first = slurp(out / "result.json");
  const std::string bad = std::string(COMMSIM_SOURCE_DIR) + "/tests/scenarios/bad/unknown_key_placement.toml";
  CHECK(run_commsim({"run", bad, "--out", out.string()}).exit_code == 2);
  CHECK(slurp(out / "result.json") == first);
  // The second file cannot be written: the first is not replaced either.
  fs::remove(out / "summary.txt");
  fs::create_directories(out / "summary.txt");
  const auto r = run_commsim({"run", kAllReduceOfOutputFiles, "--set", "collective.bytes=\"2 GiB\"", "--out", out.string()});
  CHECK(r.exit_code == 2);
  CHECK(r.err == (out / "summary.txt").string() + ":1:1: cannot write: it is a folder (expected a file name)\n");
  CHECK(slurp(out / "result.json") == first);
  CHECK(listing(out) == std::set<std::string>{"result.json", "summary.txt"});
  fs::remove_all(dir);
}

TEST_CASE("output files: as an ordinary user, read-only files and folders are refused, /dev/full is an error",
          "[scenarios]") {
  if (!can_switch_user()) {
    WARN("skipped: switching to an ordinary user needs root and setpriv");
    return;
  }
  const auto dir = scenarios_test::fresh_temp_dir("out-user");
  fs::permissions(dir, fs::perms(0777));
  const std::string old = earlier_sweep_rows();
  write(dir / "ro.csv", old);
  fs::permissions(dir / "ro.csv", fs::perms(0444));
  fs::create_directories(dir / "closed");
  fs::permissions(dir / "closed", fs::perms(0755));
  // ro.csv is root's, read-only: the user may not replace it, even though the folder is open.
  auto r = run_commsim_with(kAsNobody, sweep_to((dir / "ro.csv").string()));
  CHECK(r.exit_code == 2);
  CHECK(r.err == (dir / "ro.csv").string() +
                     ":1:1: cannot write: Permission denied (expected a file this user may "
                     "write)\n");
  CHECK(slurp(dir / "ro.csv") == old);
  r = run_commsim_with(kAsNobody, sweep_to((dir / "closed" / "x.csv").string()));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("Permission denied (expected a folder this user may write in)") != std::string::npos);
  CHECK(fs::is_empty(dir / "closed"));
  r = run_commsim_with(kAsNobody, sweep_to("/dev/full"));
  CHECK(r.exit_code == 2);
  CHECK(is_char_device("/dev/full"));
  r = run_commsim_with(kAsNobody, sweep_to((dir / "mine.csv").string()));
  CHECK(r.exit_code == 0);
  struct stat st {};
  ::stat((dir / "mine.csv").c_str(), &st);
  CHECK(st.st_uid == 65534u);
  // Root may replace a read-only file (as it may write it); its mode stays.
  CHECK(run_commsim(sweep_to((dir / "ro.csv").string())).exit_code == 0);
  CHECK(slurp(dir / "ro.csv").rfind("index,", 0) == 0);
  CHECK(mode_of(dir / "ro.csv") == 0444);
  CHECK(listing(dir) == std::set<std::string>{"ro.csv", "closed", "mine.csv"});
  fs::remove_all(dir);
}
