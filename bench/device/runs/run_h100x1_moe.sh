#!/bin/bash
# One device call on kind nvidia-h100-x1: the mixture-of-experts memory peaks (moe_memory_peaks.py)
# of scenarios/validation/h100x1/measured/moe_memory.jsonl, with the machine's description.
#   OUT=/tmp/out bash bench/device/runs/run_h100x1_moe.sh
set -u
HERE=$(cd "$(dirname "$0")/.." && pwd)  # bench/device: the programs are in its topic folders
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,driver_version,memory.total,power.limit --format=csv;
  python3 -c "import torch; p=torch.cuda.get_device_properties(0); print('torch', torch.__version__, 'cuda', torch.version.cuda, p.name, p.total_memory, 'B')"; } >"$OUT/moe_info.txt" 2>&1
cd "$HERE"
MEM_BUDGET_S=${MEM_BUDGET_S:-240} timeout 300 python3 memory/moe_memory_peaks.py "$OUT/moe_memory.jsonl" >"$OUT/log_moe.txt" 2>&1
echo "rc=$?" >>"$OUT/log_moe.txt"
python3 - "$OUT/moe_memory.jsonl" <<'PY'
import json, sys
for r in map(json.loads, open(sys.argv[1])):
    if r["kind"] == "moe_memory" and not r.get("oom"):
        print(r["shape"], "ckpt", int(r["ckpt"]), "mb", r["micro_batch"], "params", r["params_count"],
              "peak %.3f GB" % (r["peak"] / 1e9), "step %.3f s" % r["step3"]["step_s"])
    elif r["kind"] != "info":
        print(json.dumps(r)[:900])
PY
