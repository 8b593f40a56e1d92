#!/usr/bin/env bash
# Events benchmark: GET /repos/{owner}/{repo}/events?per_page=30 on a
# repository with a few hundred events (issues and comments by API calls),
# against the bare handler of bench/bare answering the same bytes, both
# measured with wrk in this one run. Target: hubd at 15% or more of the
# bare handler's throughput.
#
#   bash bench/events.sh                 # 10 s per measurement, 32 connections
#   ISSUES=50 DURATION=5s bash bench/events.sh
#   REF=1 bash bench/events.sh           # also GET /repos/acme/app, its issues and 5 events
#   FEEDS=1 bash bench/events.sh         # also the Atom feed /timeline.atom (30 entries) against bare
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-10s}
CONNS=${CONNS:-32}
THREADS=${THREADS:-1}
ISSUES=${ISSUES:-100}
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }

work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

go build -o "$work/hubd" ./cmd/hubd
go build -o "$work/bare" ./bench/bare
HUBD=${HUBD_ADDR:-127.0.0.1:18486}
BARE=${BARE_ADDR:-127.0.0.1:18487}

"$work/hubd" serve --data "$work/data" --addr "$HUBD" --rate-limit-authenticated 100000000 >"$work/hubd.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 50); do grep -q listening "$work/hubd.log" 2>/dev/null && break; sleep 0.2; done
grep -q listening "$work/hubd.log" || { echo "hubd did not start:" >&2; cat "$work/hubd.log" >&2; exit 1; }
TOKEN=$(awk '/^token:/ {print $2}' "$work/hubd.log")
LOGIN=$(awk '/^login:/ {print $2}' "$work/hubd.log")
api() { curl -sf -H "Authorization: token $TOKEN" -H "Content-Type: application/json" "$@"; }

api -X POST "http://$HUBD/api/v3/admin/organizations" -d "{\"login\":\"acme\",\"admin\":\"$LOGIN\"}" >/dev/null
api -X POST "http://$HUBD/api/v3/orgs/acme/repos" -d '{"name":"app","auto_init":true}' >/dev/null
echo "seeding: $ISSUES issues with a comment each into acme/app"
for i in $(seq 1 "$ISSUES"); do
  api -X POST "http://$HUBD/api/v3/repos/acme/app/issues" -d "{\"title\":\"issue $i\",\"body\":\"the body of issue $i\"}" >/dev/null
  api -X POST "http://$HUBD/api/v3/repos/acme/app/issues/$i/comments" -d "{\"body\":\"a comment on $i\"}" >/dev/null
done
path="/api/v3/repos/acme/app/events"
for _ in $(seq 1 100); do
  n=$(api "http://$HUBD$path?per_page=30" | grep -o '"type":"IssueCommentEvent"' | wc -l)
  [ "$n" -gt 0 ] && break
  sleep 0.2
done
sleep 1 # the consumer renders the rest
api "http://$HUBD$path?per_page=30" >"$work/page1.json"
n=$(grep -o '"public":' "$work/page1.json" | wc -l)
[ "$n" -eq 30 ] || { echo "page 1 has $n events, not 30" >&2; exit 1; }
curl -sf "http://$HUBD/timeline.atom" >"$work/timeline.atom"
"$work/bare" -addr "$BARE" "$path=$work/page1.json" "/timeline.atom=$work/timeline.atom" &
pids+=($!)
sleep 0.5

measure() {
  local out rps p99
  out=$(wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" --latency -H "Authorization: token $TOKEN" "$2")
  rps=$(awk '/^Requests\/sec/ {print $2}' <<<"$out")
  p99=$(awk '$1=="99%" {print $2}' <<<"$out")
  if grep -q "Non-2xx" <<<"$out"; then echo "$1: non-2xx responses" >&2; echo "$out" >&2; exit 1; fi
  echo "$rps $p99"
}
printf 'body: %s bytes, 30 events\n' "$(wc -c <"$work/page1.json")"
printf '%-44s %12s %10s %12s %10s %8s\n' "endpoint" "hubd req/s" "hubd p99" "bare req/s" "bare p99" "ratio"
read -r brps bp99 < <(measure bare "http://$BARE$path?per_page=30")
read -r hrps hp99 < <(measure hubd "http://$HUBD$path?per_page=30")
ratio=$(awk -v h="$hrps" -v b="$brps" 'BEGIN{printf "%.1f%%", 100*h/b}')
printf '%-44s %12s %10s %12s %10s %8s\n' "GET /repos/acme/app/events?per_page=30" "$hrps" "$hp99" "$brps" "$bp99" "$ratio"
if [ -n "${REF:-}" ]; then
  for p in /api/v3/repos/acme/app "/api/v3/repos/acme/app/issues?per_page=30&state=all" "$path?per_page=5"; do
    read -r rps p99 < <(measure hubd "http://$HUBD$p")
    printf '%-44s %12s %10s\n' "GET $p" "$rps" "$p99"
  done
fi
if [ -n "${FEEDS:-}" ]; then
  n=$(grep -o '<entry>' "$work/timeline.atom" | wc -l)
  [ "$n" -eq 30 ] || { echo "the timeline feed has $n entries, not 30" >&2; exit 1; }
  read -r brps bp99 < <(measure bare "http://$BARE/timeline.atom")
  read -r hrps hp99 < <(measure hubd "http://$HUBD/timeline.atom")
  ratio=$(awk -v h="$hrps" -v b="$brps" 'BEGIN{printf "%.1f%%", 100*h/b}')
  printf '%-44s %12s %10s %12s %10s %8s\n' "GET /timeline.atom ($(wc -c <"$work/timeline.atom") bytes)" "$hrps" "$hp99" "$brps" "$bp99" "$ratio"
fi
