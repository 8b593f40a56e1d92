#!/usr/bin/env bash
# Actions benchmark (a benchmark, not a test; the numbers are printed):
#  1. push -> first step start: a git push of a workflow whose step (after
#     actions/checkout, as local actions need) is a local composite action
#     printing the time; the latency is that time
#     minus the time before `git push` (ROUNDS pushes; goal under 1 s);
#  2. drain: one push queues 50 jobs (a matrix) run by 1, then 2 local
#     runners (--actions-workers 1, then 2: hubd restarts on the same data);
#     each job posts a commit status named after its combination with its
#     GITHUB_TOKEN, so a lost job is a missing status and a job run twice is
#     a doubled one; the drain time is printed;
#  3. GET /repos/{owner}/{repo}/actions/runs?per_page=30 on a repository with
#     10,000 runs (seeded through the store, bench/runseed) against the bare
#     handler of bench/bare answering the same bytes, both with wrk in this
#     run (goal: hubd at 15% or more of the bare handler).
#
#   bash bench/actions.sh                  # 10 s per measurement, 32 connections
#   RUNS=20000 DURATION=5s ROUNDS=10 bash bench/actions.sh
#   HUBD_BIN=/path/to/hubd bash bench/actions.sh   # another build (before/after)
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-10s}
CONNS=${CONNS:-32}
THREADS=${THREADS:-1}
RUNS=${RUNS:-10000}
ROUNDS=${ROUNDS:-5}
JOBS=${JOBS:-50}
WRK_TIMEOUT=${WRK_TIMEOUT:-10s}
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 GIT_TERMINAL_PROMPT=0

work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

if [ -n "${HUBD_BIN:-}" ]; then cp "$HUBD_BIN" "$work/hubd"; else go build -o "$work/hubd" ./cmd/hubd; fi
go build -o "$work/bare" ./bench/bare
go build -o "$work/runseed" ./bench/runseed
HUBD=${HUBD_ADDR:-127.0.0.1:18500}
BARE=${BARE_ADDR:-127.0.0.1:18501}

# start_hubd N: hubd serve with N local runners (the data directory stays).
hubd_pid=
start_hubd() {
  : >"$work/hubd.log"
  "$work/hubd" serve --data "$work/data" --addr "$HUBD" --rate-limit-authenticated 100000000 --rate-limit-installation 100000000 \
    --actions-workers "$1" >>"$work/hubd.log" 2>&1 &
  hubd_pid=$!
  pids+=($hubd_pid)
  for _ in $(seq 1 50); do grep -q listening "$work/hubd.log" 2>/dev/null && break; sleep 0.2; done
  grep -q listening "$work/hubd.log" || { echo "hubd did not start:" >&2; cat "$work/hubd.log" >&2; exit 1; }
  grep -E 'actions workers|local runners' "$work/hubd.log" || true
}
stop_hubd() { kill -INT "$hubd_pid"; wait "$hubd_pid" || true; }
start_hubd 2
cp "$work/hubd.log" "$work/first.log"
TOKEN=$(awk '/^token:/ {print $2}' "$work/first.log")
LOGIN=$(awk '/^login:/ {print $2}' "$work/first.log")
api() { curl -sf -H "Authorization: token $TOKEN" -H "Content-Type: application/json" "$@"; }
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
api -X POST "http://$HUBD/api/v3/admin/organizations" -d "{\"login\":\"acme\",\"admin\":\"$LOGIN\"}" >/dev/null
for r in ci lat drain1 drain2; do api -X POST "http://$HUBD/api/v3/orgs/acme/repos" -d "{\"name\":\"$r\"}" >/dev/null; done
remote() { echo "http://x-access-token:$TOKEN@$HUBD/acme/$1.git"; }
g() { git -c user.name=Bench -c user.email=bench@example.com -c init.defaultBranch=main "$@"; }

# wait_run REPO SHA -> the run's id once completed
wait_run() {
  for _ in $(seq 1 1200); do
    out=$(api "http://$HUBD/api/v3/repos/acme/$1/actions/runs?head_sha=$2" | json '" ".join(str(r["id"])+":"+r["status"] for r in d["workflow_runs"])')
    case "$out" in *:completed) echo "${out%%:*}"; return 0 ;; esac
    sleep 0.1
  done
  echo "no completed run of $2 in acme/$1" >&2; exit 1
}

# 1. push -> first step start.
src="$work/lat"; mkdir -p "$src/.github/workflows" "$src/.github/actions/stamp"
cat >"$src/.github/actions/stamp/action.yml" <<'YML'
name: Stamp
runs:
  using: composite
  steps:
    - run: echo "STEP-START $(date +%s.%N)"
      shell: bash
YML
cat >"$src/.github/workflows/lat.yml" <<'YML'
name: Latency
on: push
jobs:
  go:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: ./.github/actions/stamp
YML
g -C "$src" init -q
lats=()
for i in $(seq 1 "$ROUNDS"); do
  echo "$i" >"$src/round.txt"
  g -C "$src" add -A; g -C "$src" commit -q -m "round $i"
  sha=$(g -C "$src" rev-parse HEAD)
  t0=$(date +%s.%N)
  g -C "$src" push -q "$(remote lat)" HEAD:main
  run=$(wait_run lat "$sha")
  job=$(api "http://$HUBD/api/v3/repos/acme/lat/actions/runs/$run/jobs" | json 'd["jobs"][0]["id"]')
  t1=$(curl -sfL -H "Authorization: token $TOKEN" "http://$HUBD/api/v3/repos/acme/lat/actions/jobs/$job/logs" | awk '$2=="STEP-START" {print $3; exit}')
  [ -n "$t1" ] || { echo "round $i: no STEP-START in the log:" >&2; curl -sL -H "Authorization: token $TOKEN" "http://$HUBD/api/v3/repos/acme/lat/actions/jobs/$job/logs" >&2; exit 1; }
  lats+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}')")
done
printf 'push -> first step start (%s rounds, seconds): %s\n' "$ROUNDS" "${lats[*]}"
printf '%s\n' "${lats[@]}" | sort -n | awk '{v[NR]=$1} END{printf "  median %.3f s, max %.3f s (goal < 1 s)\n", v[int((NR+1)/2)], v[NR]}'

# 2. 50 queued jobs through 2, then 1 local runner.
drain() { # drain RUNNERS: the repository drainN
  local n=$1 src="$work/drain$1"
  mkdir -p "$src/.github/workflows"
  ns=$(seq -s, 1 "$JOBS")
  cat >"$src/.github/workflows/drain.yml" <<YML
name: Drain
on: push
permissions:
  statuses: write
jobs:
  m:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        n: [$ns]
    steps:
      - run: |
          curl -sS -f -o /dev/null -X POST -H "Authorization: Bearer \${{ secrets.GITHUB_TOKEN }}" \\
            "\$GITHUB_API_URL/repos/\$GITHUB_REPOSITORY/statuses/\$GITHUB_SHA" -d '{"state":"success","context":"drain-\${{ matrix.n }}"}'
YML
  g -C "$src" init -q; g -C "$src" add -A; g -C "$src" commit -q -m drain
  sha=$(g -C "$src" rev-parse HEAD)
  t0=$(date +%s.%N)
  g -C "$src" push -q "$(remote "drain$n")" HEAD:main
  run=$(wait_run "drain$n" "$sha")
  t1=$(date +%s.%N)
  jobs=$(api "http://$HUBD/api/v3/repos/acme/drain$n/actions/runs/$run/jobs?per_page=100" | json '" ".join(j["conclusion"] for j in d["jobs"])')
  ok=$(tr ' ' '\n' <<<"$jobs" | grep -c '^success$' || true)
  statuses=$(for p in 1 2 3; do api "http://$HUBD/api/v3/repos/acme/drain$n/commits/$sha/statuses?per_page=100&page=$p" | json '"\n".join(s["context"] for s in d)'; done | grep . || true)
  distinct=$(sort -u <<<"$statuses" | grep -c . || true)
  total=$(grep -c . <<<"$statuses" || true)
  printf '%s jobs, %s runners: drained in %.1f s; %s jobs succeeded; %s statuses posted for %s distinct jobs (lost %s, duplicated %s)\n' \
    "$JOBS" "$n" "$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')" "$ok" "$total" "$distinct" "$((JOBS - distinct))" "$((total - distinct))"
}
drain 2
stop_hubd
start_hubd 1
drain 1

# 3. The run list on 10,000 runs against the bare handler.
src="$work/ci"; mkdir -p "$src"
echo ci >"$src/README.md"
g -C "$src" init -q; g -C "$src" add -A; g -C "$src" commit -q -m ci
g -C "$src" push -q "$(remote ci)" HEAD:main
"$work/runseed" -data "$work/data" -repo acme/ci -n "$RUNS"
path="/api/v3/repos/acme/ci/actions/runs"
api "http://$HUBD$path?per_page=30" >"$work/runs.json"
n=$(grep -o '"run_number":' "$work/runs.json" | wc -l)
[ "$n" = 30 ] || { echo "page of $n runs" >&2; exit 1; }
"$work/bare" -addr "$BARE" "$path=$work/runs.json" &
pids+=($!)
sleep 0.5
measure() {
  local out
  out=$(wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" --timeout "$WRK_TIMEOUT" --latency -H "Authorization: token $TOKEN" "$2")
  if grep -q "Non-2xx" <<<"$out"; then echo "$1: non-2xx responses" >&2; echo "$out" >&2; exit 1; fi
  echo "$(awk '/^Requests\/sec/ {print $2}' <<<"$out") $(awk '$1=="99%" {print $2}' <<<"$out")"
}
read -r brps bp99 < <(measure bare "http://$BARE$path?per_page=30")
read -r hrps hp99 < <(measure hubd "http://$HUBD$path?per_page=30")
printf '%-48s %12s %10s %12s %10s %8s\n' "endpoint ($RUNS runs, $(wc -c <"$work/runs.json") bytes)" "hubd req/s" "hubd p99" "bare req/s" "bare p99" "ratio"
printf '%-48s %12s %10s %12s %10s %8s\n' "GET /repos/acme/ci/actions/runs?per_page=30" "$hrps" "$hp99" "$brps" "$bp99" \
  "$(awk -v h="$hrps" -v b="$brps" 'BEGIN{printf "%.1f%%", 100*h/b}')"
