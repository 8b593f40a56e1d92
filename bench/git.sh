#!/usr/bin/env bash
# Git transport benchmark: a clone of a generated repository of over 100 MB
# through hubd against `git http-backend` (CGI) serving the same bare
# repository, both timed with hyperfine in this one run.
#
#   bash bench/git.sh              # 110 MB, 2000 commits, 5 clones each
#   MB=300 RUNS=3 bash bench/git.sh
#   CLONE=0 ONLY=0 MB=20 bash bench/git.sh   # the API part only (ONLY=0:
#                                            # the contents of a file alone)
set -euo pipefail
cd "$(dirname "$0")/.."
MB=${MB:-110}
COMMITS=${COMMITS:-2000}
RUNS=${RUNS:-5}
CLONE=${CLONE:-1}
ONLY=${ONLY:-}
command -v hyperfine >/dev/null || { apt-get update -qq && apt-get install -y -qq hyperfine >/dev/null; }

work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 GIT_TERMINAL_PROMPT=0

go build -o "$work/hubd" ./cmd/hubd
go build -o "$work/genrepo" ./bench/genrepo
go build -o "$work/httpbackend" ./bench/httpbackend
HUBD=${HUBD_ADDR:-127.0.0.1:18480}
BACKEND=${BACKEND_ADDR:-127.0.0.1:18482}

echo "generating a ${MB} MB repository with ${COMMITS} commits"
mkdir -p "$work/repos"
git init -q --bare "$work/repos/big.git"
"$work/genrepo" -commits "$COMMITS" -mb "$MB" | git -C "$work/repos/big.git" fast-import --quiet
git -C "$work/repos/big.git" repack -adq
du -sh "$work/repos/big.git/objects/pack" | awk '{print "pack size: " $1}'

"$work/hubd" serve --data "$work/data" --addr "$HUBD" --rate-limit-authenticated 100000000 --rate-limit-anonymous 100000000 >"$work/hubd.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 50); do grep -q listening "$work/hubd.log" 2>/dev/null && break; sleep 0.2; done
TOKEN=$(awk '/^token:/ {print $2}' "$work/hubd.log")
LOGIN=$(awk '/^login:/ {print $2}' "$work/hubd.log")
curl -sf -H "Authorization: token $TOKEN" -d '{"name":"big"}' "http://$HUBD/api/v3/user/repos" >/dev/null
start=$(date +%s.%N)
git -C "$work/repos/big.git" push -q "http://$LOGIN:$TOKEN@$HUBD/$LOGIN/big.git" main
end=$(date +%s.%N)
awk -v s="$start" -v e="$end" 'BEGIN{printf "push of the whole history to hubd: %.2f s\n", e-s}'

if [ "$CLONE" = 1 ]; then
  "$work/httpbackend" -addr "$BACKEND" -root "$work/repos" &
  pids+=($!)
  sleep 0.5

  hyperfine --runs "$RUNS" --warmup 1 --export-markdown "$work/result.md" \
    --prepare "rm -rf $work/clone" \
    -n "git http-backend" "git clone -q --bare http://$BACKEND/big.git $work/clone" \
    -n "hubd" "git clone -q --bare http://$HUBD/$LOGIN/big.git $work/clone"
  cat "$work/result.md"
fi

# Throughput of the git-backed API on the same repository: a file's contents,
# a directory listing and the recursive tree, against the bare handler
# answering the same bytes.
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
DURATION=${DURATION:-8s}
BARE=${BARE_ADDR:-127.0.0.1:18481}
api() { curl -sf -H "Authorization: token $TOKEN" "$@"; }
api -X PUT -d '{"message":"readme","content":"IyBiaWcKQSBiZW5jaG1hcmsgcmVwb3NpdG9yeS4K"}' "http://$HUBD/api/v3/repos/$LOGIN/big/contents/README.md" >/dev/null
paths=("/api/v3/repos/$LOGIN/big/contents/README.md" "/api/v3/repos/$LOGIN/big/contents/dir7" "/api/v3/repos/$LOGIN/big/git/trees/main")
bodies=()
for i in "${!paths[@]}"; do
  q=""; [ "$i" = 2 ] && q="?recursive=1"
  api "http://$HUBD${paths[$i]}$q" >"$work/body$i.json"
  bodies+=("${paths[$i]}=$work/body$i.json")
done
go build -o "$work/bare" ./bench/bare
"$work/bare" -addr "$BARE" "${bodies[@]}" &
pids+=($!)
sleep 0.5
printf '\n%-44s %12s %10s %12s %8s\n' "endpoint" "hubd req/s" "hubd p99" "bare req/s" "ratio"
for i in "${!paths[@]}"; do
  [ -n "$ONLY" ] && [ "$ONLY" != "$i" ] && continue
  q=""; [ "$i" = 2 ] && q="?recursive=1"
  b=$(wrk -t1 -c32 -d"$DURATION" --latency -H "Authorization: token $TOKEN" "http://$BARE${paths[$i]}$q")
  h=$(wrk -t1 -c32 -d"$DURATION" --latency -H "Authorization: token $TOKEN" "http://$HUBD${paths[$i]}$q")
  grep -q "Non-2xx" <<<"$h" && { echo "non-2xx from hubd on ${paths[$i]}" >&2; exit 1; }
  brps=$(awk '/^Requests\/sec/ {print $2}' <<<"$b"); hrps=$(awk '/^Requests\/sec/ {print $2}' <<<"$h")
  hp99=$(awk '$1=="99%" {print $2}' <<<"$h")
  printf '%-44s %12s %10s %12s %8s\n' "GET ${paths[$i]#/api/v3}$q" "$hrps" "$hp99" "$brps" "$(awk -v h="$hrps" -v b="$brps" 'BEGIN{printf "%.1f%%", 100*h/b}')"
done
