#!/usr/bin/env bash
# Helpers of scripts/test.sh for running each test binary on both databases
# while linking it once (a link of a test binary costs seconds of CPU, and
# `go test` links every package's binary again on each pass).
#
#   testbin.sh keep BIN ARGS...   go test -exec hook: keeps a hard link of
#                                 BIN in $HUBD_TESTBIN_DIR (named after the
#                                 package directory), then runs it as go
#                                 test would.
#   testbin.sh run DIR [TIMES]    runs every kept binary again in its package
#                                 directory, 2 at a time, the slowest first
#                                 (TIMES: a go test output naming package
#                                 times); prints go test's ok/FAIL lines.
#                                 Each binary may take 30 minutes (the
#                                 conformance fuzz on PostgreSQL, sharing
#                                 the cores, takes more than go test's 10).
set -euo pipefail
case "$1" in
keep)
  shift
  name=$(pwd | tr '/' '%')
  ln -f "$1" "$HUBD_TESTBIN_DIR/$name.test" 2>/dev/null || cp "$1" "$HUBD_TESTBIN_DIR/$name.test"
  exec "$@"
  ;;
run)
  dir=$2 times=${3:-/dev/null}
  root=$(cd "$(dirname "$0")/.." && pwd)
  mod=$(cd "$root" && go list -m)
  # Slowest first, so the last packages running are short ones and both
  # cores stay busy to the end.
  for bin in "$dir"/*.test; do
    pkgdir=$(basename "$bin" .test | tr '%' '/')
    pkg=$mod${pkgdir#"$root"}
    secs=$(awk -v p="$pkg" '($1 == "ok" || $1 == "FAIL") && $2 == p { sub(/s$/, "", $3); print $3 + 0; exit }' "$times")
    printf '%s\t%s\t%s\n' "${secs:-0}" "$pkgdir" "$pkg"
  done | sort -t$'\t' -k1,1 -rn | cut -f2,3 | tr '\t' '\n' | xargs -d '\n' -n 2 -P "$(nproc)" "$0" one "$dir"
  ;;
one)
  dir=$2 pkgdir=$3 pkg=$4
  out=$(mktemp)
  start=$(date +%s%N)
  if (cd "$pkgdir" && "$dir/$(echo "$pkgdir" | tr '/' '%').test" -test.paniconexit0 -test.timeout=30m0s -test.count=1 >"$out" 2>&1); then
    printf 'ok  \t%s\t%s\n' "$pkg" "$(awk -v s="$start" -v e="$(date +%s%N)" 'BEGIN { printf "%.3fs", (e - s) / 1e9 }')"
    rm -f "$out"
  else
    cat "$out"
    printf 'FAIL\t%s\t%s\n' "$pkg" "$(awk -v s="$start" -v e="$(date +%s%N)" 'BEGIN { printf "%.3fs", (e - s) / 1e9 }')"
    rm -f "$out"
    exit 1
  fi
  ;;
*)
  echo "usage: testbin.sh keep BIN ARGS... | run DIR [TIMES]" >&2
  exit 2
  ;;
esac
