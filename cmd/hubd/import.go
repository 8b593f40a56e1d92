package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/migrations"
	"github.com/hubd/hubd/internal/wire"
)

// importCmd is `hubd import ARCHIVE`: a migration archive (GitHub's
// layout, as hubd's own export writes it) read into a stopped hubd. It
// holds the data directory's lock, like serve: a running server imports
// through POST /api/v3/admin/migrations/import instead.
func importCmd(args []string) error {
	fs := flag.NewFlagSet("import", flag.ExitOnError)
	var sf storeFlags
	sf.register(fs)
	mapping := fs.String("mapping", "", "mapping CSV (model_name,source_url,target_url[,action]: ghe-migrator's conflicts file, edited)")
	conflicts := fs.String("conflicts", "", "write the conflicts found to this CSV file")
	dryRun := fs.Bool("dry-run", false, "only report the conflicts")
	unknown := fs.String("unknown-users", migrations.UnknownReport, "archive users no account matches: report (import their records without an author, reported as conflicts), ghost (the same, unreported) or create (make suspended accounts from the archive's user records)")
	admin := fs.String("admin", "", "login of the site administrator the import acts as (its events' actor)")
	external := fs.String("external-url", envOr("HUBD_EXTERNAL_URL", "http://localhost:8080"), "hubd's external URL (for the conflicts' target URLs)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: hubd import [flags] ARCHIVE.tar.gz")
		fs.PrintDefaults()
	}
	// Flags may follow the archive's name.
	fs.Parse(args)
	var archive string
	for rest := fs.Args(); len(rest) > 0; rest = fs.Args() {
		if archive != "" {
			return fmt.Errorf("one archive at a time (got %s and %s)", archive, rest[0])
		}
		archive = rest[0]
		fs.Parse(rest[1:])
	}
	if archive == "" {
		return usageError(fs, "name the archive to import")
	}
	opt := migrations.ImportOptions{DryRun: *dryRun, UnknownUsers: *unknown}
	if *mapping != "" {
		f, err := os.Open(*mapping)
		if err != nil {
			return err
		}
		opt.Mapping, err = migrations.ParseMapping(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", *mapping, err)
		}
	}
	ctx := context.Background()
	st, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	release, err := lockData(sf.data)
	if err != nil {
		return err
	}
	defer release()
	if *admin != "" {
		a, err := st.R().AccountByLogin(ctx, *admin)
		if err != nil || !a.SiteAdmin {
			return fmt.Errorf("no site administrator %q", *admin)
		}
		opt.ActorID = a.ID
	}
	abs, err := filepath.Abs(sf.data)
	if err != nil {
		return err
	}
	git, err := gitrepo.New(filepath.Join(abs, "git"))
	if err != nil {
		return err
	}
	defer git.Close()
	svc := migrations.New(st, git, nil, wire.URLs{Web: *external, API: *external + "/api/v3"}, filepath.Join(abs, "migrations"))
	report, err := svc.Import(ctx, archive, opt)
	if report != nil {
		if *conflicts != "" {
			f, ferr := os.Create(*conflicts)
			if ferr != nil {
				return ferr
			}
			migrations.WriteConflicts(f, report.Conflicts)
			if ferr := f.Close(); ferr != nil {
				return ferr
			}
		}
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		enc.Encode(report)
	}
	return err
}
