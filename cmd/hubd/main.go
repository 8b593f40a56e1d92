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
	"strings"

	"github.com/hubd/hubd/internal/actions"
	"github.com/hubd/hubd/internal/store"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

const usage = `hubd: a GitHub-compatible API server

Usage:
  hubd serve [--addr 127.0.0.1:8080] [--data ./hubd-data] [--database URL] [--external-url URL] [...]
             (all flags: hubd serve -h)
  hubd user create --login NAME [--email ADDR] [--name NAME] [--site-admin]
  hubd user set-password --login NAME   (reads the password from standard input)
  hubd org create --login NAME --admin USER [--name NAME] [--email ADDR]
  hubd network-settings add --name NAME --subnet-id SUBNET --region REGION
                             (a hosted compute network settings resource for network configurations)
  hubd token create --user NAME [--scopes repo,admin:org] [--note TEXT] [--expires-in 720h]
  hubd token create --fine-grained --user NAME --name N [--owner ORG] [--repos a,b | --all-repos]
                    [--permissions issues:write,contents:read] [--expires-in 30d] [--description TEXT]
  hubd app create --owner LOGIN --name NAME [--permissions issues:write,contents:read] [--events issues,push]
                  [--description TEXT] [--url URL] [--callback-url URL] [--key-out FILE]
  hubd oauth-app create --owner LOGIN --name NAME --callback-url URL [--url URL] [--device-flow]
  hubd oauth-app list | delete --client-id ID   (delete revokes every token the app holds)
  hubd app install --app SLUG --account LOGIN [--repos a,b | --all]
  hubd catalogue [--format table|markdown|json] [--status planned,...] [--category repos,...] [--fail-on-regression saved.json]
  hubd import [--mapping FILE.csv] [--conflicts OUT.csv] [--dry-run] [--admin LOGIN] ARCHIVE.tar.gz
             (a migration archive into a stopped hubd; a running one: POST /api/v3/admin/migrations/import)
  hubd version
  hubd runner --url URL --token REGTOKEN [--name N] [--labels a,b] [--work DIR] [--ephemeral] [--sandbox auto|bwrap|none]
  hubd runner --jitconfig CONFIG   (a runner: runs workflow jobs hubd gives it; docs/runner-protocol.md)
  hubd actions-worker        (run by a runner: one workflow job, its spec on standard input)

serve, user, org, token, app, oauth-app and network-settings take --data (env HUBD_DATA, default ./hubd-data),
--database (env HUBD_DATABASE: a postgres:// URL, sqlite:PATH or a SQLite
file path; default DATA/hubd.db) and --sqlite-synchronous full|normal.
Only serve creates the data directory; the others refuse a missing one.
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
		if len(args) > 0 && args[0] == "set-password" {
			err = userSetPassword(args[1:])
		} else {
			err = sub(args, "create", userCreate)
		}
	case "oauth-app":
		err = oauthAppCmd(args)
	case "org":
		err = sub(args, "create", orgCreate)
	case "token":
		err = sub(args, "create", tokenCreate)
	case "network-settings":
		err = sub(args, "add", networkSettingsAdd)
	case "app":
		err = appCmd(args)
	case "catalogue":
		err = catalogueCmd(args)
	case "import":
		err = importCmd(args)
	case "runner":
		err = runnerCmd(args)
	case "actions-worker":
		if len(args) != 0 {
			err = fmt.Errorf("usage: hubd actions-worker < SPEC (the runner writes the job's spec to its standard input)")
			break
		}
		err = actions.Work(context.Background(), os.Stdin, os.Stdout)
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
		return fmt.Errorf("usage: hubd %s %s ... (see 'hubd help')", os.Args[1], name)
	}
	return fn(args[1:])
}

// storeFlags are --data, --database and --sqlite-synchronous, shared by
// every command that opens the store.
type storeFlags struct {
	data, database, synchronous string
}

func (sf *storeFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&sf.data, "data", envOr("HUBD_DATA", "./hubd-data"), "data directory (env HUBD_DATA)")
	fs.StringVar(&sf.database, "database", os.Getenv("HUBD_DATABASE"), "postgres:// URL, sqlite:PATH or a SQLite file path (env HUBD_DATABASE); default DATA/hubd.db")
	fs.StringVar(&sf.synchronous, "sqlite-synchronous", os.Getenv("HUBD_SQLITE_SYNCHRONOUS"), "SQLite commit durability: full (default; survives power loss) or normal (faster; a power loss may drop the last commits)")
}

// dsn is the database address the flags name, checked by the store's own
// parser before anything is created.
func (sf *storeFlags) dsn() (string, store.DSN, error) {
	dsn := sf.database
	if dsn == "" {
		dsn = "sqlite:" + filepath.Join(sf.data, "hubd.db")
	}
	d, err := store.ParseDSN(dsn)
	if err != nil {
		return "", d, err
	}
	if sf.synchronous != "" {
		if d.Postgres {
			return "", d, fmt.Errorf("--sqlite-synchronous applies to SQLite, not to %s", d)
		}
		if !strings.HasPrefix(dsn, "sqlite:") && !strings.HasPrefix(dsn, "file:") {
			dsn = "sqlite:" + dsn
		}
		sep := "?"
		if strings.Contains(dsn, "?") {
			sep = "&"
		}
		dsn += sep + "synchronous=" + sf.synchronous
		if d, err = store.ParseDSN(dsn); err != nil {
			return "", d, fmt.Errorf("--sqlite-synchronous %q: want full or normal", sf.synchronous)
		}
	}
	return dsn, d, nil
}

// open opens the store of a provisioning command. It creates no data
// directory: a command run from the wrong directory (or with a mistyped
// --data) would otherwise provision a new, empty hubd that no server reads.
// `hubd serve` creates the directory on its first start.
func (sf *storeFlags) open(ctx context.Context) (*store.Store, error) {
	dsn, d, err := sf.dsn()
	if err != nil {
		return nil, err
	}
	if sf.database == "" {
		abs, _ := filepath.Abs(sf.data)
		if fi, err := os.Stat(sf.data); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("data directory %s does not exist: start `hubd serve --data %s` once to create it (or pass --data)", abs, sf.data)
		}
		fmt.Fprintf(os.Stderr, "hubd: data directory %s\n", abs)
	} else {
		fmt.Fprintf(os.Stderr, "hubd: %s\n", d)
	}
	return store.Open(ctx, dsn)
}
func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
