#!/bin/bash
# NCCL over TCP sockets between 4 processes that NCCL takes for 4 hosts (NCCL_HOSTID per process),
# on one machine (kind nvidia-h200: the 4 processes share its one GPU, through MPS where the image
# has it). nccl_socket_hosts.py beside this file says what each point is. Four launches, each a
# fresh NCCL: two with the scheduler's placement, one with all 4 processes held on vCPUs 0-3,
# one more free; rank 0's NCCL INFO log of the first launch is kept (channels, socket threads).
# PART=cores instead holds the 4 processes on 8, 12 and all 16 vCPUs (2 rounds each, cores.jsonl).
#   OUT=/tmp/out bash bench/device/runs/run_h200x1_nccl_socket.sh
#   OUT=/tmp/out PART=cores bash bench/device/runs/run_h200x1_nccl_socket.sh
set -u
HERE=$(cd "$(dirname "$0")/.." && pwd)  # bench/device: the programs are in its topic folders
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
{ date -u +%Y-%m-%dT%H:%M:%SZ; uname -r; nproc; nvidia-smi -L; lscpu 2>/dev/null | head -25
  echo "siblings of cpu0: $(cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list 2>/dev/null)"
  for i in lo eth0; do echo "$i mtu $(cat /sys/class/net/$i/mtu 2>/dev/null) vendor $(cat /sys/class/net/$i/device/vendor 2>/dev/null)"; done
  sysctl net.ipv4.tcp_rmem net.ipv4.tcp_wmem net.core.rmem_max net.core.wmem_max 2>/dev/null; uptime; } >"$OUT/info.txt" 2>&1
MPS=0
if command -v nvidia-cuda-mps-control >/dev/null 2>&1; then
  export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
  mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d && MPS=1
fi
echo "mps=$MPS" >>"$OUT/info.txt"
JSONL=socket_hosts.jsonl
run() {  # tag, then a command prefix (env VAR=... or taskset -c LIST)
  local tag=$1; shift
  timeout 150 "$@" torchrun --standalone --nproc_per_node=4 "$HERE/comm/nccl_socket_hosts.py" \
    "$OUT/$JSONL" "$tag" >>"$OUT/log.txt" 2>&1 || { echo "$tag failed" | tee -a "$OUT/log.txt"; return 1; }
}
if [ "${PART:-}" = cores ]; then
  JSONL=cores.jsonl; export ROUNDS=2
  for c in 0-7 0-11 0-15; do run cpus$c taskset -c $c; done
  [ $MPS = 1 ] && echo quit | nvidia-cuda-mps-control
  uptime >>"$OUT/info.txt"; exit 0
fi
DBG="NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,GRAPH,NET,ENV,TUNING NCCL_DEBUG_FILE=/tmp/nccl.%h.%p.log"
if ! run free1 env $DBG && [ $MPS = 1 ]; then  # MPS refused: once more time-sliced, and say so
  echo quit | nvidia-cuda-mps-control; MPS=0; echo "mps=0 (MPS run failed)" >>"$OUT/info.txt"
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
  run free1 env $DBG
fi
for f in /tmp/nccl.*.log; do grep -q "rank 0 nRanks 4" "$f" 2>/dev/null && cp "$f" "$OUT/nccl_rank0.log"; done
run free2 env X=1
run packed taskset -c 0-3
run free3 env X=1
[ $MPS = 1 ] && echo quit | nvidia-cuda-mps-control
uptime >>"$OUT/info.txt"
