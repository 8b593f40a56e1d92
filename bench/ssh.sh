#!/usr/bin/env bash
# SSH transport benchmark: a clone of a generated repository over SSH
# against a clone of the same repository over smart HTTP, both from the same
# hubd. The clones run in pairs (HTTP then SSH, then SSH then HTTP, ...) so
# that a machine whose speed drifts slows both of a pair alike; the script
# prints each pair's wall times and SSH/HTTP ratio, then the medians (goal:
# a median ratio of 1.1 or less).
#
#   bash bench/ssh.sh              # 50 MB, 1000 commits, 7 pairs
#   MB=110 COMMITS=2000 RUNS=5 bash bench/ssh.sh
set -euo pipefail
cd "$(dirname "$0")/.."
MB=${MB:-50}
COMMITS=${COMMITS:-1000}
RUNS=${RUNS:-7}

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

python3 - "$RUNS" "$work" "http://$LOGIN:$TOKEN@$HUBD/$LOGIN/big.git" "$ssh_url" <<'PY'
import os, shutil, statistics, subprocess, sys, time
runs, work, http_url, ssh_url = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
dest = os.path.join(work, "clone")
def clone(url):
    shutil.rmtree(dest, ignore_errors=True)
    t = time.monotonic()
    subprocess.run(["git", "clone", "-q", "--bare", url, dest], check=True)
    return time.monotonic() - t
clone(http_url); clone(ssh_url)  # warm-up: the pack files in the page cache
rows = []
for i in range(runs):
    if i % 2 == 0:
        h = clone(http_url); s = clone(ssh_url)
    else:
        s = clone(ssh_url); h = clone(http_url)
    rows.append((h, s, s / h))
    print("pair %d: smart HTTP %.3fs  SSH %.3fs  SSH/HTTP %.2fx" % (i + 1, h, s, s / h))
med = lambda k: statistics.median(r[k] for r in rows)
print("median: smart HTTP %.3fs  SSH %.3fs" % (med(0), med(1)))
print("SSH / smart HTTP (median of the pairs' ratios): %.2fx" % med(2))
PY
