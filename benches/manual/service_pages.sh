#!/usr/bin/env bash
# Page latency of the local service against its history: for each size, seeds a fresh database
# with `serve --history N`, then times 20-item notification and team pages with wrk (one
# connection: latency; 16 connections: pages per second). Prints one table row per size.
#
#   cargo build --release && benches/manual/service_pages.sh [EVENTS...]
#
# EVENTS are events to seed (default: 0 100 3300 33000 330000); the demo world fans each event
# out to about three notifications, so 330000 events make about a million notifications.
# Needs wrk (apt-get install wrk). BIN overrides the binary; DURATION the seconds per run.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${BIN:-target/release/switchboard}
DURATION=${DURATION:-5}
SIZES=("$@")
[ ${#SIZES[@]} -eq 0 ] && SIZES=(0 100 3300 33000 330000)
work=$(mktemp -d)
trap 'kill "${pid:-0}" 2>/dev/null || true; rm -rf "$work"' EXIT

port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

printf '%-9s %-14s %-9s %-12s %-12s %-12s %-12s\n' events notifications seed_s \
  notif_p50_ms notif_p99_ms notif_pages/s teams_pages/s
for n in "${SIZES[@]}"; do
  p=$(port)
  export SB_BENCH_KEY="sk_local_bench_$RANDOM$RANDOM"
  hist=()
  [ "$n" -gt 0 ] && hist=(--history "$n")
  start=$(date +%s.%N)
  "$BIN" serve --addr "127.0.0.1:$p" --db "$work/s$n.db" --seed demo --api-key-env SB_BENCH_KEY \
    "${hist[@]}" >"$work/log$n" 2>&1 &
  pid=$!
  until curl -sf -o /dev/null -H "authorization: Bearer $SB_BENCH_KEY" "http://127.0.0.1:$p/organization/teams"; do
    kill -0 "$pid" 2>/dev/null || { cat "$work/log$n"; exit 1; }
    sleep 0.1
  done
  seeded=$(python3 -c "print(round($(date +%s.%N) - $start, 1))")
  count=$(sqlite3 "file:$work/s$n.db?mode=ro" 'select count(*) from notifications' 2>/dev/null || echo '?')
  url="http://127.0.0.1:$p/callbacks-notifications?limit=20"
  hdr="authorization: Bearer $SB_BENCH_KEY"
  one=$(wrk -t1 -c1 -d"${DURATION}s" --latency -H "$hdr" "$url")
  p50=$(awk '/^ +50%/ {print $2}' <<<"$one")
  p99=$(awk '/^ +99%/ {print $2}' <<<"$one")
  many=$(wrk -t2 -c16 -d"${DURATION}s" -H "$hdr" "$url" | awk '/Requests\/sec/ {print $2}')
  teams=$(wrk -t2 -c16 -d"${DURATION}s" -H "$hdr" "http://127.0.0.1:$p/organization/teams?limit=20" | awk '/Requests\/sec/ {print $2}')
  printf '%-9s %-14s %-9s %-12s %-12s %-12s %-12s\n' "$n" "$count" "$seeded" "$p50" "$p99" "$many" "$teams"
  kill "$pid"; wait "$pid" 2>/dev/null || true
done
