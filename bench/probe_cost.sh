#!/usr/bin/env bash
# What host sampling costs: nicbench on loopback with probes at 10 Hz (-i 0.1, both ends sample
# every 100 ms) against probes off (--no-samples), interleaved (bench/loopback_pairs.sh): A is
# on, B off.
#
# Usage: bench/probe_cost.sh [-n PAIRS] [-t SECONDS] [-b NICBENCH_BINARY]   (defaults: 5, 10)
# Traffic goes to 127.0.0.1 only.
exec "$(dirname "$0")/loopback_pairs.sh" "$@" -- "-i 0.1" "-i 0.1 --no-samples"
