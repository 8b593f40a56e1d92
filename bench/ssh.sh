#!/usr/bin/env bash
# SSH transport benchmark: a clone of a generated repository over SSH
# against a clone of the same repository over smart HTTP, both from the same
# hubd and timed with hyperfine in this one run; the ratio SSH/HTTP is
# printed (goal: 1.1 or less).
#
#   bash bench/ssh.sh              # 50 MB, 1000 commits, 5 clones each
#   MB=110 COMMITS=2000 RUNS=3 bash bench/ssh.sh
set -euo pipefail
cd "$(dirname "$0")/.."
MB=${MB:-50}
COMMITS=${COMMITS:-1000}
RUNS=${RUNS:-5}
command -v hyperfine >/dev/null || { apt-get update -qq && apt-get install -y -qq hyperfine >/dev/null; }

work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 GIT_TERMINAL_PROMPT=0

go build -o "$work/hubd" ./cmd/hubd
go build -o "$work/genrepo" ./bench/genrepo
HUBD=${HUBD_ADDR:-127.0.0.1:18490}
SSH=${SSH_ADDR:-127.0.0.1:18491}

echo "generating a ${MB} MB repository with ${COMMITS} commits"
git init -q --bare "$work/big.git"
"$work/genrepo" -commits "$COMMITS" -mb "$MB" | git -C "$work/big.git" fast-import --quiet
git -C "$work/big.git" repack -adq
du -sh "$work/big.git/objects/pack" | awk '{print "pack size: " $1}'

"$work/hubd" serve --data "$work/data" --addr "$HUBD" --ssh-addr "$SSH" --actions-workers 0 \
  --rate-limit-authenticated 100000000 --rate-limit-anonymous 100000000 >"$work/hubd.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 50); do grep -q listening "$work/hubd.log" 2>/dev/null && break; sleep 0.2; done
TOKEN=$(awk '/^token:/ {print $2}' "$work/hubd.log")
LOGIN=$(awk '/^login:/ {print $2}' "$work/hubd.log")
api() { curl -sf -H "Authorization: token $TOKEN" -H "Content-Type: application/json" "$@"; }
api -d '{"name":"big","private":true}' "http://$HUBD/api/v3/user/repos" >/dev/null
ssh-keygen -q -t ed25519 -N "" -f "$work/id_ed25519"
api -d "{\"title\":\"bench\",\"key\":\"$(cat "$work/id_ed25519.pub")\"}" "http://$HUBD/api/v3/user/keys" >/dev/null
git -C "$work/big.git" push -q "http://$LOGIN:$TOKEN@$HUBD/$LOGIN/big.git" main
ssh_url=$(api "http://$HUBD/api/v3/repos/$LOGIN/big" | sed -n 's/.*"ssh_url": *"\([^"]*\)".*/\1/p')
echo "ssh_url: $ssh_url"
export GIT_SSH_COMMAND="ssh -i $work/id_ed25519 -o IdentitiesOnly=yes -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR"

hyperfine --runs "$RUNS" --warmup 1 --export-json "$work/result.json" --export-markdown "$work/result.md" \
  --prepare "rm -rf $work/clone" \
  -n "smart HTTP" "git clone -q --bare http://$LOGIN:$TOKEN@$HUBD/$LOGIN/big.git $work/clone" \
  -n "SSH" "git clone -q --bare $ssh_url $work/clone"
cat "$work/result.md"
python3 - "$work/result.json" <<'PY'
import json, sys
r = {x["command"]: x["mean"] for x in json.load(open(sys.argv[1]))["results"]}
print("SSH / smart HTTP: %.2fx" % (r["SSH"] / r["smart HTTP"]))
PY
