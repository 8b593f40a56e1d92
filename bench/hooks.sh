#!/usr/bin/env bash
# Webhook benchmark (bench/hookbench): the latency from an issue opened over
# the API to its delivery at a receiver on this machine (mean, p50, p99),
# and the fan-out of 1,000 outbox events committed at once to ten hooks
# (10,000 deliveries; issue 13's target is under 10 s).
#
#   bash bench/hooks.sh
#   DATABASE=postgres://postgres@127.0.0.1:5432/bench?sslmode=disable bash bench/hooks.sh
#   BENCHTIME=50x bash bench/hooks.sh
#
# The numbers depend on what else the machine runs: read them with the
# load average printed first.
set -euo pipefail
cd "$(dirname "$0")/.."
BENCHTIME=${BENCHTIME:-20x}
uptime
HUBD_TEST_DATABASE=${DATABASE:-} go test ./bench/hookbench/ -run X -bench . -benchtime "$BENCHTIME" -count=1 -v 2>&1 | grep -v '^[0-9]\{4\}/'
