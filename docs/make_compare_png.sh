#!/bin/sh
# Regenerates docs/compare.png: the seeds' "1 pod x 4 GPUs vs 4 pods x 1 GPU" comparison on a
# p4d.24xlarge, simulated by commsim and rendered by headless Chromium (top of the page: headline,
# scenarios, topology, per-rank step time, timeline).
# usage: docs/make_compare_png.sh [path/to/commsim]   (run from the repository root)
set -eu
commsim=${1:-build/scenarios/commsim}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$commsim" report scenarios/seeds/p4d_1pod_4gpu.toml scenarios/seeds/p4d_4pod_1gpu_efa.toml --html "$tmp/compare.html"
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
  --disable-component-update --disable-sync --hide-scrollbars --user-data-dir="$tmp/profile" \
  --window-size=1600,2350 --screenshot="$tmp/compare.png" "file://$tmp/compare.html" >/dev/null 2>&1
cp "$tmp/compare.png" docs/compare.png
echo "wrote docs/compare.png"
