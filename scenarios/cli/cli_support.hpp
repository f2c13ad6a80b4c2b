#pragma once
// What every `commsim` subcommand does the same way: parse its arguments with CLI11 (help exits
// 0, a bad argument exits 2 with one line), load a scenario and run it with SpecErrors mapped to
// FILE:LINE:COL, print user errors as one line and exit 2; output files: output_files.hpp.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "models/result.hpp"
#include "models/run/run.hpp"
#include "scenarios/cli/output/output_files.hpp"
#include "scenarios/load/loader.hpp"

namespace scenarios {

// Parses argv into `app`. Returns -1 to go on, else the exit code (0 for --help, 2 for errors).
// `commsim CMD --commsim-list-options` lists the command's options for `commsim completion`.
int parse_cli(CLI::App& app, int argc, char** argv);
inline constexpr const char* kListOptionsFlag = "--commsim-list-options";

// Checks for numeric options whose refusal reads as a sentence ("0 is not above 0 (expected a
// positive number)"), where CLI11's own PositiveNumber prints its range up to DBL_MAX in full.
const CLI::Validator& above_zero();
const CLI::Validator& zero_or_more();
// The same for counts: a whole number from lo to hi ("'1e3' is not a whole number", where CLI11
// would say "Could not convert", and "Value abc not in range" for what is not a number at all).
CLI::Validator whole_number(int64_t lo, int64_t hi);

// Adds the repeatable `--set K=V` option.
// Exit status when --require-fit is given and a layout does not fit in GPU memory: its times are
// printed as usual, but a script sees the failure (2 is a user error, 3 a partial run).
constexpr int kExitNotFits = 4;
// --require-fit on `app` (run, compare, sweep).
void add_require_fit_flag(CLI::App& app, bool& require_fit);

void add_set_option(CLI::App& app, std::vector<std::string>& sets);

// Adds --samples N (the step over N seeded draws of every GPU's speed; 0: deterministic) and
// --seed S (which draws; the same seed gives the same numbers). Returns --seed, whose count says
// whether it was given (models::RunOptions::seed_given).
CLI::Option* add_sample_options(CLI::App& app, int& samples, uint64_t& seed);
// Adds `--prices FILE` (scenarios/load/price_file.hpp): $ per node-hour by instance, over the catalog's.
void add_prices_option(CLI::App& app, std::string& path);
// The price file's entries (none for an empty path); UserError at FILE:LINE:COL.
std::map<std::string, models::PriceSpec> read_prices_option(const std::string& path);
// Puts `prices` into the scenario and records `path` among its input files.
void set_prices(LoadedScenario& scenario, const std::map<std::string, models::PriceSpec>& prices,
                const std::string& path);

// Runs `body`; a UserError (or a SpecError that escaped) is printed as its one line with exit
// code 2; anything else is an internal failure (exit 1).
int guarded(const std::function<int()>& body);

// models::run_scenario with errors mapped back to where the user wrote the key at fault. A run
// without --samples whose variability.* or --seed would do nothing gets a note saying so
// (models::unsampled_variability_note).
models::RunResult run_loaded(const LoadedScenario& scenario, const models::RunOptions& options);
// --samples N (N > 0) on a scenario with [[jobs]]: a UserError at --samples (the draws are not
// modelled per job, docs/limitations.md), before anything runs.
void refuse_samples_with_jobs(const LoadedScenario& scenario, int samples);

}  // namespace scenarios
