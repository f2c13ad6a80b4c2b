#include "scenarios/cli/nccl_tests_support.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <regex>
#include <set>

#include "models/error.hpp"
#include "models/nccl/env.hpp"
#include "models/nccl/tuner_tables.hpp"
#include "models/topology/resolve.hpp"

#include "scenarios/load/input_file.hpp"

namespace scenarios {

NcclTestsFile read_nccl_tests_output(const std::string& path, const std::string& option) {
  NcclTestsFile f;
  f.text = read_input_file(path, {path, 1, 1}, option + " file",
                           "the output of an nccl-tests binary such as all_reduce_perf");
  f.runs = models::readers::parse_nccl_tests(f.text, path);
  size_t rows = 0;
  int first_coarse = 0;
  static std::set<std::string> said_wrong;  // once per file and run, however often a command reads it
  for (const auto& r : f.runs) {
    rows += r.rows.size();
    // Rows nccl-tests found wrong results in (#wrong > 0) timed a run that failed its own check.
    int wrong = 0, first_wrong = 0;
    for (const auto& row : r.rows)
      if ((row.oop.wrong && *row.oop.wrong > 0) || (row.ip && row.ip->wrong && *row.ip->wrong > 0)) {
        if (!wrong++) first_wrong = row.line;
      }
    if (wrong && said_wrong.insert(path + ":" + std::to_string(first_wrong)).second)
      std::fprintf(stderr,
                   "commsim: warning: %s:%d: %d row%s of this table report%s wrong results (#wrong > 0): nccl-tests "
                   "found its data corrupt there, so those times are of a run that failed its own check\n",
                   path.c_str(), first_wrong, wrong, wrong == 1 ? "" : "s", wrong == 1 ? "s" : "");
    if (!r.cputime) continue;
    // -C 1: the printed time is the host's launch time; the reader took size / algbw instead
    // (models/readers/nccl_tests_output.hpp, NcclTestsRun::cputime). Said once per run.
    std::string note =
        "the time columns are nccl-tests' cputime (-C 1), the host's time to launch an iteration, "
        "not the collective's: each row's time is read as size / algbw (nccl-tests computes algbw "
        "from the time to completion)";
    if (!r.coarse_lines.empty()) {
      if (!first_coarse) first_coarse = r.coarse_lines.front();
      note += "; " + std::to_string(r.coarse_lines.size()) + " row" + (r.coarse_lines.size() > 1 ? "s" : "") +
              " left out (line" + (r.coarse_lines.size() > 1 ? "s " : " ") + std::to_string(r.coarse_lines.front()) +
              (r.coarse_lines.size() > 1 ? "-" + std::to_string(r.coarse_lines.back()) : "") +
              "): algbw, printed to two decimals, gives their time to worse than 0.5 %";
    }
    const int at = !r.rows.empty() ? r.rows.front().line : !r.coarse_lines.empty() ? r.coarse_lines.front() : 1;
    // Once per file and run, however often a command reads it.
    static std::set<std::string> said;
    if (said.insert(path + ":" + std::to_string(at)).second)
      std::fprintf(stderr, "commsim: note: %s:%d: %s\n", path.c_str(), at, note.c_str());
  }
  if (rows == 0 && first_coarse)
    throw UserError({path, first_coarse, 1},
                    option +
                        ": no row of this cputime (-C 1) table gives its time: algbw, printed to two decimals, "
                        "is below 1 GB/s in every row (expected larger sizes, -J JSON output, or a run without -C 1)");
  if (rows == 0) {
    // Rows of numbers without the column header above them are read as nothing: the header says
    // which column is which (out-of-place and in-place, the root column or not).
    const bool numbers = std::regex_search(f.text, std::regex(R"((^|\n)\s*\d+\s+\d+\s+[a-z0-9_]+\s)"));
    throw UserError(
        {path, 1, 1},
        option + (f.text.empty() ? ": the file is empty" : ": no nccl-tests result rows in this file") +
            (numbers && !f.text.empty() ? " (its rows of numbers have no column header above them: keep nccl-tests' "
                                          "'#  size  count  type ...' lines with the table)"
                                        : " (expected the output of an nccl-tests binary such as all_reduce_perf)"));
  }
  return f;
}

bool parse_nccl_tests_size(const std::string& text, int64_t& bytes) {
  if (text.empty()) return false;
  std::size_t pos = 0;
  long long v = 0;
  try {
    v = std::stoll(text, &pos);
  } catch (...) {
    return false;
  }
  if (v <= 0) return false;
  int64_t mult = 1;
  if (pos < text.size()) {
    if (pos + 1 != text.size()) return false;
    switch (std::toupper(static_cast<unsigned char>(text[pos]))) {
      case 'K': mult = 1LL << 10; break;
      case 'M': mult = 1LL << 20; break;
      case 'G': mult = 1LL << 30; break;
      case 'T': mult = 1LL << 40; break;
      default: return false;
    }
  }
  if (v > INT64_MAX / mult) return false;
  bytes = v * mult;
  return true;
}

namespace {
// PATH:LINE:COL of `offset` in `text`.
SourcePos place_of(const std::string& text, std::size_t offset, const std::string& path) {
  const auto begin = text.begin(), at = text.begin() + static_cast<std::ptrdiff_t>(offset);
  const int line = 1 + static_cast<int>(std::count(begin, at, '\n'));
  const auto bol = offset == 0 ? std::string::npos : text.rfind('\n', offset - 1);
  const int col = static_cast<int>(offset - (bol == std::string::npos ? 0 : bol + 1)) + 1;
  return {path, line, col};
}
}  // namespace

std::map<std::string, std::string> nccl_env_from_log(const std::string& text, const std::string& path,
                                                     std::map<std::string, SourcePos>* at) {
  // The variables that change what commsim simulates (models/nccl/env.cpp, the one list).
  const auto& modelled = models::nccl::modelled_nccl_variables();
  // NCCL_TUNER_CONFIG_FILE names a file on the run's machine: only a scenario's own [nccl.env] names
  // one commsim reads (the loader), so a log's is not taken.
  auto is_modelled = [&](const std::string& name) {
    return name != "NCCL_TUNER_CONFIG_FILE" && std::find(modelled.begin(), modelled.end(), name) != modelled.end();
  };
  static const std::regex kSet(R"((NCCL_[A-Z0-9_]+) set by environment to ([^\s]+))");
  std::map<std::string, std::string> env;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kSet); it != std::sregex_iterator(); ++it) {
    std::string name = (*it)[1], value = (*it)[2];
    while (!value.empty() && value.back() == '.') value.pop_back();  // "set by environment to 1."
    if (!is_modelled(name)) continue;
    env[name] = value;
    if (at) (*at)[name] = place_of(text, static_cast<std::size_t>(it->position(2)), path);
  }
  // nccl-tests' -J JSON lists the environment it ran in: "env":["NCCL_P2P_DISABLE=1", ...], with
  // any spacing a JSON writer puts ("env": [ ... ], as jq or json.dump print it).
  static const std::regex kJsonEnv(R"re("(NCCL_[A-Z0-9_]+)=([^"]*)")re");
  static const std::regex kEnvKey(R"re("env"\s*:\s*\[)re");
  if (std::regex_search(text, kEnvKey))
    for (auto it = std::sregex_iterator(text.begin(), text.end(), kJsonEnv); it != std::sregex_iterator(); ++it) {
      if (!is_modelled((*it)[1])) continue;
      env[(*it)[1]] = (*it)[2];
      if (at) (*at)[(*it)[1]] = place_of(text, static_cast<std::size_t>(it->position(2)), path);
    }
  return env;
}

void check_run_nccl_env(const std::map<std::string, std::string>& env, const std::map<std::string, SourcePos>& at) {
  try {
    models::nccl::check_nccl_env_names(env);
    (void)models::nccl::parse_nccl_env(env);
  } catch (const models::SpecError& e) {
    static const std::string kPrefix = "nccl.env.";
    if (e.key().rfind(kPrefix, 0) == 0)
      if (const auto it = at.find(e.key().substr(kPrefix.size())); it != at.end())
        throw UserError(it->second, e.what());
  }
}

StatedNcclVersion stated_nccl_version(const NcclTestsFile& file) {
  StatedNcclVersion out;
  static const std::regex kLibrary(R"(nccl-library=(\d{5}))");
  static const std::regex kBanner(R"(NCCL version (2\.\d+\.\d+))");
  std::smatch m;
  for (const auto& run : file.runs)
    if (std::regex_search(run.version, m, kLibrary)) {
      out.number = std::stoi(m[1].str());
      out.text = models::nccl::nccl_version_text(out.number);
      return out;
    }
  if (std::regex_search(file.text, m, kBanner)) {
    out.text = m[1].str();
    out.number = models::nccl::parse_nccl_version(out.text);
  }
  return out;
}

int usable_nccl_version(const NcclTestsFile& file, const std::string& name, std::string* note) {
  const StatedNcclVersion v = stated_nccl_version(file);
  if (v.number == 0 || models::nccl::nccl_version_in_tables(v.number)) return v.number;
  if (note)
    *note = name + " ran NCCL " + v.text + ", outside the tuner tables commsim carries (2.17 to 2.30): the " +
            "scenario's release (default " + models::nccl::nccl_version_text(0) + ") tunes it";
  return 0;
}

void apply_run_to_spec(const models::readers::NcclTestsRun& run, const std::map<std::string, std::string>& env,
                       int version, models::ScenarioSpec& spec) {
  if (run.ranks > 1 && run.processes == 1) spec.placement.single_process = true;
  for (const auto& [k, v] : env) spec.nccl_env[k] = v;
  if (version > 0) spec.nccl_version = version;
}

SourcePos collective_line(const std::string& text, const std::string& path) {
  const auto at = text.find("Collective test starting");
  if (at == std::string::npos) return {path, 1, 1};
  const auto bol = text.rfind('\n', at);
  const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
  return {path, line, static_cast<int>(at - (bol == std::string::npos ? 0 : bol + 1)) + 1};
}

SourcePos nccl_tests_rank_line(const std::string& text, const std::string& path) {
  static const std::regex kRank(R"((^|\n)#\s+(Rank)\s+\d)"), kThreads(R"((^|\n)#\s+(nThread)\s)"),
      kDevices(R"(()("devices")\s*:)");
  for (const std::regex* re : {&kRank, &kThreads, &kDevices}) {
    std::smatch m;
    if (!std::regex_search(text, m, *re)) continue;
    const auto at = static_cast<std::size_t>(m.position(2));
    const int line =
        1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
    const auto bol = text.rfind('\n', at == 0 ? 0 : at - 1);
    const int col = static_cast<int>(at - (bol == std::string::npos || at == 0 ? 0 : bol + 1)) + 1;
    return {path, line, col};
  }
  return {path, 1, 1};
}

std::string adopt_run_ranks(const NcclTestsFile& file, const models::readers::NcclTestsRun& run,
                            const std::string& path, models::ScenarioSpec& spec) {
  const int ranks = run.ranks;
  if (ranks <= 0) return "";
  const int node_gpus = models::topology::resolve_node(spec.cluster).gpus;
  const int pods = std::max(1, spec.placement.pods_per_node);
  const int pod_gpus = spec.placement.gpus_per_pod > 0 ? spec.placement.gpus_per_pod : node_gpus / pods;
  const int per_node = pods * pod_gpus;
  const long long have = static_cast<long long>(spec.cluster.nodes) * per_node;
  const int hosts = static_cast<int>(run.hosts.size());  // 0: the file does not say
  if (ranks == have) {
    // The same count on other hosts (4 x 4 GPUs against 2 x 8) crosses the network elsewhere. A
    // host is a node, or a pod of one where pods have hostnames of their own.
    if (hosts > 1 && spec.cluster.groups.empty() && hosts != spec.cluster.nodes && hosts != spec.cluster.nodes * pods)
      throw UserError(nccl_tests_rank_line(file.text, path),
                      path + " ran its " + std::to_string(ranks) + " ranks over " + std::to_string(hosts) +
                          " hosts, the scenario lays them on " + std::to_string(spec.cluster.nodes) + " node" +
                          (spec.cluster.nodes == 1 ? "" : "s") +
                          " (expected a --scenario of the run's layout: cluster.nodes = " + std::to_string(hosts) +
                          " and placement.gpus_per_pod = " + std::to_string(ranks / hosts) + ")");
    return "";
  }
  const std::string ran = path + " ran on " + std::to_string(ranks) + " ranks" +
                          (hosts > 1 ? " over " + std::to_string(hosts) + " hosts" : "") + ", the scenario has " +
                          std::to_string(have);
  if (spec.cluster.groups.empty()) {
    if (per_node > 0 && ranks % per_node == 0 && (hosts == 0 || hosts == ranks / per_node)) {
      spec.cluster.nodes = ranks / per_node;
      return ran + ": fitted on " + std::to_string(ranks) + " (cluster.nodes = " + std::to_string(spec.cluster.nodes) +
             ")";
    }
    if (hosts <= 1 && ranks < per_node && pods == 1) {
      spec.cluster.nodes = 1;
      spec.placement.gpus_per_pod = ranks;
      return ran + ": fitted on " + std::to_string(ranks) +
             " (cluster.nodes = 1, placement.gpus_per_pod = " + std::to_string(ranks) + ": the node's first " +
             std::to_string(ranks) + " GPUs)";
    }
  }
  throw UserError(nccl_tests_rank_line(file.text, path),
                  ran + " and calibrate cannot lay the file's ranks out on it (expected a --scenario of " +
                      std::to_string(ranks) + " ranks" + (hosts > 1 ? " on " + std::to_string(hosts) + " nodes" : "") +
                      ": set cluster.nodes, placement.pods_per_node and placement.gpus_per_pod to the run's)");
}

}  // namespace scenarios
