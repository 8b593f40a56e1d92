#!/usr/bin/env bash
# Projects (v2) benchmark: an organization project with 5,000 items and 10
# custom fields (plus the built-in ones), a value of every custom field on
# every item; the first page of 100 items with all field values,
# GET /orgs/acme/projectsV2/1/items?per_page=100&fields=<every field id>,
# timed sequentially with curl (median and p99 of REQUESTS requests).
# Target: under 30 ms. (The page's query count, constant in the page
# size, is asserted by internal/api/projects TestItemsQueryCount.)
#
#   bash bench/projects.sh
#   ITEMS=20000 REQUESTS=500 bash bench/projects.sh
#
# The project is seeded through the store (bench/projectseed).
set -euo pipefail
cd "$(dirname "$0")/.."
ITEMS=${ITEMS:-5000}
REQUESTS=${REQUESTS:-200}

work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

go build -o "$work/hubd" ./cmd/hubd
go build -o "$work/projectseed" ./bench/projectseed
HUBD=${HUBD_ADDR:-127.0.0.1:18496}

"$work/hubd" serve --data "$work/data" --addr "$HUBD" --rate-limit-authenticated 100000000 >"$work/hubd.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 50); do grep -q listening "$work/hubd.log" 2>/dev/null && break; sleep 0.2; done
grep -q listening "$work/hubd.log" || { echo "hubd did not start:" >&2; cat "$work/hubd.log" >&2; exit 1; }
TOKEN=$(awk '/^token:/ {print $2}' "$work/hubd.log")
LOGIN=$(awk '/^login:/ {print $2}' "$work/hubd.log")
curl -sf -H "Authorization: token $TOKEN" -H "Content-Type: application/json" -X POST "http://$HUBD/api/v3/admin/organizations" \
  -d "{\"login\":\"acme\",\"admin\":\"$LOGIN\"}" >/dev/null

"$work/projectseed" -data "$work/data" -org acme -login "$LOGIN" -n "$ITEMS" >"$work/seed.out"
NUMBER=$(awk '/^number:/ {print $2}' "$work/seed.out")
FIELDS=$(awk '/^fields:/ {print $2}' "$work/seed.out")
PTOKEN=$(awk '/^token:/ {print $2}' "$work/seed.out")
url="http://$HUBD/api/v3/orgs/acme/projectsV2/$NUMBER/items?per_page=100&fields=$FIELDS"

curl -sf -H "Authorization: token $PTOKEN" "$url" >"$work/page.json"
n=$(grep -o '"content_type":' "$work/page.json" | wc -l)
[ "$n" -eq 100 ] || { echo "the first page has $n items, not 100" >&2; exit 1; }
for _ in $(seq 1 20); do curl -sf -o /dev/null -H "Authorization: token $PTOKEN" "$url"; done # warm up
for _ in $(seq 1 "$REQUESTS"); do
  curl -sf -o /dev/null -w '%{time_total}\n' -H "Authorization: token $PTOKEN" "$url"
done | sort -n >"$work/times"
median=$(awk '{a[NR]=$1} END {printf "%.1f", 1000*a[int((NR+1)/2)]}' "$work/times")
p99=$(awk '{a[NR]=$1} END {i=int(NR*0.99); if (i<1) i=1; printf "%.1f", 1000*a[i]}' "$work/times")
printf 'items %s, fields %s, body %s bytes\n' "$ITEMS" "$(tr ',' '\n' <<<"$FIELDS" | wc -l)" "$(wc -c <"$work/page.json")"
printf 'first page of 100 items with all field values: median %s ms, p99 %s ms (%s requests, one at a time)\n' "$median" "$p99" "$REQUESTS"
awk -v m="$median" 'BEGIN { if (m >= 30) { print "above the 30 ms target"; exit 1 } }'
