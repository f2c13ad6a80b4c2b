#!/bin/bash
# The device call behind scenarios/validation/h200x1/measured/torch_host_issue.jsonl (kind
# nvidia-h200): comm/torch_host_issue.py with 1 and 2 processes on the one GPU (2: each its own
# NCCL host over Socket, under MPS where the image has it), twice each, interleaved.
#   OUT=/tmp/out bash bench/device/runs/run_h200x1_torch_issue.sh
set -u
HERE=$(cd "$(dirname "$0")/.." && pwd)  # bench/device: the programs are in its topic folders
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
{ date -u +%Y-%m-%dT%H:%M:%SZ; nproc; grep -m1 "model name" /proc/cpuinfo; nvidia-smi -L; } >"$OUT/torch_issue_info.txt" 2>&1
if command -v nvidia-cuda-mps-control >/dev/null 2>&1; then
  export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
  mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d && echo "mps=1" >>"$OUT/torch_issue_info.txt"
fi
for rep in 1 2; do
  for n in 1 2; do
    TAG=n${n}r$rep timeout 200 torchrun --standalone --nproc_per_node=$n "$HERE/comm/torch_host_issue.py" "$OUT/torch_host_issue.jsonl" \
      >>"$OUT/torch_issue_log.txt" 2>&1; echo "n=$n rep=$rep rc=$?" | tee -a "$OUT/torch_issue_info.txt"
  done
done
command -v nvidia-cuda-mps-control >/dev/null 2>&1 && echo quit | nvidia-cuda-mps-control
tail -3 "$OUT/torch_issue_log.txt"
