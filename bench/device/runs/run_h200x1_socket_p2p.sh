#!/bin/bash
# NCCL point-to-point over TCP sockets against all_reduce on the same ring edges, 4 processes that
# NCCL takes for 4 hosts on one machine (kind nvidia-h200, one GPU shared through MPS), with
# NCCL_P2P_NET_CHUNKSIZE at NCCL's 128 KiB, 512 KiB and 1 MiB, launches interleaved twice
# (nccl_socket_p2p.py beside this file says what each point is).
#   OUT=/tmp/out bash bench/device/runs/run_h200x1_socket_p2p.sh
set -u
HERE=$(cd "$(dirname "$0")/.." && pwd)  # bench/device: the programs are in its topic folders
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1 ROUNDS=${ROUNDS:-3}
{ date -u +%Y-%m-%dT%H:%M:%SZ; uname -r; nproc; nvidia-smi -L; uptime; } >"$OUT/p2p_info.txt" 2>&1
MPS=0
if command -v nvidia-cuda-mps-control >/dev/null 2>&1; then
  export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
  mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d && MPS=1
fi
echo "mps=$MPS" >>"$OUT/p2p_info.txt"
run() {  # tag, then env assignments
  local tag=$1; shift
  env "$@" timeout 150 torchrun --standalone --nproc_per_node=4 "$HERE/comm/nccl_socket_p2p.py" "$OUT/socket_p2p.jsonl" \
    "$tag" >>"$OUT/p2p_log.txt" 2>&1 || echo "$tag failed" | tee -a "$OUT/p2p_log.txt"
}
for i in 1 2; do
  run chunk128k X=1
  run chunk512k NCCL_P2P_NET_CHUNKSIZE=524288
  run chunk1m NCCL_P2P_NET_CHUNKSIZE=1048576
done
[ $MPS = 1 ] && echo quit | nvidia-cuda-mps-control
uptime >>"$OUT/p2p_info.txt"
python3 - "$OUT/socket_p2p.jsonl" <<'PY'
import json, sys, statistics as st
rows = [json.loads(l) for l in open(sys.argv[1])]
for t in ("chunk128k", "chunk512k", "chunk1m"):
    m = {p: st.median([r["per_direction_GBps"] for r in rows if r["tag"] == t and r["point"] == p] or [0])
         for p in ("sr64", "sr4", "ar32")}
    print(t, " ".join(f"{p} {v:.2f}" for p, v in m.items()), f"sr64/ar32 {m['sr64'] / m['ar32']:.2f}")
PY
