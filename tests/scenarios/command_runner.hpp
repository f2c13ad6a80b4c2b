#pragma once
// Runs the real `commsim` binary (COMMSIM_BINARY) for command-line tests: exit code, stdout and
// stderr captured separately through temporary files.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace scenarios_test {

struct CommandResult {
  int exit_code = -1;
  std::string out, err;
};

inline std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A fresh empty folder under the system temp dir, removed by the caller.
inline std::filesystem::path fresh_temp_dir(const std::string& tag) {
  static int counter = 0;  // tests in one process run one at a time
  const auto dir = std::filesystem::temp_directory_path() /
                   ("commsim-" + tag + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// `prefix` goes before the program on the shell line: "timeout 20", or setpriv with another user.
inline CommandResult run_commsim_with(const std::string& prefix, const std::vector<std::string>& args) {
  const auto dir = fresh_temp_dir("cmd");
  std::string cmd = prefix + (prefix.empty() ? "" : " ") + shell_quote(COMMSIM_BINARY);
  for (const auto& a : args) cmd += " " + shell_quote(a);
  cmd += " >" + shell_quote((dir / "out").string()) + " 2>" + shell_quote((dir / "err").string());
  const int status = std::system(cmd.c_str());
  CommandResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(dir / "out");
  r.err = slurp(dir / "err");
  std::filesystem::remove_all(dir);
  return r;
}

inline CommandResult run_commsim(const std::vector<std::string>& args) { return run_commsim_with("", args); }

// Runs `commsim sweep` with `base` arguments serially, with `jobs` threads, and as `shards`
// shards concatenated (shards after the first write no header); returns the three CSV outputs
// for the caller to compare.
struct SweepRuns {
  CommandResult serial;
  std::string threaded, merged;
};
inline SweepRuns sweep_three_ways(const std::vector<std::string>& base, int jobs, int shards) {
  auto with = [&](std::vector<std::string> extra) {
    auto args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return run_commsim(args);
  };
  SweepRuns r;
  r.serial = with({"--jobs", "1"});
  r.threaded = with({"--jobs", std::to_string(jobs)}).out;
  for (int i = 0; i < shards; ++i) {
    const auto s = with({"--jobs", std::to_string(jobs), "--shard", std::to_string(i) + "/" + std::to_string(shards)});
    r.merged += s.out;
  }
  return r;
}

}  // namespace scenarios_test
