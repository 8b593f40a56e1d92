#!/usr/bin/env bash
# The web pages' server render over real HTTP against a bare net/http
# handler serving the same bytes, interleaved in the same run
# (BenchmarkRender): the repository home (target: bare-ratio >= 0.25), an
# issue and a pull request with 200 timeline items and a pull request's
# 5,000-line diff (target: under 50 ms/page each). The machines are
# shared: the load average is printed beside the figures; compare ratios.
#
#   bash bench/web.sh                      # BenchmarkRender, 20 requests each
#   BENCHTIME=100x bash bench/web.sh BenchmarkPages
set -euo pipefail
cd "$(dirname "$0")/.."
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
go test ./internal/web -run '^$' -bench "${1:-BenchmarkRender}" -benchtime "${BENCHTIME:-20x}"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
