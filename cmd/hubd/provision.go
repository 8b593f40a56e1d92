package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/names"
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
	expires := fs.Duration("expires-in", 0, "lifetime (e.g. 720h); 0 never expires")
	fs.Parse(args)
	if *user == "" {
		return usageError(fs, "--user is required: the login of the user the token acts as")
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
	var exp *time.Time
	if *expires > 0 {
		t := time.Now().Add(*expires).UTC()
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

// usageError reports a missing or wrong flag with the command's flags, as
// the flag package does for a flag it cannot parse.
func usageError(fs *flag.FlagSet, msg string) error {
	fmt.Fprintf(os.Stderr, "Usage of hubd %s:\n", fs.Name())
	fs.SetOutput(os.Stderr)
	fs.PrintDefaults()
	return fmt.Errorf("%s: %s", fs.Name(), msg)
}
