// commsim nccl-tests SCENARIO.toml [all_reduce_perf] [--op OP] [nccl-tests' own flags]
//                   [--set K=V]... [--compare MEASURED.txt] [--json]
// Predicts nccl-tests' own table for the scenario's machine. People paste their nccl-tests
// command lines, so every flag nccl-tests takes is accepted with its meaning (src/common.cu):
// -b -e -f -i set the sizes; -d the data type (count and type columns: float, half, bfloat16,
// int8, double, ... or all); -o the reduction (or all); -r the root; -t and -g the threads and
// GPUs per process (one process drives them: P2P/direct pointer); -n -w -m -c -G -N -z -p -C
// change the header as they would; -a -R -T -y are ignored. A flag that cannot change a
// prediction gets one note on standard error. The program's name may lead the flags
// (all_gather_perf -b 8 ...), naming the collective. --compare adds the measured times of a
// real nccl-tests output and the error per size.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "models/calibrate/nccl_tests.hpp"
#include "models/collective_size.hpp"
#include "models/nccl/env.hpp"
#include "models/nccl/example_tuner.hpp"
#include "models/nccl/ops.hpp"
#include "models/nccl/tuner_tables.hpp"
#include "models/readers/nccl_tests_output.hpp"
#include "models/run/layout_line.hpp"
#include "scenarios/cli/cli_support.hpp"
#include "scenarios/cli/command.hpp"
#include "scenarios/cli/measured/nccl_tests_compare.hpp"
#include "scenarios/cli/nccl_tests_support.hpp"
#include "scenarios/cli/output/nccl_tests_table.hpp"
#include "scenarios/cli/output/result_schema.hpp"

namespace scenarios {
namespace {

const std::vector<std::string>& coll_names() {
  static const std::vector<std::string> names = {"all_reduce", "all_gather", "reduce_scatter", "broadcast",
                                                 "reduce",     "alltoall",   "sendrecv"};
  return names;
}

models::nccl::CollOp parse_op(std::string text, const std::string& where) {
  const std::string as_typed = text;
  text = std::filesystem::path(text).filename().string();  // ./build/all_reduce_perf
  if (text.size() > 5 && text.compare(text.size() - 5, 5, "_perf") == 0) text.resize(text.size() - 5);
  models::nccl::CollOp op;
  if (models::nccl::parse_coll_op(text, op)) return op;
  // A program is named as nccl-tests' binaries are (all_reduce_perf): suggest in that form, and
  // match a mistyped suffix too (all_reduce_perff).
  const bool program = where == "program";
  std::vector<std::string> names = coll_names();
  if (program)
    for (auto& n : names) n += "_perf";
  const std::string near = closest_match(program ? std::filesystem::path(as_typed).filename().string() : text, names);
  throw UserError({where, 1, 1},
                  "unknown " + std::string(program ? "nccl-tests program" : "collective") + " '" + as_typed + "' (" +
                      (near.empty() ? program ? std::string("expected all_reduce_perf, all_gather_perf, "
                                                            "reduce_scatter_perf, broadcast_perf, "
                                                            "reduce_perf, alltoall_perf or sendrecv_perf")
                                              : std::string("expected all_reduce, all_gather, "
                                                            "reduce_scatter, broadcast, reduce, alltoall "
                                                            "or sendrecv")
                                    : "did you mean '" + near + "'?") +
                      ")");
}

std::vector<std::string> one_or_all(const std::string& value, const std::vector<std::string>& all,
                                    const std::vector<std::string>& everything, const std::string& flag,
                                    const std::string& what) {
  if (value == "all") return everything;
  if (std::find(all.begin(), all.end(), value) != all.end()) return {value};
  // Names people use for nccl-tests' types, as a hint only (nccl-tests itself takes none of them).
  static const std::map<std::string, std::string> kAliases = {
      {"bf16", "bfloat16"}, {"fp16", "half"},  {"float16", "half"}, {"f16", "half"},       {"fp32", "float"},
      {"float32", "float"}, {"f32", "float"},  {"fp64", "double"},  {"float64", "double"}, {"char", "int8"},
      {"int", "int32"},     {"fp8", "f8e4m3"}, {"e4m3", "f8e4m3"},  {"e5m2", "f8e5m2"}};
  const auto alias = kAliases.find(value);
  const std::string near = alias != kAliases.end() && std::find(all.begin(), all.end(), alias->second) != all.end()
                               ? alias->second
                               : closest_match(value, all);
  std::string list;
  for (const auto& a : all) list += (list.empty() ? "" : ", ") + a;
  throw UserError({flag, 1, 1},
                  "unknown " + what + " '" + value + "' (" +
                      (near.empty() ? "expected one of " + list + " or all" : "did you mean '" + near + "'?") + ")");
}

}  // namespace

int cmd_nccl_tests(int argc, char** argv) {
  CLI::App app{
      "Predict nccl-tests output (the same table format) for a scenario's machine; nccl-tests' flags are "
      "accepted as nccl-tests takes them.",
      "commsim nccl-tests"};
  std::string path, program, op_name, min_s = "8", max_s = "1G", compare, type = "float", redop = "sum";
  int64_t factor = 2;
  int64_t step_bytes = 1 << 20;
  int gpus = 1, threads = 1, root = 0;
  NcclTestsHeader header;
  int blocking = 0, parallel_init = 0, cputime = 0, average = 1, local_register = 0, timeout = 0, stream_null = 0;
  bool json = false;
  std::vector<std::string> sets;
  app.add_option("scenario", path, "scenario file (TOML)")->required()->type_name("SCENARIO.toml");
  app.add_option("program", program, "the nccl-tests program, as in a pasted command line (all_gather_perf)")
      ->type_name("NAME_perf");
  app.add_option("--op", op_name,
                 "all_reduce | all_gather | reduce_scatter | broadcast | reduce | alltoall | sendrecv "
                 "(a reduction such as sum is read as nccl-tests' --op)");
  app.add_option("-b,--minbytes", min_s, "smallest size (nccl-tests syntax: 8, 128K, 1M, 1G; default 8)");
  app.add_option("-e,--maxbytes", max_s, "largest size (default 1G)");
  // nccl-tests reads -f with strtol (src/common.cu: size_t stepFactor): a fraction would be cut to
  // its whole part (1.5 -> 1, stepping by -i), so it is refused rather than read another way.
  app.add_option("-f,--stepfactor", factor, "multiply the size by this whole factor each step (1: add -i instead)")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            char* end = nullptr;
            const double v = std::strtod(text.c_str(), &end);
            if (!text.empty() && *end == '\0' && v != std::floor(v))
              return "'" + text + "' is not a whole number: nccl-tests reads -f as an integer (strtol), so " + text +
                     " would step by " + std::to_string(static_cast<long long>(v)) +
                     (v < 2 ? " (that is, add -i)" : "") + " (expected a whole factor from 1 to 1024)";
            return "";
          },
          "1..1024"))
      ->check(whole_number(1, 1024));
  app.add_option("-i,--stepbytes", step_bytes, "add this many bytes each step when -f is 1")
      ->check(whole_number(1, int64_t{1} << 40));
  app.add_option("-d,--datatype", type,
                 "data type: int8 uint8 int32 uint32 int64 uint64 half float double bfloat16 "
                 "f8e4m3 f8e5m2, or all (default float)");
  app.add_option("-o,--redop", redop, "reduction: sum prod max min avg mulsum, or all (nccl-tests' -o/--op)");
  app.add_option("-r,--root", root, "root rank of broadcast and reduce")->check(whole_number(0, 1 << 30));
  app.add_option("-t,--nthreads", threads, "threads per process, each driving -g GPUs")->check(whole_number(1, 1024));
  app.add_option("-g,--ngpus", gpus, "GPUs per thread (one process drives them: P2P/direct pointer)")
      ->check(whole_number(1, 1024));
  app.add_option("-n,--iters", header.iters, "iterations (header only: a prediction is per iteration)")
      ->check(whole_number(0, 1 << 30));
  app.add_option("-w,--warmup_iters", header.warmup_iters, "warm-up iterations (header only)")
      ->check(whole_number(0, 1 << 30));
  app.add_option("-m,--agg_iters", header.agg_iters, "aggregated iterations (header only)")
      ->check(whole_number(0, 1 << 30));
  app.add_option("-N,--run_cycles", header.cycles, "print the table this many times (0, endless, prints it once)")
      ->check(whole_number(0, 1000));
  app.add_option("-c,--check", header.check, "check iterations (header only)")->check(whole_number(0, 1 << 30));
  app.add_option("-G,--cudagraph", header.graph, "CUDA graph launches (header only)")->check(whole_number(0, 1 << 30));
  app.add_option("-z,--blocking", blocking, "blocking collectives (header line only)");
  app.add_option("-p,--parallel_init", parallel_init, "threads initialise NCCL in parallel (header line only)");
  app.add_option("-C,--report_cputime", cputime, "name the time columns cputime");
  app.add_option("-a,--average", average, "how ranks' times are combined (ignored: every rank predicts the same)");
  app.add_option("-R,--local_register", local_register, "buffer registration (ignored)");
  app.add_option("-T,--timeout", timeout, "timeout in seconds (ignored)");
  app.add_option("-y,--stream_null", stream_null, "use the NULL stream (ignored)");
  app.add_option("--compare", compare, "a real nccl-tests output to compare with")->type_name("MEASURED.txt");
  app.add_flag("--json", json, "print one JSON object (docs/result.schema.json) instead of the table");
  add_set_option(app, sets);
  if (const int rc = parse_cli(app, argc, argv); rc >= 0) return rc;

  return guarded([&] {
    models::calibrate::NcclTestsOptions o;
    // nccl-tests' --op is the reduction: accept it there, as a pasted command line means it.
    if (std::find(nccl_redops().begin(), nccl_redops().end(), op_name) != nccl_redops().end() || op_name == "all") {
      if (app.count("-o") == 0) redop = op_name;
      op_name.clear();
    }
    if (!program.empty() && !op_name.empty() && parse_op(program, "program") != parse_op(op_name, "--op"))
      throw UserError({"--op", 1, 1}, "--op " + op_name + " contradicts the program " + program +
                                          " (expected one collective: give the program or --op)");
    // Neither given: the measured file's collective, where its header names one (one file may hold
    // several runs appended: each collective is compared on its own, --op choosing which).
    std::string file_op;
    if (!compare.empty() && op_name.empty() && program.empty()) {
      std::vector<std::string> ops;
      for (const auto& run : read_nccl_tests_output(compare, "--compare").runs)
        if (!run.op.empty() && std::find(ops.begin(), ops.end(), run.op) == ops.end()) ops.push_back(run.op);
      if (ops.size() > 1)
        throw UserError({compare, 1, 1}, compare + " holds runs of " + fmt::format("{}", fmt::join(ops, "_perf, ")) +
                                             "_perf (expected --op " + fmt::format("{}", fmt::join(ops, " or --op ")) +
                                             " to compare one)");
      if (ops.size() == 1) file_op = ops.front();
    }
    o.op = !op_name.empty()   ? parse_op(op_name, "--op")
           : !program.empty() ? parse_op(program, "program")
           : !file_op.empty() ? parse_op(file_op, "--compare")
                              : models::nccl::CollOp::AllReduce;
    if (!parse_nccl_tests_size(min_s, o.min_bytes))
      throw UserError({"-b", 1, 1}, "bad size '" + min_s + "' (expected e.g. 8, 128K, 1M, 1G)");
    if (!parse_nccl_tests_size(max_s, o.max_bytes))
      throw UserError({"-e", 1, 1}, "bad size '" + max_s + "' (expected e.g. 8, 128K, 1M, 1G)");
    for (const auto& [opt, text, bytes] : {std::tuple{"-b", min_s, o.min_bytes}, std::tuple{"-e", max_s, o.max_bytes}})
      if (bytes > models::kMaxCollectiveBytes)  // the engine's bound (models/collective_size.hpp)
        throw UserError({opt, 1, 1}, "size '" + text +
                                         "' is more than 2^50 bytes (1 PiB), the largest collective commsim simulates "
                                         "(expected a size up to 1024T)");
    if (o.max_bytes < o.min_bytes)
      throw UserError({"-e", 1, 1}, "the largest size is smaller than the smallest (expected -e MAX >= -b MIN)");
    o.factor = static_cast<double>(factor);
    o.step_bytes = step_bytes;
    if (factor <= 1 && (o.max_bytes - o.min_bytes) / step_bytes > 100000)
      throw UserError({"-i", 1, 1}, "more than 100,000 sizes (expected a larger -i or -f > 1)");

    std::vector<std::string> names, classic;
    for (const auto& t : nccl_data_types()) names.push_back(t.name);
    classic.assign(names.begin(), names.begin() + 10);
    const std::vector<std::string> types = one_or_all(type, names, classic, "-d", "data type");
    const bool reduces = o.op == models::nccl::CollOp::AllReduce || o.op == models::nccl::CollOp::Reduce ||
                         o.op == models::nccl::CollOp::ReduceScatter;
    const std::vector<std::string> redops =
        reduces ? one_or_all(redop, nccl_redops(), nccl_redops(), "-o", "reduction") : std::vector<std::string>{"sum"};

    LoadedScenario scenario = load_scenario(path, sets);
    std::vector<std::string> notes;
    // The measured file before any work: an empty or wrong one fails before the table is printed.
    // The NCCL variables it ran with (its INFO lines, or -J's env) are applied, so the prediction is
    // of the run it is compared with (as calibrate and diff do); a variable the scenario sets itself
    // stays the scenario's here, since this table is the scenario's prediction first.
    if (!compare.empty()) {
      const NcclTestsFile measured = read_nccl_tests_output(compare, "--compare");
      std::string applied, kept;
      std::map<std::string, SourcePos> env_at;  // a refused value is the file's error, at its line
      for (const auto& [k, v] : nccl_env_from_log(measured.text, compare, &env_at))
        if (!scenario.spec.nccl_env.count(k)) {
          scenario.spec.nccl_env[k] = v;
          applied += (applied.empty() ? "" : ", ") + k + "=" + v;
        } else {
          env_at.erase(k);
          if (scenario.spec.nccl_env.at(k) != v)
            kept += (kept.empty() ? "" : ", ") + k + "=" + v + " (the scenario's " + scenario.spec.nccl_env.at(k) + ")";
        }
      // Where they differ the comparison is of another run than the file's: said, never silent
      // (calibrate and diff take the file's).
      if (!kept.empty())
        notes.push_back(compare + " ran with " + kept +
                        ": the scenario's values are kept, so the comparison is of another setting than the run's");
      check_run_nccl_env(scenario.spec.nccl_env, env_at);
      std::string version_note;
      if (const int version = usable_nccl_version(measured, compare, &version_note);
          version > 0 && scenario.spec.nccl_version == 0) {
        scenario.spec.nccl_version = version;
        applied += (applied.empty() ? "NCCL " : ", NCCL ") + models::nccl::nccl_version_text(version) + "'s tuner";
      }
      if (!version_note.empty()) notes.push_back(version_note);
      if (!applied.empty()) notes.push_back(compare + " ran with " + applied + ": applied to the prediction");
      // The sizes the measured run swept (its rows' smallest and largest), unless -b or -e says
      // otherwise: the comparison then covers every size of the file.
      int64_t lo = 0, hi = 0;
      const auto compared = runs_of(measured.runs, o.op);
      if (compared.size() < measured.runs.size())
        notes.push_back(fmt::format("{} also holds {} run{} of other collectives, not compared (--op names which)",
                                    compare, measured.runs.size() - compared.size(),
                                    measured.runs.size() - compared.size() == 1 ? "" : "s"));
      for (const auto& run : compared)
        for (const auto& row : run.rows) {
          if (lo == 0 || row.size_bytes < lo) lo = row.size_bytes;
          hi = std::max<int64_t>(hi, row.size_bytes);
        }
      if (app.count("-b") == 0 && app.count("-e") == 0 && lo > 0 && hi <= models::kMaxCollectiveBytes &&
          (lo != o.min_bytes || hi != o.max_bytes)) {
        o.min_bytes = lo;
        o.max_bytes = hi;
        notes.push_back(fmt::format("sizes {} - {} B, the measured file's (-b and -e choose others)", lo, hi));
      }
    }
    auto given = [&](const char* flag) { return app.count(flag) > 0; };
    // A note for a flag given with a value other than nccl-tests' default (src/common.cu).
    auto note = [&](const char* flag, int value, int nccl_tests_default, const std::string& why) {
      if (given(flag) && value != nccl_tests_default)
        notes.push_back(std::string(flag) + " " + std::to_string(value) + ": " + why);
    };
    const int per_process = threads * gpus;
    NcclTestsTable table;
    try {
      if (per_process > 1) scenario.spec.placement.single_process = true;
      table.ranks = nccl_tests_ranks(scenario.spec);
      const int pod_gpus = gpus_per_pod(table.ranks);
      if (per_process > pod_gpus)
        throw UserError({given("-g") ? "-g" : "-t", 1, 1},
                        std::to_string(per_process) + " GPUs per process (-t x -g) but a pod has " +
                            std::to_string(pod_gpus) + " (expected -t x -g <= the GPUs of a pod)");
      if (per_process > 1 && per_process < pod_gpus)
        notes.push_back("-t x -g = " + std::to_string(per_process) + ": the model runs all " +
                        std::to_string(pod_gpus) + " GPUs of a pod in one process");
      // One process per GPU (mpirun -np <ranks>), or one per pod when one process drives them.
      const bool single = scenario.spec.placement.single_process;
      if ((given("-g") || given("-t")) && per_process == 1 && single && pod_gpus > 1)
        notes.push_back("-t x -g = 1: the scenario runs the " + std::to_string(pod_gpus) +
                        " GPUs of a pod in one process (placement.single_process); --set "
                        "placement.single_process=false predicts one process per GPU, as mpirun -np N runs -g 1");
      assign_processes(table.ranks, single ? pod_gpus : 1);
      table.header = header;
      table.header.threads = single ? threads : 1;
      table.header.gpus = single ? (per_process > 1 ? gpus : pod_gpus) : 1;
      table.header.blocking = blocking != 0;
      table.header.parallel_init = parallel_init != 0;
      table.header.cputime = cputime != 0;
      if (root >= static_cast<int>(table.ranks.size()))
        throw UserError({"-r", 1, 1}, "root " + std::to_string(root) + " is not a rank (expected 0 to " +
                                          std::to_string(table.ranks.size() - 1) + ")");
      o.root = root;
      for (const auto& t : types)
        for (const auto& r : redops) {
          models::calibrate::NcclTestsOptions pass = o;
          pass.type = t;
          for (const auto& d : nccl_data_types())
            if (t == d.name) pass.type_size = d.size;
          pass.redop = r;
          table.passes.push_back({pass, models::calibrate::run_nccl_tests(scenario.spec, pass)});
        }
    } catch (const models::SpecError& e) {
      throw scenario.to_user_error(e);
    }
    // The NCCL variables set but not modelled, or not known, and CollNet without SHARP: the notes
    // run prints (models/nccl/env.hpp), since a table that ignores a variable must say so.
    for (auto& n : models::nccl::unmodelled_nccl_env_notes(scenario.spec.nccl_env)) notes.push_back(std::move(n));
    if (auto n = models::nccl::collnet_note(scenario.spec.nccl_env, scenario.spec.cluster.fabric.sharp))
      notes.push_back(std::move(*n));
    if (auto n = models::nccl::example_tuner_note(scenario.spec.nccl_env, scenario.spec.nccl_version))
      notes.push_back(std::move(*n));
    table.gpu = table.passes.front().result.gpu_name;
    if (!table.passes.front().result.network_note.empty()) notes.push_back(table.passes.front().result.network_note);
    if (!table.passes.front().result.nvlink_note.empty()) notes.push_back(table.passes.front().result.nvlink_note);
    if (!table.passes.front().result.host_loop_note.empty())
      notes.push_back(table.passes.front().result.host_loop_note);

    note("-n", header.iters, 20, "shown in the header (a predicted iteration does not depend on it)");
    note("-w", header.warmup_iters, 5, "shown in the header (warm-up does not change a prediction)");
    note("-m", header.agg_iters, 1, "shown in the header (aggregated launches are not modelled)");
    note("-c", header.check, 1, "shown in the header (a prediction has no data to check)");
    note("-G", header.graph, 0, "shown in the header (CUDA graph launches are not modelled)");
    if (given("-N") && header.cycles == 0) notes.push_back("-N 0: the table is printed once, not endlessly");
    note("-z", blocking, 0, "shown in the header (blocking launches are not modelled)");
    note("-p", parallel_init, 0, "shown in the header (initialisation is not modelled)");
    note("-C", cputime, 0,
         "the columns are named cputime; they hold the predicted time (nccl-tests prints the host's launch time "
         "there), and algbw is the size over it, from which commsim's readers take a cputime row's time");
    note("-a", average, 1, "ignored (every rank predicts the same time)");
    note("-R", local_register, 0, "ignored (buffer registration is not modelled)");
    note("-T", timeout, 0, "ignored (a prediction has no timeout)");
    note("-y", stream_null, 0, "ignored (streams are not modelled)");
    if (given("-r") && root != 0 && (o.op == models::nccl::CollOp::Broadcast || o.op == models::nccl::CollOp::Reduce))
      notes.push_back("-r " + std::to_string(root) +
                      ": shown in the root column (the modelled time does not depend on "
                      "the root)");
    if (reduces && redop != "sum") notes.push_back("-o " + redop + ": every reduction costs the same in the model");
    for (const auto& n : notes) std::fprintf(stderr, "commsim nccl-tests: note: %s\n", n.c_str());

    std::optional<Comparison> cmp;
    if (!compare.empty())
      cmp = compare_with(compare, table.passes.front().result, o.op, !op_name.empty() || !program.empty(),
                         static_cast<int>(table.ranks.size()),
                         scenario.spec.cluster.groups.empty() ? scenario.spec.cluster.nodes : 0,
                         std::max(1, scenario.spec.placement.pods_per_node));
    CommandInputs inputs = scenario_inputs(scenario, sets);
    if (!compare.empty()) inputs.files.push_back(compare);
    if (json) {
      Json j = nccl_tests_table_json(table, inputs);
      // What the table ran on, as every output states it (models/run/layout_line.hpp): the
      // scenario's placement, with the program in place of the scenario's own collective; null
      // where the ranks are not the scenario's GPUs.
      std::optional<models::RunResult> where;
      if (const models::LayoutSummary l = models::describe_layout(scenario.spec);
          l.gpus == static_cast<int>(table.ranks.size()) && scenario.spec.jobs.empty()) {
        where.emplace();
        where->gpus = l.gpus, where->nodes = l.nodes, where->pods = l.pods;
        where->layout = l.line.substr(0, l.line.rfind("; ")) + "; nccl-tests " + models::nccl::coll_op_name(o.op);
      }
      add_layout(j, where ? &*where : nullptr);
      j["notes"] = notes;
      if (cmp)
        j["comparison"] = {{"file", cmp->file},
                           {"rows", cmp->rows},
                           {"sizes_compared", cmp->count},
                           {"median_abs_error", cmp->count ? Json(cmp->median) : Json(nullptr)},
                           {"max_abs_error", cmp->count ? Json(cmp->max) : Json(nullptr)}};
      std::fputs(dump_json(std::move(j)).c_str(), stdout);
      return 0;
    }
    std::fputs(format_nccl_tests_table(table).c_str(), stdout);
    if (cmp) std::fputs(cmp->text.c_str(), stdout);
    return 0;
  });
}

}  // namespace scenarios
