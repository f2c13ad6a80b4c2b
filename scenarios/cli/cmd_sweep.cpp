// commsim sweep SCENARIO.toml --vary K=v1,v2,... [--vary ...] [--set K=V]... [--jobs N]
//               [--shard i/N] [--csv FILE]
// Every combination of the --vary values (first --vary slowest), run on N threads, rows always in
// sweep order whatever --jobs is. --shard runs a contiguous slice, so a Kubernetes Indexed Job or
// a Slurm array can split a large sweep; the shards' CSVs concatenated (headers dropped but the
// first) equal the unsharded CSV. A point the models reject (a layout that does not fit) becomes a
// row with an error; a typo in a key or a value stops the sweep before anything runs.
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "scenarios/cli/cli_support.hpp"
#include "scenarios/cli/command.hpp"
#include "scenarios/cli/output_lock.hpp"
#include "scenarios/cli/result_format.hpp"
#include "scenarios/cli/sweep_plan.hpp"

namespace scenarios {
namespace {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

// A --set error inside a --vary value is reported at the --vary text the user typed.
UserError at_vary(const UserError& e, size_t n_sets, const std::vector<VaryAxis>& axes, const SweepPoint& p) {
  if (e.pos().file != "--set" || e.pos().line <= static_cast<int>(n_sets)) return e;
  const size_t a = static_cast<size_t>(e.pos().line) - n_sets - 1;
  const VaryAxis& axis = axes[a];
  size_t v = 0;
  while (axis.values[v] != p.values[a]) ++v;
  int col = e.pos().col;
  const int value_start = static_cast<int>(axis.key.size()) + 2;
  if (col >= value_start) col = col - value_start + axis.value_columns[v];
  return UserError({"--vary", static_cast<int>(a) + 1, col}, e.message());
}

struct Row {
  std::optional<models::RunResult> result;
  std::string error;
};

}  // namespace

int cmd_sweep(int argc, char** argv) {
  CLI::App app{"Run a scenario over every combination of --vary values; CSV out.", "commsim sweep"};
  std::string path, shard_text, csv;
  std::vector<std::string> sets, varies;
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  app.add_option("scenario", path, "scenario file (TOML)")->required()->type_name("SCENARIO.toml");
  app.add_option("--vary", varies, "KEY=V1,V2,...: values of one key (repeatable; the first varies slowest)")
      ->required()
      ->type_name("KEY=V1,V2,...")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  add_set_option(app, sets);
  app.add_option("--jobs,-j", jobs, "threads running points at once (default: one per core)")
      ->check(CLI::Range(1u, 1024u))
      ->type_name("N");
  app.add_option("--shard", shard_text, "run only shard i of N (0 <= i < N), contiguous in sweep order")
      ->type_name("i/N");
  app.add_option("--csv", csv, "write the rows to FILE instead of standard output")->type_name("FILE");
  if (const int rc = parse_cli(app, argc, argv); rc >= 0) return rc;

  return guarded([&] {
    std::vector<VaryAxis> axes;
    for (size_t i = 0; i < varies.size(); ++i) axes.push_back(parse_vary(varies[i], static_cast<int>(i) + 1));
    refuse_repeated_vary_keys(axes);
    const Shard shard = shard_text.empty() ? Shard{} : parse_shard(shard_text);
    const size_t total = sweep_size(axes);
    const auto [begin, end] = shard_range(total, shard);

    // Load every point first: user errors (unknown key, bad unit) stop the sweep before any run.
    std::vector<SweepPoint> points;
    std::vector<LoadedScenario> loaded;
    for (size_t i = begin; i < end; ++i) {
      points.push_back(sweep_point(axes, i));
      std::vector<std::string> overrides = sets;
      for (size_t a = 0; a < axes.size(); ++a) overrides.push_back(axes[a].key + "=" + points.back().values[a]);
      try {
        loaded.push_back(load_scenario(path, overrides));
      } catch (const UserError& e) {
        throw at_vary(e, sets.size(), axes, points.back());
      }
    }

    {                                      // before any run: the CSV must not be one of the files the sweep reads
      std::set<std::string> inputs{path};  // --vary may name other profiles or DeepSpeed files
      for (const auto& l : loaded) inputs.insert(l.files.begin(), l.files.end());
      refuse_outputs_over_inputs({{"--csv", csv}}, {inputs.begin(), inputs.end()});
    }
    // Before any run: no other process (another shard) writes the same CSV meanwhile.
    const OutputLock csv_claim(csv, "--csv");
    std::vector<Row> rows(points.size());
    std::atomic<size_t> next{0}, done{0};
    std::mutex progress_mutex;
    const bool progress = ::isatty(STDERR_FILENO) && !points.empty();
    auto show_progress = [&] {
      std::lock_guard<std::mutex> lock(progress_mutex);
      const size_t d = done.load();
      const size_t width = 30, filled = width * d / points.size();
      std::fprintf(stderr, "\r[%s%s] %zu/%zu", std::string(filled, '#').c_str(),
                   std::string(width - filled, ' ').c_str(), d, points.size());
      std::fflush(stderr);
    };
    auto worker = [&] {
      models::RunOptions options;
      options.timeline = false;
      for (size_t i; (i = next.fetch_add(1)) < points.size();) {
        try {
          rows[i].result = run_loaded(loaded[i], options);
        } catch (const UserError& e) {
          rows[i].error = at_vary(e, sets.size(), axes, points[i]).what();
        } catch (const std::exception& e) {
          rows[i].error = std::string("internal error: ") + e.what();
        }
        done.fetch_add(1);
        if (progress) show_progress();
      }
    };
    std::vector<std::thread> threads;
    const size_t n_threads = std::min<size_t>(jobs, std::max<size_t>(points.size(), 1));
    for (size_t t = 1; t < n_threads; ++t) threads.emplace_back(worker);
    worker();
    for (auto& t : threads) t.join();
    if (progress) std::fprintf(stderr, "\n");

    // Units are in the column names: _s seconds, _bytes bytes, _percent percent.
    std::string out = "index";
    for (const auto& a : axes) out += "," + csv_field(a.key);
    out +=
        ",step_time_s,run_time_s,max_compute_s,max_comm_s,max_exposed_comm_s,max_barrier_wait_s,busiest_link,"
        "busiest_link_bytes,busiest_link_util_percent,partial,error\n";
    size_t failed = 0;
    for (size_t i = 0; i < points.size(); ++i) {
      out += std::to_string(points[i].index);
      for (const auto& v : points[i].values) out += "," + csv_field(v);
      if (const auto& r = rows[i].result) {
        const RankExtremes e = rank_extremes(*r);
        out += fmt::format(",{},{},{},{},{},{}", r->step_time_s, r->run_time_s, e.max_compute_s, e.max_comm_s,
                           e.max_exposed_comm_s, e.max_barrier_wait_s);
        if (r->links.empty())
          out += ",,,";
        else
          out +=
              fmt::format(",{},{},{}", csv_field(r->links[0].name), r->links[0].bytes, 100 * r->links[0].utilization);
        out += r->partial ? ",true," : ",false,";
      } else {
        ++failed;
        out += ",,,,,,,,,,," + csv_field(rows[i].error);
      }
      out += "\n";
    }
    if (csv.empty())
      std::fputs(out.c_str(), stdout);
    else
      write_file_atomically(csv, out);
    if (failed > 0)
      std::fprintf(stderr, "sweep: %zu of %zu points failed (see the error column)\n", failed, points.size());
    return 0;
  });
}

}  // namespace scenarios
