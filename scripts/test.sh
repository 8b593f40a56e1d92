#!/usr/bin/env bash
# The whole test suite: unit and API tests on SQLite, then the same tests on
# a throwaway PostgreSQL database. Nothing is skipped: a missing dependency is
# installed by scripts/deps.sh or the run fails.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh

export HUBD_COVERAGE_DIR
HUBD_COVERAGE_DIR=$(mktemp -d)
# Each package's test binary is linked once, by the SQLite pass, and kept
# here for the PostgreSQL pass (scripts/testbin.sh).
export HUBD_TESTBIN_DIR
HUBD_TESTBIN_DIR=$(mktemp -d)
db="hubd_test_$$_$(date +%s)"
pgurl="postgres://postgres@127.0.0.1:5432/$db?sslmode=disable"
cleanup() {
  # The tests' databases (internal/store/storetest) are named after $db:
  # its migrated template and any a killed test left behind.
  for d in $(psql -tA -h 127.0.0.1 -U postgres -d postgres -c "SELECT datname FROM pg_database WHERE datname LIKE '${db}\_%'" 2>/dev/null); do
    psql -q -h 127.0.0.1 -U postgres -d postgres -c "DROP DATABASE IF EXISTS \"$d\" WITH (FORCE)" >/dev/null 2>&1 || true
  done
  psql -q -h 127.0.0.1 -U postgres -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true
  rm -rf "$HUBD_COVERAGE_DIR" "$HUBD_TESTBIN_DIR"
}
trap cleanup EXIT
psql -q -h 127.0.0.1 -U postgres -d postgres -c "CREATE DATABASE $db" >/dev/null

echo "== go vet"
go vet ./...
echo "== tests on SQLite"
HUBD_TEST_DATABASE= go test -count=1 -exec "$PWD/scripts/testbin.sh keep" ./... 2>&1 | tee "$HUBD_TESTBIN_DIR/sqlite.out"
# The catalogue's proof, per pass: every registered operation got a success
# that validated against its schema, on this database.
go run ./internal/catalogue/cmd/provecheck -coverage "$HUBD_COVERAGE_DIR" -pass sqlite
echo "== tests on PostgreSQL"
# The same binaries (every package that has tests), the slowest first.
HUBD_TEST_DATABASE="$pgurl" bash scripts/testbin.sh run "$HUBD_TESTBIN_DIR" "$HUBD_TESTBIN_DIR/sqlite.out"
go run ./internal/catalogue/cmd/provecheck -coverage "$HUBD_COVERAGE_DIR" -pass postgresql
