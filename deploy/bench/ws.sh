#!/usr/bin/env bash
# WebSocket benchmark: 1,000 newHeads subscribers on the dev chain (avaedge in
# local mode for the node, the Data API in front of deploy/bench/origin),
# blocks made one every 100 ms, each subscriber on its own connection
# (deploy/bench/wsload): the delay from each block's transaction being sent
# to the first and the last subscriber reading its notification, first
# alone, then while wrk measures the HTTP hit path (a cached ~4 KB page, as
# compare.sh), whose requests per second with no subscriber are measured
# between the two. Prints the load before, during and after, wsload's
# figures and the hit path's requests per second.
#
#   deploy/bench/ws.sh [subscribers] [blocks] [rounds]
set -euo pipefail
SUBS=${1:-1000}
BLOCKS=${2:-200}
ROUNDS=${3:-3}
cd "$(dirname "$0")/../.."
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min; $(nproc) cores)"
command -v wrk >/dev/null || { SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo; $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq wrk >/dev/null; }
TMP=$(mktemp -d)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$TMP"
}
trap cleanup EXIT
go build -o "$TMP/origin" ./deploy/bench/origin
go build -o "$TMP/avaedge" ./cmd/avaedge
go build -o "$TMP/wsload" ./deploy/bench/wsload
ORIGIN=127.0.0.1:18191; EDGE=127.0.0.1:18192
"$TMP/origin" -listen $ORIGIN & PIDS+=($!)
cat > "$TMP/keys.yaml" <<YML
plans:
  bench: {cu_per_minute: 1000000000000, cu_per_day: 1000000000000000}
anonymous: bench
YML
cat > "$TMP/edge.yaml" <<YML
disable_access_log: true
log_level: warn
routes:
  getLatestBlocks: {cache: immutable}
websocket: {connections_per_address: $((SUBS + 10))}
local: {evm: {writes_per_minute: 1000000}}
YML
ulimit -n $((SUBS * 2 + 1024)) 2>/dev/null || true
AVAEDGE_DATA_UPSTREAM=http://$ORIGIN AVAEDGE_ADMIN_LISTEN=127.0.0.1:0 AVAEDGE_KEYS_FILE=$TMP/keys.yaml \
  AVAEDGE_LISTEN=$EDGE "$TMP/avaedge" -config "$TMP/edge.yaml" & PIDS+=($!)
PATHQ="/v1/chains/43114/blocks?pageSize=10"
for i in $(seq 1 300); do curl -sf -o /dev/null "http://$EDGE$PATHQ" && curl -sf -o /dev/null -X POST -H 'Content-Type: application/json' \
  -d '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}' "http://$EDGE/ext/bc/C/rpc" && break; sleep 0.2; done
h=$(curl -sfi -o /dev/stdout "http://$EDGE$PATHQ"); h=${h%%$'\r\n\r\n'*}
grep -qi '^x-cache-status: HIT' <<<"$h" || { echo "the hit path did not HIT"; echo "$h"; exit 1; }
SECS=$(( BLOCKS / 10 ))
rps() { wrk -t1 -c32 -d"${1}s" "http://$EDGE$PATHQ" | awk '/Requests\/sec/ {print $2}'; }
for round in $(seq 1 "$ROUNDS"); do
  echo "round $round, subscribers alone (load $(cut -d' ' -f1 /proc/loadavg)): $("$TMP/wsload" -edge "http://$EDGE" -subscribers "$SUBS" -blocks "$BLOCKS")"
  idle=$(rps "$SECS")
  "$TMP/wsload" -edge "http://$EDGE" -subscribers "$SUBS" -blocks "$BLOCKS" > "$TMP/ws.json" &
  load=$!
  # wrk once every subscriber is connected (the upgrades are not the load measured).
  sleep $(( SUBS / 200 + 2 ))
  during=$(rps $(( SECS - 2 )))
  wait $load
  echo "round $round, with wrk on the hit path: $(cat "$TMP/ws.json")"
  echo "round $round: hit path $idle req/s with no subscriber, $during req/s during the blocks' notifications"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
