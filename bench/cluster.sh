#!/usr/bin/env bash
# Several nodes on one PostgreSQL database (docs/deployment.md), measured
# with wrk in this one run against the bare handler (compare ratios, not
# numbers: the machines are noisy):
#
#  1. the cost of strict read-your-writes on one node: GET /repos/{o}/{r}
#     straight to a node with --strict-reads (a generation check
#     per request, shared by concurrent requests) and without;
#  2. GET /repos/{o}/{r}, an issue list and issue creation through a
#     round-robin proxy (bench/rrproxy) over 1, 2 and 3 nodes.
#
# On one small machine the nodes share its cores with PostgreSQL, the proxy
# and wrk: part 2 shows what a node and the proxy add, not how far nodes
# scale (they scale with machines, until the database does not).
#
#   bash bench/cluster.sh                     # 10 s per measurement, 32 connections
#   DURATION=5s CONNS=16 bash bench/cluster.sh
#   ROUNDS=3 (strict/lax pairs of part 1), ONLY_STRICT=1 (part 1 alone)
#   PG=postgres://postgres@127.0.0.1:5432 (a server where it may create and drop a database)
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-10s}
CONNS=${CONNS:-32}
THREADS=${THREADS:-1}
PG=${PG:-postgres://postgres@127.0.0.1:5432}
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
command -v psql >/dev/null || { echo "bench/cluster.sh needs psql" >&2; exit 1; }

work=$(mktemp -d)
db="hubd_cluster_bench_$$"
declare -A node_pid
pids=()
cleanup() {
  for p in "${pids[@]}" "${node_pid[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  psql -q "$PG/postgres?sslmode=disable" -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
psql -q "$PG/postgres?sslmode=disable" -c "CREATE DATABASE $db" >/dev/null
DSN="$PG/$db?sslmode=disable"

go build -o "$work/hubd" ./cmd/hubd
go build -o "$work/bare" ./bench/bare
go build -o "$work/rrproxy" ./bench/rrproxy
BASE_PORT=${BASE_PORT:-18490}
PROXY=127.0.0.1:$BASE_PORT
BARE=127.0.0.1:$((BASE_PORT + 9))
node_addr() { echo "127.0.0.1:$((BASE_PORT + 1 + $1))"; }

# start_node I [FLAGS...]: node nI, its log in $work/nI.log.
start_node() {
  local i=$1; shift
  : >"$work/n$i.log"
  "$work/hubd" serve --database "$DSN" --data "$work/data" --node-name "n$i" --addr "$(node_addr "$i")" \
    --actions-workers 0 --rate-limit-authenticated 100000000 "$@" >"$work/n$i.log" 2>&1 &
  node_pid[$i]=$!
  for _ in $(seq 1 150); do grep -q listening "$work/n$i.log" 2>/dev/null && return; sleep 0.2; done
  echo "node n$i did not start:" >&2; cat "$work/n$i.log" >&2; exit 1
}
stop_node() { kill "${node_pid[$1]}"; wait "${node_pid[$1]}" 2>/dev/null || true; unset "node_pid[$1]"; }

start_node 0
TOKEN=$(awk '/^token:/ {print $2}' "$work/n0.log")
LOGIN=$(awk '/^login:/ {print $2}' "$work/n0.log")
N0=$(node_addr 0)
api() { curl -sf -H "Authorization: token $TOKEN" -H "Content-Type: application/json" "$@"; }

echo "seeding: 1 organization, 20 repositories, 30 issues"
api -X POST "http://$N0/api/v3/admin/organizations" -d "{\"login\":\"acme\",\"admin\":\"$LOGIN\"}" >/dev/null
for i in $(seq 1 20); do
  api -X POST "http://$N0/api/v3/orgs/acme/repos" -d "{\"name\":\"repo-$i\",\"description\":\"benchmark repository $i\"}" >/dev/null
done
for i in $(seq 1 30); do
  api -X POST "http://$N0/api/v3/repos/acme/repo-1/issues" -d "{\"title\":\"issue $i\"}" >/dev/null
done
REPO=/api/v3/repos/acme/repo-10
ISSUES="/api/v3/repos/acme/repo-1/issues?per_page=30"
api "http://$N0$REPO" >"$work/repo.json"
api "http://$N0$ISSUES" >"$work/issues.json"
"$work/bare" -addr "$BARE" "$REPO=$work/repo.json" "/api/v3/repos/acme/repo-1/issues=$work/issues.json" &
pids+=($!)
cat >"$work/post.lua" <<'LUA'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"title":"written through the proxy"}'
LUA
sleep 0.5

# measure URL [wrk args...] -> "rps p99"
measure() {
  local url=$1 out rps p99; shift
  out=$(wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" --latency -H "Authorization: token $TOKEN" "$@" "$url")
  rps=$(awk '/^Requests\/sec/ {print $2}' <<<"$out")
  p99=$(awk '$1=="99%" {print $2}' <<<"$out")
  if grep -q "Non-2xx" <<<"$out"; then echo "$url: non-2xx responses" >&2; echo "$out" >&2; exit 1; fi
  echo "$rps $p99"
}
row() { # NAME RPS P99 BARE_RPS
  printf '%-44s %12s %10s %8s\n' "$1" "$2" "$3" "$(awk -v h="$2" -v b="$4" 'BEGIN{printf "%.1f%%", 100*h/b}')"
}

echo
echo "1. one node, straight (ratio: of the bare handler's requests/s in this run)"
printf '%-44s %12s %10s %8s\n' "" "req/s" "p99" "ratio"
read -r brepo bp99 < <(measure "http://$BARE$REPO")
printf '%-44s %12s %10s\n' "bare handler GET /repos/{o}/{r}" "$brepo" "$bp99"
# Strict and lax alternately, ROUNDS times each (a restart between), and
# the medians: the load of a shared machine drifts within a run.
stricts=() laxes=()
for round in $(seq 1 "${ROUNDS:-3}"); do
  for mode in true false; do
    stop_node 0
    start_node 0 --strict-reads=$mode
    read -r r p < <(measure "http://$N0$REPO")
    row "GET /repos/{o}/{r} --strict-reads=$mode" "$r" "$p" "$brepo"
    if [ "$mode" = true ]; then stricts+=("$r"); else laxes+=("$r"); fi
  done
done
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END{print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
ms=$(median "${stricts[@]}") ml=$(median "${laxes[@]}")
awk -v s="$ms" -v l="$ml" -v b="$brepo" 'BEGIN{printf "medians: strict %.0f req/s (%.1f%% of bare), lax %.0f req/s (%.1f%% of bare): strict reads cost %.1f%%\n", s, 100*s/b, l, 100*l/b, 100*(1-s/l)}'
[ -z "${ONLY_STRICT:-}" ] || exit 0

echo
echo "2. through the round-robin proxy"
read -r bissues bip99 < <(measure "http://$BARE$ISSUES")
printf '%-44s %12s %10s %8s\n' "" "req/s" "p99" "ratio"
printf '%-44s %12s %10s\n' "bare handler GET issues (30)" "$bissues" "$bip99"
stop_node 0
start_node 0 # strict, as all three
start_node 1
start_node 2
for n in 1 2 3; do
  nodes=()
  for i in $(seq 0 $((n - 1))); do nodes+=("http://$(node_addr "$i")"); done
  "$work/rrproxy" -addr "$PROXY" "${nodes[@]}" &
  proxy=$!
  for _ in $(seq 1 50); do curl -s -o /dev/null "http://$PROXY/" && break; sleep 0.1; done
  read -r r p < <(measure "http://$PROXY$REPO")
  row "$n node(s): GET /repos/{o}/{r}" "$r" "$p" "$brepo"
  read -r r p < <(measure "http://$PROXY$ISSUES")
  row "$n node(s): GET issues (30)" "$r" "$p" "$bissues"
  read -r r p < <(measure "http://$PROXY/api/v3/repos/acme/repo-2/issues" -s "$work/post.lua")
  printf '%-44s %12s %10s\n' "$n node(s): POST issues" "$r" "$p"
  kill "$proxy"; wait "$proxy" 2>/dev/null || true
done
