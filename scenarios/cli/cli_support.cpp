// Shared plumbing of the `commsim` subcommands: argument errors, user errors, atomic writes.
#include "scenarios/cli/cli_support.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "models/parse_error.hpp"
#include "sim/time.hpp"

namespace scenarios {
namespace fs = std::filesystem;

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
      const bool repeat = o->get_multi_option_policy() == CLI::MultiOptionPolicy::TakeAll;
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
    std::fprintf(stderr, "%s: %s (see %s --help)\n", app.get_name().c_str(), what.c_str(), app.get_name().c_str());
    return 2;
  }
  return -1;
}

void add_set_option(CLI::App& app, std::vector<std::string>& sets) {
  app.add_option("--set", sets, "override a scenario key, e.g. --set placement.gpus_per_pod=1 (repeatable)")
      ->type_name("KEY=VALUE")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
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
    std::fprintf(stderr, "commsim: internal error: %s\n", e.what());
    return 1;
  }
}

models::RunResult run_loaded(const LoadedScenario& scenario, const models::RunOptions& options) {
  try {
    return models::run_scenario(scenario.spec, options);
  } catch (const models::SpecError& e) {
    throw scenario.to_user_error(e);
  } catch (const sim::Overflow& e) {
    throw UserError({scenario.spec.source_file, 1, 1},
                    std::string(e.what()) + " (expected sizes and times the 64-bit picosecond clock can hold)");
  }
}

namespace {
// Writes `content` to a temporary name next to `path` and renames it over `path`.
void write_one(const fs::path& path, const std::string& content, std::vector<fs::path>& temps) {
  const fs::path tmp = path.parent_path() / ("." + path.filename().string() + ".tmp" + std::to_string(::getpid()));
  temps.push_back(tmp);
  std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
  out << content;
  out.close();
  if (!out) throw UserError({path.string(), 1, 1}, "cannot write (expected a writable folder)");
}
}  // namespace

void write_files_atomically(const std::string& dir, const std::vector<std::pair<std::string, std::string>>& files) {
  std::error_code ec;
  const bool existed = fs::exists(dir, ec);
  if (existed && !fs::is_directory(dir, ec))
    throw UserError({dir, 1, 1}, "--out: exists and is not a folder (expected a folder to write into)");
  std::vector<fs::path> temps;
  std::vector<fs::path> renamed;
  try {
    if (!existed && !fs::create_directories(dir, ec))
      throw UserError({dir, 1, 1}, "--out: cannot create folder: " + ec.message() + " (expected a writable place)");
    for (const auto& [name, content] : files) write_one(fs::path(dir) / name, content, temps);
    for (size_t i = 0; i < files.size(); ++i) {
      const fs::path target = fs::path(dir) / files[i].first;
      fs::rename(temps[i], target, ec);
      if (ec)
        throw UserError({target.string(), 1, 1}, "cannot write: " + ec.message() + " (expected a writable folder)");
      renamed.push_back(target);
    }
  } catch (...) {
    for (const auto& t : temps) fs::remove(t, ec);
    for (const auto& r : renamed) fs::remove(r, ec);
    if (!existed) fs::remove_all(dir, ec);
    throw;
  }
}

void write_file_atomically(const std::string& path, const std::string& content) {
  fs::path p(path);
  if (p.parent_path().empty()) p = fs::path(".") / p;
  std::vector<fs::path> temps;
  std::error_code ec;
  try {
    write_one(p, content, temps);
    fs::rename(temps[0], p, ec);
    if (ec) throw UserError({path, 1, 1}, "cannot write: " + ec.message() + " (expected a writable path)");
  } catch (...) {
    for (const auto& t : temps) fs::remove(t, ec);
    throw;
  }
}

}  // namespace scenarios
