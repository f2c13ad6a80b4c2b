#!/usr/bin/env bash
# Writes `commsim run --json` of every shipped scenario (scenarios/**/*.toml that has [model] or
# [collective]) into DIR, one file per scenario, so two builds can be compared byte for byte:
#   scripts/json-snapshot.sh build/scenarios/commsim /tmp/before
#   ... change the code, rebuild ...
#   scripts/json-snapshot.sh build/scenarios/commsim /tmp/after && diff -r /tmp/before /tmp/after
# Used to prove that a refactoring keeps behaviour (byte-identical outputs before and after).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:?usage: json-snapshot.sh COMMSIM_BINARY OUTDIR [EXTRA_ARGS...]}
out=${2:?usage: json-snapshot.sh COMMSIM_BINARY OUTDIR [EXTRA_ARGS...]}
shift 2
mkdir -p "$out"
n=0
while IFS= read -r f; do
  grep -q -E '^\[(model|collective)\]' "$f" || continue
  grep -q -E '^# snapshot: skip' "$f" && continue  # minutes per run (scenarios/validation/llama3)
  name=$(echo "$f" | tr '/' '_')
  if "$bin" run "$f" --json "$@" >"$out/$name.json" 2>"$out/$name.err"; then :; else
    echo "exit $?" >>"$out/$name.err"
  fi
  "$bin" topo "$f" >"$out/$name.topo" 2>&1 || echo "exit $?" >>"$out/$name.topo"
  n=$((n + 1))
done < <(find scenarios -name '*.toml' | LC_ALL=C sort)
# nccl-tests tables of every collective on the calibration machine and on two p4d nodes.
for s in scenarios/validation/h200x4.toml scenarios/validation/p4d_nodes_allreduce.toml; do
  for op in all_reduce all_gather reduce_scatter broadcast reduce alltoall sendrecv; do
    "$bin" nccl-tests "$s" --op "$op" -b 8 -e 1G -f 4 >"$out/$(basename "$s" .toml).$op.nccl-tests" 2>&1 || true
  done
done
echo "$n scenarios written to $out"
