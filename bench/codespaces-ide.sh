#!/usr/bin/env bash
# Browser IDE of codespaces benchmark (bench/idebench; a benchmark, not a
# test: the numbers are printed): IDES code-servers (default 10) started
# through ide.Manager in the job sandbox, each workbench opened once in
# headless chromium through the proxy; then, idle, their memory added up
# (PSS and RSS) and the time from Start to the first workbench listing its
# files. Target: 10 idle IDEs under 2 GB together.
#
#   bash bench/codespaces-ide.sh
#   IDES=3 bash bench/codespaces-ide.sh
set -euo pipefail
cd "$(dirname "$0")/.."
exec go test -run '^$' -bench BenchmarkIdleIDEs -benchtime 1x -timeout 30m -v ./bench/idebench
