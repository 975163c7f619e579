#!/usr/bin/env bash
# What the latency probes cost the test they run beside (run --under-load, docs/latency.md):
# nicbench on loopback with the probes (100 a second, the default) against the same test without
# them, interleaved (bench/loopback_pairs.sh): A with, B without. On loopback the test is
# CPU-bound, so this is the probes' CPU cost; on a link their bytes are under 0.01% of the test's.
#
# Usage: bench/under_load_cost.sh [-n PAIRS] [-t SECONDS] [-b NICBENCH_BINARY]   (defaults: 5, 10)
# Traffic goes to 127.0.0.1 only.
exec "$(dirname "$0")/loopback_pairs.sh" "$@" -- "--under-load --idle-time 1" ""
