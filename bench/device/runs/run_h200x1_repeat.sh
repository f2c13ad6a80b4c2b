#!/bin/bash
# The second device call behind scenarios/validation/h200x1/measured/ (kind nvidia-h200): the GEMM
# model rows again in reverse order and the powers-of-two grid in bf16 (how much a row depends on the
# GPU's power state), the kernel-time profile of the z3_n1 and tp_n1 steps, and the 16-block decoder
# under an allocator cap of an 80 GB GPU (84.4e9 B: an H100 80GB shows 79.1 GiB = 84.9e9 B to CUDA,
# less ~0.5 GiB of CUDA context), with foreach and fused AdamW and expandable segments, plus uncapped
# fused-AdamW peaks for the decomposition.
#   OUT=/tmp/out bash bench/device/runs/run_h200x1_repeat.sh
set -u
HERE=$(cd "$(dirname "$0")/.." && pwd)  # bench/device: the programs are in its topic folders
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
LOG=$OUT/log2.txt
{ date -u +%Y-%m-%dT%H:%M:%SZ; uname -r; nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv; } >"$OUT/info2.txt" 2>&1
part() {  # name limit_s command...
  local name=$1 lim=$2; shift 2
  echo "== $name start $(date +%T)" >>"$LOG"
  timeout "$lim" "$@" >>"$LOG" 2>&1; echo "== $name rc=$? end $(date +%T)" >>"$LOG"
  echo "$name done $(date +%T)"
}
GEMM_ORDER=reverse GEMM_GRID=pow2 GEMM_BUDGET_S=60 part gemm 90 python3 "$HERE/compute/gemm_sweep.py" "$OUT/gemm_repeat.jsonl"
part profile 90 python3 "$HERE/steps/step_profile.py" "$OUT/step_profile.jsonl" "$OUT"
CAP=84.4e9; C16="fsdp:16:0:2,fsdp:16:0:1,fsdp:16:1:2"
MEM_LIMIT_BYTES=$CAP ADAMW=foreach MEM_CONFIGS=$C16 part cap_foreach 80 python3 "$HERE/memory/memory_peaks.py" "$OUT/memory_cap.jsonl"
MEM_LIMIT_BYTES=$CAP ADAMW=fused MEM_CONFIGS=$C16 part cap_fused 80 python3 "$HERE/memory/memory_peaks.py" "$OUT/memory_cap.jsonl"
PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True MEM_LIMIT_BYTES=$CAP ADAMW=foreach MEM_CONFIGS=$C16 \
  part cap_expandable 80 python3 "$HERE/memory/memory_peaks.py" "$OUT/memory_cap.jsonl"
ADAMW=fused MEM_CONFIGS="fsdp:8:0:2,plain:8:0:2,fsdp:16:0:2,plain:16:0:2" part fused_nocap 80 python3 "$HERE/memory/memory_peaks.py" "$OUT/memory_cap.jsonl"
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw,clocks_event_reasons.active --format=csv >>"$OUT/info2.txt" 2>&1
python3 - "$OUT" <<'PY'
import json, sys
for r in map(json.loads, open(sys.argv[1] + "/memory_cap.jsonl")):
    if r.get("kind") in ("memory", "error"):
        print(r.get("kind"), r.get("mode"), r.get("blocks"), r.get("ckpt"), r.get("micro_batch"), r.get("adamw"), r.get("alloc_conf"),
              "OOM" if r.get("oom") else round(r.get("peak", 0) / 1e9, 2), r.get("num_alloc_retries"), str(r.get("error", ""))[:160])
for r in map(json.loads, open(sys.argv[1] + "/step_profile.jsonl")):
    if r.get("kind") == "profile":
        print(r["mode"], round(r["mean_step_s"], 4), {k: round(v / 1e3, 2) for k, v in r["class_us_per_step"].items()})
PY
grep -i -E "error|traceback" "$LOG" | head -20
