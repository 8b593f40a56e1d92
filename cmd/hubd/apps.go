package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/hubd/hubd/internal/apps"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// appCmd is `hubd app create|install`.
func appCmd(args []string) error {
	if len(args) == 0 {
		return errors.New("usage: hubd app create|install ... (see 'hubd help')")
	}
	switch args[0] {
	case "create":
		return appCreate(args[1:])
	case "install":
		return appInstall(args[1:])
	}
	return fmt.Errorf("hubd app: unknown subcommand %q (create, install)", args[0])
}

// openWithOwner opens the store and finds the user or organization that
// is to own an app.
func openWithOwner(ctx context.Context, sf storeFlags, login string) (*store.Store, *model.Account, error) {
	st, err := sf.open(ctx)
	if err != nil {
		return nil, nil, err
	}
	acct, err := st.R().AccountByLogin(ctx, login)
	if err != nil || acct.Type == model.TypeBot {
		st.Close()
		return nil, nil, fmt.Errorf("no user or organization %q", login)
	}
	return st, acct, nil
}

// appCreate registers a GitHub App and prints its id, client id, client
// secret and private key: the secret and the key are shown only now.
func appCreate(args []string) error {
	fs := flag.NewFlagSet("app create", flag.ExitOnError)
	var sf storeFlags
	sf.register(fs)
	owner := fs.String("owner", "", "login of the user or organization that owns the app (required)")
	name := fs.String("name", "", "the app's name (required; its slug is made from it)")
	desc := fs.String("description", "", "what the app does")
	url := fs.String("url", "", "the app's homepage")
	perms := fs.String("permissions", "", "comma separated permission:level, e.g. issues:write,contents:read")
	events := fs.String("events", "", "comma separated webhook events, e.g. issues,push")
	callback := fs.String("callback-url", "", "where the user authorization flows send users back (user access tokens)")
	keyOut := fs.String("key-out", "", "also write the private key to this file (mode 0600)")
	fs.Parse(args)
	if *owner == "" || *name == "" {
		return usageError(fs, "--owner and --name are required")
	}
	p, err := apps.ParsePermissions(*perms)
	if err != nil {
		return err
	}
	var ev []string
	for _, e := range strings.Split(*events, ",") {
		if e = strings.TrimSpace(e); e != "" {
			ev = append(ev, e)
		}
	}
	ctx := context.Background()
	st, acct, err := openWithOwner(ctx, sf, *owner)
	if err != nil {
		return err
	}
	defer st.Close()
	svc := &apps.Service{Store: st}
	created, err := svc.Create(ctx, 0, apps.CreateInput{Owner: acct, Name: *name, Description: *desc, ExternalURL: *url, Permissions: p, Events: ev, CallbackURL: *callback})
	if err != nil {
		return describe(err)
	}
	if *keyOut != "" {
		if err := os.WriteFile(*keyOut, []byte(created.PrivateKeyPEM), 0o600); err != nil {
			return err
		}
	}
	a := created.App
	fmt.Printf("app id: %d\n", a.ID)
	fmt.Printf("slug: %s\n", a.Slug)
	fmt.Printf("client id: %s\n", a.ClientID)
	fmt.Printf("client secret: %s\n", created.ClientSecret)
	fmt.Printf("bot: %s\n", a.Slug+"[bot]")
	fmt.Print(created.PrivateKeyPEM)
	return nil
}

// appInstall installs an app on a user or organization.
func appInstall(args []string) error {
	fs := flag.NewFlagSet("app install", flag.ExitOnError)
	var sf storeFlags
	sf.register(fs)
	slug := fs.String("app", "", "the app's slug (required)")
	account := fs.String("account", "", "login of the user or organization to install it on (required)")
	reposFlag := fs.String("repos", "", "comma separated repository names: install on these only")
	all := fs.Bool("all", false, "install on all repositories of the account (the default without --repos)")
	enterprise := fs.Bool("enterprise", false, "install on hubd's enterprise instead of an account (its tokens manage app installations on organizations)")
	fs.Parse(args)
	if *enterprise {
		if *account != "" || *reposFlag != "" || *all {
			return usageError(fs, "--enterprise excludes --account, --repos and --all")
		}
		if *slug == "" {
			return usageError(fs, "--app is required")
		}
		return appInstallEnterprise(sf, *slug)
	}
	if *slug == "" || *account == "" {
		return usageError(fs, "--app and --account (or --enterprise) are required")
	}
	var names []string
	for _, n := range strings.Split(*reposFlag, ",") {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
		}
	}
	if *all && len(names) > 0 {
		return usageError(fs, "--all and --repos exclude each other")
	}
	ctx := context.Background()
	st, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	q := st.R()
	app, err := q.AppBySlug(ctx, *slug)
	if err != nil {
		return fmt.Errorf("no app %q", *slug)
	}
	acct, err := q.AccountByLogin(ctx, *account)
	if err != nil || acct.Type == model.TypeBot {
		return fmt.Errorf("no user or organization %q", *account)
	}
	byName, err := q.ReposOfAccountByName(ctx, acct.ID, names)
	if err != nil {
		return err
	}
	var ids []int64
	for _, n := range names {
		id, ok := byName[strings.ToLower(n)]
		if !ok {
			return fmt.Errorf("no repository %s/%s", acct.Login, n)
		}
		ids = append(ids, id)
	}
	svc := &apps.Service{Store: st}
	in, err := svc.Install(ctx, 0, app, acct, len(names) == 0, ids)
	if err != nil {
		return describe(err)
	}
	what := "all repositories"
	if in.Selection == model.SelectSelected {
		what = strings.Join(names, ", ")
	}
	fmt.Printf("installation id: %d (%s on %s: %s)\n", in.ID, app.Slug, acct.Login, what)
	return nil
}

// appInstallEnterprise installs an app on hubd's enterprise.
func appInstallEnterprise(sf storeFlags, slug string) error {
	ctx := context.Background()
	st, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	app, err := st.R().AppBySlug(ctx, slug)
	if err != nil {
		return fmt.Errorf("no app %q", slug)
	}
	svc := &apps.Service{Store: st}
	in, err := svc.InstallOnEnterprise(ctx, 0, app)
	if err != nil {
		return describe(err)
	}
	fmt.Printf("installation id: %d (%s on the enterprise)\n", in.ID, app.Slug)
	return nil
}

// describe turns a validation error into a line for the terminal.
func describe(err error) error {
	var ve *model.ValidationError
	if errors.As(err, &ve) && len(ve.Errors) > 0 {
		f := ve.Errors[0]
		switch f.Code {
		case "already_exists":
			return fmt.Errorf("%s: already taken", f.Field)
		case "missing_field":
			return fmt.Errorf("%s: missing", f.Field)
		}
		if f.Value != nil {
			return fmt.Errorf("%s: invalid value %v", f.Field, f.Value)
		}
		return fmt.Errorf("%s: invalid", f.Field)
	}
	return err
}
