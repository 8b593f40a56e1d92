#!/usr/bin/env bash
# GitHub App authentication cost: the same read (GET /repos/acme/repo-1) with
# a classic token and with an installation token (resolved from the token,
# its installation and its selection, then cached like any token), with a
# user access token of the app (resolved from the token, its user, the app's
# permissions and installations, then cached), and GET /app with an app JWT
# (RS256 verified on every request, never cached).
#
#   bash bench/apps.sh                 # 5 s per measurement, 16 connections
#   DURATION=10s CONNS=32 bash bench/apps.sh
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-5s}
CONNS=${CONNS:-16}
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }

work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

go build -o "$work/hubd" ./cmd/hubd
go build -o "$work/appjwt" ./bench/appjwt
HUBD=${HUBD_ADDR:-127.0.0.1:18490}
"$work/hubd" serve --data "$work/data" --addr "$HUBD" --rate-limit-authenticated 100000000 --rate-limit-installation 100000000 >"$work/hubd.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 50); do grep -q listening "$work/hubd.log" 2>/dev/null && break; sleep 0.2; done
TOKEN=$(awk '/^token:/ {print $2}' "$work/hubd.log")
LOGIN=$(awk '/^login:/ {print $2}' "$work/hubd.log")
api() { curl -sf -H "Authorization: token $TOKEN" -H "Content-Type: application/json" "$@"; }
api -X POST "http://$HUBD/api/v3/admin/organizations" -d "{\"login\":\"acme\",\"admin\":\"$LOGIN\"}" >/dev/null
for i in 1 2 3; do
  api -X POST "http://$HUBD/api/v3/orgs/acme/repos" -d "{\"name\":\"repo-$i\",\"private\":true}" >/dev/null
done
api -X POST "http://$HUBD/api/v3/admin/apps" -d '{"owner":"acme","name":"Bench","default_permissions":{"contents":"read","issues":"write"}}' >"$work/app.json"
APP_ID=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$work/app.json")
python3 -c 'import json,sys; open(sys.argv[2],"w").write(json.load(open(sys.argv[1]))["pem"])' "$work/app.json" "$work/app.pem"
INST=$(api -X POST "http://$HUBD/api/v3/admin/apps/bench/installations" -d '{"account":"acme","repositories":["repo-1","repo-2"]}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
JWT=$("$work/appjwt" -key "$work/app.pem" -iss "$APP_ID")
IAT=$(curl -sf -X POST -H "Authorization: Bearer $JWT" "http://$HUBD/api/v3/app/installations/$INST/access_tokens" | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')

measure() { # NAME AUTH URL
  local out
  out=$(wrk -t1 -c"$CONNS" -d"$DURATION" --latency -H "Authorization: $2" "$3")
  if grep -q "Non-2xx" <<<"$out"; then echo "$1: non-2xx responses" >&2; echo "$out" >&2; exit 1; fi
  printf '%-40s %10s req/s  p99 %s\n' "$1" "$(awk '/^Requests\/sec/ {print $2}' <<<"$out")" "$(awk '$1=="99%" {print $2}' <<<"$out")"
}
measure "GET /repos/acme/repo-1 (classic token)" "token $TOKEN" "http://$HUBD/api/v3/repos/acme/repo-1"
measure "GET /repos/acme/repo-1 (installation)" "token $IAT" "http://$HUBD/api/v3/repos/acme/repo-1"
measure "GET /app (JWT)" "Bearer $JWT" "http://$HUBD/api/v3/app"

# A user access token (ghu_) of the app for the same user, through the device
# flow as a client drives it: the admin signs in to the flow page with a
# password and enters the code (cookie jar, CSRF token from the form).
api -X PUT "http://$HUBD/api/v3/admin/users/$LOGIN/password" -d '{"password":"bench password 1"}' >/dev/null
CLIENT=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["client_id"])' "$work/app.json")
SECRET=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["client_secret"])' "$work/app.json")
curl -sf -X POST -H "Accept: application/json" "http://$HUBD/login/device/code" -d "client_id=$CLIENT" >"$work/device.json"
DEVICE=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["device_code"])' "$work/device.json")
USERCODE=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["user_code"])' "$work/device.json")
jar="$work/cookies"
csrf() { sed -n 's/.*name="authenticity_token" value="\([^"]*\)".*/\1/p' | head -1; }
T=$(curl -sf -c "$jar" -b "$jar" "http://$HUBD/login" | csrf)
curl -sf -o /dev/null -c "$jar" -b "$jar" "http://$HUBD/session" --data-urlencode "authenticity_token=$T" --data-urlencode "login=$LOGIN" --data-urlencode "password=bench password 1"
T=$(curl -sf -c "$jar" -b "$jar" "http://$HUBD/login/device" | csrf)
curl -sf -o /dev/null -c "$jar" -b "$jar" "http://$HUBD/login/device" --data-urlencode "authenticity_token=$T" --data-urlencode "user_code=$USERCODE" --data-urlencode "authorize=1"
UAT=$(curl -sf -X POST -H "Accept: application/json" "http://$HUBD/login/oauth/access_token" \
  -d "client_id=$CLIENT&client_secret=$SECRET&device_code=$DEVICE&grant_type=urn:ietf:params:oauth:grant-type:device_code" |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["access_token"])')
measure "GET /repos/acme/repo-1 (user access token)" "token $UAT" "http://$HUBD/api/v3/repos/acme/repo-1"
