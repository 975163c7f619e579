#!/usr/bin/env bash
# Runs bench/fleet_claim_bench.cc against a PostgreSQL server it starts itself in a temporary
# directory (initdb and pg_ctl from Debian's postgresql package, as the postgres user when run
# as root, fsync off as in the tests), then stops it. Usage:
#   bench/fleet_claim.sh BUILD_DIR [AGENTS] [MESHES] [THREADS]
set -euo pipefail
build=${1:?usage: bench/fleet_claim.sh BUILD_DIR [AGENTS] [MESHES] [THREADS]}
shift
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
dir=$(mktemp -d /tmp/nicbench-fleet-bench-XXXXXX)
as_server=()
if [ "$(id -u)" = 0 ]; then
  chown postgres: "$dir"
  as_server=(setpriv --reuid=postgres --regid=postgres --clear-groups --)
fi
port=$(( 20000 + RANDOM % 10000 ))
cleanup() {
  "${as_server[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap cleanup EXIT
"${as_server[@]}" "$bin/initdb" -D "$dir/data" -U nicbench --auth=trust -E UTF8 --no-sync \
  --no-instructions >/dev/null
"${as_server[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w start \
  -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100" >/dev/null
"$build/bench/fleet_claim_bench" "postgresql://nicbench@127.0.0.1:$port/postgres" "$@"
