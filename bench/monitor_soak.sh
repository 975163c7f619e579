#!/usr/bin/env bash
# A monitor on loopback against one `nicbench serve`, for a long time: every STEP seconds its
# resident memory (VmRSS), its open descriptors and the CPU time it used in the step (user +
# system from /proc/PID/stat, as a percentage of one core), one line each; flat RSS and fds
# over an hour is the "runs for weeks" check, the CPU between tests the cost of 1 s sampling
# plus the 10/s latency probe (docs/monitor.md). The server's own CPU is not counted.
#
# Usage: bench/monitor_soak.sh [-d SECONDS] [-s STEP] [-b NICBENCH] [-- MONITOR ARGS...]
# (defaults: 3600 s, a line every 60 s; the monitor tests every 10 minutes, -t 5 each way).
# Traffic goes to 127.0.0.1 only.
set -euo pipefail

duration=3600
step=60
nicbench=${NICBENCH:-$(dirname "$0")/../build/nicbench}
while getopts "d:s:b:" opt; do
  case $opt in
    d) duration=$OPTARG ;;
    s) step=$OPTARG ;;
    b) nicbench=$OPTARG ;;
    *) echo "usage: $0 [-d seconds] [-s step] [-b nicbench] [-- monitor args]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ -x "$nicbench" ] || { echo "nicbench binary not found: $nicbench (use -b)" >&2; exit 3; }
work=$(mktemp -d)
port=$((20000 + RANDOM % 20000))
"$nicbench" serve -p "$port" --bind 127.0.0.1 2>/dev/null &
server=$!
trap 'kill $server $monitor 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
until ss -ltn "sport = :$port" | grep -q LISTEN; do sleep 0.1; done
"$nicbench" monitor 127.0.0.1 -p "$port" --no-store --lock-dir "$work" \
  --events "$work/events.ndjson" "$@" >/dev/null 2>"$work/stderr" &
monitor=$!
hz=$(getconf CLK_TCK)
cpu() { awk '{print $14 + $15}' "/proc/$monitor/stat"; }
echo "seconds rss_kib fds cpu_percent_of_one_core"
elapsed=0
before=$(cpu)
while ((elapsed < duration)); do
  sleep "$step"
  elapsed=$((elapsed + step))
  [ -d "/proc/$monitor" ] || { echo "the monitor ended:" >&2; cat "$work/stderr" >&2; exit 1; }
  now=$(cpu)
  rss=$(awk '/VmRSS/ {print $2}' "/proc/$monitor/status")
  fds=$(ls "/proc/$monitor/fd" | wc -l)
  echo "$elapsed $rss $fds $(awk -v d=$((now - before)) -v hz="$hz" -v s="$step" \
    'BEGIN {printf "%.2f", 100 * d / hz / s}')"
  before=$now
done
echo "events:"
cat "$work/events.ndjson"
