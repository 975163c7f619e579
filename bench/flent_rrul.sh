#!/usr/bin/env bash
# Latency under load, nicbench against flent's RRUL test, through the same deep FIFO.
#
# A stand of three hosts on 1000baseT links through a switch whose ports run at 100baseTX with
# QUEUE of queue (default 100ms: 1.25 MB), the queue of a router or a modem. Rounds alternate:
#   flent rrul -H h2 (four TCP flows each way over netperf, ICMP ping and UDP request/response
#     beside them), its latencies taken over the loaded window only (past 2 s of its load);
#   nicbench run h2 --under-load --bidir -P 4 (four flows each way), its kept probe's loaded
#     latency (the same 2 s of warm-up, -O 2).
# Both load with cubic: RRUL through netperf -K (flent's tcp_cong_control), nicbench with -C.
# Prints each round and the medians over the rounds, and the ratio nicbench / flent.
#
# Needs root (the stand), Debian's flent, fping or ping, and netperf's netperf and netserver
# (netperf is in Debian's non-free section; point NETPERF_DIR at a build of your own).
# Usage: bench/flent_rrul.sh NICBENCH [ROUNDS=5] [SECONDS=20] [QUEUE=100ms]
# Environment: NETPERF_DIR (default ../shared/anchors, where netperf and netserver are).
set -euo pipefail
nb=$(realpath "${1:?usage: bench/flent_rrul.sh NICBENCH [ROUNDS] [SECONDS] [QUEUE]}")
rounds=${2:-5}
seconds=${3:-20}
queue=${4:-100ms}
netperf_dir=$(realpath "${NETPERF_DIR:-$(dirname "$0")/../../shared/anchors}")
for tool in flent "$netperf_dir/netperf" "$netperf_dir/netserver"; do
  command -v "$tool" >/dev/null || { echo "bench/flent_rrul.sh: $tool not found" >&2; exit 3; }
done
name=frrul
work=$(mktemp -d)
cleanup() {
  [[ -n ${servers:-} ]] && kill $servers 2>/dev/null
  "$nb" stand down --name "$name" --force >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
"$nb" stand up --name "$name" --hosts 3 --profile 1000baseT --bottleneck 100baseTX \
  --queue-limit "$queue" >/dev/null
peer=$("$nb" stand list | awk -v n="$name" '$1 == n' | grep -o 'h2=[0-9.]*' | cut -d= -f2)
"$nb" stand exec --name "$name" h2 -- "$netperf_dir/netserver" -D -L "$peer,inet" -p 12865 \
  >"$work/netserver.log" 2>&1 &
servers=$!
"$nb" stand exec --name "$name" h2 -- "$nb" serve -B "$peer" >"$work/serve.log" 2>&1 &
servers="$servers $!"
sleep 1

# flent's loaded latency: the median and mean of a series over the window in which its TCP
# flows ran (RRUL starts them after 5 s of idle pings), past 2 s of warm-up.
flent_latency() {
  python3 - "$1" "$seconds" <<'EOF'
import gzip, json, statistics, sys
doc = json.load(gzip.open(sys.argv[1]))
length = float(sys.argv[2])
xs = doc["x_values"]
delay = float(doc["metadata"].get("DELAY", 5))
for series in ("Ping (ms) ICMP", "Ping (ms) UDP BE"):
    vals = [v for x, v in zip(xs, doc["results"][series])
            if v is not None and delay + 2 <= x <= delay + length]
    print(f"{statistics.median(vals):.2f} {statistics.mean(vals):.2f}", end=" ")
print()
EOF
}

printf '%-6s %-34s %-30s\n' round "flent ICMP p50/mean, UDP p50/mean" "nicbench kept p50/mean (ms)"
for ((i = 1; i <= rounds; i++)); do
  mkdir "$work/r$i"
  (cd "$work/r$i" && PATH="$netperf_dir:$PATH" "$nb" stand exec --name "$name" h1 -- flent rrul \
    -H "$peer" -l "$seconds" --test-parameter tcp_cong_control=cubic -D "$work/r$i" \
    -f summary >"$work/flent-$i.log" 2>&1) || true
  data=$(ls "$work/r$i"/rrul-*.flent.gz 2>/dev/null | head -1)
  if [[ -z $data ]]; then
    echo "round $i: flent wrote no data file:" >&2
    tail -n 20 "$work/flent-$i.log" >&2
    exit 1
  fi
  theirs=$(flent_latency "$data")
  "$nb" stand exec --name "$name" h1 -- "$nb" run "$peer" --under-load --bidir -P 4 \
    -t "$seconds" -O 2 -C cubic --json --no-store >"$work/nb-$i.json" 2>"$work/nb-$i.err"
  ours=$(python3 -c '
import json, sys
u = json.load(open(sys.argv[1]))["nicbench"]["under_load"]
p50 = u["loaded"]["kept"]["p50_ms"]
mean = u["probes"]["loaded"]["kept"]["latency"]["mean_us"] / 1000
print(f"{p50:.2f} {mean:.2f}")' "$work/nb-$i.json")
  printf '%-6s %-34s %-30s\n' "$i" "$theirs" "$ours"
  echo "$theirs $ours" >>"$work/rounds"
done
python3 - "$work/rounds" <<'EOF'
import statistics, sys
rows = [list(map(float, line.split())) for line in open(sys.argv[1])]
med = [statistics.median(r[i] for r in rows) for i in range(6)]
print(f"medians: flent ICMP p50 {med[0]:.1f} ms, UDP p50 {med[2]:.1f} ms; "
      f"nicbench kept p50 {med[4]:.1f} ms, mean {med[5]:.1f} ms")
print(f"nicbench p50 / flent ICMP p50: {med[4] / med[0]:.3f}; / flent UDP p50: {med[4] / med[2]:.3f}")
EOF
