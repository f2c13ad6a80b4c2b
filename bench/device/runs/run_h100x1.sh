#!/bin/bash
# One device call on kind nvidia-h100-x1 (the p5.48xlarge's GPU): the compute measurements taken on
# the H200 (scenarios/validation/h200x1/), repeated on an H100 to check, out of sample, the compute
# model's rule that another GPU runs the H200's rates scaled by its datasheet peak and memory
# bandwidth (models/compute/). One TP rank's compute at tp 1/2/4/8 and the fused-AdamW steps
# (tp_rank_compute.py), the pipeline stages and plain steps (stage_compute.py), then the GEMM sweep's
# model rows for as long as the budget lasts. Outputs: scenarios/validation/h100x1/measured/.
#   OUT=/tmp/out bash bench/device/runs/run_h100x1.sh
set -u
HERE=$(cd "$(dirname "$0")/.." && pwd)  # bench/device: the programs are in its topic folders
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
{ date -u +%Y-%m-%dT%H:%M:%SZ; uname -r; nvidia-smi;
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit,temperature.gpu,power.draw --format=csv;
  python3 -c "import torch; p=torch.cuda.get_device_properties(0); print('torch', torch.__version__, 'cuda', torch.version.cuda, 'cudnn', torch.backends.cudnn.version(), p.name, p.multi_processor_count, 'SMs', p.total_memory, 'B')"; } >"$OUT/info.txt" 2>&1
cd "$HERE"
timeout 200 python3 compute/tp_rank_compute.py "$OUT/tp_rank.jsonl" "$OUT" >"$OUT/log_tp.txt" 2>&1; echo "rc=$?" >>"$OUT/log_tp.txt"
timeout 170 python3 compute/stage_compute.py "$OUT/stage.jsonl" >"$OUT/log_stage.txt" 2>&1; echo "rc=$?" >>"$OUT/log_stage.txt"
GEMM_BUDGET_S=120 timeout 150 python3 compute/gemm_sweep.py "$OUT/gemm.jsonl" >"$OUT/log_gemm.txt" 2>&1; echo "rc=$?" >>"$OUT/log_gemm.txt"
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw,clocks_event_reasons.active --format=csv >>"$OUT/info.txt" 2>&1
python3 - "$OUT" <<'PY'
import json, sys, os
for f in ("tp_rank.jsonl", "stage.jsonl"):
    p = os.path.join(sys.argv[1], f)
    if not os.path.exists(p): continue
    for r in map(json.loads, open(p)):
        if r["kind"] in ("rank_step", "stage_step", "plain_step"):
            print(r["kind"], r.get("mode"), r.get("tp"), r.get("adamw"), r.get("stage"), r.get("micro_batch"), r.get("ckpt"),
                  round(r["mean_step_s"] * 1e3, 2), "ms", "sm", r.get("sm_mhz"))
        elif r["kind"] == "error":
            print(r)
PY
wc -l "$OUT"/*.jsonl; tail -2 "$OUT"/log_*.txt
