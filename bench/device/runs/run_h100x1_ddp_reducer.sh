#!/bin/bash
# The device call behind scenarios/validation/h100x1/measured/ddp_reducer.jsonl (it ran on an H100):
# steps/ddp_reducer_step.py, plain against DDP's Reducer on a one-rank NCCL group.
#   OUT=/tmp/out bash bench/device/runs/run_h100x1_ddp_reducer.sh
set -u
HERE=$(cd "$(dirname "$0")/.." && pwd)  # bench/device: the programs are in its topic folders
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
{ date -u +%Y-%m-%dT%H:%M:%SZ; nproc; grep -m1 "model name" /proc/cpuinfo; nvidia-smi -L; } >"$OUT/ddp_reducer_info.txt" 2>&1
timeout 500 python3 "$HERE/steps/ddp_reducer_step.py" "$OUT/ddp_reducer.jsonl" >"$OUT/ddp_reducer_log.txt" 2>&1
echo "rc=$?" | tee -a "$OUT/ddp_reducer_info.txt"
tail -8 "$OUT/ddp_reducer_log.txt"
