#!/usr/bin/env bash
# GraphQL benchmark: POST /api/graphql with the queries gh sends, each
# against the bare handler of bench/bare answering the same bytes, all
# measured with wrk in this one run (the machines are noisy: compare
# ratios, not numbers):
#
#   repo-view        gh repo view's RepositoryInfo
#                    (internal/graphql/testdata/gh-queries/repo-view.graphql)
#   repo-network     gh's RepositoryNetwork (every command that resolves a
#                    git remote sends it; the query of TestRepositoryNetwork
#                    in internal/graphql/graphql_test.go) for two remotes
#   issue-list       gh issue list's IssueList (gh-queries/issue-list.graphql,
#                    limit 30, states OPEN) on a repository with 100,000
#                    issues: labels and their totalCount per issue
#   issue-list-full  the same with assignees (gh's selection) and comment
#                    counts added to the fragment, as
#                    `gh issue list --json ...,assignees` asks with
#                    comments{totalCount}
#   pr-view          `gh pr view --json` with every field gh offers
#                    (bench/graphql-prview.graphql, gh's PullRequestByNumber
#                    as TestGhPRViewEveryField records it) on a pull request
#                    with 50 commits, 100 files, 20 reviews and 30 checks
#                    (15 check runs of an app, 15 commit status
#                    contexts); its latency is also measured with one
#                    connection (goal: < 50 ms)
#
# Then bench/graphqlbench serves the same requests in-process on the seeded
# data (hubd stopped) and prints the SQL queries one request runs
# (store.Store.Reads()) warm, as wrk's requests run, and cold (right after a
# commit emptied the read cache), its time and allocations, beside REST's
# GET /repos/{owner}/{repo}/issues.
#
#   bash bench/graphql.sh                  # 10 s per measurement, 32 connections
#   ISSUES=20000 DURATION=5s bash bench/graphql.sh
#   PROFILE=1 bash bench/graphql.sh        # also CPU profiles + pprof -top
#
# Goals: repo-view at 15% or more of the bare handler's requests/second,
# issue-list at 10% or more, pr-view under 50 ms a request.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-10s}
CONNS=${CONNS:-32}
THREADS=${THREADS:-1}
ISSUES=${ISSUES:-100000}
PROFILE=${PROFILE:-0}
WRK_TIMEOUT=${WRK_TIMEOUT:-10s}
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
command -v jq >/dev/null || { apt-get update -qq && apt-get install -y -qq jq >/dev/null; }

work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

go build -o "$work/hubd" ./cmd/hubd
go build -o "$work/bare" ./bench/bare
go build -o "$work/issueseed" ./bench/issueseed
go build -o "$work/graphqlbench" ./bench/graphqlbench
go build -o "$work/appjwt" ./bench/appjwt
HUBD=${HUBD_ADDR:-127.0.0.1:18480}
BARE=${BARE_ADDR:-127.0.0.1:18481}

"$work/hubd" serve --data "$work/data" --addr "$HUBD" --rate-limit-authenticated 100000000 >"$work/hubd.log" 2>&1 &
hubd_pid=$!
pids+=($hubd_pid)
for _ in $(seq 1 50); do grep -q listening "$work/hubd.log" 2>/dev/null && break; sleep 0.2; done
grep -q listening "$work/hubd.log" || { echo "hubd did not start:" >&2; cat "$work/hubd.log" >&2; exit 1; }
TOKEN=$(awk '/^token:/ {print $2}' "$work/hubd.log")
LOGIN=$(awk '/^login:/ {print $2}' "$work/hubd.log")
api() { curl -sf -H "Authorization: token $TOKEN" -H "Content-Type: application/json" "$@"; }

api -X POST "http://$HUBD/api/v3/admin/organizations" -d "{\"login\":\"acme\",\"admin\":\"$LOGIN\"}" >/dev/null
api -X POST "http://$HUBD/api/v3/orgs/acme/repos" -d '{"name":"big","description":"the benchmark repository"}' >/dev/null
for i in $(seq 1 20); do
  api -X POST "http://$HUBD/api/v3/orgs/acme/repos" -d "{\"name\":\"repo-$i\",\"description\":\"benchmark repository $i\"}" >/dev/null
done
echo "seeding: $ISSUES issues into acme/big"
"$work/issueseed" -data "$work/data" -repo acme/big -n "$ISSUES"

# The pull request of pr-view: acme/prview, branch big with 50 commits
# changing 100 files (two each) off main, 20 reviews, 30 checks: 15 check
# runs of a GitHub App (its installation token) and 15 status contexts.
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 GIT_TERMINAL_PROMPT=0
api -X POST "http://$HUBD/api/v3/orgs/acme/repos" -d '{"name":"prview"}' >/dev/null
git init -q --bare "$work/prview.git"
{
  printf 'commit refs/heads/main\ncommitter Bench <bench@example.com> 1700000000 +0000\ndata 7\nREADME\nM 100644 inline README.md\ndata 7\nreadme\n\n'
  for c in $(seq 1 50); do
    msg="Change $c"$'\n\n'"Files $((2 * c - 1)) and $((2 * c))."
    printf 'commit refs/heads/big\ncommitter Bench <bench@example.com> %d +0000\ndata %d\n%s\n' $((1700000000 + c)) "${#msg}" "$msg"
    [ "$c" = 1 ] && printf 'from refs/heads/main\n'
    for f in $((2 * c - 1)) $((2 * c)); do
      content="file $f"$'\n'
      printf 'M 100644 inline src/file-%03d.txt\ndata %d\n%s\n' "$f" "${#content}" "$content"
    done
    printf '\n'
  done
} | git -C "$work/prview.git" fast-import --quiet
git -C "$work/prview.git" push -q "http://x-access-token:$TOKEN@$HUBD/acme/prview.git" main big
pr_head=$(git -C "$work/prview.git" rev-parse big)
api -X POST "http://$HUBD/api/v3/repos/acme/prview/pulls" -d '{"title":"Big","head":"big","base":"main","body":"Fifty commits."}' >/dev/null
for i in $(seq 1 20); do
  api -X POST "http://$HUBD/api/v3/repos/acme/prview/pulls/1/reviews" -d "{\"event\":\"COMMENT\",\"body\":\"review $i\"}" >/dev/null
done
for i in $(seq 1 15); do
  api -X POST "http://$HUBD/api/v3/repos/acme/prview/statuses/$pr_head" -d "{\"state\":\"success\",\"context\":\"status-$i\"}" >/dev/null
done
api -X POST "http://$HUBD/api/v3/admin/apps" -d '{"owner":"acme","name":"Bench CI","default_permissions":{"checks":"write","contents":"read"}}' >"$work/app.json"
app_id=$(jq -r .id "$work/app.json")
jq -r .pem "$work/app.json" >"$work/app.pem"
inst=$(api -X POST "http://$HUBD/api/v3/admin/apps/bench-ci/installations" -d '{"account":"acme","repositories":["prview"]}' | jq -r .id)
jwt=$("$work/appjwt" -key "$work/app.pem" -iss "$app_id")
iat=$(curl -sf -X POST -H "Authorization: Bearer $jwt" "http://$HUBD/api/v3/app/installations/$inst/access_tokens" | jq -r .token)
for i in $(seq 1 15); do
  curl -sf -H "Authorization: token $iat" -H "Content-Type: application/json" -X POST "http://$HUBD/api/v3/repos/acme/prview/check-runs" \
    -d "{\"name\":\"check-$i\",\"head_sha\":\"$pr_head\",\"status\":\"completed\",\"conclusion\":\"success\",\"output\":{\"title\":\"ok\",\"summary\":\"check $i passed\"}}" >/dev/null
done

# The request bodies: gh's documents with variables naming the seeded
# repositories.
gq=internal/graphql/testdata/gh-queries
jq -n --rawfile q "$gq/repo-view.graphql" '{query: $q, variables: {owner: "acme", name: "big"}}' >"$work/repo-view.req"
network='fragment repo on Repository {
		id
		databaseId
		name
		owner { login }
		viewerPermission
		defaultBranchRef { name }
		isPrivate
	}
	query RepositoryNetwork {
		viewer { login }
		repo_000: repository(owner: "acme", name: "big") { ...repo parent { ...repo } }
		repo_001: repository(owner: "acme", name: "repo-1") { ...repo parent { ...repo } }
	}'
jq -n --arg q "$network" '{query: $q}' >"$work/repo-network.req"
jq -n --rawfile q "$gq/issue-list.graphql" '{query: $q, variables: {limit: 30, owner: "acme", repo: "big", states: ["OPEN"]}}' >"$work/issue-list.req"
full=$(sed 's/,stateReason}/,stateReason,assignees(first:100){nodes{id,login,name,databaseId},totalCount},comments{totalCount}}/' "$gq/issue-list.graphql")
grep -q 'comments{totalCount}' <<<"$full" || { echo "issue-list.graphql changed: cannot add assignees and comments" >&2; exit 1; }
jq -n --arg q "$full" '{query: $q, variables: {limit: 30, owner: "acme", repo: "big", states: ["OPEN"]}}' >"$work/issue-list-full.req"

jq -n --rawfile q bench/graphql-prview.graphql '{query: $q, variables: {owner: "acme", repo: "prview", pr_number: 1}}' >"$work/pr-view.req"

names=(repo-view repo-network issue-list issue-list-full pr-view)
bare_args=()
for n in "${names[@]}"; do
  api -X POST "http://$HUBD/api/graphql" --data-binary "@$work/$n.req" >"$work/$n.json"
  if [ "$(jq '(.errors // []) | length' "$work/$n.json")" != 0 ] || [ "$(jq '.data == null' "$work/$n.json")" = true ]; then
    echo "$n: hubd did not answer cleanly:" >&2; head -c 2000 "$work/$n.json" >&2; exit 1
  fi
  bare_args+=("/api/graphql/$n=$work/$n.json")
  # wrk posts the same body to hubd and to the bare handler.
  cat >"$work/$n.lua" <<EOF
local f = assert(io.open("$work/$n.req", "rb"))
wrk.method = "POST"
wrk.body = f:read("*a")
f:close()
wrk.headers["Content-Type"] = "application/json"
EOF
done
n_issues=$(jq '.data.repository.issues.nodes | length' "$work/issue-list.json")
total=$(jq '.data.repository.issues.totalCount' "$work/issue-list.json")
[ "$n_issues" = 30 ] || { echo "issue-list answered $n_issues issues, want 30" >&2; exit 1; }
pv=$(jq -c '.data.repository.pullRequest | [(.commits.nodes|length), (.files.nodes|length), (.reviews.totalCount), (.statusCheckRollup.nodes[0].commit.statusCheckRollup.contexts.nodes|length)]' "$work/pr-view.json")
[ "$pv" = "[50,100,20,30]" ] || { echo "pr-view answered [commits,files,reviews,contexts] $pv, want [50,100,20,30]" >&2; exit 1; }
"$work/bare" -addr "$BARE" "${bare_args[@]}" &
pids+=($!)
sleep 0.5

# measure NAME LUA URL -> "rps p99"
measure() {
  local out rps p99
  out=$(wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" --timeout "$WRK_TIMEOUT" --latency -s "$2" -H "Authorization: token $TOKEN" "$3")
  rps=$(awk '/^Requests\/sec/ {print $2}' <<<"$out")
  p99=$(awk '$1=="99%" {print $2}' <<<"$out")
  if grep -q "Non-2xx" <<<"$out"; then echo "$1: non-2xx responses" >&2; echo "$out" >&2; exit 1; fi
  if grep -q "Socket errors" <<<"$out"; then echo "$1: $(grep 'Socket errors' <<<"$out" | sed 's/^ *//')" >&2; fi
  echo "$rps $p99"
}
to_ms() { awk -v v="$1" 'BEGIN{ if (v ~ /us$/) {sub(/us/,"",v); print v/1000} else if (v ~ /ms$/) {sub(/ms/,"",v); print v} else {sub(/s/,"",v); print v*1000} }'; }

printf 'issue-list: %s open issues of %s, 30 a page\n' "$total" "$ISSUES"
printf 'bodies:'; for n in "${names[@]}"; do printf ' %s %s bytes;' "$n" "$(wc -c <"$work/$n.json")"; done; echo
printf '%-22s %12s %10s %12s %10s %8s %6s\n' "query" "hubd req/s" "hubd p99" "bare req/s" "bare p99" "ratio" "goal"
declare -A goal=([repo-view]=15 [issue-list]=10)
for n in "${names[@]}"; do
  read -r brps bp99 < <(measure bare "$work/$n.lua" "http://$BARE/api/graphql/$n")
  read -r hrps hp99 < <(measure hubd "$work/$n.lua" "http://$HUBD/api/graphql")
  ratio=$(awk -v h="$hrps" -v b="$brps" 'BEGIN{printf "%.1f%%", 100*h/b}')
  g=""
  if [ -n "${goal[$n]:-}" ]; then
    g=$(awk -v h="$hrps" -v b="$brps" -v g="${goal[$n]}" 'BEGIN{ if (100*h/b >= g) print "met"; else print "missed" }')
    g="$g (${goal[$n]}%)"
  fi
  printf '%-22s %12s %9sms %12s %9sms %8s %s\n' "$n" "$hrps" "$(to_ms "$hp99")" "$brps" "$(to_ms "$bp99")" "$ratio" "$g"
done
# pr-view's latency one request at a time (the goal is per request).
out=$(wrk -t1 -c1 -d"$DURATION" --timeout "$WRK_TIMEOUT" --latency -s "$work/pr-view.lua" -H "Authorization: token $TOKEN" "http://$HUBD/api/graphql")
avg=$(awk '$1=="Latency" {print $2; exit}' <<<"$out")
p50=$(awk '$1=="50%" {print $2}' <<<"$out")
p99=$(awk '$1=="99%" {print $2}' <<<"$out")
printf 'pr-view, one connection: mean %sms, p50 %sms, p99 %sms; goal < 50 ms: %s\n' "$(to_ms "$avg")" "$(to_ms "$p50")" "$(to_ms "$p99")" \
  "$(awk -v v="$(to_ms "$p50")" 'BEGIN{ if (v < 50) print "met"; else print "missed" }')"
# The answers after the load are still clean (no RATE_LIMITED, no errors).
for n in "${names[@]}"; do
  out=$(api -X POST "http://$HUBD/api/graphql" --data-binary "@$work/$n.req")
  [ "$(jq '(.errors // []) | length' <<<"$out")" = 0 ] || { echo "$n after the load: $(head -c 500 <<<"$out")" >&2; exit 1; }
done

# Stop the servers (hubd holds the data directory's lock) before the
# in-process measurements: they share the two cores.
for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
wait "$hubd_pid" 2>/dev/null || true
pids=()
echo
prof=()
[ "$PROFILE" = 1 ] && prof=(-cpuprofile "$work/cpu")
reqs=()
for n in "${names[@]}"; do reqs+=("$n=$work/$n.req"); done
"$work/graphqlbench" -data "$work/data" -token "$TOKEN" "${prof[@]}" "${reqs[@]}" \
  "GET:rest-issues=/api/v3/repos/acme/big/issues?per_page=30"
if [ "$PROFILE" = 1 ]; then
  for n in "${names[@]}"; do
    echo
    echo "== pprof -top $n (cumulative, top 40)"
    go tool pprof -top -cum -nodecount 40 "$work/graphqlbench" "$work/cpu.$n" 2>/dev/null | sed -n '1,50p'
  done
  if [ -n "${PROFILE_DIR:-}" ]; then mkdir -p "$PROFILE_DIR" && cp "$work"/cpu.* "$work/graphqlbench" "$PROFILE_DIR"/; fi
fi
