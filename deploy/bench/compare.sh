#!/usr/bin/env bash
# Hit path, before and after a change, in one run: the same ~4 KB cached page
# through two avaedge builds (the working tree's and REV's), limits on, with
# wrk on loopback, interleaved over several rounds (the order reversed every
# other round). Prints each round and the median of the per-round ratios
# after/before: a shared machine drifts more than the difference measured.
#
#   deploy/bench/compare.sh REV [rounds] [seconds]
set -euo pipefail
REV=${1:?give the commit to compare with}
ROUNDS=${2:-7}
SECS=${3:-5}
CONNS=${CONNS:-64}
cd "$(dirname "$0")/../.."
command -v wrk >/dev/null || { SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo; $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq wrk >/dev/null; }

TMP=$(mktemp -d)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  git worktree remove --force "$TMP/before-src" 2>/dev/null || true
  rm -rf "$TMP"
}
trap cleanup EXIT

go build -o "$TMP/origin" ./deploy/bench/origin
go build -o "$TMP/after" ./cmd/avaedge
git worktree add -q --detach "$TMP/before-src" "$REV"
(cd "$TMP/before-src" && go build -o "$TMP/before" ./cmd/avaedge)

ORIGIN=127.0.0.1:18181; AFTER=127.0.0.1:18182; BEFORE=127.0.0.1:18183
"$TMP/origin" -listen $ORIGIN & PIDS+=($!)
cat > "$TMP/keys.yaml" <<YML
plans:
  bench: {cu_per_minute: 1000000000000, cu_per_day: 1000000000000000}
anonymous: bench
YML
cat > "$TMP/edge.yaml" <<YML
disable_access_log: true
local: {disable_dev_chain: true}
log_level: warn
routes:
  getLatestBlocks: {cache: immutable}
YML
for pair in "after $AFTER" "before $BEFORE"; do
  set -- $pair
  AVAEDGE_DATA_UPSTREAM=http://$ORIGIN AVAEDGE_ADMIN_LISTEN=127.0.0.1:0 AVAEDGE_KEYS_FILE=$TMP/keys.yaml \
    AVAEDGE_LISTEN=$2 "$TMP/$1" -config "$TMP/edge.yaml" & PIDS+=($!)
done
PATHQ="/v1/chains/43114/blocks?pageSize=10"
for a in $ORIGIN $AFTER $BEFORE; do
  for i in $(seq 1 100); do curl -sf -o /dev/null "http://$a$PATHQ" && break; sleep 0.1; done
done
for a in $AFTER $BEFORE; do
  h=$(curl -sfi -o /dev/stdout "http://$a$PATHQ"); h=${h%%$'\r\n\r\n'*}
  grep -qi '^x-cache-status: HIT' <<<"$h" || { echo "$a did not HIT"; echo "$h"; exit 1; }
done
rps() { wrk -t2 -c"$CONNS" -d"${SECS}s" "http://$1$PATHQ" | awk '/Requests\/sec/ {print $2}'; }
ratios=""
for round in $(seq 1 "$ROUNDS"); do
  if ((round % 2)); then a=$(rps $AFTER); b=$(rps $BEFORE); else b=$(rps $BEFORE); a=$(rps $AFTER); fi
  r=$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.4f", a/b}')
  ratios="$ratios $r"
  echo "round $round: after $a req/s, before $b req/s, after/before $r"
done
echo "median after/before: $(echo $ratios | tr ' ' '\n' | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"
