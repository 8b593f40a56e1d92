#!/usr/bin/env bash
# Code search benchmark (bench/codesearchbench): GET /search/code over
# REPOS repositories of FILES files each (default 2,000 x 500 = 1,000,000
# files), indexed by the index job (repositories sharing one template's
# git objects, each with a commit of its own), median and p95 latency of
# eleven query shapes; then the index job after pushes that each change
# one file of a 500-file repository, as pushes indexed per second.
#
#   bash bench/codesearch.sh
#   REPOS=200 bash bench/codesearch.sh                 # a smaller index
#   HUBD_TEST_DATABASE=postgres://... bash bench/codesearch.sh
#
# Targets: median under 100 ms, at least 20 pushes/s.
set -euo pipefail
cd "$(dirname "$0")/.."
export REPOS=${REPOS:-2000} FILES=${FILES:-500}
SEARCHES=${SEARCHES:-50}
PUSHES=${PUSHES:-200}
go test ./bench/codesearchbench/ -run '^$' -bench 'SearchCode' -benchtime "${SEARCHES}x" -timeout 6h -v | grep -E 'seeded|Benchmark|ok|FAIL'
go test ./bench/codesearchbench/ -run '^$' -bench 'IndexPush' -benchtime "${PUSHES}x" -timeout 1h | grep -E 'Benchmark|ok|FAIL'
