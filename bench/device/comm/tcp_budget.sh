#!/bin/bash
# Runs tcp_budget (tcp_budget.c beside this file) over loopback and over every other IPv4 interface
# the machine has (its own address, e.g. eth0's), appending one JSON line per point to $1, each
# tagged with the interface name. Points per interface (SECONDS=3 each, after 0.5 s of warm-up):
#   oneway  1 pair, non-blocking spin, 512 KiB (NCCL's default step: 4 MiB buffer / 8 steps), 4 MiB, 64 MiB
#   oneway  1 pair, blocking, 4 MiB
#   bothway 1 pair, spin, 512 KiB, 4 MiB, 64 MiB
#   oneway and bothway, 2 and 4 pairs at once, spin, 4 MiB
#   bash bench/device/comm/tcp_budget.sh OUT.jsonl [tcp_budget binary]
set -u
OUTF=$1
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=${2:-}
if [ -z "$BIN" ]; then
  BIN=/tmp/tcp_budget
  gcc -O2 -o "$BIN" "$HERE/tcp_budget.c" || BIN="$HERE/tcp_budget.static"
fi
SECONDS_PER=${SECONDS_PER:-3}
# name=address for lo and every other interface with an IPv4 address
IFS=$'\n' read -r -d '' -a IFACES < <(python3 - <<'EOF'
import fcntl, os, socket, struct
for name in sorted(os.listdir("/sys/class/net"), key=lambda n: (n != "lo", n)):  # lo first
    try:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        a = fcntl.ioctl(s.fileno(), 0x8915, struct.pack("256s", name[:15].encode()))  # SIOCGIFADDR
        print(f"{name}={socket.inet_ntoa(a[20:24])}")
    except OSError:
        pass
EOF
)
for entry in "${IFACES[@]}"; do
  name=${entry%%=*}; addr=${entry#*=}
  mtu=$(cat /sys/class/net/$name/mtu 2>/dev/null)
  pt() {  # mode pairs chunk [io]
    line=$("$BIN" "$1" "$2" "$3" "$SECONDS_PER" "$addr" "${4:-spin}") || { echo "tcp point $* on $name failed" >&2; return; }
    echo "{\"iface\": \"$name\", \"mtu\": $mtu, ${line#\{}" >>"$OUTF"
    echo "$name $*: $(echo "$line" | grep -o '"host_send_gbps": [0-9.]*')"
  }
  for c in 524288 4194304 67108864; do pt oneway 1 $c; done
  pt oneway 1 4194304 block
  for c in 524288 4194304 67108864; do pt bothway 1 $c; done
  for p in 2 4; do pt oneway $p 4194304; pt bothway $p 4194304; done
done
