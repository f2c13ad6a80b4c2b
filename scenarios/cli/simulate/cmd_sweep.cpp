// commsim sweep SCENARIO.toml --vary K=v1,v2,... [--vary ...] [--set K=V]... [--jobs N]
//               [--shard i/N] [--csv FILE | --jsonl FILE | --json] [--resume] [--no-header]
//               [--fail-on-error] [--progress] [--html FILE]
// Every combination of the --vary values (first --vary slowest), run on N threads. Rows are
// written in sweep order as they complete (a row waits only for slower rows before it), each
// handed to the operating system at once, so a sweep killed by Ctrl-C, an eviction or a time
// limit keeps what it finished and `--resume` runs only the rest. --shard runs a contiguous
// slice; shards after the first write no header, so the shards' files concatenated in shard
// order are byte for byte the unsharded file (docs/sweep-indexed-job.yaml, docs/sweep-array.sh).
// A point the models reject (a layout that does not fit) becomes a row with an error; a typo in
// a key or a value stops the sweep before anything runs or any file is touched.
// --html FILE also writes a page of how the layout scales over the first --vary key (tokens/s
// with the linear-scaling line, scaling efficiency, the step's breakdown per point; viz::sweep_html),
// for a whole sweep run at once (not with --shard or --resume: the page needs every point).
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <new>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "models/run/layout_line.hpp"
#include "models/run/variability.hpp"
#include "scenarios/cli/cli_support.hpp"
#include "scenarios/cli/command.hpp"
#include "scenarios/cli/sweep/inputs_digest.hpp"
#include "scenarios/cli/sweep/progress_line.hpp"
#include "scenarios/cli/sweep/scaling_efficiency.hpp"
#include "scenarios/cli/sweep/sweep_output.hpp"
#include "scenarios/cli/sweep/sweep_plan.hpp"
#include "scenarios/cli/sweep/sweep_rows.hpp"
#include "viz/viz.hpp"

namespace scenarios {
namespace {

// A --set error inside a --vary value is reported at the --vary text the user typed. An error at
// a line of a file (a batch that no longer divides once --vary changed the instance) keeps its
// place and names the point's --vary values, which made the file's line wrong.
UserError at_vary(const UserError& e, size_t n_sets, const std::vector<VaryAxis>& axes, const SweepPoint& p) {
  if (e.pos().file.rfind("--", 0) != 0 && !axes.empty()) {  // a file's line, not an option's
    std::string values;
    for (size_t a = 0; a < axes.size(); ++a) values += (a ? ", " : "") + axes[a].key + "=" + p.values[a];
    return UserError(e.pos(), e.message() + " (at this point's --vary " + values + ")");
  }
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

// A row found in the file being resumed: its index, and whether it holds a failed point (its
// error cell is set) or one that does not fit (fits false), which --fail-on-error and
// --require-fit count as an uninterrupted sweep counts them.
struct KeptRow {
  size_t index = 0;
  bool failed = false, over = false;
};

// Checks a row found in the file being resumed.
// `digests`: each point's inputs_digest, by index - begin.
KeptRow check_existing_row(const SweepRows& rows, const std::vector<VaryAxis>& axes, size_t begin, size_t end,
                           const std::vector<std::string>& digests, const std::string& file, int line_no,
                           const Json& row) {
  const auto& cols = rows.columns();
  auto cell = [&](size_t c) -> std::string {
    if (row.is_array()) return c < row.size() ? row[c].get<std::string>() : std::string("\x01");
    return row.contains(cols[c]) ? SweepRows::cell_text(row[cols[c]]) : std::string("\x01");
  };
  if (row.is_array() && row.size() != cols.size())
    throw UserError({file, line_no, 1}, "--resume: " + std::to_string(row.size()) + " fields (expected " +
                                            std::to_string(cols.size()) + ", the columns of this sweep)");
  const std::string index_text = cell(0);
  size_t index = 0;
  try {
    size_t used = 0;
    index = std::stoul(index_text, &used);
    if (used != index_text.size()) throw std::invalid_argument("");
  } catch (const std::exception&) {
    throw UserError({file, line_no, 1}, "--resume: '" + index_text + "' is not a row index (expected a number)");
  }
  if (index < begin || index >= end)
    throw UserError({file, line_no, 1}, "--resume: row " + index_text + " is not in this shard (expected indices " +
                                            std::to_string(begin) + " to " + std::to_string(end - 1) + ")");
  const Json expected = rows.row(sweep_point(axes, index), nullptr, "", digests[index - begin]);
  for (size_t c = 0; c < cols.size(); ++c) {
    const std::string& name = cols[c];
    if (row.is_object() && !row.contains(name))  // a row of another version's columns
      throw UserError({file, line_no, 1},
                      "--resume: row " + index_text + " has no '" + name + "' (expected the columns of this sweep)");
    if (name == "inputs_digest" && cell(c) != SweepRows::cell_text(expected[name]))
      throw UserError({file, line_no, 1}, "--resume: row " + index_text +
                                              " was made from other inputs (inputs_digest " + cell(c) + ", now " +
                                              SweepRows::cell_text(expected[name]) +
                                              "): the scenario, a file it reads or the --prices file changed since "
                                              "(expected the rows of the same inputs: run without --resume into a "
                                              "new file)");
    const bool key_column =
        c <= axes.size() || name == "file" || name == "overrides" || name == "samples" || name == "seed";
    if (key_column && cell(c) != SweepRows::cell_text(expected[name]))
      throw UserError({file, line_no, 1},
                      "--resume: row " + index_text + " has " + name + " '" + cell(c) + "' where this sweep has '" +
                          SweepRows::cell_text(expected[name]) +
                          "' (expected the rows of the same sweep: same scenario, --vary, --set, --samples, --seed)");
  }
  KeptRow kept{.index = index};
  for (size_t c = 0; c < cols.size(); ++c) {
    if (cols[c] == "error") kept.failed = !cell(c).empty();
    if (cols[c] == "fits") kept.over = cell(c) == "false";
  }
  return kept;
}

}  // namespace

// A point as the sweep page draws it: x = the first --vary value, series = the others'.
viz::ScalingPoint scaling_point(const std::vector<VaryAxis>& axes, const SweepPoint& point, const models::RunResult* r,
                                const std::string& error) {
  viz::ScalingPoint p;
  p.x = point.values.front();
  for (size_t a = 1; a < axes.size(); ++a) p.series += (a > 1 ? ", " : "") + axes[a].key + "=" + point.values[a];
  p.ok = r != nullptr;
  p.error = error;
  if (!r) return p;
  p.gpus = static_cast<int>(r->ranks.size());
  p.fits = r->fits();
  p.step_time_s = r->step_time_s;
  p.tokens_per_s = r->throughput.estimated ? r->throughput.tokens_per_s : 0;
  p.mfu = r->throughput.estimated ? r->throughput.mfu : 0;
  p.breakdown = r->step_breakdown;
  if (r->cost.known) {
    p.usd_per_run = r->cost.usd_per_run;
    p.usd_per_million_tokens = r->cost.usd_per_million_tokens > 0 ? r->cost.usd_per_million_tokens : -1;
  }
  return p;
}

int cmd_sweep(int argc, char** argv) {
  CLI::App app{"Run a scenario over every combination of --vary values; one row per point (CSV or JSON lines).",
               "commsim sweep"};
  std::string path, shard_text, csv, jsonl, html, prices;
  std::vector<std::string> sets, varies;
  bool json = false, resume = false, no_header = false, header = false, fail_on_error = false, progress = false, require_fit = false;
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  app.add_option("scenario", path, "scenario file (TOML)")->required()->type_name("SCENARIO.toml");
  app.add_option("--vary", varies, "KEY=V1,V2,...: values of one key (repeatable; the first varies slowest)")
      ->required()
      ->type_name("KEY=V1,V2,...")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  add_set_option(app, sets);
  add_prices_option(app, prices);
  app.add_option("--jobs,-j", jobs, "threads running points at once (default: one per core)")
      ->check(whole_number(1, 1024))
      ->type_name("N");
  app.add_option("--shard", shard_text, "run only shard i of N (0 <= i < N), contiguous in sweep order")
      ->type_name("i/N");
  auto* csv_opt =
      app.add_option("--csv", csv, "write the rows as CSV to FILE (locked while written)")->type_name("FILE");
  auto* jsonl_opt = app.add_option("--jsonl", jsonl, "write the rows as JSON lines to FILE (locked while written)")
                        ->type_name("FILE");
  auto* json_opt =
      app.add_flag("--json", json, "print the rows as JSON lines (docs/result.schema.json) instead of CSV");
  csv_opt->excludes(jsonl_opt)->excludes(json_opt);
  jsonl_opt->excludes(json_opt);
  auto* resume_opt = app.add_flag("--resume", resume, "keep the rows FILE already has and run only the missing points");
  auto* no_header_opt =
      app.add_flag("--no-header", no_header, "no CSV header line (default for shards after the first)");
  app.add_flag("--header", header, "a CSV header line even on shards after the first")->excludes(no_header_opt);
  add_require_fit_flag(app, require_fit);
  app.add_flag("--fail-on-error", fail_on_error, "exit 1 when any point failed (its row still has the error)");
  app.add_flag("--progress", progress, "progress on standard error even when it is not a terminal");
  app.add_option("--html", html,
                 "also write an HTML page of the scaling over the first --vary key (throughput, efficiency, "
                 "breakdown; not with --shard or --resume)")
      ->type_name("FILE")
      ->excludes(resume_opt)
      ->excludes(app.get_option("--shard"));
  int samples = 0;
  uint64_t seed = 1;
  const CLI::Option* seed_option = add_sample_options(app, samples, seed);
  if (const int rc = parse_cli(app, argc, argv); rc >= 0) return rc;

  return guarded([&] {
    std::vector<VaryAxis> axes;
    for (size_t i = 0; i < varies.size(); ++i) axes.push_back(parse_vary(varies[i], static_cast<int>(i) + 1));
    refuse_repeated_vary_keys(axes, sets);  // the last would win while the rows showed both values
    const Shard shard = shard_text.empty() ? Shard{} : parse_shard(shard_text);
    const size_t total = sweep_size(axes);
    // Plain names, not a structured binding: the lambdas below capture them (clang 14 refuses
    // to capture a binding).
    const auto range = shard_range(total, shard);
    const size_t begin = range.first, end = range.second;

    // Load every point first: user errors (unknown key, bad unit) stop the sweep before any run
    // and before the output file is opened.
    std::vector<SweepPoint> points;
    std::vector<LoadedScenario> loaded;
    const auto price_table = read_prices_option(prices);
    for (size_t i = begin; i < end; ++i) {
      points.push_back(sweep_point(axes, i));
      std::vector<std::string> overrides = sets;
      for (size_t a = 0; a < axes.size(); ++a) overrides.push_back(axes[a].key + "=" + points.back().values[a]);
      try {
        loaded.push_back(load_scenario(path, overrides));
        set_prices(loaded.back(), price_table, prices);
        refuse_samples_with_jobs(loaded.back(), samples);  // before any point runs
      } catch (const UserError& e) {
        throw at_vary(e, sets.size(), axes, points.back());
      }
    }

    // variability.* or --seed without --samples: every row is deterministic (models/run/variability.hpp).
    models::RunOptions unsampled;
    unsampled.seed_given = seed_option->count() > 0;
    unsampled.samples = samples;
    for (const auto& l : loaded)
      if (const std::string note = models::unsampled_variability_note(l.spec, unsampled); !note.empty()) {
        std::fprintf(stderr, "sweep: note: %s\n", note.c_str());
        break;
      }
    {                                      // before any run: the rows must not go over a file the sweep reads
      std::set<std::string> inputs{path};  // --vary may name other profiles or DeepSpeed files
      for (const auto& l : loaded) inputs.insert(l.files.begin(), l.files.end());
      refuse_outputs_over_inputs({{"--csv", csv}, {"--jsonl", jsonl}, {"--html", html}}, {inputs.begin(), inputs.end()});
    }
    std::vector<std::string> digests;  // by position in `points`: what each row was made from
    for (const auto& l : loaded) {
      std::vector<std::string> files = l.files;
      if (!prices.empty()) files.push_back(prices);
      digests.push_back(inputs_digest(std::move(files)));
    }
    const RowFormat format = (json || !jsonl.empty()) ? RowFormat::JsonLines : RowFormat::Csv;
    const SweepRows rows(axes, path, sets, samples, seed);
    SweepOutput out(format == RowFormat::Csv ? csv : jsonl, format);
    const bool with_header = format == RowFormat::Csv && !no_header && (shard.index == 0 || header);
    // The rows found must be this shard's first ones in sweep order, each once: that is all a
    // sweep leaves (it writes rows in order), and the rest is appended after them, so a row twice
    // or a row missing before others would give a file unlike an uninterrupted sweep's.
    size_t next_row = begin;
    std::map<size_t, int> row_lines;
    size_t kept_failed = 0, kept_over = 0;  // rows kept by --resume that failed / do not fit
    const std::set<size_t> present =
        out.start(with_header ? rows.csv_header() : "", resume, [&](int line_no, const Json& row) {
          const KeptRow kept = check_existing_row(rows, axes, begin, end, digests, out.name(), line_no, row);
          const size_t index = kept.index;
          if (const auto seen = row_lines.find(index); seen != row_lines.end())
            throw UserError({out.name(), line_no, 1}, "--resume: row " + std::to_string(index) +
                                                          " is already at line " + std::to_string(seen->second) +
                                                          " (expected each row once, as the sweep writes it)");
          if (index != next_row)
            throw UserError({out.name(), line_no, 1},
                            "--resume: row " + std::to_string(index) + " where row " + std::to_string(next_row) +
                                " comes first (expected the rows in sweep order from " + std::to_string(begin) +
                                " without a gap, as the sweep writes them)");
          row_lines.emplace(index, line_no);
          ++next_row;
          kept_failed += kept.failed;
          kept_over += kept.over;
          return index;
        });

    std::vector<size_t> todo;  // positions in `points` still to run
    for (size_t i = 0; i < points.size(); ++i)
      if (!present.count(points[i].index)) todo.push_back(i);

    // Rows complete out of order; each is written once every row before it is written.
    std::vector<std::optional<std::string>> done_lines(todo.size());
    size_t next_to_write = 0;
    std::mutex write_mutex;
    std::atomic<size_t> next{0}, failed{0}, over{0};
    std::vector<EfficiencyPoint> efficiency(todo.size());                    // by position in todo
    std::vector<viz::ScalingPoint> scaling(html.empty() ? 0 : todo.size());  // --html, by position in todo
    std::string scenario_name;
    const bool terminal = ::isatty(STDERR_FILENO);
    std::optional<ProgressLine> bar;
    if ((terminal || progress) && !points.empty()) bar.emplace(stderr, terminal, points.size(), present.size());
    std::exception_ptr write_error;
    std::function<void(size_t)> run_points;

    std::exception_ptr fatal;  // anything that is not a point's own error: the sweep stops
    // Workers numbered `allowed` and above stop before their next point (below: a refused thread).
    std::atomic<size_t> allowed{std::numeric_limits<size_t>::max()};
    // No worker takes a point before every thread is started, or refused and trimmed: points run
    // while the stacks still fill the address space would find no memory. A refusal wakes the
    // workers (`started`) so that those over `allowed` return, and the kept ones wait until
    // the others are joined and their stacks returned (`trimmed`).
    std::atomic<bool> started{false}, trimmed{false};
    auto worker = [&](size_t id) {
      started.wait(false);
      if (id >= allowed.load()) return;
      trimmed.wait(false);
      try {
        run_points(id);
      } catch (...) {
        std::lock_guard<std::mutex> lock(write_mutex);
        if (!fatal) fatal = std::current_exception();
        next.store(todo.size());
      }
    };
    // A point that runs out of memory while other points run beside it is run again alone once
    // the workers are done: its row is the machine's answer for that point, not for --jobs.
    std::vector<size_t> deferred;  // positions in todo, run again alone
    std::atomic<bool> alone{false};
    models::RunOptions options;
    options.timeline = false;
    options.samples = samples;  // every point draws with the same seed: GPU r is the same GPU
    options.seed = seed;
    options.seed_given = seed_option->count() > 0;
    // Runs todo[k] and writes its row (rows are written in order), or defers it (no row yet).
    deferred.reserve(todo.size());  // deferring a point never allocates: it runs when memory is short
    auto run_point = [&](size_t k) {
      const size_t i = todo[k];
      std::optional<models::RunResult> result;
      std::string error, line;
      // Memory runs short beside other points while the point runs or while its row is written:
      // either way the point runs again alone (below), where a shortage is its row's error.
      bool short_of_memory = false;
      int failed_gpus = 0;  // a failed point's GPUs, where its placement names them
      try {
        result = run_loaded(loaded[i], options);
      } catch (const UserError& e) {
        error = at_vary(e, sets.size(), axes, points[i]).what();
      } catch (const std::bad_alloc&) {
        short_of_memory = true;
      } catch (const std::exception& e) {
        error = std::string("internal error: ") + e.what();
      }
      if (short_of_memory && alone.load())
        error = "out of memory running this point (expected a point that fits in this machine's memory)";
      if (!short_of_memory || alone.load()) {
        try {
          // A failed point still states what it would have run on where its placement tiles the
          // nodes (a layout the model refused, a parallel size that does not divide the GPUs).
          std::optional<models::RunResult> shell;
          if (!result) try {
              const models::LayoutSummary where = models::describe_layout(loaded[i].spec);
              shell.emplace();
              shell->gpus = where.gpus, shell->nodes = where.nodes, shell->pods = where.pods;
              shell->layout = where.line;
            } catch (const std::exception&) {
              // The placement itself is the error (pods that do not fit the node): the GPUs it asked
              // for, where it names them, so a row grouped by GPU count is not dropped.
              const models::ScenarioSpec& sp = loaded[i].spec;
              if (sp.jobs.empty() && sp.placement.pods_per_node > 0 && sp.placement.gpus_per_pod > 0) {
                shell.emplace();
                shell->nodes = sp.cluster.nodes;
                shell->pods = sp.cluster.nodes * sp.placement.pods_per_node;
                shell->gpus = shell->pods * sp.placement.gpus_per_pod;
                shell->layout =
                    fmt::format("{} GPUs asked: {} node{}, {} pod{} x {} GPU{} (do not fit the node)", shell->gpus,
                                shell->nodes, shell->nodes == 1 ? "" : "s", shell->pods, shell->pods == 1 ? "" : "s",
                                sp.placement.gpus_per_pod, sp.placement.gpus_per_pod == 1 ? "" : "s");
              }
            }
          if (shell) failed_gpus = shell->gpus;
          const Json row =
              rows.row(points[i], result ? &*result : nullptr, error, digests[i], shell ? &*shell : nullptr);
          line = format == RowFormat::Csv ? SweepRows::csv_line(row) : SweepRows::json_line(row);
        } catch (const std::bad_alloc&) {
          if (alone.load()) throw;
          short_of_memory = true;
        }
      }
      if (short_of_memory && !alone.load()) {
        std::lock_guard<std::mutex> lock(write_mutex);
        deferred.push_back(k);
        return;
      }
      if (!result) failed.fetch_add(1);
      if (result && !result->fits()) over.fetch_add(1);
      std::lock_guard<std::mutex> lock(write_mutex);
      done_lines[k] = std::move(line);
      efficiency[k] = efficiency_point(result ? &*result : nullptr, failed_gpus);
      if (!html.empty()) {
        scaling[k] = scaling_point(axes, points[i], result ? &*result : nullptr, error);
        if (result && scenario_name.empty()) scenario_name = result->scenario;
      }
      try {
        for (; next_to_write < todo.size() && done_lines[next_to_write]; ++next_to_write) {
          out.write(*done_lines[next_to_write]);
          done_lines[next_to_write].reset();
        }
      } catch (...) {
        if (!write_error) write_error = std::current_exception();
        next.store(todo.size());  // stop taking points
      }
      if (bar) bar->point_done(!result);
    };
    run_points = [&](size_t id) {
      for (size_t k; id < allowed.load() && (k = next.fetch_add(1)) < todo.size();) run_point(k);
    };
    std::vector<std::thread> threads;
    const size_t n_threads = std::min<size_t>(jobs, std::max<size_t>(todo.size(), 1));
    threads.reserve(n_threads);
    for (size_t t = 1; t < n_threads; ++t) {
      try {  // the system may refuse a thread (a memory limit, a process limit): run on those it gave
        threads.emplace_back(worker, t);
      } catch (const std::exception& e) {
        // A refusal means the threads' stacks reached the limit, which leaves the points no memory:
        // keep half of the threads it gave and join the others, whose stacks are then returned.
        const size_t given = threads.size() + 1, keep = (given + 1) / 2;
        allowed.store(keep);
        started.store(true);
        started.notify_all();
        while (threads.size() + 1 > keep) {
          threads.back().join();
          threads.pop_back();
        }
        trimmed.store(true);
        trimmed.notify_all();
        std::fprintf(stderr,
                     "sweep: running on %zu thread%s, not %zu: the system refused another (%s) after %zu; half of "
                     "them are kept, to leave the points memory\n",
                     keep, keep == 1 ? "" : "s", n_threads, e.what(), given);
        break;
      }
    }
    started.store(true);
    started.notify_all();
    trimmed.store(true);
    trimmed.notify_all();
    alone.store(threads.empty());
    worker(0);
    for (auto& t : threads) t.join();
    if (!fatal && !write_error && !deferred.empty()) {
      std::sort(deferred.begin(), deferred.end());
      std::fprintf(stderr, "sweep: %zu point%s ran out of memory beside others; running %s again alone\n",
                   deferred.size(), deferred.size() == 1 ? "" : "s", deferred.size() == 1 ? "it" : "them");
      alone.store(true);
      try {
        for (size_t k : deferred) run_point(k);
      } catch (...) {
        fatal = std::current_exception();
      }
    }
    if (bar) bar->finish();
    if (write_error) std::rethrow_exception(write_error);
    if (fatal) std::rethrow_exception(fatal);
    out.commit();  // every point has its row: a file the rows were written beside is replaced now

    // The file's rows count as an uninterrupted sweep's would: a retry with --resume of a shard
    // whose first attempt failed (a Slurm requeue, a pod restarted) fails again, not silently.
    const size_t all_failed = failed.load() + kept_failed, all_over = over.load() + kept_over;
    const auto kept_part = [&](size_t kept) {
      return kept > 0 ? fmt::format("; {} of them in rows kept by --resume", kept) : std::string();
    };
    if (all_failed > 0)
      std::fprintf(stderr, "sweep: %zu of %zu points failed (see the error column%s)\n", all_failed, points.size(),
                   kept_part(kept_failed).c_str());
    if (all_over > 0)
      std::fprintf(stderr,
                   "sweep: %zu of %zu points do not fit in GPU memory (fits=false; their times are not real%s)\n",
                   all_over, points.size(), kept_part(kept_over).c_str());
    // Scaling efficiency (scaling_efficiency.hpp): rows keep the per-GPU rate only (a shard does
    // not know the sweep's first point); a whole sweep run at once prints the efficiencies on
    // stderr. With several --vary keys a single "first point" would compare unlike layouts: the
    // --html page gives each line its own first point instead.
    if (shard_text.empty() && present.empty() && axes.size() == 1)
      if (const std::string line = scaling_efficiency_line(efficiency, samples); !line.empty())
        std::fprintf(stderr, "sweep: %s\n", line.c_str());
    if (!html.empty()) {
      viz::SweepReport page{scenario_name, path, axes.front().key, {}, std::move(scaling), batch_note(efficiency)};
      for (const auto& v : varies) page.summary.emplace_back("--vary", v);
      for (const auto& v : sets) page.summary.emplace_back("--set", v);
      write_file_atomically(html, viz::sweep_html(page));
      std::fprintf(stderr, "sweep: wrote %s\n", html.c_str());
    }
    if (all_failed > 0 && fail_on_error) return 1;
    return all_over > 0 && require_fit ? kExitNotFits : 0;
  });
}

}  // namespace scenarios
