// Command hubd serves GitHub's REST API on real git repositories and real
// state. `hubd serve` starts the server; the other subcommands provision
// users, organizations and tokens without a web UI.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hubd/hubd/internal/store"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

const usage = `hubd: a GitHub-compatible API server

Usage:
  hubd serve [--addr 127.0.0.1:8080] [--data ./hubd-data] [--database URL] [--external-url URL]
  hubd user create --login NAME [--email ADDR] [--name NAME] [--site-admin]
  hubd org create --login NAME --admin USER [--name NAME] [--email ADDR]
  hubd token create --user NAME [--scopes repo,admin:org] [--note TEXT] [--expires-in 720h]
  hubd catalogue [--format table|markdown|json] [--status planned,...] [--category repos,...] [--fail-on-regression saved.json]
  hubd version

Every command takes --data (env HUBD_DATA, default ./hubd-data) and
--database (env HUBD_DATABASE: a postgres:// URL, default SQLite in the data
directory).
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	var err error
	switch cmd, args := os.Args[1], os.Args[2:]; cmd {
	case "serve":
		err = serve(args)
	case "user":
		err = sub(args, "create", userCreate)
	case "org":
		err = sub(args, "create", orgCreate)
	case "token":
		err = sub(args, "create", tokenCreate)
	case "catalogue":
		err = catalogueCmd(args)
	case "version":
		fmt.Println("hubd", version)
	case "help", "-h", "--help":
		fmt.Print(usage)
	default:
		fmt.Fprintf(os.Stderr, "hubd: unknown command %q\n\n%s", cmd, usage)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "hubd:", err)
		os.Exit(1)
	}
}

func sub(args []string, name string, fn func([]string) error) error {
	if len(args) == 0 || args[0] != name {
		return fmt.Errorf("usage: see 'hubd help'")
	}
	return fn(args[1:])
}

// storeFlags are --data and --database, shared by every command.
type storeFlags struct {
	data, database string
}

func (sf *storeFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&sf.data, "data", envOr("HUBD_DATA", "./hubd-data"), "data directory (env HUBD_DATA)")
	fs.StringVar(&sf.database, "database", os.Getenv("HUBD_DATABASE"), "postgres:// URL (env HUBD_DATABASE); SQLite in the data directory when empty")
}

func (sf *storeFlags) open(ctx context.Context) (*store.Store, error) {
	if err := os.MkdirAll(sf.data, 0o755); err != nil {
		return nil, err
	}
	dsn := sf.database
	if dsn == "" {
		dsn = filepath.Join(sf.data, "hubd.db")
	}
	return store.Open(ctx, dsn)
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
