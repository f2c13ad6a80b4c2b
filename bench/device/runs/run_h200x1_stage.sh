#!/bin/bash
# The fifth device call behind scenarios/validation/h200x1/measured/ (kind nvidia-h200): pipeline
# stages' compute alone on one GPU, and the plain step at micro-batch 1, 4 and with checkpointing
# (stage_compute.py says what and how).
#   OUT=/tmp/out bash bench/device/runs/run_h200x1_stage.sh
set -u
HERE=$(cd "$(dirname "$0")/.." && pwd)  # bench/device: the programs are in its topic folders
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
{ date -u +%Y-%m-%dT%H:%M:%SZ; uname -r; nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv;
  python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'cudnn', torch.backends.cudnn.version())"; } >"$OUT/info5.txt" 2>&1
cd "$HERE" && timeout 400 python3 compute/stage_compute.py "$OUT/stage.jsonl" >"$OUT/log5.txt" 2>&1; echo "rc=$?" >>"$OUT/log5.txt"
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw,clocks_event_reasons.active --format=csv >>"$OUT/info5.txt" 2>&1
python3 - "$OUT/stage.jsonl" <<'PY'
import json, sys
for r in map(json.loads, open(sys.argv[1])):
    if r["kind"] in ("stage_step", "plain_step"):
        print(r["kind"], r.get("stage"), r.get("micro_batch"), r.get("ckpt"), round(r["mean_step_s"] * 1e3, 2), "ms",
              {k: round(v / 1e3, 2) for k, v in r["class_us_per_step"].items()}, "calls", round(r["kernel_calls_per_step"]), "sm", r.get("sm_mhz"))
    elif r["kind"] == "error":
        print(r)
PY
tail -3 "$OUT/log5.txt"
