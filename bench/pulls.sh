#!/usr/bin/env bash
# Pull requests benchmark: GET /repos/{owner}/{repo}/pulls?per_page=30 on a
# repository with real git content (a history on main and a few head
# branches pushed over smart HTTP) and 10,000 pull requests carrying labels,
# assignees and milestones, page 1 and a deep page, each against the bare
# handler of bench/bare answering the same bytes, all measured with wrk in
# this one run; then the Go benchmarks of bench/pullbench (mergeability of a
# 1,000-file pull request, merges on a 2,000-commit history), each with the
# bare git commands beside it.
#
#   bash bench/pulls.sh                  # 10 s per measurement, 32 connections
#   PULLS=20000 DURATION=5s bash bench/pulls.sh
#   GOBENCH=0 bash bench/pulls.sh        # the wrk part only
#
# The pull requests are seeded through the store in bulk (bench/pullseed),
# each with its own head branch at one of the pushed heads. Target: hubd at
# 15% or more of the bare handler's throughput; mergeability of 1,000 files
# under 200 ms, a merge on a 2,000-commit history under 300 ms.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-10s}
CONNS=${CONNS:-32}
THREADS=${THREADS:-1}
PULLS=${PULLS:-10000}
HEADS=${HEADS:-20}
DEEP=${DEEP:-$((PULLS * 9 / 10 / 30 * 4 / 5))}
GOBENCH=${GOBENCH:-1}
BENCHTIME=${BENCHTIME:-1s}
# wrk drops requests slower than its timeout from the latency figures: a
# long one keeps hubd's slow answers in the p99.
WRK_TIMEOUT=${WRK_TIMEOUT:-10s}
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 GIT_TERMINAL_PROMPT=0

work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

go build -o "$work/hubd" ./cmd/hubd
go build -o "$work/bare" ./bench/bare
go build -o "$work/pullseed" ./bench/pullseed
go build -o "$work/genrepo" ./bench/genrepo
HUBD=${HUBD_ADDR:-127.0.0.1:18480}
BARE1=${BARE_ADDR:-127.0.0.1:18481}
BARE2=${BARE2_ADDR:-127.0.0.1:18482}

# The git content: 300 commits on main, then HEADS branches of two commits
# each (a changed file and a new one) off main's tip.
git init -q --bare "$work/src.git"
"$work/genrepo" -commits 300 -mb 3 -files 100 | git -C "$work/src.git" fast-import --quiet
{
  for b in $(seq 1 "$HEADS"); do
    for c in 1 2; do
      msg="feature $b: step $c"
      content="feature $b, step $c"$'\n'
      printf 'commit refs/heads/feature-%d\ncommitter Bench <bench@example.com> %d +0000\ndata %d\n%s\n' \
        "$b" $((1700000000 + b * 100 + c)) "${#msg}" "$msg"
      [ "$c" = 1 ] && printf 'from refs/heads/main^0\n'
      printf 'M 100644 inline features/feature-%d-%d.txt\ndata %d\n%s\n' "$b" "$c" "${#content}" "$content"
      printf 'M 100644 inline dir%d/notes-%d.md\ndata %d\n%s\n\n' $((b % 20)) "$b" "${#content}" "$content"
    done
  done
} | git -C "$work/src.git" fast-import --quiet

"$work/hubd" serve --data "$work/data" --addr "$HUBD" --rate-limit-authenticated 100000000 >"$work/hubd.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 50); do grep -q listening "$work/hubd.log" 2>/dev/null && break; sleep 0.2; done
grep -q listening "$work/hubd.log" || { echo "hubd did not start:" >&2; cat "$work/hubd.log" >&2; exit 1; }
TOKEN=$(awk '/^token:/ {print $2}' "$work/hubd.log")
LOGIN=$(awk '/^login:/ {print $2}' "$work/hubd.log")
api() { curl -sf -H "Authorization: token $TOKEN" -H "Content-Type: application/json" "$@"; }

api -X POST "http://$HUBD/api/v3/admin/organizations" -d "{\"login\":\"acme\",\"admin\":\"$LOGIN\"}" >/dev/null
api -X POST "http://$HUBD/api/v3/orgs/acme/repos" -d '{"name":"big"}' >/dev/null
git -C "$work/src.git" push -q "http://x-access-token:$TOKEN@$HUBD/acme/big.git" 'refs/heads/*:refs/heads/*'
echo "pushed main (300 commits) and $HEADS head branches to acme/big"
echo "seeding: $PULLS pull requests into acme/big"
"$work/pullseed" -data "$work/data" -repo acme/big -n "$PULLS"

path="/api/v3/repos/acme/big/pulls"
api "http://$HUBD$path?per_page=30" >"$work/page1.json"
api "http://$HUBD$path?per_page=30&page=$DEEP" >"$work/deep.json"
n1=$(grep -o '"merge_commit_sha":' "$work/page1.json" | wc -l)
n2=$(grep -o '"merge_commit_sha":' "$work/deep.json" | wc -l)
[ "$n1" -gt 0 ] && [ "$n2" -gt 0 ] || { echo "empty pages ($n1, $n2): seed more pull requests or lower DEEP" >&2; exit 1; }
"$work/bare" -addr "$BARE1" "$path=$work/page1.json" &
pids+=($!)
"$work/bare" -addr "$BARE2" "$path=$work/deep.json" &
pids+=($!)
sleep 0.5

# measure NAME URL -> "rps p99"
measure() {
  local out rps p99
  out=$(wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" --timeout "$WRK_TIMEOUT" --latency -H "Authorization: token $TOKEN" "$2")
  rps=$(awk '/^Requests\/sec/ {print $2}' <<<"$out")
  p99=$(awk '$1=="99%" {print $2}' <<<"$out")
  if grep -q "Non-2xx" <<<"$out"; then echo "$1: non-2xx responses" >&2; echo "$out" >&2; exit 1; fi
  if grep -q "Socket errors" <<<"$out"; then echo "$1: $(grep 'Socket errors' <<<"$out" | sed 's/^ *//')" >&2; fi
  echo "$rps $p99"
}
to_ms() { awk -v v="$1" 'BEGIN{ if (v ~ /us$/) {sub(/us/,"",v); print v/1000} else if (v ~ /ms$/) {sub(/ms/,"",v); print v} else {sub(/s/,"",v); print v*1000} }'; }

printf 'bodies: page 1 %s bytes (%s pulls), page %s %s bytes (%s pulls)\n' "$(wc -c <"$work/page1.json")" "$n1" "$DEEP" "$(wc -c <"$work/deep.json")" "$n2"
printf '%-44s %12s %10s %12s %10s %8s\n' "endpoint" "hubd req/s" "hubd p99" "bare req/s" "bare p99" "ratio"
for page in 1 "$DEEP"; do
  bare=$BARE1; [ "$page" = 1 ] || bare=$BARE2
  q="per_page=30"; [ "$page" = 1 ] || q="per_page=30&page=$page"
  read -r brps bp99 < <(measure bare "http://$bare$path?$q")
  read -r hrps hp99 < <(measure hubd "http://$HUBD$path?$q")
  ratio=$(awk -v h="$hrps" -v b="$brps" 'BEGIN{printf "%.1f%%", 100*h/b}')
  printf '%-44s %12s %9sms %12s %9sms %8s\n' "GET /repos/acme/big/pulls?$q" "$hrps" "$(to_ms "$hp99")" "$brps" "$(to_ms "$bp99")" "$ratio"
done

# Stop the servers before the Go benchmarks: they share the two cores.
for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
pids=()
if [ "$GOBENCH" = 1 ]; then
  echo
  echo "go test -bench (ms/op: time per operation; x-NAME: ratio to the bare measurement NAME of the same run):"
  status=0
  go test -run XXX -bench . -benchtime "$BENCHTIME" ./bench/pullbench >"$work/gobench.txt" 2>&1 || status=$?
  grep -E '^(Benchmark|ok|FAIL|---|    )' "$work/gobench.txt" || true
  [ "$status" = 0 ] || { echo "go test failed:" >&2; cat "$work/gobench.txt" >&2; exit 1; }
fi
