// Shared plumbing of the `commsim` subcommands: argument errors, user errors, running a scenario.
#include "scenarios/cli/cli_support.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "models/one_line.hpp"
#include "models/parse_error.hpp"
#include "models/run/variability.hpp"
#include "scenarios/load/price_file.hpp"
#include "sim/time.hpp"

namespace scenarios {

namespace {
// One line per option, tab-separated, for `commsim completion` (completion.cpp reads it):
//   opt <TAB> -b,--minbytes <TAB> TYPE (empty for a flag) <TAB> 1 when repeatable <TAB> description
//   pos <TAB> TYPE <TAB> description
//   sub <TAB> NAME <TAB> description, then that subcommand's lines prefixed "NAME:"
void list_options(const CLI::App& app, const std::string& prefix) {
  for (const CLI::Option* o : app.get_options()) {
    std::string desc = o->get_description();
    for (char& c : desc)
      if (c == '\t' || c == '\n') c = ' ';
    if (o->nonpositional()) {
      std::string names;
      for (const auto& n : o->get_snames()) names += (names.empty() ? "-" : ",-") + n;
      for (const auto& n : o->get_lnames()) names += (names.empty() ? "--" : ",--") + n;
      const bool flag = o->get_type_size_max() == 0;
      // Repeatable: every occurrence kept (TakeAll, Join), or a vector that takes several.
      const auto policy = o->get_multi_option_policy();
      const bool repeat = policy == CLI::MultiOptionPolicy::TakeAll || policy == CLI::MultiOptionPolicy::Join ||
                          o->get_expected_max() > 1;
      std::printf("%sopt\t%s\t%s\t%d\t%s\n", prefix.c_str(), names.c_str(), flag ? "" : o->get_type_name().c_str(),
                  repeat ? 1 : 0, desc.c_str());
    } else {
      std::printf("%spos\t%s\t%s\n", prefix.c_str(), o->get_type_name().c_str(), desc.c_str());
    }
  }
  for (const CLI::App* sub : app.get_subcommands({})) {
    std::printf("%ssub\t%s\t%s\n", prefix.c_str(), sub->get_name().c_str(), sub->get_description().c_str());
    list_options(*sub, prefix + sub->get_name() + ":");
  }
}
}  // namespace

int parse_cli(CLI::App& app, int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == kListOptionsFlag) {
    list_options(app, "");
    return 0;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string what = e.what();
    for (char& c : what)
      if (c == '\n') c = ' ';
    what = models::one_line(what);  // a value typed with a line break in it stays on the line
    // Positioned as every user error is (FILE:LINE:COL, the command line standing for the file):
    // at the option CLI11 names first ("--top: ..."), else at the argument it did not expect, else
    // at the command.
    std::string where = app.get_name();
    if (what.size() > 1 && what[0] == '-' && what.find(':') != std::string::npos) {
      where = what.substr(0, what.find(':'));
    } else if (dynamic_cast<const CLI::ExtrasError*>(&e)) {
      const auto colon = what.rfind(": ");
      if (colon != std::string::npos) where = what.substr(colon + 2, what.find(' ', colon + 2) - colon - 2);
    }
    const std::string command = where == app.get_name() ? std::string() : app.get_name() + ": ";
    std::fprintf(stderr, "%s:1:1: %s%s (see %s --help)\n", where.c_str(), command.c_str(), what.c_str(),
                 app.get_name().c_str());
    return 2;
  }
  return -1;
}

void add_require_fit_flag(CLI::App& app, bool& require_fit) {
  app.add_flag("--require-fit", require_fit,
               "exit 4 when a layout does not fit in GPU memory (its times are still printed), for scripts");
}

void add_set_option(CLI::App& app, std::vector<std::string>& sets) {
  app.add_option("--set", sets, "override a scenario key, e.g. --set placement.gpus_per_pod=1 (repeatable)")
      ->type_name("KEY=VALUE")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

void add_prices_option(CLI::App& app, std::string& path) {
  app.add_option("--prices", path,
                 "prices per node-hour by instance (TOML [prices.\"NAME\"] usd_per_hour, source): over the catalog's "
                 "(commsim instances), under a scenario's [cluster] price_per_hour")
      ->type_name("FILE");
}

std::map<std::string, models::PriceSpec> read_prices_option(const std::string& path) {
  if (path.empty()) return {};
  return read_price_file(path);
}

void set_prices(LoadedScenario& scenario, const std::map<std::string, models::PriceSpec>& prices,
                const std::string& path) {
  if (path.empty()) return;
  scenario.spec.cluster.prices = prices;
  scenario.files.push_back(path);
}

int guarded(const std::function<int()>& body) {
  try {
    return body();
  } catch (const UserError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  } catch (const models::ParseError& e) {  // a user's nccl-tests output, log or YAML: FILE:LINE:COL
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "commsim: internal error: %s\n", models::one_line(e.what()).c_str());
    return 1;
  }
}

void refuse_samples_with_jobs(const LoadedScenario& scenario, int samples) {
  if (samples <= 0 || scenario.spec.jobs.empty()) return;
  throw UserError({"--samples", 1, 1}, "--samples " + std::to_string(samples) + ": not modelled for " +
                                           scenario.spec.source_file +
                                           ", a scenario with [[jobs]] (expected no "
                                           "--samples with [[jobs]], or each job run as a scenario of its own)");
}

models::RunResult run_loaded(const LoadedScenario& scenario, const models::RunOptions& options) {
  refuse_samples_with_jobs(scenario, options.samples);
  try {
    models::RunResult result = models::run_scenario(scenario.spec, options);
    if (std::string note = models::unsampled_variability_note(scenario.spec, options); !note.empty())
      result.notes.push_back(std::move(note));
    return result;
  } catch (const models::SpecError& e) {
    throw scenario.to_user_error(e);
  } catch (const sim::Overflow& e) {
    throw UserError({scenario.spec.source_file, 1, 1},
                    std::string(e.what()) + " (expected sizes and times the 64-bit picosecond clock can hold)");
  }
}

namespace {
CLI::Validator number_check(bool zero_ok) {
  return CLI::Validator(
      [zero_ok](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v))
          return "'" + text + "' is not a number";
        if (v < 0 || (v == 0 && !zero_ok))
          return text + (zero_ok ? " is below 0 (expected 0 or more)" : " is not above 0 (expected a positive number)");
        return "";
      },
      zero_ok ? "NONNEGATIVE" : "POSITIVE");
}
}  // namespace

CLI::Validator whole_number(int64_t lo, int64_t hi) {
  // A bound this large only guards the int it is read into: help says "N or more".
  const bool open_ended = hi >= (int64_t{1} << 30);
  return CLI::Validator(
      [lo, hi, open_ended](std::string& text) -> std::string {
        size_t digits = (!text.empty() && (text[0] == '-' || text[0] == '+')) ? 1 : 0;
        const bool whole = digits < text.size() && text.find_first_not_of("0123456789", digits) == std::string::npos;
        if (!whole) return "'" + text + "' is not a whole number";
        errno = 0;
        const long long v = std::strtoll(text.c_str(), nullptr, 10);
        const std::string range =
            "expected " + std::to_string(lo) + (open_ended ? " or more" : " to " + std::to_string(hi));
        if (errno == ERANGE || v > hi)
          return text + (open_ended ? " is too large" : " is above " + std::to_string(hi) + " (" + range + ")");
        if (v < lo) return text + " is below " + std::to_string(lo) + " (" + range + ")";
        return "";
      },
      open_ended ? ">=" + std::to_string(lo) : std::to_string(lo) + ".." + std::to_string(hi));
}

const CLI::Validator& above_zero() {
  static const CLI::Validator v = number_check(false);
  return v;
}
const CLI::Validator& zero_or_more() {
  static const CLI::Validator v = number_check(true);
  return v;
}

namespace {
// A seed is any 64-bit unsigned number. CLI11 reads it with strtoull, which takes "-1" as 2^64 - 1
// and saturates a larger number to the same: refused here, so two seeds never give the same draws.
CLI::Validator seed_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const std::string range = "(expected 0 to " + std::to_string(std::numeric_limits<uint64_t>::max()) + ")";
        const size_t sign = (!text.empty() && (text[0] == '-' || text[0] == '+')) ? 1 : 0;
        const bool whole = sign < text.size() && text.find_first_not_of("0123456789", sign) == std::string::npos;
        if (!whole) return "'" + text + "' is not a whole number";
        if (text[0] == '-' && text.find_first_not_of('0', 1) != std::string::npos) return text + " is below 0 " + range;
        errno = 0;
        std::strtoull(text.c_str() + sign, nullptr, 10);
        if (errno == ERANGE) return text + " is too large " + range;
        return "";
      },
      "");  // no range in the type name: "S" says it all, and 20 digits would not help
}
}  // namespace

CLI::Option* add_sample_options(CLI::App& app, int& samples, uint64_t& seed) {
  app.add_option("--samples", samples,
                 "the step over N seeded draws of every GPU's speed (variability.* parameters): median, p99, "
                 "the slowest GPU; 0: deterministic; not with [[jobs]]")
      ->type_name("N")
      ->check(whole_number(0, 100000));
  return app.add_option("--seed", seed, "which draws --samples takes (the same seed, the same numbers)")
      ->type_name("S")
      ->check(seed_number());
}

}  // namespace scenarios
