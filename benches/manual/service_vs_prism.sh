#!/usr/bin/env bash
# The local service and Prism (npm @stoplight/prism-cli) serving the same /openapi.json, side by
# side in one run: pages per second and p99 latency under 16 connections for a 20-item teams page
# and notifications page, and the service/Prism ratio.
#
#   cargo build --release && benches/manual/service_vs_prism.sh [EVENTS]
#
# EVENTS seeds that much history first (`serve --history`, default 3000). Needs wrk
# (apt-get install wrk) and Prism (npm install @stoplight/prism-cli; PRISM points at its binary,
# default `npx prism`). DURATION sets the seconds per run (default 10).
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${BIN:-target/release/switchboard}
PRISM=${PRISM:-npx prism}
DURATION=${DURATION:-10}
EVENTS=${1:-3000}
work=$(mktemp -d)
trap 'kill "${svc:-0}" "${prism:-0}" 2>/dev/null || true; rm -rf "$work"' EXIT
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

export SB_BENCH_KEY="sk_local_bench_$RANDOM$RANDOM"
sp=$(port)
"$BIN" serve --addr "127.0.0.1:$sp" --db "$work/s.db" --seed demo --api-key-env SB_BENCH_KEY \
  --history "$EVENTS" >"$work/svc.log" 2>&1 &
svc=$!
hdr="authorization: Bearer $SB_BENCH_KEY"
until curl -sf -o "$work/openapi.json" "http://127.0.0.1:$sp/openapi.json"; do
  kill -0 "$svc" 2>/dev/null || { cat "$work/svc.log"; exit 1; }
  sleep 0.1
done
until curl -sf -o /dev/null -H "$hdr" "http://127.0.0.1:$sp/organization/teams"; do sleep 0.1; done
pp=$(port)
$PRISM mock -h 127.0.0.1 -p "$pp" "$work/openapi.json" >"$work/prism.log" 2>&1 &
prism=$!
until curl -s -o /dev/null "http://127.0.0.1:$pp/organization/teams?limit=20" -H "$hdr"; do
  kill -0 "$prism" 2>/dev/null || { cat "$work/prism.log"; exit 1; }
  sleep 0.2
done

run() { # base path -> "pages/s p99"
  local out
  out=$(wrk -t2 -c16 -d"${DURATION}s" --latency -H "$hdr" "$1$2")
  local rps p99 non2xx
  rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
  p99=$(awk '/^ +99%/ {print $2}' <<<"$out")
  non2xx=$(awk '/Non-2xx/ {print $4}' <<<"$out")
  echo "$rps $p99 ${non2xx:-0}"
}
ratio() { python3 -c "print(f'{$1/$2:.1f}x')"; }
printf '%-14s %-12s %-10s %-12s %-10s %s\n' page service_p/s svc_p99 prism_p/s prism_p99 ratio
for path in "/organization/teams?limit=20" "/callbacks-notifications?limit=20"; do
  read -r s_rps s_p99 s_bad < <(run "http://127.0.0.1:$sp" "$path")
  read -r p_rps p_p99 p_bad < <(run "http://127.0.0.1:$pp" "$path")
  [ "$s_bad" = 0 ] || echo "warning: service answered $s_bad non-2xx" >&2
  [ "$p_bad" = 0 ] || echo "warning: prism answered $p_bad non-2xx" >&2
  printf '%-14s %-12s %-10s %-12s %-10s %s\n' "${path%%\?*}" "$s_rps" "$s_p99" "$p_rps" "$p_p99" \
    "$(ratio "$s_rps" "$p_rps")"
done
