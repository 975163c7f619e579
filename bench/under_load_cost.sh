#!/usr/bin/env bash
# What the latency probes cost the test they run beside (run --under-load, docs/latency.md):
# nicbench on loopback with the probes (100 a second, the default) against the same test without
# them, interleaved A B A B so drift of a shared machine hits both alike. Prints the median
# goodput of each and the ratio with/without. On loopback the test is CPU-bound, so this is the
# probes' CPU cost; on a link the probes' bytes are under 0.01% of the test's.
#
# Usage: bench/under_load_cost.sh [-n PAIRS] [-t SECONDS] [-b NICBENCH_BINARY]   (defaults: 5, 8)
# Traffic goes to 127.0.0.1 only.
set -euo pipefail

pairs=5
seconds=8
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
  "$nicbench" run 127.0.0.1 -p "$port" -t "$seconds" --json --no-store "$@" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"])'
}

with=() without=()
for ((i = 0; i < pairs; i++)); do
  with+=("$(rate --under-load --idle-time 1)")
  without+=("$(rate)")
  echo "pair $((i + 1)): with probes $(printf '%.3e' "${with[-1]}")  without $(printf '%.3e' "${without[-1]}")"
done
python3 - "${with[*]}" "${without[*]}" <<'PY'
import statistics, sys
w = [float(x) for x in sys.argv[1].split()]
o = [float(x) for x in sys.argv[2].split()]
mw, mo = statistics.median(w), statistics.median(o)
print(f"median with probes {mw:.4e} bit/s, without {mo:.4e} bit/s, ratio {mw / mo:.3f}")
PY
