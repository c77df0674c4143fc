#!/usr/bin/env bash
# Cache hit-path benchmark: the same ~4 KB JSON page through nginx proxy_cache,
# through avaedge (in-process tier; then Redis only), and from a bare Go
# net/http server, interleaved over several rounds with wrk (keep-alive) on
# loopback. Prints requests/s of each (median of rounds) and the ratios.
# Then the keyed scenarios: one API key on a plan far from its limits, its
# limits kept in process, in one Redis, and in a 3-node Redis Cluster (the
# cache's in-process tier on in all three, so only the limits differ).
#
# A shared machine drifts by more than the differences measured here, so
# every round runs all of them back to back (in reverse order every other
# round, so a steady drift favours none) and each ratio is the median of
# the per-round ratios, which cancels what the round's neighbours shared.
#
# The accesslog mode measures avaedge as a new user starts it instead: the
# default configuration (access log on, at the default log level) with its
# log written to a file, against the bare server and nginx only. It fails
# below 0.95x the bare server, and says how many lines were written and
# dropped.
#
# The usage mode measures what keyed requests cost Redis with usage on (the
# default): keyed cache hits of KEYS keys (64; each request names the next)
# through an edge with limits and usage in a redis-server of its own,
# against the same hits through an edge without Redis (limits and usage in
# process), interleaved. Redis's INFO
# commandstats (commands run inside Lua scripts included) is read before the
# rounds and after the Redis edge has stopped and written what it held. It
# fails above 0.5 commands per keyed request or below 0.85x in process.
#
#   deploy/bench/bench.sh [rounds] [seconds]
#   deploy/bench/bench.sh accesslog [rounds] [seconds]
#   deploy/bench/bench.sh usage [rounds] [seconds]
set -euo pipefail
MODE=hit
case "${1:-}" in accesslog | usage) MODE=$1; shift ;; esac
ROUNDS=${1:-7}
SECS=${2:-5}
CONNS=${CONNS:-64}
cd "$(dirname "$0")/../.."
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min; $(nproc) cores)"
need=()
command -v nginx >/dev/null || need+=(nginx)
command -v wrk >/dev/null || need+=(wrk)
[ $MODE = accesslog ] || command -v redis-server >/dev/null || need+=(redis-server)
if ((${#need[@]})); then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
NGINX=$(command -v nginx || echo /usr/sbin/nginx)

TMP=$(mktemp -d); chmod 755 "$TMP"  # nginx workers run unprivileged
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$TMP"; }
trap cleanup EXIT

go build -o "$TMP/origin" ./deploy/bench/origin
go build -o "$TMP/avaedge" ./cmd/avaedge

ORIGIN=127.0.0.1:18081; BARE=127.0.0.1:18082; NG=127.0.0.1:18083
EDGE=127.0.0.1:18084; EDGE_REDIS=127.0.0.1:18085; REDIS_PORT=18086
EDGE_KR=127.0.0.1:18087; EDGE_KC=127.0.0.1:18088; CLUSTER_PORTS="18091 18092 18093"
EDGE_LOG=127.0.0.1:18089; EDGE_LOG_ADMIN=127.0.0.1:18090; EDGE_UR=127.0.0.1:18094; REDIS_USAGE_PORT=18095
"$TMP/origin" -listen $ORIGIN & PIDS+=($!)
"$TMP/origin" -listen $BARE & PIDS+=($!)
if [ $MODE = usage ]; then
  redis-server --port $REDIS_USAGE_PORT --bind 127.0.0.1 --save '' --appendonly no --daemonize no >/dev/null & PIDS+=($!)
  for i in $(seq 1 50); do redis-cli -p $REDIS_USAGE_PORT ping >/dev/null 2>&1 && break; sleep 0.1; done
fi
if [ $MODE = hit ]; then
redis-server --port $REDIS_PORT --save '' --appendonly no --daemonize no >/dev/null & PIDS+=($!)
CLUSTER=()
for p in $CLUSTER_PORTS; do
  redis-server --port "$p" --bind 127.0.0.1 --cluster-enabled yes --cluster-config-file "$TMP/nodes-$p.conf" \
    --dir "$TMP" --save '' --appendonly no --daemonize no >/dev/null & PIDS+=($!)
  CLUSTER+=("127.0.0.1:$p")
done
for p in $CLUSTER_PORTS; do for i in $(seq 1 50); do redis-cli -p "$p" ping >/dev/null 2>&1 && break; sleep 0.1; done; done
redis-cli --cluster create "${CLUSTER[@]}" --cluster-replicas 0 --cluster-yes >/dev/null
for i in $(seq 1 100); do redis-cli -p "${CLUSTER_PORTS%% *}" cluster info | grep -q cluster_state:ok && break; sleep 0.1; done
fi

mkdir -p "$TMP/nginx/cache"
cat > "$TMP/nginx.conf" <<NGX
worker_processes auto;
pid $TMP/nginx.pid;
error_log $TMP/nginx-error.log;
events { worker_connections 4096; }
http {
  access_log off;
  proxy_cache_path $TMP/nginx/cache levels=1:2 keys_zone=c:10m max_size=100m;
  upstream origin { server $ORIGIN; keepalive 64; }
  server {
    listen $NG;
    location / {
      proxy_pass http://origin;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_cache c;
      proxy_cache_valid 200 10m;
      proxy_cache_key \$uri\$is_args\$args;
    }
  }
}
NGX
"$NGINX" -c "$TMP/nginx.conf" -p "$TMP" -g 'daemon off;' & PIDS+=($!)

# Limits stay on: anonymous clients get a plan large enough never to refuse,
# so every request still pays for its decision.
cat > "$TMP/keys.yaml" <<YML
plans:
  bench: {cu_per_minute: 1000000000000, cu_per_day: 1000000000000000}
keys:
  - {id: bench, key: bench-key, plan: bench}
anonymous: bench
YML
common=(AVAEDGE_DATA_UPSTREAM=http://$ORIGIN AVAEDGE_ADMIN_LISTEN=127.0.0.1:0 AVAEDGE_KEYS_FILE=$TMP/keys.yaml)
PATHQ="/v1/chains/43114/blocks?pageSize=10"
# up waits until each address answers.
up() { for a in "$@"; do for i in $(seq 1 100); do curl -sf -o /dev/null "http://$a$PATHQ" && break; sleep 0.1; done; done; }
# The whole answer is read before it is searched: grep -q stopping early
# would break curl's pipe, and pipefail would call that a miss.
hit() {
  h=$(curl -sfi -H "x-glacier-api-key: ${3:-}" -o /dev/stdout "http://$1$PATHQ") || { echo "$2 did not answer"; exit 1; }
  h=${h%%$'\r\n\r\n'*}
  grep -qi '^x-cache-status: HIT' <<<"$h" || { echo "$2 did not HIT:"; echo "$h"; exit 1; }
}
rps() {
  local hdr=()
  [ -n "${2:-}" ] && hdr=(-H "x-glacier-api-key: $2")
  out=$(wrk -t2 -c"$CONNS" -d"${SECS}s" "${hdr[@]}" "http://$1$PATHQ")
  if echo "$out" | grep -q "Non-2xx"; then echo "non-2xx answers from $1" >&2; echo "$out" >&2; exit 1; fi
  echo "$out" | awk '/Requests\/sec/ {print $2}'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.4f", a/b}'; }
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

if [ $MODE = accesslog ]; then
  # As a new user starts it: no config beyond the upstream, the keys file
  # (limits stay on) and the route class (every request a hit); the access
  # log on at the default level, stderr appended to a file.
  cat > "$TMP/edge-log.yaml" <<YML
local: {disable_dev_chain: true}  # a proxy deployment runs no dev chain
routes:
  getLatestBlocks: {cache: immutable}
YML
  env "${common[@]}" AVAEDGE_ADMIN_LISTEN=$EDGE_LOG_ADMIN AVAEDGE_LISTEN=$EDGE_LOG \
    "$TMP/avaedge" -config "$TMP/edge-log.yaml" 2>>"$TMP/avaedge.log" & PIDS+=($!)
  up $ORIGIN $BARE $NG $EDGE_LOG
  curl -sf -o /dev/null "http://$NG$PATHQ"
  hit $EDGE_LOG "avaedge (access log on)"
  declare -A R=([bare]="" [nginx]="" [edge]="" [eb]="" [en]="" [bn]="")
  for round in $(seq 1 "$ROUNDS"); do
    order="bare nginx edge"
    ((round % 2)) || order="edge nginx bare"
    declare -A V
    for name in $order; do
      case $name in bare) a=$BARE ;; nginx) a=$NG ;; edge) a=$EDGE_LOG ;; esac
      V[$name]=$(rps $a); R[$name]="${R[$name]} ${V[$name]}"
      echo "round $round $name ${V[$name]} req/s"
    done
    R[eb]="${R[eb]} $(ratio "${V[edge]}" "${V[bare]}")"
    R[en]="${R[en]} $(ratio "${V[edge]}" "${V[nginx]}")"
    R[bn]="${R[bn]} $(ratio "${V[bare]}" "${V[nginx]}")"
    echo "round $round avaedge/bare $(ratio "${V[edge]}" "${V[bare]}")"
  done
  dropped=$(curl -sf "http://$EDGE_LOG_ADMIN/metrics" | awk '/^avaedge_access_log_dropped_total / {print $2}')
  kill "${PIDS[-1]}"; wait "${PIDS[-1]}" 2>/dev/null || true  # SIGTERM: the queued lines are written
  lines=$(grep -c '"msg":"request"' "$TMP/avaedge.log" || true)
  echo
  printf "%-40s %10s req/s\n" "bare Go net/http" "$(echo ${R[bare]} | median)" "nginx proxy_cache" "$(echo ${R[nginx]} | median)" \
    "avaedge hit, access log on (to a file)" "$(echo ${R[edge]} | median)"
  echo "access log: $lines lines written ($(du -h "$TMP/avaedge.log" | cut -f1)), ${dropped:-?} dropped"
  echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
  awk -v eb="$(echo ${R[eb]} | median)" -v en="$(echo ${R[en]} | median)" -v bn="$(echo ${R[bn]} | median)" -v all="${R[eb]}" 'BEGIN {
    printf "\nratios (median of %d rounds): avaedge-with-access-log/bare %.3f  avaedge/nginx %.2f  bare/nginx %.2f\n", split(all, x, " "), eb, en, bn
    printf "avaedge/bare per round:%s\n", all
    if (eb < 0.95) { print "FAIL: avaedge hit with the access log on below 0.95x the bare server"; exit 1 }
  }'
  exit
fi

cat > "$TMP/edge.yaml" <<YML
disable_access_log: true
local: {disable_dev_chain: true}  # a proxy deployment runs no dev chain
log_level: warn
routes:
  getLatestBlocks: {cache: immutable}
YML
cat > "$TMP/edge-redis.yaml" <<YML
disable_access_log: true
local: {disable_dev_chain: true}  # a proxy deployment runs no dev chain
log_level: warn
cache: {max_bytes: -1}
routes:
  getLatestBlocks: {cache: immutable}
YML
if [ $MODE = usage ]; then
  # KEYS keys (64 by default) on the bench plan, each request naming the
  # next (wrk's Lua script), as a fleet's clients would.
  KEYS=${KEYS:-64}
  { echo "plans:"; echo "  bench: {cu_per_minute: 1000000000000, cu_per_day: 1000000000000000}"; echo "keys:"
    for i in $(seq 0 $((KEYS - 1))); do echo "  - {id: bench-$i, key: bench-key-$i, plan: bench}"; done
    echo "anonymous: bench"; } > "$TMP/keys-usage.yaml"
  cat > "$TMP/keys.lua" <<LUA
local n = 0
request = function()
  n = n + 1
  return wrk.format(nil, nil, {["x-glacier-api-key"] = "bench-key-" .. (n % $KEYS)})
end
LUA
  # Usage on (the default) in both; the in-process edge keeps it in memory.
  env "${common[@]}" AVAEDGE_KEYS_FILE="$TMP/keys-usage.yaml" AVAEDGE_LISTEN=$EDGE "$TMP/avaedge" -config "$TMP/edge.yaml" & PIDS+=($!)
  env "${common[@]}" AVAEDGE_KEYS_FILE="$TMP/keys-usage.yaml" AVAEDGE_LISTEN=$EDGE_UR AVAEDGE_REDIS=redis://127.0.0.1:$REDIS_USAGE_PORT/0 \
    "$TMP/avaedge" -config "$TMP/edge.yaml" & PIDS+=($!)
  UR_PID=$!
  up $ORIGIN $EDGE $EDGE_UR
  for a in $EDGE $EDGE_UR; do curl -sf -o /dev/null "http://$a$PATHQ"; hit $a "avaedge keyed ($a)" bench-key-0; done
  # calls sums every command's calls in INFO commandstats.
  calls() { redis-cli -p $REDIS_USAGE_PORT info commandstats | awk -F'[:=,]' '/^cmdstat_/ {s += $3} END {print s + 0}'; }
  # reqs runs wrk with the key against $1 and prints "requests req/s".
  reqs() {
    out=$(wrk -t2 -c"$CONNS" -d"${SECS}s" -s "$TMP/keys.lua" "http://$1$PATHQ")
    if echo "$out" | grep -q "Non-2xx"; then echo "non-2xx answers from $1" >&2; echo "$out" >&2; exit 1; fi
    echo "$out" | awk '/requests in/ {n = $1} /Requests\/sec/ {r = $2} END {print n, r}'
  }
  C0=$(calls); N=0; RATIOS=""; RK=""; RR=""
  for round in $(seq 1 "$ROUNDS"); do
    order="keyed redis"; ((round % 2)) || order="redis keyed"
    for name in $order; do
      if [ $name = keyed ]; then read -r _ K < <(reqs $EDGE); else read -r n R < <(reqs $EDGE_UR); N=$((N + n)); fi
    done
    RK="$RK $K"; RR="$RR $R"; RATIOS="$RATIOS $(ratio "$R" "$K")"
    echo "round $round: keyed in process $K req/s, keyed with Redis $R req/s, ratio $(ratio "$R" "$K")"
  done
  kill "$UR_PID"; wait "$UR_PID" 2>/dev/null || true  # SIGTERM: the usage it holds is written
  C=$(( $(calls) - C0 - 1 ))  # less this INFO itself
  echo
  redis-cli -p $REDIS_USAGE_PORT info commandstats | awk -F'[:=,]' '/^cmdstat_/ {sub(/^cmdstat_/, "", $1); printf "  %s %s\n", $1, $3}'
  awk -v keys="$KEYS" -v c="$C" -v n="$N" -v k="$(echo $RK | median)" -v r="$(echo $RR | median)" -v q="$(echo $RATIOS | median)" -v all="$RATIOS" 'BEGIN {
    printf "\nkeyed hits of %d keys, usage on: in process %s req/s, limits and usage in Redis %s req/s (medians)\n", keys, k, r
    printf "ratio Redis/in process (median of per-round ratios) %.3f; per round:%s\n", q, all
    printf "Redis commands (INFO commandstats, script internals included): %d for %d keyed requests, %.4f a request\n", c, n, c / n
    if (c / n > 0.5) { print "FAIL: more than 0.5 Redis commands per keyed request"; f = 1 }
    if (q < 0.85) { print "FAIL: keyed hits with Redis below 0.85x in process"; f = 1 }
    exit f
  }' || FAILED=1
  echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
  exit ${FAILED:-0}
fi

env "${common[@]}" AVAEDGE_LISTEN=$EDGE "$TMP/avaedge" -config "$TMP/edge.yaml" & PIDS+=($!)
env "${common[@]}" AVAEDGE_LISTEN=$EDGE_REDIS AVAEDGE_REDIS=redis://127.0.0.1:$REDIS_PORT/0 "$TMP/avaedge" -config "$TMP/edge-redis.yaml" & PIDS+=($!)
# Keyed: limits in Redis (one node, then the cluster), cache tier in process.
env "${common[@]}" AVAEDGE_LISTEN=$EDGE_KR AVAEDGE_REDIS=redis://127.0.0.1:$REDIS_PORT/1 "$TMP/avaedge" -config "$TMP/edge.yaml" & PIDS+=($!)
env "${common[@]}" AVAEDGE_LISTEN=$EDGE_KC AVAEDGE_REDIS="$(IFS=,; echo "${CLUSTER[*]}")" "$TMP/avaedge" -config "$TMP/edge.yaml" & PIDS+=($!)

up $ORIGIN $BARE $NG $EDGE $EDGE_REDIS $EDGE_KR $EDGE_KC
# Warm the caches and check the hit path really is a hit.
for a in $NG $EDGE $EDGE_REDIS $EDGE_KR $EDGE_KC; do curl -sf -o /dev/null "http://$a$PATHQ"; done
hit $EDGE avaedge; hit $EDGE_REDIS "avaedge (redis)"
KEY=bench-key
for a in $EDGE $EDGE_KR $EDGE_KC; do
  hit $a "avaedge keyed ($a)" $KEY
  grep -qi '^ratelimit-policy:' <<<"$h" || { echo "keyed answer from $a without rate-limit headers"; echo "$h"; exit 1; }
done
redis_calls() { # lease calls the limits made (EVALSHA and EVAL), summed over the given ports
  local n=0
  for p in "$@"; do
    n=$((n + $(redis-cli -p "$p" info commandstats | awk -F'[:=,]' '/^cmdstat_eval(sha)?:/ {s += $3} END {print s + 0}')))
  done
  echo $n
}

declare -A R
for name in bare nginx edge edge_redis bn eb en erb keyed keyed_redis keyed_cluster krk kck; do R[$name]=""; done
REQS=0; CALLS0=$(redis_calls $REDIS_PORT $CLUSTER_PORTS)
for round in $(seq 1 "$ROUNDS"); do
  order="bare nginx edge edge_redis keyed keyed_redis keyed_cluster"
  ((round % 2)) || order="keyed_cluster keyed_redis keyed edge_redis edge nginx bare"
  declare -A V
  for name in $order; do
    key=""
    case $name in
      bare) a=$BARE ;; nginx) a=$NG ;; edge) a=$EDGE ;; edge_redis) a=$EDGE_REDIS ;;
      keyed) a=$EDGE; key=$KEY ;; keyed_redis) a=$EDGE_KR; key=$KEY ;; keyed_cluster) a=$EDGE_KC; key=$KEY ;;
    esac
    V[$name]=$(rps $a $key); R[$name]="${R[$name]} ${V[$name]}"
    case $name in keyed_redis|keyed_cluster) REQS=$(awk -v a="$REQS" -v b="${V[$name]}" -v s="$SECS" 'BEGIN {printf "%d", a + b * s}') ;; esac
    echo "round $round $name ${V[$name]} req/s"
  done
  R[bn]="${R[bn]} $(ratio "${V[bare]}" "${V[nginx]}")"
  R[eb]="${R[eb]} $(ratio "${V[edge]}" "${V[bare]}")"
  R[en]="${R[en]} $(ratio "${V[edge]}" "${V[nginx]}")"
  R[erb]="${R[erb]} $(ratio "${V[edge_redis]}" "${V[bare]}")"
  R[krk]="${R[krk]} $(ratio "${V[keyed_redis]}" "${V[keyed]}")"
  R[kck]="${R[kck]} $(ratio "${V[keyed_cluster]}" "${V[keyed]}")"
  echo "round $round avaedge/bare $(ratio "${V[edge]}" "${V[bare]}")"
done
B=$(echo ${R[bare]} | median); N=$(echo ${R[nginx]} | median); E=$(echo ${R[edge]} | median); ER=$(echo ${R[edge_redis]} | median)
echo
printf "%-34s %10s req/s\n" "bare Go net/http" "$B" "nginx proxy_cache" "$N" "avaedge hit (in-process tier)" "$E" "avaedge hit (Redis only)" "$ER"
awk -v bn="$(echo ${R[bn]} | median)" -v eb="$(echo ${R[eb]} | median)" -v en="$(echo ${R[en]} | median)" -v erb="$(echo ${R[erb]} | median)" \
  -v all="${R[eb]}" 'BEGIN {
  printf "\nratios (median of %d rounds): bare/nginx %.2f  avaedge/bare %.2f  avaedge/nginx %.2f  avaedge-redis/bare %.2f\n", split(all, x, " "), bn, eb, en, erb
  printf "avaedge/bare per round:%s\n", all
  if (eb < 0.9) { print "FAIL: avaedge in-process hit path below 0.9x the bare server"; exit 1 }
}' || FAILED=1
K=$(echo ${R[keyed]} | median); KR=$(echo ${R[keyed_redis]} | median); KC=$(echo ${R[keyed_cluster]} | median)
CALLS=$(( $(redis_calls $REDIS_PORT $CLUSTER_PORTS) - CALLS0 ))
echo
printf "%-34s %10s req/s\n" "keyed hit, limits in process" "$K" "keyed hit, limits in Redis" "$KR" "keyed hit, limits in Redis Cluster" "$KC"
awk -v kr="$(echo ${R[krk]} | median)" -v kc="$(echo ${R[kck]} | median)" -v calls="$CALLS" -v reqs="$REQS" 'BEGIN {
  printf "\nratios (median of rounds): keyed-redis/keyed %.2f  keyed-cluster/keyed %.2f\n", kr, kc
  printf "limits lease calls to Redis: %d for about %d keyed requests through Redis (1 per %.0f)\n", calls, reqs, reqs / (calls > 0 ? calls : 1)
  if (kr < 0.85 || kc < 0.85) { print "FAIL: keyed hits with limits in Redis below 0.85x keyed in process"; exit 1 }
}' || FAILED=1
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
exit ${FAILED:-0}
