// Without --samples, variability.* and --seed change nothing: the note that says so
// (models/run/variability.hpp unsampled_variability_note).
#include <catch2/catch.hpp>

#include "models/run/variability.hpp"

TEST_CASE("variability: a spread or a seed without --samples gets a note, defaults and --samples none", "[models]") {
  models::ScenarioSpec spec;
  models::RunOptions options;
  CHECK(models::unsampled_variability_note(spec, options).empty());
  spec.cluster.params["variability.gpu_speed_cv"] = 0.011;  // the default, written out: nothing to warn about
  CHECK(models::unsampled_variability_note(spec, options).empty());
  spec.cluster.params["variability.gpu_speed_cv"] = 0.05;
  CHECK(models::unsampled_variability_note(spec, options) ==
        "variability.gpu_speed_cv acts only with --samples N: this result is deterministic, every GPU at nominal "
        "speed");
  options.seed_given = true;
  spec.cluster.params["variability.nic_jitter_cv"] = 0.1;
  CHECK(models::unsampled_variability_note(spec, options) ==
        "variability.gpu_speed_cv, variability.nic_jitter_cv and --seed act only with --samples N: this result is "
        "deterministic, every GPU at nominal speed");
  spec.cluster.params.clear();
  CHECK(models::unsampled_variability_note(spec, options) ==
        "--seed acts only with --samples N: this result is deterministic, every GPU at nominal speed");
  options.samples = 4;
  spec.cluster.params["variability.gpu_speed_cv"] = 0.05;
  CHECK(models::unsampled_variability_note(spec, options).empty());
}
