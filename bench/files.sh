#!/usr/bin/env bash
# -F benchmark on loopback: a file transfer from a tmpfs file against the memory-to-memory rate
# of the same test (same bytes, same options), nicbench's -F against iperf3's -F, and classic
# ttcp's normal mode (stdin -> network -> stdout, 128 KiB buffers) moving the same file, in
# interleaved rounds (mem, file, iperf3 -F, ttcp, mem, ...) so a drifting shared machine hits
# every variant alike. Prints each variant's median goodput and the ratios of medians.
#
# Usage: bench/files.sh [-n ROUNDS] [-s SIZE_MIB] [-i IPERF3] [-b NICBENCH] [-x "EXTRA OPTS"]
#   defaults: 5 rounds, a 2048 MiB file in /dev/shm, iperf3 from $IPERF3 or PATH, no extra
#   options (-x -Z: sendfile from the file against sendfile from memory).
# Traffic goes to 127.0.0.1 only. The file is removed at the end.
set -euo pipefail

rounds=5
size_mib=2048
nicbench=${NICBENCH:-$(dirname "$0")/../build/nicbench}
ttcp=$(dirname "$nicbench")/ttcp
iperf3=${IPERF3:-iperf3}
extra=""
while getopts "n:s:i:b:x:" opt; do
  case $opt in
    n) rounds=$OPTARG ;;
    s) size_mib=$OPTARG ;;
    i) iperf3=$OPTARG ;;
    b) nicbench=$OPTARG ;;
    x) extra=$OPTARG ;;
    *) echo "usage: $0 [-n rounds] [-s MiB] [-i iperf3] [-b nicbench] [-x opts]" >&2; exit 2 ;;
  esac
done
[ -x "$nicbench" ] || { echo "nicbench binary not found: $nicbench (use -b)" >&2; exit 3; }
command -v "$iperf3" >/dev/null || { echo "iperf3 not found: $iperf3 (use -i)" >&2; exit 3; }
[ "$(stat -f -c %T /dev/shm)" = tmpfs ] || { echo "/dev/shm is not a tmpfs" >&2; exit 3; }

tmp=$(mktemp -d)
file=$(mktemp /dev/shm/nicbench-files-bench.XXXXXX)
trap 'rm -rf "$tmp" "$file"' EXIT
head -c "$((size_mib << 20))" /dev/urandom >"$file"
bytes=$((size_mib << 20))
port=$((25000 + RANDOM % 900))

# rate_of JSON: the receiver's goodput in bits/s from an iperf3-shaped document.
rate_of() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["end"]["sum_received"]["bits_per_second"])' "$1"; }

# run_nicbench ARGS...: one test against a fresh `nicbench serve --once`.
run_nicbench() {
  "$nicbench" serve --once -p "$port" --bind 127.0.0.1 2>/dev/null &
  local pid=$!
  sleep 0.3
  # shellcheck disable=SC2086
  "$nicbench" run 127.0.0.1 -p "$port" --no-store -J $extra "$@" >"$tmp/out.json" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  rate_of "$tmp/out.json"
}

run_iperf3_file() {
  "$iperf3" -s -1 -p "$port" -B 127.0.0.1 >/dev/null 2>&1 &
  local pid=$!
  sleep 0.3
  # shellcheck disable=SC2086
  "$iperf3" -c 127.0.0.1 -p "$port" -J $extra -F "$file" >"$tmp/out.json" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  rate_of "$tmp/out.json"
}

# ttcp's receiver rate in bits/s ("ttcp-r: N bytes in S real seconds = K KB/sec", KB = 1024).
run_ttcp() {
  "$ttcp" -r -l 131072 -p "$port" >/dev/null 2>"$tmp/ttcp-r" &
  local pid=$!
  sleep 0.3
  "$ttcp" -t -l 131072 -p "$port" 127.0.0.1 <"$file" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  sed -n 's/^ttcp-r: .* = \([0-9.]*\) KB\/sec.*/\1/p' "$tmp/ttcp-r" | awk '{ print $1 * 1024 * 8 }'
}

: >"$tmp/mem"; : >"$tmp/file"; : >"$tmp/iperf3"; : >"$tmp/ttcp"
for ((r = 1; r <= rounds; r++)); do
  run_nicbench -n "$bytes" >>"$tmp/mem"
  run_nicbench -F "$file" >>"$tmp/file"
  run_iperf3_file >>"$tmp/iperf3"
  run_ttcp >>"$tmp/ttcp"
  echo "round $r: mem $(tail -1 "$tmp/mem") file $(tail -1 "$tmp/file") iperf3-F $(tail -1 "$tmp/iperf3") ttcp $(tail -1 "$tmp/ttcp")" >&2
done

python3 - "$tmp" "$size_mib" "$rounds" "$extra" "$("$iperf3" --version | head -1)" <<'PY'
import statistics, sys
d, size, rounds, extra, iperf = sys.argv[1:]
med = {k: statistics.median(float(x) for x in open(f"{d}/{k}")) for k in ("mem", "file", "iperf3", "ttcp")}
print(f"loopback, {rounds} interleaved rounds, {size} MiB tmpfs file, options '{extra}'")
print(f"  nicbench memory-to-memory (-n {size}M): {med['mem']/1e9:7.2f} Gbit/s (median)")
print(f"  nicbench -F tmpfs file:              {med['file']/1e9:7.2f} Gbit/s (median)")
print(f"  {iperf} -F:  {med['iperf3']/1e9:7.2f} Gbit/s (median)")
print(f"  ttcp -t < file (normal mode, 128 KiB): {med['ttcp']/1e9:7.2f} Gbit/s (median)")
print(f"  file / memory:      {med['file']/med['mem']:.3f}")
print(f"  nicbench -F / ttcp normal mode: {med['file']/med['ttcp']:.3f}")
print(f"  nicbench -F / iperf3 -F: {med['file']/med['iperf3']:.3f}")
PY
