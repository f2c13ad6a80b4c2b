// scenarios::check_yaml_terminates: the inputs on which yaml-cpp 0.7's LoadAll never returns are
// refused at their place; real job files pass untouched.
#include <catch2/catch.hpp>

#include <string>

#include "scenarios/import/k8s_job.hpp"
#include "scenarios/import/yaml_guard.hpp"

TEST_CASE("scenarios: a value starting with a comma is refused where yaml-cpp would loop forever", "[scenarios]") {
  // jbeder/yaml-cpp#1040/#1319: LoadAll pushes a null document per turn without consuming the
  // ','; their reproducer. (The fuzzers' own inputs are replayed from tests/fuzz/regressions.)
  const std::string text = "\n,\n";
  try {
    scenarios::check_yaml_terminates(text, "job.yaml");
    FAIL("expected a UserError");
  } catch (const scenarios::UserError& e) {
    CHECK(std::string(e.what()) ==
          "job.yaml:2:1: YAML: unexpected ',' where a value should start (expected a value: quote it, or remove "
          "the stray character)");
  }
  // The importer gives the same error instead of hanging.
  CHECK_THROWS_AS(scenarios::parse_k8s_job(text, "job.yaml"), scenarios::UserError);
}

TEST_CASE("scenarios: well-formed and merely malformed YAML pass the termination guard", "[scenarios]") {
  CHECK_NOTHROW(scenarios::check_yaml_terminates("", "a.yaml"));
  CHECK_NOTHROW(scenarios::check_yaml_terminates("a: 1\n---\nb: [1, 2]\n---\n", "a.yaml"));
  CHECK_NOTHROW(scenarios::check_yaml_terminates("args: [a\n  , b]\n", "a.yaml"));  // ',' inside a flow list
  CHECK_NOTHROW(scenarios::check_yaml_terminates("a: [1, 2\n", "a.yaml"));          // syntax error: left to the loader
  CHECK_NOTHROW(scenarios::check_yaml_terminates("a: 4\n ,\nb: \"1\"\n", "a.yaml"));  // yaml-cpp returns here
}
