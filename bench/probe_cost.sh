#!/usr/bin/env bash
# What host sampling costs: nicbench on loopback with probes at 10 Hz (-i 0.1, both ends sample
# every 100 ms) against probes off (--no-samples), interleaved A B A B so drift of a shared
# machine hits both alike. Prints the median throughput of each and the ratio on/off.
#
# Usage: bench/probe_cost.sh [-n PAIRS] [-t SECONDS] [-b NICBENCH_BINARY]   (defaults: 5, 10)
# Traffic goes to 127.0.0.1 only.
set -euo pipefail

pairs=5
seconds=10
nicbench=${NICBENCH:-$(dirname "$0")/../build/nicbench}
while getopts "n:t:b:" opt; do
  case $opt in
    n) pairs=$OPTARG ;;
    t) seconds=$OPTARG ;;
    b) nicbench=$OPTARG ;;
    *) echo "usage: $0 [-n pairs] [-t seconds] [-b nicbench]" >&2; exit 2 ;;
  esac
done
[ -x "$nicbench" ] || { echo "nicbench binary not found: $nicbench (use -b)" >&2; exit 3; }

port=$((20000 + RANDOM % 20000))
"$nicbench" serve -p "$port" --bind 127.0.0.1 2>/dev/null &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null || true' EXIT
sleep 0.5

# rate ARGS...: one test's receiver goodput in bit/s.
rate() {
  "$nicbench" run 127.0.0.1 -p "$port" -t "$seconds" -i 0.1 --json --no-store "$@" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"])'
}

on=() off=()
for ((i = 0; i < pairs; i++)); do
  on+=("$(rate)")
  off+=("$(rate --no-samples)")
  echo "pair $((i + 1)): probes on $(printf '%.3e' "${on[-1]}")  off $(printf '%.3e' "${off[-1]}")"
done
python3 - "${on[*]}" "${off[*]}" <<'PY'
import statistics, sys
on = [float(x) for x in sys.argv[1].split()]
off = [float(x) for x in sys.argv[2].split()]
ratios = [a / b for a, b in zip(on, off)]
print(f"median probes on  (10 Hz): {statistics.median(on) / 1e9:.2f} Gbit/s")
print(f"median probes off        : {statistics.median(off) / 1e9:.2f} Gbit/s")
print(f"median of pair ratios on/off: {statistics.median(ratios):.3f}")
PY
