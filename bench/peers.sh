#!/usr/bin/env bash
# nicbench against its peers on loopback: iperf3 3.21, Debian's iperf3 3.12 and neper's
# tcp_stream, TCP, interleaved (each round runs every tool of a variant once, in turn, each with
# a fresh server), so the drift of a shared machine hits every tool alike. For each variant it
# prints per tool the median receiver throughput with its spread (min..max over the rounds),
# CPU-seconds per GB of each end (client: GNU time; server: /proc/PID/stat), peak RSS of each
# end (client: GNU time's maximum RSS; server: VmHWM), and the ratios nicbench / peer as the
# median of the per-round ratios. The flows variant runs 2 and N flows on 2 threads (nicbench
# -P N --threads 2, neper -T 2 -F N) and prints N flows' bytes over 2 flows' and the slowest
# flow's share of an even share (nicbench only: neper does not report flows). The udp variant
# runs bench/udp_peers.sh (at the end, whatever its place in the list).
#
# Usage: bench/peers.sh [-n ROUNDS] [-t SECONDS] [-b NICBENCH] [-f FLOWS] [-v "VARIANT;..."]
#   defaults: 5 rounds of 10 s, 1000 flows; variants "single;-P 2;-P 2 -Z;-P 4 -Z;-l 1M;flows;udp"
#   peers: IPERF3_321 (default ../shared/anchors/iperf3-3.21 beside the repository),
#          IPERF3_312 (default: iperf3 on PATH), NEPER_STREAM (../shared/anchors/neper-tcp_stream);
#          a peer that is missing is skipped with a note.
#   PORT_BASE (default 27100): the ports used are PORT_BASE..PORT_BASE+99.
# Traffic goes to 127.0.0.1 only. Exit 3 when nicbench or python3 is missing.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
anchors=${ANCHORS:-$here/../../shared/anchors}
rounds=5
seconds=10
flows=1000
nicbench=${NICBENCH:-$here/../build/nicbench}
variants="single;-P 2;-P 2 -Z;-P 4 -Z;-l 1M;flows;udp"
while getopts "n:t:b:f:v:" opt; do
  case $opt in
    n) rounds=$OPTARG ;;
    t) seconds=$OPTARG ;;
    b) nicbench=$OPTARG ;;
    f) flows=$OPTARG ;;
    v) variants=$OPTARG ;;
    *) echo "usage: $0 [-n rounds] [-t seconds] [-b nicbench] [-f flows] [-v variants]" >&2; exit 2 ;;
  esac
done
iperf321=${IPERF3_321:-$anchors/iperf3-3.21}
iperf312=${IPERF3_312:-$(command -v iperf3 || true)}
neper=${NEPER_STREAM:-$anchors/neper-tcp_stream}
port_base=${PORT_BASE:-27100}
command -v python3 >/dev/null || { echo "python3 not found" >&2; exit 3; }
[ -x "$nicbench" ] || { echo "nicbench binary not found: $nicbench (use -b)" >&2; exit 3; }
# The clients run in a temporary directory: a relative -b would name nothing there.
nicbench=$(realpath "$nicbench")
[ -x /usr/bin/time ] || { echo "GNU time (/usr/bin/time) not found" >&2; exit 3; }

tmp=$(mktemp -d)
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
clk_tck=$(getconf CLK_TCK)
port_seq=0

have() { [ -n "$1" ] && [ -x "$1" ]; }
cpu_seconds() { awk -v tck="$clk_tck" '{ sub(/^.*\) /, ""); print ($12 + $13) / tck }' "/proc/$1/stat"; }
hwm_kb() { awk '/^VmHWM:/ { print $2 }' "/proc/$1/status"; }
next_port() { port_seq=$(((port_seq + 1) % 100)); echo $((port_base + port_seq)); }

# start_server TOOL PORT [THREADS]: sets server_pid.
start_server() {
  local tool=$1 port=$2
  case $tool in
    nicbench) "$nicbench" serve -p "$port" --bind 127.0.0.1 --max-streams 2048 2>/dev/null & ;;
    iperf3-3.21) "$iperf321" -s -p "$port" -B 127.0.0.1 >/dev/null 2>&1 & ;;
    iperf3-3.12) "$iperf312" -s -p "$port" -B 127.0.0.1 >/dev/null 2>&1 & ;;
    neper) (cd "$tmp" && exec "$neper" -C "$port" -P "$((port + 1))" -l "$seconds" -T "$3" \
              -F "$4" -B 131072 --nolog >"$tmp/server_out" 2>&1) & ;;
  esac
  server_pid=$!
  sleep 0.5
}

# neper's server prints its figures when its test ends, shortly after the client's.
wait_neper_server() {
  [ "$1" = neper ] || return 0
  local i
  for ((i = 0; i < 50; i++)); do
    grep -q '^maxrss_end=' "$tmp/server_out" 2>/dev/null && return 0
    sleep 0.1
  done
}

# run_one TOOL ARGS...: one run, prints "bps client_cpu server_cpu bytes client_rss_kb
# server_rss_kb slowest_share" (slowest_share "-" where unknown).
run_one() {
  local tool=$1; shift
  local port; port=$(next_port)
  local threads=1 nflows=1
  if [ "$tool" = neper ]; then threads=$1; nflows=$2; shift 2; fi
  start_server "$tool" "$port" "$threads" "$nflows"
  local before; before=$(cpu_seconds "$server_pid")
  local client
  case $tool in
    nicbench) client=("$nicbench" run 127.0.0.1 --no-store -p "$port" -t "$seconds" -J "$@") ;;
    iperf3-3.21) client=("$iperf321" -c 127.0.0.1 -p "$port" -t "$seconds" -J "$@") ;;
    iperf3-3.12) client=("$iperf312" -c 127.0.0.1 -p "$port" -t "$seconds" -J "$@") ;;
    neper) client=("$neper" -c -H 127.0.0.1 -C "$port" -P "$((port + 1))" -l "$seconds"
                   -T "$threads" -F "$nflows" -B 131072 --nolog) ;;
  esac
  (cd "$tmp" && /usr/bin/env time -f "%U %S %M" -o "$tmp/time" "${client[@]}" >"$tmp/out" 2>/dev/null) || true
  wait_neper_server "$tool"
  local after; after=$(cpu_seconds "$server_pid" 2>/dev/null || echo "$before")
  local rss; rss=$(hwm_kb "$server_pid" 2>/dev/null || echo 0)
  kill "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null || true
  server_pid=
  python3 - "$tool" "$tmp/out" "$tmp/time" "$before" "$after" "$rss" "$seconds" "$tmp/server_out" <<'PY'
import json, sys
tool, out, timef, before, after, rss, secs, server_out = sys.argv[1:]
u, k, m = open(timef).read().split()[-3:]
share = "-"
try:
    if tool == "neper":
        kv = dict(l.strip().split("=", 1) for l in open(out) if "=" in l)
        bps = float(kv["remote_throughput"])
        nbytes = bps * float(secs) / 8
        # neper's server ends with its test, before /proc can be read: it prints its own
        # getrusage figures.
        sv = dict(l.strip().split("=", 1) for l in open(server_out) if "=" in l)
        before, after = "0", str(sum(float(sv[f"{x}_end"]) - float(sv[f"{x}_start"])
                                     for x in ("utime", "stime")))
        rss = sv["maxrss_end"]
    else:
        doc = json.load(open(out))
        s = doc["end"]["sum_received"]
        bps, nbytes = s["bits_per_second"], s["bytes"]
        slow = doc.get("nicbench", {}).get("slowest_stream", {}).get("all")
        if slow:
            share = f'{slow["share_of_even"]:.3f}'
except (OSError, ValueError, KeyError, TypeError):
    bps, nbytes = 0.0, 0
print(bps, float(u) + float(k), float(after) - float(before), nbytes, m, rss, share)
PY
}

# The tools and their arguments for one variant, one per line: "TOOL|ARGS".
plan() {
  local v=$1 args=()
  [ "$v" != single ] && read -ra args <<<"$v"
  echo "nicbench|${args[*]}"
  have "$iperf321" && echo "iperf3-3.21|${args[*]}"
  have "$iperf312" && echo "iperf3-3.12|${args[*]}"
  if have "$neper"; then
    case $v in
      single) echo "neper|1 1" ;;
      "-P 2") echo "neper|2 2" ;;
    esac
  fi
  return 0
}

summarize() {  # rows file, variant
  python3 - "$1" "$2" <<'PY'
import statistics as st, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
variant = sys.argv[2]
by = {}
for r in rows:
    by.setdefault(r[0], []).append(r)
def gb(r): return max(float(r[5]), 1.0) / 1e9
print(f"== {variant}")
for tool, rs in by.items():
    g = [float(r[2]) / 1e9 for r in rs]
    cc = st.median(float(r[3]) / gb(r) for r in rs)
    sc = st.median(float(r[4]) / gb(r) for r in rs)
    crss = st.median(float(r[6]) for r in rs) / 1024
    srss = st.median(float(r[7]) for r in rs) / 1024
    print(f"  {tool:<13} {st.median(g):7.2f} Gbit/s [{min(g):6.2f}..{max(g):6.2f}]  "
          f"cpu-s/GB client {cc:.3f} server {sc:.3f}  RSS MB client {crss:5.1f} server {srss:5.1f}")
nb = {r[1]: r for r in by.get("nicbench", [])}
for tool, rs in by.items():
    if tool == "nicbench":
        continue
    pairs = [(nb[r[1]], r) for r in rs if r[1] in nb and float(r[2]) > 0]
    if not pairs:
        continue
    t = st.median(float(a[2]) / float(b[2]) for a, b in pairs)
    c = st.median((float(a[3]) / gb(a)) / max(float(b[3]) / gb(b), 1e-9) for a, b in pairs)
    s = st.median((float(a[4]) / gb(a)) / max(float(b[4]) / gb(b), 1e-9) for a, b in pairs)
    print(f"  nicbench / {tool:<13} throughput {t:.2f}x  cpu-s/GB client {c:.2f}x  server {s:.2f}x"
          f"  ({len(pairs)} rounds)")
PY
}

summarize_flows() {  # rows file, flows
  python3 - "$1" "$2" <<'PY'
import statistics as st, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
n = sys.argv[2]
print(f"== flows: 2 and {n} flows on 2 threads")
for tool in ("nicbench", "neper"):
    two = {r[1]: r for r in rows if r[0] == f"{tool}-2"}
    many = {r[1]: r for r in rows if r[0] == f"{tool}-{n}"}
    pairs = [(two[k], many[k]) for k in two if k in many and float(two[k][2]) > 0]
    if not pairs:
        continue
    for label, rs in ((2, [p[0] for p in pairs]), (n, [p[1] for p in pairs])):
        g = [float(r[2]) / 1e9 for r in rs]
        crss = st.median(float(r[6]) for r in rs) / 1024
        srss = st.median(float(r[7]) for r in rs) / 1024
        shares = [float(r[8]) for r in rs if r[8] != "-"]
        share = f"  slowest flow {min(shares):.2f} of even (median {st.median(shares):.2f})" if shares else ""
        print(f"  {tool:<8} {label:>5} flows {st.median(g):7.2f} Gbit/s [{min(g):6.2f}..{max(g):6.2f}]"
              f"  RSS MB client {crss:5.1f} server {srss:5.1f}{share}")
    ratio = st.median(float(b[2]) / float(a[2]) for a, b in pairs)
    growth = st.median((float(b[6]) - float(a[6])) / (int(n) - 2) for a, b in pairs)
    sgrowth = st.median((float(b[7]) - float(a[7])) / (int(n) - 2) for a, b in pairs)
    print(f"  {tool:<8} {n} flows / 2 flows: bytes {ratio:.2f}x; RSS per extra flow "
          f"client {growth:.1f} KB, server {sgrowth:.1f} KB ({len(pairs)} rounds)")
PY
}

echo "TCP on loopback: $rounds interleaved rounds of ${seconds}s per variant; $(nproc) CPUs," \
     "load average $(cut -d' ' -f1-3 /proc/loadavg) at start"
IFS=';' read -ra variant_list <<<"$variants"
run_udp=0
for variant in "${variant_list[@]}"; do
  if [ "$variant" = udp ]; then
    run_udp=1
    continue
  fi
  : >"$tmp/rows"
  if [ "$variant" = flows ]; then
    for ((i = 0; i < rounds; i++)); do
      for n in 2 "$flows"; do
        echo "nicbench-$n $i $(run_one nicbench -P "$n" --threads 2)" >>"$tmp/rows"
        have "$neper" && echo "neper-$n $i $(run_one neper 2 "$n")" >>"$tmp/rows"
      done
    done
    summarize_flows "$tmp/rows" "$flows"
    continue
  fi
  mapfile -t tools < <(plan "$variant")
  for ((i = 0; i < rounds; i++)); do
    for entry in "${tools[@]}"; do
      tool=${entry%%|*}
      read -ra args <<<"${entry#*|}"
      echo "$tool $i $(run_one "$tool" "${args[@]}")" >>"$tmp/rows"
    done
  done
  summarize "$tmp/rows" "$variant"
done
echo "load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
if [ "$run_udp" = 1 ] && [ -f "$here/udp_peers.sh" ]; then
  bash "$here/udp_peers.sh" -r "$rounds" -t "$seconds" -n "$nicbench"
fi
