#!/bin/bash
# The fourth device call behind scenarios/validation/h200x1/measured/ (kind nvidia-h200): what one
# tensor-parallel rank computes (tp = 1, 2, 4, 8 on one GPU, no communication), the optimizer swap
# (fused AdamW) on the plain and FSDP2 steps, and the decoder's attention layout copies
# (tp_rank_compute.py says what and how).
#   OUT=/tmp/out bash bench/device/runs/run_h200x1_tp.sh
set -u
HERE=$(cd "$(dirname "$0")/.." && pwd)  # bench/device: the programs are in its topic folders
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
{ date -u +%Y-%m-%dT%H:%M:%SZ; uname -r; nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv;
  python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'cudnn', torch.backends.cudnn.version())"; } >"$OUT/info4.txt" 2>&1
cd "$HERE" && timeout 400 python3 compute/tp_rank_compute.py "$OUT/tp_rank.jsonl" "$OUT" >"$OUT/log4.txt" 2>&1; echo "rc=$?" >>"$OUT/log4.txt"
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw,clocks_event_reasons.active --format=csv >>"$OUT/info4.txt" 2>&1
python3 - "$OUT/tp_rank.jsonl" <<'PY'
import json, sys
for r in map(json.loads, open(sys.argv[1])):
    if r["kind"] == "rank_step":
        print(r["mode"], r["tp"], r["adamw"], round(r["mean_step_s"] * 1e3, 2), "ms", {k: round(v / 1e3, 2) for k, v in r["class_us_per_step"].items()},
              "calls", round(r["kernel_calls_per_step"]), "sm", r.get("sm_mhz"))
    elif r["kind"] == "sdpa_layout":
        print("sdpa tp", r["tp"], {k: round(v * 1e6, 1) for k, v in r.items() if k.endswith("_s")}, round(r["cont_fwd_tflops"]), round(r["cont_bwd_tflops"]))
    elif r["kind"] == "error":
        print(r)
PY
tail -5 "$OUT/log4.txt"
