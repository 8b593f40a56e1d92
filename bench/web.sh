#!/usr/bin/env bash
# The web pages' server render over real HTTP: a pull request's
# conversation with 200 timeline items and its files page with a
# 5,000-line diff (target: under 50 ms each), and the other pages.
set -euo pipefail
cd "$(dirname "$0")/.."
go test ./internal/web -run '^$' -bench "${1:-BenchmarkPullPage}" -benchtime "${BENCHTIME:-20x}"
