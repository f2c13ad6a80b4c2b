#!/bin/bash
# NCCL over TCP sockets between 4 "pods" on one machine, each in its own network namespace joined
# by veth pairs to one Linux bridge (what a Kubernetes pod without hostNetwork gets from a bridge
# CNI), against the same 4 processes in the host's namespace over loopback (what
# run_h200x1_nccl_socket.sh measures). Kind nvidia-h200: the 4 processes share its one GPU through
# MPS where the image has it; every process sets NCCL_HOSTID (nccl_socket_hosts.py), as a pod's own
# hostname would, so NCCL joins every pair with NET/Socket.
# Launches, interleaved so a drift of the machine shows as a spread of one tag: loopback; the
# bridge at MTU 1500 (a bridge CNI's default); the bridge at MTU 9001 (AWS VPC CNI's pod MTU);
# three times over, ROUNDS rounds each (2 by default) (nccl_socket_hosts.py says what each point is).
#   OUT=/tmp/out bash bench/device/runs/run_h200x1_pod_netns.sh
# The device image has no iproute2 and no network to install it: copy a Debian machine's `ip`
# (iproute2 6.1, needs glibc 2.34) with the libraries `ldd` lists into a folder, beside a script
# `ip` that runs it with LD_LIBRARY_PATH set to them, carry that folder and name it in IPTOOL:
#   OUT=$OUT IPTOOL=$PWD/.iptool bash bench/device/runs/run_h200x1_pod_netns.sh
set -u
# iproute2's ip: the machine's, or IPTOOL (a folder whose `ip` runs a copied one with its libraries).
[ -n "${IPTOOL:-}" ] && PATH=$IPTOOL:$PATH
HERE=$(cd "$(dirname "$0")/.." && pwd)  # bench/device: the programs are in its topic folders
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
export ROUNDS=${ROUNDS:-2}
LOG=$OUT/netns_log.txt
{ date -u +%Y-%m-%dT%H:%M:%SZ; uname -r; nproc; nvidia-smi -L; command -v ip; ip -V
  sysctl net.bridge.bridge-nf-call-iptables net.ipv4.tcp_rmem net.ipv4.tcp_wmem 2>&1
  lsmod 2>/dev/null | grep -E "br_netfilter|veth|bridge"; uptime; } >"$OUT/netns_info.txt" 2>&1
# The bridge and 4 namespaces: ns$k holds pod0 (10.77.0.1$k/24), its peer h$k is on br-pods.
setup() {
  ip link add br-pods type bridge && ip link set br-pods up || return 1
  for k in 0 1 2 3; do
    ip netns add ns$k || return 1
    ip link add h$k type veth peer name p$k || return 1
    ip link set p$k netns ns$k && ip -n ns$k link set p$k name pod0 || return 1
    ip link set h$k master br-pods && ip link set h$k up
    ip -n ns$k addr add 10.77.0.1$k/24 dev pod0 && ip -n ns$k link set pod0 up && ip -n ns$k link set lo up
  done
}
set_mtu() {
  ip link set br-pods mtu "$1"
  for k in 0 1 2 3; do ip link set h$k mtu "$1"; ip -n ns$k link set pod0 mtu "$1"; done
}
if ! setup >>"$LOG" 2>&1; then
  echo "network namespaces unavailable here (no CAP_NET_ADMIN?): see netns_log.txt" | tee -a "$LOG"
  exit 1
fi
ip -n ns1 addr >>"$OUT/netns_info.txt" 2>&1
MPS=0
if command -v nvidia-cuda-mps-control >/dev/null 2>&1; then
  export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps CUDA_MPS_LOG_DIRECTORY=/tmp/mpslog
  mkdir -p /tmp/mps /tmp/mpslog && nvidia-cuda-mps-control -d && MPS=1
fi
echo "mps=$MPS" >>"$OUT/netns_info.txt"
JSONL=$OUT/pod_netns.jsonl
PORT=29600
lo_run() {  # the 4 processes in the host's namespace, over loopback
  timeout 150 torchrun --standalone --nproc_per_node=4 "$HERE/comm/nccl_socket_hosts.py" "$JSONL" "$1" \
    >>"$LOG" 2>&1 || echo "$1 failed" | tee -a "$LOG"
}
ns_run() {  # tag, MTU: one process per namespace, over the bridge
  set_mtu "$2"; PORT=$((PORT + 1))
  local pids=()
  for k in 0 1 2 3; do
    ip netns exec ns$k env -u LD_LIBRARY_PATH RANK=$k LOCAL_RANK=$k WORLD_SIZE=4 LOCAL_WORLD_SIZE=1 MASTER_ADDR=10.77.0.10 \
      MASTER_PORT=$PORT NCCL_SOCKET_IFNAME=pod0 GLOO_SOCKET_IFNAME=pod0 ${DBG:-} \
      timeout 150 python3 "$HERE/comm/nccl_socket_hosts.py" "$JSONL" "$1" >>"$LOG" 2>&1 &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || echo "$1 rank process $p failed" | tee -a "$LOG"; done
}
DBG="NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET NCCL_DEBUG_FILE=/tmp/nccl_ns.%h.%p.log" ns_run mtu1500 1500
for f in /tmp/nccl_ns.*.log; do grep -q "rank 0 nRanks 4" "$f" 2>/dev/null && cp "$f" "$OUT/nccl_ns_rank0.log"; done
lo_run lo
ns_run mtu9001 9001
for i in 2 3; do lo_run lo; ns_run mtu1500 1500; ns_run mtu9001 9001; done
[ $MPS = 1 ] && echo quit | nvidia-cuda-mps-control
uptime >>"$OUT/netns_info.txt"
python3 - "$JSONL" <<'EOF'
import json, sys, statistics as st
rows = [json.loads(l) for l in open(sys.argv[1])]
for p in sorted({r["point"] for r in rows}):
    line = []
    for t in ("lo", "mtu1500", "mtu9001"):
        v = [r["per_direction_GBps"] for r in rows if r["point"] == p and r["tag"] == t]
        line.append(f"{t} {st.median(v):.2f} ({min(v):.2f}-{max(v):.2f}, n={len(v)})" if v else f"{t} -")
    print(p, " | ".join(line))
EOF
