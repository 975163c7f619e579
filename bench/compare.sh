#!/usr/bin/env bash
# Side-by-side loopback benchmark: nicbench vs iperf3, interleaved (A B A B ...), so slow drift of
# a shared machine hits both tools alike. For each variant (single stream, -P 2, -Z) it prints
# the median throughput of each tool, CPU-seconds per GB of each end (client and server
# processes, from /proc/<pid>/stat utime+stime of the server and getrusage of the client via
# GNU time), and the ratios nicbench/iperf3.
#
# Usage: bench/compare.sh [-n PAIRS] [-t SECONDS] [-b NICBENCH_BINARY] [-v "VARIANT;..."]
#   defaults: 5 pairs of 10 s; variants "single;-P 2;-Z"
# Traffic goes to 127.0.0.1 only.
set -euo pipefail

pairs=5
seconds=10
nicbench=${NICBENCH:-$(dirname "$0")/../build/nicbench}
variants="single;-P 2;-Z"
while getopts "n:t:b:v:" opt; do
  case $opt in
    n) pairs=$OPTARG ;;
    t) seconds=$OPTARG ;;
    b) nicbench=$OPTARG ;;
    v) variants=$OPTARG ;;
    *) echo "usage: $0 [-n pairs] [-t seconds] [-b nicbench] [-v variants]" >&2; exit 2 ;;
  esac
done
command -v iperf3 >/dev/null || { echo "iperf3 not found" >&2; exit 3; }
command -v python3 >/dev/null || { echo "python3 not found" >&2; exit 3; }
[ -x "$nicbench" ] || { echo "nicbench binary not found: $nicbench (use -b)" >&2; exit 3; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
clk_tck=$(getconf CLK_TCK)

# cpu_seconds PID: utime+stime of a live process, from /proc/PID/stat (fields 14 and 15).
cpu_seconds() {
  awk -v tck="$clk_tck" '{ sub(/^.*\) /, ""); print ($12 + $13) / tck }' "/proc/$1/stat"
}

# run_one TOOL ARGS...: starts the tool's server, runs its client for $seconds, prints
# "bits_per_second client_cpu_s server_cpu_s bytes".
run_one() {
  local tool=$1; shift
  local port=$((20000 + RANDOM % 20000))
  local server_pid
  if [ "$tool" = nicbench ]; then
    "$nicbench" serve -p "$port" --bind 127.0.0.1 2>/dev/null &
  else
    iperf3 -s -p "$port" -B 127.0.0.1 >/dev/null 2>&1 &
  fi
  server_pid=$!
  sleep 0.5
  local before; before=$(cpu_seconds "$server_pid")
  local client=(iperf3 -c 127.0.0.1)
  # --no-store: the comparison runs are not results to keep, and the client's time excludes storing.
  [ "$tool" = nicbench ] && client=("$nicbench" run 127.0.0.1 --no-store)
  /usr/bin/env time -f "%U %S" -o "$tmp/time" "${client[@]}" -p "$port" -t "$seconds" -J "$@" \
    >"$tmp/out.json" 2>/dev/null || true
  local after; after=$(cpu_seconds "$server_pid")
  kill "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null || true
  python3 - "$tmp/out.json" "$tmp/time" "$before" "$after" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
s = doc["end"]["sum_received"]
u, k = map(float, open(sys.argv[2]).read().split()[-2:])
print(s["bits_per_second"], u + k, float(sys.argv[4]) - float(sys.argv[3]), s["bytes"])
PY
}

summarize() {  # file: lines "tool bps client_cpu server_cpu bytes"
  python3 - "$1" "$2" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
def med(tool, f):
    return statistics.median(f(r) for r in rows if r[0] == tool)
gb = lambda r: float(r[4]) / 1e9
res = {}
for tool in ("nicbench", "iperf3"):
    res[tool] = (med(tool, lambda r: float(r[1])),
                 med(tool, lambda r: float(r[2]) / gb(r)),
                 med(tool, lambda r: float(r[3]) / gb(r)))
n, i = res["nicbench"], res["iperf3"]
# Ratios are medians of per-pair ratios (A B interleaved), not ratios of medians.
pairs = list(zip([r for r in rows if r[0] == "nicbench"], [r for r in rows if r[0] == "iperf3"]))
tput = statistics.median(float(a[1]) / float(b[1]) for a, b in pairs)
cc = statistics.median((float(a[2]) / gb(a)) / (float(b[2]) / gb(b)) for a, b in pairs)
sc = statistics.median((float(a[3]) / gb(a)) / (float(b[3]) / gb(b)) for a, b in pairs)
print(f"{sys.argv[2]:<8} nicbench {n[0]/1e9:7.2f} Gbit/s  cpu-s/GB client {n[1]:.3f} server {n[2]:.3f}")
print(f"{'':<8} iperf3   {i[0]/1e9:7.2f} Gbit/s  cpu-s/GB client {i[1]:.3f} server {i[2]:.3f}")
print(f"{'':<8} ratio    throughput {tput:.2f}x  cpu/GB client {cc:.2f}x  server {sc:.2f}x  ({len(pairs)} pairs)")
PY
}

IFS=';' read -ra variant_list <<<"$variants"
echo "nicbench vs iperf3 on loopback: $pairs interleaved pairs of ${seconds}s per variant"
for variant in "${variant_list[@]}"; do
  args=()
  [ "$variant" != single ] && read -ra args <<<"$variant"
  : >"$tmp/rows"
  for ((i = 0; i < pairs; i++)); do
    echo "nicbench $(run_one nicbench "${args[@]}")" >>"$tmp/rows"
    echo "iperf3 $(run_one iperf3 "${args[@]}")" >>"$tmp/rows"
  done
  summarize "$tmp/rows" "$variant"
done
