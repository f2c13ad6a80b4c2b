#!/bin/bash
# The device call behind scenarios/validation/h200x1/measured/nccl_p2p_issue_cost.jsonl (kind
# nvidia-h200): builds comm/nccl_p2p_issue_cost.cu against the NCCL of the pip package that PyTorch
# uses and runs it (about a minute).
#   OUT=/tmp/out bash bench/device/runs/run_h200x1_p2p_issue.sh
set -u
HERE=$(cd "$(dirname "$0")/.." && pwd)  # bench/device: the programs are in its topic folders
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
NCCL_PY=$(python3 -c "import nvidia, os; print([p for p in nvidia.__path__][0])")
NCCL_H=$(find $NCCL_PY -name nccl.h | head -1); NCCL_SO=$(find $NCCL_PY -name 'libnccl.so*' | head -1)
{ date -u +%Y-%m-%dT%H:%M:%SZ; nproc; grep -m1 "model name" /proc/cpuinfo; nvidia-smi --query-gpu=name,driver_version --format=csv
  nvcc --version | tail -1; echo "nccl.h $NCCL_H"; echo "libnccl $NCCL_SO"; } >"$OUT/p2p_issue_info.txt" 2>&1
L=/tmp/ncclp2p; mkdir -p $L; ln -sf $NCCL_SO $L/libnccl.so
nvcc -O3 -arch=sm_90 -o /tmp/nccl_p2p_issue_cost "$HERE/comm/nccl_p2p_issue_cost.cu" -I"$(dirname $NCCL_H)" -L$L -lnccl \
  >>"$OUT/p2p_issue_info.txt" 2>&1 || { echo "build failed"; tail -20 "$OUT/p2p_issue_info.txt"; exit 1; }
LD_LIBRARY_PATH=$(dirname $NCCL_SO):${LD_LIBRARY_PATH:-} NCCL_NVLS_ENABLE=0 timeout 400 /tmp/nccl_p2p_issue_cost \
  >"$OUT/nccl_p2p_issue_cost.jsonl" 2>"$OUT/p2p_issue_err.txt"; echo "rc=$?"
cat "$OUT/p2p_issue_info.txt"; tail -5 "$OUT/p2p_issue_err.txt"; cat "$OUT/nccl_p2p_issue_cost.jsonl"
