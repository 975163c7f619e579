#!/usr/bin/env bash
# UDP at unlimited rate on loopback: nicbench (default batched path, and --udp-offload) against
# iperf3 3.21 (with and without its --gsro) and Debian's iperf3 3.12, interleaved: every round
# runs each configuration once, in a rotating order, each against a fresh server, so slow drift
# of a shared machine hits all of them alike. Prints per configuration the medians and spreads
# (min..max) of delivered datagrams/s, lost datagrams/s, Gbit/s delivered and CPU-seconds per
# GB delivered of each end (GNU time of the client and of the one-off server), then the
# medians of the per-round ratios against iperf3 3.21.
#
# Usage: bench/udp_peers.sh [-r ROUNDS] [-t SECONDS] [-l BYTES] [-p PORT] [-c "CONFIG ..."]
#          [-n NICBENCH] [-a IPERF3_321] [-i IPERF3_312]
#   defaults: 5 rounds of 10 s, -l 1400, port 5301 (each run uses PORT..PORT+9);
#   configs: nicbench nicbench-offload iperf3-3.21 iperf3-3.21-gsro iperf3-3.12
#   binaries also from $NICBENCH, $IPERF3_321 (default ../shared/anchors/iperf3-3.21 beside the
#   checkout, when present) and $IPERF3_312 (default: iperf3 on PATH). A configuration whose
#   binary is missing is skipped with a note.
#   UDP_PEERS_EXTRA: more options for every client (e.g. "-P 2").
# Traffic goes to 127.0.0.1 only. Exit 2 on a bad option, 3 when nothing can run.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
rounds=5
seconds=10
length=1400
port=${UDP_PEERS_PORT:-5301}
nicbench=${NICBENCH:-$here/../build/nicbench}
iperf321=${IPERF3_321:-$here/../../shared/anchors/iperf3-3.21}
iperf312=${IPERF3_312:-$(command -v iperf3 || true)}
configs="nicbench nicbench-offload iperf3-3.21 iperf3-3.21-gsro iperf3-3.12"
extra=${UDP_PEERS_EXTRA:-}
while getopts "r:t:l:p:c:n:a:i:" opt; do
  case $opt in
    r) rounds=$OPTARG ;;
    t) seconds=$OPTARG ;;
    l) length=$OPTARG ;;
    p) port=$OPTARG ;;
    c) configs=$OPTARG ;;
    n) nicbench=$OPTARG ;;
    a) iperf321=$OPTARG ;;
    i) iperf312=$OPTARG ;;
    *) echo "usage: $0 [-r rounds] [-t seconds] [-l bytes] [-p port] [-c configs] [-n nicbench] [-a iperf3-3.21] [-i iperf3-3.12]" >&2
       exit 2 ;;
  esac
done
command -v python3 >/dev/null || { echo "python3 not found" >&2; exit 3; }
[ -x /usr/bin/time ] || { echo "GNU time (/usr/bin/time) not found" >&2; exit 3; }

# binary_of CONFIG: the executable a configuration runs, empty when unknown.
binary_of() {
  case $1 in
    nicbench|nicbench-offload) echo "$nicbench" ;;
    iperf3-3.21|iperf3-3.21-gsro) echo "$iperf321" ;;
    iperf3-3.12) echo "$iperf312" ;;
    *) echo "" ;;
  esac
}

runnable=()
for c in $configs; do
  b=$(binary_of "$c")
  if [ -z "$b" ] && ! [[ $c =~ ^(nicbench|nicbench-offload|iperf3-3.21|iperf3-3.21-gsro|iperf3-3.12)$ ]]; then
    echo "unknown configuration: $c" >&2; exit 2
  fi
  if [ -n "$b" ] && [ -x "$b" ]; then runnable+=("$c"); else echo "skipping $c: no binary ($b)" >&2; fi
done
[ ${#runnable[@]} -gt 0 ] || { echo "nothing to run" >&2; exit 3; }

tmp=$(mktemp -d)
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

# wait_port PORT: until something listens on TCP PORT (the control connection), at most 5 s.
wait_port() {
  for _ in $(seq 50); do
    if ss -Htln "sport = :$1" 2>/dev/null | grep -q .; then return 0; fi
    sleep 0.1
  done
  return 1
}

# run_one CONFIG PORT: one fresh server, one client run; appends a JSON line to $tmp/results.
run_one() {
  local config=$1 p=$2 bin; bin=$(binary_of "$config")
  local client_args=(-p "$p" -u -b 0 -l "$length" -t "$seconds" -J)
  # shellcheck disable=SC2206
  [ -n "$extra" ] && client_args+=($extra)
  # One-off servers under GNU time, so their CPU is the test's (they exit after it).
  rm -f "$tmp/stime"
  case $config in
    nicbench*) /usr/bin/time -f "%U %S" -o "$tmp/stime" "$bin" serve -1 -p "$p" --bind 127.0.0.1 >/dev/null 2>&1 &
               client=("$bin" run 127.0.0.1 --no-store --no-samples) ;;
    *) /usr/bin/time -f "%U %S" -o "$tmp/stime" "$bin" -s -1 -p "$p" -B 127.0.0.1 >/dev/null 2>&1 &
       client=("$bin" -c 127.0.0.1) ;;
  esac
  server_pid=$!
  wait_port "$p" || { echo "$config: the server did not listen on $p" >&2; return 0; }
  [ "$config" = nicbench-offload ] && client_args+=(--udp-offload)
  [ "$config" = iperf3-3.21-gsro ] && client_args+=(--gsro)
  /usr/bin/time -f "%U %S" -o "$tmp/time" "${client[@]}" "${client_args[@]}" >"$tmp/out.json" 2>"$tmp/err" || true
  # The one-off server exits once the results are exchanged; give it 5 s, then stop it.
  for _ in $(seq 50); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
  kill "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
  server_pid=
  python3 - "$config" "$tmp/out.json" "$tmp/time" "$tmp/stime" >>"$tmp/results" <<'PY'
import json, sys
config, out, timef, stimef = sys.argv[1:]
try:
    doc = json.load(open(out))
    s = doc["end"]["sum_received"] if "sum_received" in doc["end"] else doc["end"]["sum"]
    secs = s["seconds"]
    packets, lost = s["packets"], s["lost_packets"]
    user, system = map(float, open(timef).read().split()[-2:])
    try:
        server_cpu = sum(map(float, open(stimef).read().split()[-2:]))
    except Exception:
        server_cpu = None
except Exception as e:  # a failed run is reported, not averaged in
    print(json.dumps({"config": config, "error": str(e)}))
    sys.exit(0)
delivered = s["bytes"] / 1e9
print(json.dumps({
    "config": config,
    "dps": (packets - lost) / secs,
    "lost_ps": lost / secs,
    "gbps": s["bytes"] * 8 / secs / 1e9,
    "client_cpu_gb": (user + system) / delivered if delivered else None,
    "server_cpu_gb": server_cpu / delivered if delivered and server_cpu is not None else None,
}))
PY
}

echo "UDP -u -b 0 -l $length, $rounds rounds of $seconds s, configurations: ${runnable[*]}" >&2
for ((r = 0; r < rounds; r++)); do
  n=${#runnable[@]}
  for ((k = 0; k < n; k++)); do
    c=${runnable[$(((k + r) % n))]}
    run_one "$c" "$((port + k))"
    echo "round $((r + 1))/$rounds $c: $(tail -1 "$tmp/results")" >&2
  done
done

python3 - "$tmp/results" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
ok = [r for r in rows if "error" not in r]
bad = [r for r in rows if "error" in r]
configs = list(dict.fromkeys(r["config"] for r in rows))
def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else float("nan")
def spread(xs):
    xs = [x for x in xs if x is not None]
    return f"{min(xs):.3g}..{max(xs):.3g}" if xs else "-"
print(f"{'config':18} {'delivered dgram/s':>18} {'spread':>17} {'lost dgram/s':>13} {'Gbit/s':>7}"
      f" {'client CPU-s/GB':>15} {'server CPU-s/GB':>15}")
for c in configs:
    rs = [r for r in ok if r["config"] == c]
    if not rs:
        print(f"{c:18} all runs failed"); continue
    print(f"{c:18} {med([r['dps'] for r in rs]):18,.0f} {spread([r['dps'] for r in rs]):>17}"
          f" {med([r['lost_ps'] for r in rs]):13,.0f} {med([r['gbps'] for r in rs]):7.2f}"
          f" {med([r['client_cpu_gb'] for r in rs]):15.2f} {med([r['server_cpu_gb'] for r in rs]):15.2f}")
# Ratios of each round's figures (the runs of one round ran back to back), then their median.
by_round, counts = [], {}
for r in ok:
    i = counts.get(r["config"], 0); counts[r["config"]] = i + 1
    while len(by_round) <= i: by_round.append({})
    by_round[i][r["config"]] = r
for base in ("iperf3-3.21", "iperf3-3.12"):
    if base not in configs: continue
    for c in configs:
        if c == base: continue
        dps = [rd[c]["dps"] / rd[base]["dps"] for rd in by_round if c in rd and base in rd and rd[base]["dps"]]
        lost = [(rd[c]["lost_ps"], rd[base]["lost_ps"]) for rd in by_round if c in rd and base in rd]
        if dps:
            print(f"ratio {c} / {base}: delivered datagrams/s {statistics.median(dps):.2f}x"
                  f" (rounds {min(dps):.2f}..{max(dps):.2f}); lost/s median {med([a for a, _ in lost]):,.0f}"
                  f" vs {med([b for _, b in lost]):,.0f}")
for r in bad:
    print(f"failed run: {r['config']}: {r['error']}")
PY
