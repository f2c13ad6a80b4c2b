#!/bin/bash
# The single-GPU measurements of scenarios/validation/h200x1/measured/ in one device call (kind
# nvidia-h200): machine and software description, GEMM sweep, memory-bound kernels, AdamW, then
# the memory peaks with the TCP test beside them (the peaks are not timings; TCP uses CPU cores
# only, 8 of 16 at most). Every part has its own time limit and writes JSON lines as it goes.
#   OUT=/tmp/out bash bench/device/runs/run_h200x1.sh
set -u
HERE=$(cd "$(dirname "$0")/.." && pwd)  # bench/device: the programs are in its topic folders
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
LOG=$OUT/log.txt
{
  echo "== date"; date -u +%Y-%m-%dT%H:%M:%SZ
  echo "== uname"; uname -a
  echo "== cpu"; nproc; grep -m1 "model name" /proc/cpuinfo; grep MemTotal /proc/meminfo
  echo "== nvidia-smi"; nvidia-smi
  echo "== clocks"; nvidia-smi -q -d CLOCK,PERFORMANCE,POWER,TEMPERATURE
  echo "== nvcc"; nvcc --version 2>&1 | tail -2
  echo "== gcc"; gcc --version 2>&1 | head -1
  echo "== python"; python3 -c 'import torch, sys; p = torch.cuda.get_device_properties(0); print(sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version(), "nccl", torch.cuda.nccl.version(), p.name, p.multi_processor_count, "SMs", getattr(p, "L2_cache_size", "?"), "B L2", p.total_memory, "B")'
  echo "== net"; for i in /sys/class/net/*; do echo "$(basename $i) mtu $(cat $i/mtu) speed $(cat $i/speed 2>/dev/null)"; done
  ip -4 -o addr 2>/dev/null || cat /proc/net/if_inet6 2>/dev/null
  for k in net.ipv4.tcp_rmem net.ipv4.tcp_wmem net.core.rmem_max net.core.wmem_max net.ipv4.tcp_congestion_control; do
    echo "$k = $(cat /proc/sys/${k//.//} 2>/dev/null)"; done
} >"$OUT/info.txt" 2>&1
echo "info done $(date +%T)"
part() {  # name limit_s command...
  local name=$1 lim=$2; shift 2
  echo "== $name start $(date +%T)" >>"$LOG"
  timeout "$lim" "$@" >>"$LOG" 2>&1; echo "== $name rc=$? end $(date +%T)" >>"$LOG"
  echo "$name done $(date +%T)"
}
GEMM_BUDGET_S=${GEMM_BUDGET_S:-170} part gemm 230 python3 "$HERE/compute/gemm_sweep.py" "$OUT/gemm.jsonl"
part membound 75 python3 "$HERE/compute/membound.py" "$OUT/membound.jsonl"
part adamw 75 python3 "$HERE/compute/adamw_bench.py" "$OUT/adamw.jsonl"
part tcp 110 bash "$HERE/comm/tcp_budget.sh" "$OUT/tcp.jsonl" &
MEM_BUDGET_S=${MEM_BUDGET_S:-110} part memory 150 python3 "$HERE/memory/memory_peaks.py" "$OUT/memory_peaks.jsonl"
wait
nvidia-smi -q -d CLOCK,PERFORMANCE >>"$OUT/info.txt" 2>&1
# short summary for the reply's output tail
python3 - "$OUT" <<'EOF'
import json, sys, glob, os
for f in sorted(glob.glob(sys.argv[1] + "/*.jsonl")):
    rows = [json.loads(l) for l in open(f) if l.strip()]
    kinds = {}
    for r in rows: kinds[r.get("kind", "tcp")] = kinds.get(r.get("kind", "tcp"), 0) + 1
    print(os.path.basename(f), kinds)
    for r in rows:
        if r.get("kind") == "error": print("  ERR", str(r)[:300])
EOF
grep -i -E "error|traceback" "$LOG" | head -20
