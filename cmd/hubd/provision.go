package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/names"
	"github.com/hubd/hubd/internal/patokens"
	"github.com/hubd/hubd/internal/store"
)

func userCreate(args []string) error {
	fs := flag.NewFlagSet("user create", flag.ExitOnError)
	var sf storeFlags
	sf.register(fs)
	login := fs.String("login", "", "login (required)")
	email := fs.String("email", "", "email address")
	name := fs.String("name", "", "display name")
	admin := fs.Bool("site-admin", false, "make the user a site administrator")
	fs.Parse(args)
	if err := names.ValidLogin(*login); err != nil {
		return err
	}
	ctx := context.Background()
	st, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	u := &model.Account{Login: *login, Type: model.TypeUser, Email: *email, Name: *name, SiteAdmin: *admin}
	err = st.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateAccount(ctx, u); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "user.created", u.ID, 0, 0, map[string]any{"login": u.Login, "site_admin": u.SiteAdmin})
	})
	if err == store.ErrDuplicate {
		return fmt.Errorf("login %q is already taken", *login)
	}
	if err != nil {
		return err
	}
	fmt.Printf("created user %s (id %d)\n", u.Login, u.ID)
	return nil
}

func orgCreate(args []string) error {
	fs := flag.NewFlagSet("org create", flag.ExitOnError)
	var sf storeFlags
	sf.register(fs)
	login := fs.String("login", "", "organization login (required)")
	admin := fs.String("admin", "", "login of the user who becomes its first admin (required)")
	name := fs.String("name", "", "display name")
	email := fs.String("email", "", "billing email")
	fs.Parse(args)
	if err := names.ValidLogin(*login); err != nil {
		return err
	}
	if *admin == "" {
		return usageError(fs, "--admin is required: the login of the user who becomes the organization's first admin")
	}
	ctx := context.Background()
	st, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	owner, err := st.R().AccountByLogin(ctx, *admin)
	if err != nil || owner.IsOrg() {
		return fmt.Errorf("no user %q", *admin)
	}
	org := store.NewOrg(*login)
	org.Name, org.BillingEmail = *name, *email
	err = st.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateOrg(ctx, org, owner.ID); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "organization.created", owner.ID, 0, org.ID, map[string]any{"login": org.Login})
	})
	if err == store.ErrDuplicate {
		return fmt.Errorf("login %q is already taken", *login)
	}
	if err != nil {
		return err
	}
	fmt.Printf("created organization %s (id %d), admin %s\n", org.Login, org.ID, owner.Login)
	return nil
}

func tokenCreate(args []string) error {
	fs := flag.NewFlagSet("token create", flag.ExitOnError)
	var sf storeFlags
	sf.register(fs)
	user := fs.String("user", "", "login of the token's user (required)")
	scopes := fs.String("scopes", "", "comma separated classic scopes, e.g. repo,admin:org")
	note := fs.String("note", "", "what the token is for")
	expires := fs.String("expires-in", "", "lifetime (e.g. 720h or 30d); none: never expires (fine-grained: 30d by default, at most 366d)")
	fine := fs.Bool("fine-grained", false, "create a fine-grained token (github_pat_) instead of a classic one")
	owner := fs.String("owner", "", "fine-grained: the resource owner, the user (default) or an organization they belong to")
	repos := fs.String("repos", "", "fine-grained: comma separated repositories of the owner")
	allRepos := fs.Bool("all-repos", false, "fine-grained: every repository of the owner")
	perms := fs.String("permissions", "", "fine-grained: comma separated name:level, e.g. issues:write,contents:read")
	name := fs.String("name", "", "fine-grained: the token's name (required, unique per user)")
	description := fs.String("description", "", "fine-grained: what the token is for")
	reason := fs.String("reason", "", "fine-grained: why the organization should grant it")
	fs.Parse(args)
	if *user == "" {
		return usageError(fs, "--user is required: the login of the user the token acts as")
	}
	lifetime, err := parseLifetime(*expires)
	if err != nil {
		return usageError(fs, err.Error())
	}
	sc := authz.ParseScopes(*scopes)
	for s := range sc {
		if !authz.Known[s] {
			return fmt.Errorf("unknown scope %q", s)
		}
	}
	ctx := context.Background()
	st, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	u, err := st.R().AccountByLogin(ctx, *user)
	if err != nil || u.IsOrg() {
		return fmt.Errorf("no user %q", *user)
	}
	if *fine {
		if *scopes != "" {
			return usageError(fs, "--scopes is for classic tokens: a fine-grained token has --permissions")
		}
		in := patokens.CreateInput{User: u, Owner: u, Name: *name, Description: *description, Reason: *reason,
			ExpiresIn: lifetime, Never: *expires == "none", Permissions: map[string]string{}}
		if *owner != "" {
			if in.Owner, err = st.R().AccountByLogin(ctx, *owner); err != nil {
				return fmt.Errorf("no account %q", *owner)
			}
		}
		switch {
		case *allRepos && *repos != "":
			return usageError(fs, "--repos and --all-repos exclude each other")
		case *allRepos:
			in.Selection = authz.SelectionAll
		case *repos != "":
			in.Selection, in.Repositories = authz.SelectionSubset, strings.Split(*repos, ",")
		}
		for _, p := range strings.Split(*perms, ",") {
			if p = strings.TrimSpace(p); p == "" {
				continue
			}
			n, level, _ := strings.Cut(p, ":")
			in.Permissions[n] = level
		}
		made, err := (&patokens.Service{Store: st}).Create(ctx, in)
		if err != nil {
			return err
		}
		fmt.Println(made.Plain)
		if made.Grant != nil && made.Grant.Status == store.PATPending {
			fmt.Fprintf(os.Stderr, "hubd: the token waits for an owner of %s to approve it (request %d)\n", in.Owner.Login, made.Grant.ID)
		}
		return nil
	}
	var exp *time.Time
	if lifetime > 0 {
		t := time.Now().Add(lifetime).UTC()
		exp = &t
	}
	var plain string
	err = st.Tx(ctx, func(tx store.Q) error {
		var err error
		plain, _, err = tx.CreateToken(ctx, u.ID, authz.ClassicPAT, sc, *note, exp)
		return err
	})
	if err != nil {
		return err
	}
	fmt.Println(plain)
	return nil
}

// parseLifetime reads --expires-in: a Go duration, a number of days ("30d"),
// or "" / "none" / "0" for none.
func parseLifetime(s string) (time.Duration, error) {
	switch s {
	case "", "none", "0":
		return 0, nil
	}
	if d, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(d)
		if err != nil || n <= 0 {
			return 0, fmt.Errorf("--expires-in %q: want a number of days, e.g. 30d", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("--expires-in %q: want a duration (720h) or days (30d)", s)
	}
	return d, nil
}

// usageError reports a missing or wrong flag with the command's flags, as
// the flag package does for a flag it cannot parse.
func usageError(fs *flag.FlagSet, msg string) error {
	fmt.Fprintf(os.Stderr, "Usage of hubd %s:\n", fs.Name())
	fs.SetOutput(os.Stderr)
	fs.PrintDefaults()
	return fmt.Errorf("%s: %s", fs.Name(), msg)
}
