#!/bin/bash
# Runs the training-step checks on a 2-GPU machine (see README.md beside this file) and appends
# one JSON line per run to $OUT/steps.jsonl: tag, then the script's own output.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
SOCK="NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_IB_DISABLE=1 NCCL_SOCKET_IFNAME=lo"
run() {  # tag nproc script env...
  local tag=$1 n=$2 script=$3; shift 3
  env "$@" timeout 170 torchrun --standalone --nproc_per_node="$n" "bench/device/steps/$script" /tmp/r.json >/tmp/log_$tag.txt 2>&1 \
    && echo "{\"tag\": \"$tag\", \"result\": $(tr -d '\n' </tmp/r.json)}" >>"$OUT/steps.jsonl" \
    || { echo "$tag failed"; tail -5 /tmp/log_$tag.txt; }
  rm -f /tmp/r.json
}
for which in ${STEPS:-fsdp tp pp}; do
  script=torch_${which}_step.py
  [ "$which" = pp ] || run ${which}_n1 1 $script X=1
  run ${which}_p2p_n2 2 $script X=1
  run ${which}_shm_n2 2 $script NCCL_P2P_DISABLE=1
  run ${which}_sock_n2 2 $script $SOCK
done
