#!/usr/bin/env bash
# The read-path gate of the figures table: bench/run.sh, failing (exit 3)
# when GET /repos/{owner}/{repo} answers below REPO_GATE (default 0.55) of
# the bare handler's rate measured in the same run. Run it on a quiet
# machine before writing the README's figures: a loaded machine measures
# the load, not hubd.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO_GATE=${REPO_GATE:-0.55} exec bash bench/run.sh "$@"
