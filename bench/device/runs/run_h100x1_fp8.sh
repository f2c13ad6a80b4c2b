#!/bin/bash
# One device call on kind nvidia-h100-x1: the calibration decoder's plain step in bf16 and as
# Transformer Engine's fp8 recipe (current scaling) runs it, built from torch ops (fp8_step.py).
# Outputs: scenarios/validation/h100x1/measured/fp8_steps.jsonl, fp8_info.txt, log_fp8.txt.
#   OUT=/tmp/out bash bench/device/runs/run_h100x1_fp8.sh
set -u
HERE=$(cd "$(dirname "$0")/.." && pwd)  # bench/device: the programs are in its topic folders
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
NAME=${FP8_NAME:-fp8_steps}   # FP8_PLAN (fp8_step.py) selects other steps; FP8_NAME names their files
export PYTHONUNBUFFERED=1
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit,temperature.gpu,power.draw --format=csv;
  python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda)";
  python3 -c "import triton; print('triton', triton.__version__)"; } >"$OUT/${NAME}_info.txt" 2>&1
cd "$HERE"
timeout ${FP8_TIMEOUT:-400} python3 steps/fp8_step.py "$OUT/$NAME.jsonl" >"$OUT/log_$NAME.txt" 2>&1; echo "rc=$?" >>"$OUT/log_$NAME.txt"
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw,clocks_event_reasons.active --format=csv >>"$OUT/${NAME}_info.txt" 2>&1
python3 - "$OUT/$NAME.jsonl" <<'PY'
import json, sys
for r in map(json.loads, open(sys.argv[1])):
    k = r["kind"]
    if k == "step":
        print("step", r["precision"], r["quant"], "mb", r["micro_batch"], "head_fp8", r.get("head_fp8"), "%.2f ms" % (r["mean_step_s"] * 1e3), "first %.1f s" % r["first_step_s"],
              {c: round(v / 1e3, 2) for c, v in r["class_us_per_step"].items()}, "sm", r.get("sm_mhz"), "W", r.get("power_w"),
              "losses", [round(x, 4) for x in r["losses"][:3]], "..", round(r["losses"][-1], 4))
    elif k == "casts":
        print("casts", r["quant"], r["calls_per_step"], "calls", "%.2f ms" % (r["cast_s_per_step"] * 1e3),
              "%.2f TB/s at 6 B/elt" % (r["te_bytes_per_s"] / 1e12))
    elif k in ("numerics", "error"):
        print(r)
PY
tail -3 "$OUT/log_$NAME.txt"
