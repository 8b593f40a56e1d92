#!/usr/bin/env bash
# Codespaces: time from POST /repos/{owner}/{repo}/codespaces (202, Queued)
# to state Available for a small repository with a devcontainer.json whose
# postCreateCommand writes a file (clone over hubd's git transport, lifecycle
# command in the job sandbox; no container), N times; then stop and delete.
#
#   bash bench/codespaces.sh           # 5 codespaces
#   N=10 bash bench/codespaces.sh
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-5}
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

go build -o "$work/hubd" ./cmd/hubd
HUBD=${HUBD_ADDR:-127.0.0.1:18491}
"$work/hubd" serve --data "$work/data" --addr "$HUBD" >"$work/hubd.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do grep -q listening "$work/hubd.log" 2>/dev/null && break; sleep 0.2; done
LOGIN=$(awk '/^login:/ {print $2}' "$work/hubd.log")
TOKEN=$("$work/hubd" token create --data "$work/data" --user "$LOGIN" --scopes repo,codespace | awk '/^(ghp_|token: )/ {print $NF}' | tail -1)
api() { curl -sf -H "Authorization: token $TOKEN" -H "Content-Type: application/json" "$@"; }
api -X POST "http://$HUBD/api/v3/user/repos" -d '{"name":"small","auto_init":true}' >/dev/null
DC=$(printf '{\n // comment\n "postCreateCommand": "echo created > created.txt"\n}\n' | base64 -w0)
api -X PUT "http://$HUBD/api/v3/repos/$LOGIN/small/contents/.devcontainer/devcontainer.json" -d "{\"message\":\"dc\",\"content\":\"$DC\"}" >/dev/null

state() { api "http://$HUBD/api/v3/user/codespaces/$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["state"])'; }
total=0
for i in $(seq 1 "$N"); do
  t0=$(date +%s.%N)
  name=$(api -X POST "http://$HUBD/api/v3/repos/$LOGIN/small/codespaces" -d '{}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["name"])')
  while :; do
    s=$(state "$name")
    [ "$s" = Available ] && break
    [ "$s" = Failed ] && { echo "codespace $name failed" >&2; api "http://$HUBD/api/v3/user/codespaces/$name" >&2; exit 1; }
    sleep 0.05
  done
  t1=$(date +%s.%N)
  dt=$(python3 -c "print(f'{$t1-$t0:.2f}')")
  total=$(python3 -c "print($total+$dt)")
  printf 'create -> Available #%d: %s s\n' "$i" "$dt"
  api -X POST "http://$HUBD/api/v3/user/codespaces/$name/stop" >/dev/null
done
printf 'mean create -> Available over %d: %s s (target < 10 s)\n' "$N" "$(python3 -c "print(f'{$total/$N:.2f}')")"
