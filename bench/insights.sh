#!/usr/bin/env bash
# API insights' cost on bench/run.sh's repository GET: hubd built at BASE
# (default: the merge base with origin/main, before insights) and at HEAD,
# each measured against the bare handler in the same run, alternating
# bare / base / head ROUNDS times so that the machine's noise falls on all
# three alike. Compare the ratios (hubd/bare), never the raw numbers.
#
#   bash bench/insights.sh                  # 5 rounds of 5 s, 32 connections
#   ROUNDS=9 DURATION=10s BASE=5641ffc bash bench/insights.sh
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-5s}
CONNS=${CONNS:-32}
ROUNDS=${ROUNDS:-5}
BASE=${BASE:-$(git merge-base HEAD origin/main)}
command -v wrk >/dev/null || { echo "wrk is needed" >&2; exit 1; }

work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; git worktree remove --force "$work/base" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

git worktree add -q --detach "$work/base" "$BASE"
(cd "$work/base" && go build -o "$work/hubd-base" ./cmd/hubd)
go build -o "$work/hubd-head" ./cmd/hubd
go build -o "$work/bare" ./bench/bare

# start NAME ADDR: runs hubd, seeds acme/repo-1..10, prints its token.
start() {
  "$work/hubd-$1" serve --data "$work/data-$1" --addr "$2" --rate-limit-authenticated 100000000 >"$work/$1.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 50); do grep -q listening "$work/$1.log" 2>/dev/null && break; sleep 0.2; done
  grep -q listening "$work/$1.log" || { echo "hubd ($1) did not start" >&2; cat "$work/$1.log" >&2; exit 1; }
  local tok login
  tok=$(awk '/^token:/ {print $2}' "$work/$1.log")
  login=$(awk '/^login:/ {print $2}' "$work/$1.log")
  curl -sf -H "Authorization: token $tok" "http://$2/api/v3/admin/organizations" -d "{\"login\":\"acme\",\"admin\":\"$login\"}" >/dev/null
  for i in $(seq 1 10); do
    curl -sf -H "Authorization: token $tok" "http://$2/api/v3/orgs/acme/repos" -d "{\"name\":\"repo-$i\"}" >/dev/null
  done
  echo "$tok"
}
port=${PORT:-$((20000 + RANDOM % 20000))}
BASE_ADDR=127.0.0.1:$port HEAD_ADDR=127.0.0.1:$((port + 10)) BARE_ADDR=127.0.0.1:$((port + 20)) # hubd also listens on the next port
base_tok=$(start base $BASE_ADDR)
head_tok=$(start head $HEAD_ADDR)
curl -sf -H "Authorization: token $head_tok" "http://$HEAD_ADDR/api/v3/repos/acme/repo-5" >"$work/repo.json"
"$work/bare" -addr "$BARE_ADDR" "/api/v3/repos/acme/repo-5=$work/repo.json" &
pids+=($!)
sleep 0.5

rps() { wrk -t1 -c"$CONNS" -d"$DURATION" -H "Authorization: token $2" "$1" | awk '/^Requests\/sec/ {print $2}'; }
printf '%5s %12s %12s %12s %10s %10s %8s\n' round "bare req/s" "base req/s" "head req/s" "base/bare" "head/bare" "head/base"
for r in $(seq 1 "$ROUNDS"); do
  b=$(rps "http://$BARE_ADDR/api/v3/repos/acme/repo-5" x)
  o=$(rps "http://$BASE_ADDR/api/v3/repos/acme/repo-5" "$base_tok")
  n=$(rps "http://$HEAD_ADDR/api/v3/repos/acme/repo-5" "$head_tok")
  awk -v r="$r" -v b="$b" -v o="$o" -v n="$n" 'BEGIN{printf "%5d %12.0f %12.0f %12.0f %9.1f%% %9.1f%% %7.1f%%\n", r, b, o, n, 100*o/b, 100*n/b, 100*n/o}'
done | tee "$work/rounds"
awk '{o[NR]=$5+0; n[NR]=$6+0; h[NR]=$7+0} END{asort(o); asort(n); asort(h); m=int((NR+1)/2); printf "median  base/bare %.1f%%  head/bare %.1f%%  head/base %.1f%%\n", o[m], n[m], h[m]}' "$work/rounds"
