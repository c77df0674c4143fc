#!/usr/bin/env bash
# Rebuilds cmd/avaedge/default.pgo, the CPU profile that `go build` uses for
# profile-guided optimisation (https://go.dev/doc/pgo). The profile is taken
# from avaedge's own admin listener while it serves a proxy's usual mix on
# loopback, for a bounded time:
#
#   - cache hits of one ~4 KB page (most of an edge's traffic),
#   - misses forced with `Cache-Control: no-cache` (the pass-through path),
#   - JSON-RPC calls that the local node answers (no node upstream).
#
# Run it after a change to the hot paths and commit the new profile:
#
#   deploy/pgo.sh [seconds]
set -euo pipefail
SECS=${1:-30}
cd "$(dirname "$0")/.."
if ! command -v wrk >/dev/null; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq wrk >/dev/null
fi

TMP=$(mktemp -d)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$TMP"; }
trap cleanup EXIT

go build -o "$TMP/origin" ./deploy/bench/origin
# Built without the profile being replaced, so the old one does not steer
# what the new one sees (-pgo=off).
go build -pgo=off -o "$TMP/avaedge" ./cmd/avaedge

ORIGIN=127.0.0.1:18091; EDGE=127.0.0.1:18094; ADMIN=127.0.0.1:18095
"$TMP/origin" -listen $ORIGIN & PIDS+=($!)
cat > "$TMP/keys.yaml" <<YML
plans:
  free: {cu_per_minute: 1000000000000, cu_per_day: 1000000000000000}
anonymous: free
YML
# The default configuration: the access log on, written to a file.
cat > "$TMP/edge.yaml" <<YML
local: {disable_dev_chain: true}
YML
AVAEDGE_DATA_UPSTREAM=http://$ORIGIN AVAEDGE_ADMIN_LISTEN=$ADMIN AVAEDGE_ADMIN_TOKEN=pgo-token AVAEDGE_KEYS_FILE=$TMP/keys.yaml \
  AVAEDGE_LISTEN=$EDGE "$TMP/avaedge" -config "$TMP/edge.yaml" 2>>"$TMP/avaedge.log" & PIDS+=($!)

HIT="/v1/chains/43114/blocks?pageSize=10"
for i in $(seq 1 100); do curl -sf -o /dev/null "http://$EDGE$HIT" && break; sleep 0.1; done
curl -sf -o /dev/null "http://$EDGE$HIT"

cat > "$TMP/rpc.lua" <<'LUA'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"jsonrpc":"2.0","id":1,"method":"info.getNetworkID","params":{}}'
LUA

curl -sf -H "Authorization: Bearer pgo-token" -o "$TMP/cpu.pprof" "http://$ADMIN/debug/pprof/profile?seconds=$SECS" & prof=$!
load=()
wrk -t1 -c48 -d"${SECS}s" "http://$EDGE$HIT" >/dev/null & load+=($!)
wrk -t1 -c8 -d"${SECS}s" -H "Cache-Control: no-cache" "http://$EDGE/v1/chains/43114/blocks?pageSize=20" >/dev/null & load+=($!)
wrk -t1 -c8 -d"${SECS}s" -s "$TMP/rpc.lua" "http://$EDGE/ext/info" >/dev/null & load+=($!)
wait "$prof" "${load[@]}"
mv "$TMP/cpu.pprof" cmd/avaedge/default.pgo
echo "wrote cmd/avaedge/default.pgo ($(wc -c < cmd/avaedge/default.pgo) bytes)"
