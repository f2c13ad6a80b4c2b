#pragma once
// The fit, checked by the collective engine: every measured point replayed as nccl-tests would run
// it (nccl_tests.hpp) on the scenario with the fitted parameters, so the error reported is what a
// scenario using the profile predicts, not the fit's linear model (which reduces each point to a
// step count and a byte term and leaves out what the engine adds: channel layout, pipeline fill,
// the tuner's choice at the fitted values).
#include <vector>

#include "models/calibrate/fit.hpp"

namespace models::calibrate {

// Fills each point's engine_us and the fit's engine_median_abs_error / engine_max_abs_error.
// `measurements` are the ones the fit was made from, in the same order. Throws SpecError where the
// engine cannot build a measurement's scenario.
void check_fit_with_engine(const std::vector<Measurement>& measurements, FitResult& fit);

}  // namespace models::calibrate
