#!/usr/bin/env bash
# `notifications search` rate (issue 38) on each generation: seeds `serve --generation G --history N`
# (the demo world plus N past events) in memory, then times `notifications search EXPR` piped to a
# file with /usr/bin/time (wall, client CPU, peak RSS) and reads the summary's `examined N`.
# Prints one line per generation and run.
#
#   benches/manual/search_rate.sh [EVENTS] [RUNS]
#
# EVENTS defaults to 2000, RUNS to 1; BIN overrides the binary (default target/release/switchboard),
# GENERATIONS the list (default: pulsar event-destinations callback-destinations), EXPR the
# expression (default `false`: nothing matches, every delivery is examined).
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${BIN:-target/release/switchboard}
EVENTS=${1:-2000}
RUNS=${2:-1}
EXPR=${EXPR:-false}
GENERATIONS=${GENERATIONS:-pulsar event-destinations callback-destinations}
work=$(mktemp -d)
trap 'kill "${pid:-0}" 2>/dev/null || true; rm -rf "$work"' EXIT

port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

export SB_BENCH_ORG="sk_org_bench_$RANDOM$RANDOM$RANDOM"
export SB_BENCH_INSTANCE="sk_inst_bench_$RANDOM$RANDOM$RANDOM"
printf '[profiles.bench]\norganization_key_env = "SB_BENCH_ORG"\n' >"$work/config.toml"
printf '%-22s %-7s %-9s %-8s %-9s %-12s %-9s\n' generation events examined wall_s cpu_s examined/s rss_mib
for g in $GENERATIONS; do
  p=$(port)
  inst=(--instance-key-env SB_BENCH_INSTANCE)
  [ "$g" = pulsar ] && inst=()
  : >"$work/serve.log"
  "$BIN" serve --addr "127.0.0.1:$p" --db :memory: --seed demo --generation "$g" \
    --api-key-env SB_BENCH_ORG "${inst[@]}" --history "$EVENTS" >"$work/serve.log" 2>&1 &
  pid=$!
  until grep -q "listening on" "$work/serve.log"; do
    kill -0 "$pid" 2>/dev/null || { cat "$work/serve.log"; exit 1; }
    sleep 0.2
  done
  instance=$(awk '/^Instance id:/ {print $3}' "$work/serve.log")
  key=$SB_BENCH_INSTANCE
  [ "$g" = pulsar ] && key=$SB_BENCH_ORG
  for _ in $(seq "$RUNS"); do
    SWITCHBOARD_CONFIG="$work/config.toml" SWITCHBOARD_BASE_URL="http://127.0.0.1:$p" \
      SWITCHBOARD_API_KEY="$key" SWITCHBOARD_INSTANCE_ID="$instance" \
      /usr/bin/time -f '%e %U %S %M' -o "$work/time" \
      "$BIN" --profile bench notifications search "$EXPR" >"$work/out" 2>"$work/err" || true
    read -r wall user sys rss <"$work/time"
    examined=$(grep -o 'examined [0-9,]*' "$work/err" | tail -1 | tr -dc '0-9')
    printf '%-22s %-7s %-9s %-8s %-9s %-12s %-9s\n' "$g" "$EVENTS" "${examined:-?}" "$wall" \
      "$(python3 -c "print(round($user + $sys, 1))")" \
      "$(python3 -c "print(round(${examined:-0} / max($wall, 0.01)))")" \
      "$(python3 -c "print(round($rss / 1024))")"
    [ -z "$examined" ] && tail -3 "$work/err"
  done
  kill "$pid"; wait "$pid" 2>/dev/null || true
done
