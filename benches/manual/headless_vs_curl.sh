#!/bin/sh
# Headless `teams list -o json` against a local service side by side with curl (BENCHMARKS.md).
# usage: benches/manual/headless_vs_curl.sh [path/to/switchboard]   (default target/release/switchboard)
set -eu
BIN=${1:-target/release/switchboard}
PORT=${PORT:-18787}
export SWITCHBOARD_API_KEY=sk_bench_local_0123456789abcdef
"$BIN" serve --seed demo --db :memory: --addr 127.0.0.1:$PORT --api-key-env SWITCHBOARD_API_KEY >/dev/null 2>&1 &
SVC=$!
trap 'kill $SVC' EXIT
i=0
until curl -fs -o /dev/null -H "Authorization: Bearer $SWITCHBOARD_API_KEY" http://127.0.0.1:$PORT/organization/teams; do
  i=$((i + 1)); [ $i -lt 100 ] || { echo "service did not start" >&2; exit 1; }
  sleep 0.05
done
# An empty config dir so no user profile is read.
CFG=$(mktemp -d)
export XDG_CONFIG_HOME=$CFG HOME=$CFG
# curl reads its headers from a file so the key is not in its argv either.
printf 'Authorization: Bearer %s\nMetorial-Version: 2025-01-01\n' "$SWITCHBOARD_API_KEY" >"$CFG/headers"
hyperfine -N --warmup 20 --runs ${RUNS:-300} --export-markdown ${OUT:-/dev/stdout} \
  "$BIN --base-url http://127.0.0.1:$PORT teams list -o json" \
  "curl -fsS -o /dev/null -H @$CFG/headers http://127.0.0.1:$PORT/organization/teams"
