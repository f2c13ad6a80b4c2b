#!/usr/bin/env bash
# The test suite again under AddressSanitizer and UndefinedBehaviorSanitizer, in its own build
# directory (build-asan). Any report fails the run.
# Skipped here, because the sanitizers add nothing to what they test and they would take most of
# the 45 minutes .ci/run has: the browser and validation tests (rendering and accuracy), and the two
# whole-library loops that run every shipped scenario (fold_equals_full_test.cpp runs each twice,
# once with --full; breakdown_test.cpp's seven terms), and the planner's exhaustive twin of its
# audit test (tests/models/plan/search_test.cpp: both simulate every candidate of the same space; the
# audit one stays). All run in scripts/test.sh; the code they reach is reached here by the smaller tests
# of each mechanism.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
jobs=$(nproc 2>/dev/null || echo 2)
# -O1 -g1 (line tables for the reports): what ASan recommends, and less than half the compile
# time of RelWithDebInfo (-O2 -g): scenarios/load/loader.cpp took 6.8 s instead of 15.5 s of CPU.
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
      -DCOMMSIM_SANITIZE=ON -DCOMMSIM_BENCH=OFF >/dev/null
# Not test_validation: its tests (accuracy against measurements) do not run here (below).
cmake --build build-asan -j"$jobs" --target commsim test_architecture test_sim test_models test_scenarios test_viz
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
heavy="rank classes and closed forms give the full simulation's run --json, events and mode note apart"
heavy+="|every rank's breakdown has the seven terms and adds up to the step on every shipped scenario"
heavy+="|the best-first winner equals the best of every candidate simulated"
# The browser tests (Catch tag [browser]; CTest has no label for a tag, so by name).
browser="reports render in headless Chromium|no two labels overlap in the rendered report"
browser+="|the sweep page over nodes renders its three charts"
# The two address-space limit tests (ulimit -v): ASan reserves terabytes of shadow address space at
# start, so under any such limit the program aborts before it reads its input.
rlimit="a sweep the system refuses threads runs on fewer, with every row"
rlimit+="|a sweep point that runs out of memory is its row's error, the others run"
ctest --test-dir build-asan --output-on-failure -j"$jobs" -LE "validation|long" -E "$heavy|$browser|$rlimit|_NOT_BUILT"
