#!/bin/bash
# The third device call behind scenarios/validation/h200x1/measured/ (kind nvidia-h200): the TCP test
# alone on an otherwise idle machine, twice over (lo and eth0 each time), because in the first call
# lo's points ran beside memory_peaks.py and eth0's after it. Appends to $OUT/tcp_alone.jsonl with a
# "round" field.
#   OUT=/tmp/out bash bench/device/runs/run_h200x1_tcp.sh
set -u
HERE=$(cd "$(dirname "$0")/.." && pwd)  # bench/device: the programs are in its topic folders
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0
{ date -u +%Y-%m-%dT%H:%M:%SZ; uname -r; nproc; uptime; } >"$OUT/info3.txt" 2>&1
for round in 1 2; do
  SECONDS_PER=${SECONDS_PER:-2} bash "$HERE/comm/tcp_budget.sh" /tmp/tcp_r$round.jsonl >>"$OUT/log3.txt" 2>&1
  sed "s/^{/{\"round\": $round, /" /tmp/tcp_r$round.jsonl >>"$OUT/tcp_alone.jsonl"
done
uptime >>"$OUT/info3.txt"
cat "$OUT/log3.txt"
