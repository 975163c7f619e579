#!/usr/bin/env bash
# Two variants of one nicbench test on loopback, interleaved A B A B so drift of a shared machine
# hits both alike, against one `nicbench serve`. Prints each pair, the median goodput of each
# variant, the ratio of the medians and the median of the pair ratios.
#
# Usage: bench/loopback_pairs.sh [-n PAIRS] [-t SECONDS] [-b NICBENCH_BINARY] -- "A ARGS" "B ARGS"
# (defaults: 5 pairs of 10 s). probe_cost.sh and under_load_cost.sh are its two uses.
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
    *) echo "usage: $0 [-n pairs] [-t seconds] [-b nicbench] 'A ARGS' 'B ARGS'" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || { echo "usage: $0 [-n pairs] [-t seconds] [-b nicbench] 'A ARGS' 'B ARGS'" >&2; exit 2; }
[ -x "$nicbench" ] || { echo "nicbench binary not found: $nicbench (use -b)" >&2; exit 3; }
read -r -a a_args <<<"$1"
read -r -a b_args <<<"$2"

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

a=() b=()
for ((i = 0; i < pairs; i++)); do
  a+=("$(rate "${a_args[@]}")")
  b+=("$(rate "${b_args[@]}")")
  echo "pair $((i + 1)): A $(printf '%.3e' "${a[-1]}")  B $(printf '%.3e' "${b[-1]}")"
done
python3 - "${a[*]}" "${b[*]}" "$1" "$2" <<'PY'
import statistics, sys
a = [float(x) for x in sys.argv[1].split()]
b = [float(x) for x in sys.argv[2].split()]
ma, mb = statistics.median(a), statistics.median(b)
print(f"median A ({sys.argv[3] or 'no options'}): {ma / 1e9:.2f} Gbit/s")
print(f"median B ({sys.argv[4] or 'no options'}): {mb / 1e9:.2f} Gbit/s")
print(f"ratio of medians A/B: {ma / mb:.3f}")
print(f"median of pair ratios A/B: {statistics.median(x / y for x, y in zip(a, b)):.3f}")
PY
