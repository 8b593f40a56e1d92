#!/usr/bin/env bash
# Issues benchmark: GET /repos/{owner}/{repo}/issues?per_page=30 on a
# repository with 100,000 issues carrying labels, assignees and milestones,
# page 1 and page 3,000, each against the bare handler of bench/bare
# answering the same bytes, all measured with wrk in this one run.
#
#   bash bench/issues.sh                 # 10 s per measurement, 32 connections
#   ISSUES=20000 DURATION=5s bash bench/issues.sh
#
# The issues are seeded through the store in bulk (bench/issueseed), not by
# 100,000 API calls. Targets: hubd at 15% or more of the bare handler's
# throughput, p99 under 20 ms, page 3,000 at most 2x slower than page 1.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-10s}
CONNS=${CONNS:-32}
THREADS=${THREADS:-1}
ISSUES=${ISSUES:-100000}
DEEP=${DEEP:-3000}
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }

work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

go build -o "$work/hubd" ./cmd/hubd
go build -o "$work/bare" ./bench/bare
go build -o "$work/issueseed" ./bench/issueseed
HUBD=${HUBD_ADDR:-127.0.0.1:18480}
BARE1=${BARE_ADDR:-127.0.0.1:18481}
BARE2=${BARE2_ADDR:-127.0.0.1:18482}

"$work/hubd" serve --data "$work/data" --addr "$HUBD" --rate-limit-authenticated 100000000 >"$work/hubd.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 50); do grep -q listening "$work/hubd.log" 2>/dev/null && break; sleep 0.2; done
grep -q listening "$work/hubd.log" || { echo "hubd did not start:" >&2; cat "$work/hubd.log" >&2; exit 1; }
TOKEN=$(awk '/^token:/ {print $2}' "$work/hubd.log")
LOGIN=$(awk '/^login:/ {print $2}' "$work/hubd.log")
api() { curl -sf -H "Authorization: token $TOKEN" -H "Content-Type: application/json" "$@"; }

api -X POST "http://$HUBD/api/v3/admin/organizations" -d "{\"login\":\"acme\",\"admin\":\"$LOGIN\"}" >/dev/null
api -X POST "http://$HUBD/api/v3/orgs/acme/repos" -d '{"name":"big"}' >/dev/null
echo "seeding: $ISSUES issues into acme/big"
"$work/issueseed" -data "$work/data" -repo acme/big -n "$ISSUES"

path="/api/v3/repos/acme/big/issues"
api "http://$HUBD$path?per_page=30" >"$work/page1.json"
api "http://$HUBD$path?per_page=30&page=$DEEP" >"$work/deep.json"
n1=$(grep -o '"number":' "$work/page1.json" | wc -l)
n2=$(grep -o '"number":' "$work/deep.json" | wc -l)
[ "$n1" -gt 0 ] && [ "$n2" -gt 0 ] || { echo "empty pages ($n1, $n2): seed more issues or lower DEEP" >&2; exit 1; }
"$work/bare" -addr "$BARE1" "$path=$work/page1.json" &
pids+=($!)
"$work/bare" -addr "$BARE2" "$path=$work/deep.json" &
pids+=($!)
sleep 0.5

# measure NAME URL -> "rps p99ms"
measure() {
  local out rps p99
  out=$(wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" --latency -H "Authorization: token $TOKEN" "$2")
  rps=$(awk '/^Requests\/sec/ {print $2}' <<<"$out")
  p99=$(awk '$1=="99%" {print $2}' <<<"$out")
  if grep -q "Non-2xx" <<<"$out"; then echo "$1: non-2xx responses" >&2; echo "$out" >&2; exit 1; fi
  echo "$rps $p99"
}
to_ms() { awk -v v="$1" 'BEGIN{ if (v ~ /us$/) {sub(/us/,"",v); print v/1000} else if (v ~ /ms$/) {sub(/ms/,"",v); print v} else {sub(/s/,"",v); print v*1000} }'; }

printf 'bodies: page 1 %s bytes, page %s %s bytes\n' "$(wc -c <"$work/page1.json")" "$DEEP" "$(wc -c <"$work/deep.json")"
printf '%-44s %12s %10s %12s %10s %8s\n' "endpoint" "hubd req/s" "hubd p99" "bare req/s" "bare p99" "ratio"
declare -A hubd_rps
for page in 1 "$DEEP"; do
  bare=$BARE1; [ "$page" = 1 ] || bare=$BARE2
  q="per_page=30"; [ "$page" = 1 ] || q="per_page=30&page=$page"
  read -r brps bp99 < <(measure bare "http://$bare$path?$q")
  read -r hrps hp99 < <(measure hubd "http://$HUBD$path?$q")
  hubd_rps[$page]=$hrps
  ratio=$(awk -v h="$hrps" -v b="$brps" 'BEGIN{printf "%.1f%%", 100*h/b}')
  printf '%-44s %12s %9sms %12s %9sms %8s\n' "GET /repos/acme/big/issues?$q" "$hrps" "$(to_ms "$hp99")" "$brps" "$(to_ms "$bp99")" "$ratio"
done
awk -v a="${hubd_rps[1]}" -v b="${hubd_rps[$DEEP]}" -v d="$DEEP" 'BEGIN{printf "page %s is %.2fx slower than page 1\n", d, a/b}'
