#!/usr/bin/env bash
# A connect/close flood from 127.0.0.1 beside real tests from the same address
# (bench/connect_flood_bench.cc), three ways: no flood; a flood against the default
# --max-connections-per-second (1000); the same flood with the limit lifted (1000000).
# Usage: bench/connect_flood.sh [BUILD_DIR=build] [FLOOD_THREADS=2] [TESTS=20]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
threads=${2:-2}
tests=${3:-20}
cmake --build "$dir" --target nicbench connect_flood_bench >/dev/null

# run_one LABEL FLOOD_THREADS [SERVE OPTIONS...]
run_one() {
  local label=$1 flood=$2
  shift 2
  local log port=""
  log=$(mktemp)
  "$dir/nicbench" serve -p 0 --bind 127.0.0.1 "$@" 2>"$log" &
  local pid=$!
  for _ in $(seq 100); do
    port=$(sed -n 's/.*serving on port \([0-9]*\).*/\1/p' "$log")
    [ -n "$port" ] && break
    sleep 0.1
  done
  echo "== $label"
  "$dir/bench/connect_flood_bench" "$dir/nicbench" "$port" "$pid" "$flood" "$tests" || true
  kill -TERM "$pid"
  wait "$pid" || true
  echo "   server log: $(grep -c 'come faster than' "$log") flood line(s), $(grep -c 'more connections over' "$log") count line(s), $(wc -l <"$log") lines in all"
  rm -f "$log"
}

run_one "no flood, default limit" 0
run_one "flood, default limit (1000 a second)" "$threads"
run_one "flood, limit lifted (--max-connections-per-second 1000000)" "$threads" \
  --max-connections-per-second 1000000
