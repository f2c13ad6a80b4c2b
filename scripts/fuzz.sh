#!/usr/bin/env bash
# Builds every libFuzzer target (tests/fuzz/fuzz_*.cpp) with clang in build-fuzz (or FUZZ_BUILD), replays each
# target's kept inputs (seed corpus and regressions), then fuzzes each for a bounded time.
# Fails on the first crash, leak, sanitizer report or timeout; the crashing input is copied to
# tests/fuzz/regressions/<target>/ so it can be fixed and kept forever.
#   FUZZ_SECONDS   seconds per target (default 60)
#   FUZZ_TARGETS   space-separated subset (default: every fuzz_*.cpp)
#   FUZZ_JOBS      build parallelism (default: nproc)
#   FUZZ_BUILD     build directory (default build-fuzz); scripts/test-sanitize.sh's build-asan
#                  already holds every target, built with the same sanitizers (what .ci/run uses)
# Prints one line per target with libFuzzer's execution count (for the reliability note).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
seconds=${FUZZ_SECONDS:-60}
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}
if [ -n "${FUZZ_TARGETS:-}" ]; then
  read -r -a targets <<<"$FUZZ_TARGETS"
else
  targets=()
  for f in tests/fuzz/fuzz_*.cpp; do n=$(basename "$f" .cpp); targets+=("${n#fuzz_}"); done
fi

build=${FUZZ_BUILD:-build-fuzz}
if ! grep -qs '^COMMSIM_FUZZ:BOOL=ON' "$build/CMakeCache.txt"; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang \
        -DCOMMSIM_FUZZ=ON -DCOMMSIM_BENCH=OFF -DCOMMSIM_TESTS=OFF \
        -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" >/dev/null
fi
cmake --build "$build" -j"$jobs" --target "${targets[@]/#/fuzz_}"

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
work=$(mktemp -d /tmp/commsim-fuzz.XXXXXX)
trap 'rm -rf "$work"' EXIT
status=0
summary=""
for t in "${targets[@]}"; do
  bin=$build/tests/fuzz/fuzz_$t
  seeds=tests/fuzz/corpus/$t
  regressions=tests/fuzz/regressions/$t
  mkdir -p "$work/$t/new" "$work/$t/art" "$seeds"
  dirs=("$work/$t/new" "$seeds")
  [ -d "$regressions" ] && dirs+=("$regressions")
  echo "== fuzz_$t: ${seconds}s"
  # -timeout: one input over 10 s is a hang; -rss_limit_mb: a parser must not balloon.
  if "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=131072 \
       -print_final_stats=1 -artifact_prefix="$work/$t/art/" "${dirs[@]}" >"$work/$t/log" 2>&1; then
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$t/log" | tail -1)
    summary+="fuzz_$t: ${execs:-?} executions in ${seconds}s, no crash"$'\n'
  else
    status=1
    tail -40 "$work/$t/log"
    mkdir -p "$regressions"
    for a in "$work/$t/art"/*; do
      [ -f "$a" ] || continue
      cp "$a" "$regressions/$(basename "$a")"
      echo "fuzz_$t: kept $(basename "$a") in $regressions/ (fix the parser, then commit it)"
    done
    summary+="fuzz_$t: FAILED (see above)"$'\n'
  fi
done
printf '%s' "$summary"
exit $status
