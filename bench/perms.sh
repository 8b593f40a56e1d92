#!/usr/bin/env bash
# Permission benchmark: repository access that comes through teams.
#
#   (a) GET /repos/acme/r00001 for deep, whose only access is a grant on a
#       grandparent team (gg > gp > gc, deep in gc), and the same request
#       by acme-owner, who owns the organization (no team: the control);
#   (b) GET /user/repos?per_page=30 for teamster, a member of 50 teams
#       reaching 2,000 repositories (half through parent teams only), page 1
#       and page DEEP;
#   (c) GET /issues?filter=all&per_page=30 for teamster: the open issues of
#       those 2,000 repositories (one each), cold only.
#
# Throughput ("warm") is measured with wrk against the bare handler of
# bench/bare answering the same bytes in this one run (compare ratios, not
# numbers): after the first answers, hubd's read cache (entries live 2 s,
# any committed write empties it) serves most requests, and the repository
# lookup it caches is exactly the permission query. A rotation over many
# repositories does not get past it (at 15,000 req/s, 2 s cover 30,000
# requests). So the cost of the queries themselves is the cold latency: one
# request right after a write (PATCH /user), COLD samples, median and p90,
# with curl. When the cold request takes longer than the wrk run, every
# connection waits on its own cold query and wrk counts no answer at all.
#
# Then the Go benchmark of bench/permbench times the store queries
# themselves on the same seed, without HTTP and JSON: in a transaction
# (which the read cache never answers, and which prepares its statements
# anew each time) and "-cold" as a request right after a write runs them
# (cached statements, read cache emptied).
#
#   bash bench/perms.sh                                  # SQLite, 10 s per wrk run
#   DATABASE='postgres://postgres@127.0.0.1:5432/EMPTYDB?sslmode=disable' bash bench/perms.sh
#   DURATION=5s COLD=50 bash bench/perms.sh
#   GOBENCH=0 bash bench/perms.sh                        # the HTTP part only
#
# The rows are seeded through the store (bench/permseed, permbench.Seed).
# Goals: (a) hubd at 30% or more of the bare handler; (b) page 1 under 20 ms.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-10s}
CONNS=${CONNS:-32}
THREADS=${THREADS:-1}
COLD=${COLD:-30}
DEEP=${DEEP:-60}
DATABASE=${DATABASE:-}
WRK_TIMEOUT=${WRK_TIMEOUT:-10s}
GOBENCH=${GOBENCH:-1}
BENCHTIME=${BENCHTIME:-1s}
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }

work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

go build -o "$work/hubd" ./cmd/hubd
go build -o "$work/bare" ./bench/bare
go build -o "$work/permseed" ./bench/permseed
HUBD=${HUBD_ADDR:-127.0.0.1:18480}
BARE1=${BARE_ADDR:-127.0.0.1:18481}
BARE2=${BARE2_ADDR:-127.0.0.1:18482}
BARE3=${BARE3_ADDR:-127.0.0.1:18483}
dbflag=()
[ -n "$DATABASE" ] && dbflag=(--database "$DATABASE")

"$work/hubd" serve --data "$work/data" "${dbflag[@]}" --addr "$HUBD" --rate-limit-authenticated 100000000 >"$work/hubd.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 50); do grep -q listening "$work/hubd.log" 2>/dev/null && break; sleep 0.2; done
grep -q listening "$work/hubd.log" || { echo "hubd did not start:" >&2; cat "$work/hubd.log" >&2; exit 1; }
seedflag=(-data "$work/data")
[ -n "$DATABASE" ] && seedflag+=(-database "$DATABASE")
"$work/permseed" "${seedflag[@]}" >"$work/tokens.txt"
TEAMSTER=$(awk '/^token-teamster:/ {print $2}' "$work/tokens.txt")
DEEPTOK=$(awk '/^token-deep:/ {print $2}' "$work/tokens.txt")
OWNERTOK=$(awk '/^token-owner:/ {print $2}' "$work/tokens.txt")
sleep 2.1 # the read cache's entries from before the seed expire
echo "database: ${DATABASE:-SQLite}"

get() { curl -sf -H "Authorization: token $1" "http://$HUBD$2"; }
repo="/api/v3/repos/acme/r00001"
list="/api/v3/user/repos"
get "$DEEPTOK" "$repo" >"$work/repo.json"
get "$OWNERTOK" "$repo" >"$work/repo-owner.json"
get "$TEAMSTER" "$list?per_page=30" >"$work/page1.json"
get "$TEAMSTER" "$list?per_page=30&page=$DEEP" >"$work/deep.json"
issues="/api/v3/issues?filter=all&per_page=30"
n3=$(get "$TEAMSTER" "$issues" | grep -o '"repository_url"' | wc -l)
[ "$n3" = 30 ] || { echo "GET /issues holds $n3 issues" >&2; exit 1; }
grep -q '"push":true' "$work/repo.json" || { echo "deep cannot push to acme/r00001:" >&2; cat "$work/repo.json" >&2; exit 1; }
n1=$(grep -o '"full_name":"acme/r' "$work/page1.json" | wc -l)
n2=$(grep -o '"full_name":"acme/r' "$work/deep.json" | wc -l)
last=$(curl -sf -D - -o /dev/null -H "Authorization: token $TEAMSTER" "http://$HUBD$list?per_page=30" | tr -d '\r' | sed -n 's/.*[?&]page=\([0-9]*\)[^>]*>; rel="last".*/\1/p')
[ "$n1" = 30 ] && [ "$n2" = 30 ] || { echo "pages hold $n1 and $n2 repositories: lower DEEP" >&2; exit 1; }
printf 'teamster reaches %s pages of 30 repositories; bodies: repository %s bytes, page 1 %s bytes, page %s %s bytes\n' \
  "$last" "$(wc -c <"$work/repo.json")" "$(wc -c <"$work/page1.json")" "$DEEP" "$(wc -c <"$work/deep.json")"

"$work/bare" -addr "$BARE1" "$repo=$work/repo.json" "$list=$work/page1.json" &
pids+=($!)
"$work/bare" -addr "$BARE2" "$list=$work/deep.json" &
pids+=($!)
"$work/bare" -addr "$BARE3" "$repo=$work/repo-owner.json" &
pids+=($!)
sleep 0.5

# measure NAME TOKEN URL -> "rps p99"
measure() {
  local out rps p99
  out=$(wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" --timeout "$WRK_TIMEOUT" --latency -H "Authorization: token $2" "$3")
  rps=$(awk '/^Requests\/sec/ {print $2}' <<<"$out")
  p99=$(awk '$1=="99%" {print $2}' <<<"$out")
  if grep -q "Non-2xx" <<<"$out"; then echo "$1: non-2xx responses" >&2; echo "$out" >&2; exit 1; fi
  if grep -q "Socket errors" <<<"$out"; then echo "$1: $(grep 'Socket errors' <<<"$out" | sed 's/^ *//')" >&2; fi
  echo "$rps $p99"
}
to_ms() { awk -v v="$1" 'BEGIN{ if (v ~ /us$/) {sub(/us/,"",v); print v/1000} else if (v ~ /ms$/) {sub(/ms/,"",v); print v} else {sub(/s/,"",v); print v*1000} }'; }

# cold TOKEN URL -> "median p90" in ms over COLD requests, each right after
# a write.
cold() {
  local i
  for i in $(seq 1 "$COLD"); do
    curl -sf -o /dev/null -X PATCH -H "Authorization: token $TEAMSTER" -d "{\"bio\":\"cold $i\"}" "http://$HUBD/api/v3/user"
    curl -sf -o /dev/null -w '%{time_total}\n' -H "Authorization: token $1" "http://$HUBD$2"
  done | sort -n | awk '{v[NR]=$1*1000} END {printf "%.1f %.1f\n", v[int((NR+1)/2)], v[int(NR*0.9+0.5)]}'
}

printf '\n%-46s %12s %10s %12s %10s %8s %8s\n' "warm (wrk, $CONNS connections)" "hubd req/s" "hubd p99" "bare req/s" "bare p99" "ratio" "goal"
row() { # LABEL HUBDURL BAREURL TOKEN GOAL
  local brps bp99 hrps hp99
  read -r brps bp99 < <(measure bare "$4" "$3")
  read -r hrps hp99 < <(measure hubd "$4" "$2")
  printf '%-46s %12s %9sms %12s %9sms %8s %8s\n' "$1" "$hrps" "$(to_ms "$hp99")" "$brps" "$(to_ms "$bp99")" \
    "$(awk -v h="$hrps" -v b="$brps" 'BEGIN{printf "%.1f%%", 100*h/b}')" "$5"
}
row "(a) GET /repos/acme/r00001 (deep)" "http://$HUBD$repo" "http://$BARE1$repo" "$DEEPTOK" ">=30%"
row "    the same, by acme-owner (control)" "http://$HUBD$repo" "http://$BARE3$repo" "$OWNERTOK" ""
row "(b) GET /user/repos?per_page=30 (teamster)" "http://$HUBD$list?per_page=30" "http://$BARE1$list?per_page=30" "$TEAMSTER" ""
row "(b) GET /user/repos?...&page=$DEEP" "http://$HUBD$list?per_page=30&page=$DEEP" "http://$BARE2$list?per_page=30&page=$DEEP" "$TEAMSTER" ""

printf '\n%-46s %10s %10s %8s\n' "cold (right after a write, $COLD samples)" "median" "p90" "goal"
read -r m p < <(cold "$DEEPTOK" "$repo")
printf '%-46s %8sms %8sms %8s\n' "(a) GET /repos/acme/r00001 (deep)" "$m" "$p" ""
read -r m p < <(cold "$OWNERTOK" "$repo")
printf '%-46s %8sms %8sms %8s\n' "    the same, by acme-owner (control)" "$m" "$p" ""
read -r m p < <(cold "$TEAMSTER" "$list?per_page=30")
printf '%-46s %8sms %8sms %8s\n' "(b) GET /user/repos?per_page=30 (teamster)" "$m" "$p" "<20ms"
read -r m p < <(cold "$TEAMSTER" "$list?per_page=30&page=$DEEP")
printf '%-46s %8sms %8sms %8s\n' "(b) GET /user/repos?...&page=$DEEP" "$m" "$p" ""
read -r m p < <(cold "$TEAMSTER" "$issues")
printf '%-46s %8sms %8sms %8s\n' "(c) GET /issues?filter=all&per_page=30" "$m" "$p" ""

# Stop the servers before the Go benchmark: they share the two cores.
for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
pids=()
if [ "$GOBENCH" = 1 ]; then
  echo
  echo "go test -bench (the store queries alone, in a transaction or -cold as after a write: ms/op per query):"
  status=0
  HUBD_TEST_DATABASE="$DATABASE" go test -run XXX -bench . -benchtime "$BENCHTIME" ./bench/permbench >"$work/gobench.txt" 2>&1 || status=$?
  grep -E '^(Benchmark|ok|FAIL|---|    )' "$work/gobench.txt" || true
  [ "$status" = 0 ] || { echo "go test failed:" >&2; cat "$work/gobench.txt" >&2; exit 1; }
fi
