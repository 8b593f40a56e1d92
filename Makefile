.PHONY: test run build generate deps bench readme graphql-schema

# The whole suite on SQLite and PostgreSQL (installs and starts what it needs).
test:
	bash scripts/test.sh

# hubd on its embedded default (SQLite in ./hubd-data, 127.0.0.1:8080).
run:
	go run ./cmd/hubd serve

build:
	go build -o bin/hubd ./cmd/hubd

deps:
	bash scripts/deps.sh

# Regenerates what is data in GitHub's description: the operations ledger
# and the request body schemas the server validates against.
generate: deps
	go generate ./internal/catalogue/ ./internal/reqschema/

bench:
	bash bench/run.sh

# Rewrites the catalogue counts in README.md from the route table.
readme:
	go run ./internal/catalogue/cmd/readme -readme README.md

# Prunes GitHub's GraphQL schema to what hubd resolves (internal/graphql/keep.txt).
graphql-schema: deps
	go run ./internal/graphql/schemagen
