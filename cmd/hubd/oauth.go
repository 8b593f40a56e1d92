package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/oauth"
)

// oauthAppCmd dispatches hubd oauth-app's subcommands.
func oauthAppCmd(args []string) error {
	if len(args) == 0 {
		return errors.New("usage: hubd oauth-app create|list|delete ... (see 'hubd help')")
	}
	switch args[0] {
	case "create":
		return oauthAppCreate(args[1:])
	case "list":
		return oauthAppList(args[1:])
	case "delete":
		return oauthAppDelete(args[1:])
	}
	return fmt.Errorf("hubd oauth-app: unknown subcommand %q (create, list, delete)", args[0])
}

// oauthAppList prints the OAuth apps: client id, owner and name.
func oauthAppList(args []string) error {
	fs := flag.NewFlagSet("oauth-app list", flag.ExitOnError)
	var sf storeFlags
	sf.register(fs)
	fs.Parse(args)
	ctx := context.Background()
	st, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	svc := &oauth.Service{Store: st}
	for offset := 0; ; offset += 100 {
		list, _, err := svc.Apps(ctx, 100, offset)
		if err != nil {
			return err
		}
		for _, c := range list {
			owner := "(hubd)"
			if c.OwnerID != 0 {
				if a, err := st.R().AccountByID(ctx, c.OwnerID); err == nil {
					owner = a.Login
				}
			}
			fmt.Printf("%s\t%s\t%s\n", c.ClientID, owner, c.Name)
		}
		if len(list) < 100 {
			return nil
		}
	}
}

// oauthAppDelete removes an OAuth app and every token it holds.
func oauthAppDelete(args []string) error {
	fs := flag.NewFlagSet("oauth-app delete", flag.ExitOnError)
	var sf storeFlags
	sf.register(fs)
	id := fs.String("client-id", "", "the app's client id (required)")
	fs.Parse(args)
	if *id == "" {
		return usageError(fs, "--client-id is required")
	}
	ctx := context.Background()
	st, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	svc := &oauth.Service{Store: st}
	if err := svc.DeleteApp(ctx, 0, *id); errors.Is(err, model.ErrNotFound) {
		return fmt.Errorf("no OAuth app with client id %q", *id)
	} else if err != nil {
		return err
	}
	fmt.Printf("deleted OAuth app %s\n", *id)
	return nil
}

// oauthAppCreate registers an OAuth app and prints its client id and
// secret: the secret is shown only now.
func oauthAppCreate(args []string) error {
	fs := flag.NewFlagSet("oauth-app create", flag.ExitOnError)
	var sf storeFlags
	sf.register(fs)
	owner := fs.String("owner", "", "login of the user or organization that owns the app (required)")
	name := fs.String("name", "", "the app's name (required)")
	url := fs.String("url", "", "the app's homepage")
	callback := fs.String("callback-url", "", "the authorization callback URL (required)")
	device := fs.Bool("device-flow", false, "enable the device flow")
	fs.Parse(args)
	if *owner == "" || *name == "" || *callback == "" {
		return usageError(fs, "--owner, --name and --callback-url are required")
	}
	ctx := context.Background()
	st, acct, err := openWithOwner(ctx, sf, *owner)
	if err != nil {
		return err
	}
	defer st.Close()
	svc := &oauth.Service{Store: st}
	app, secret, err := svc.CreateApp(ctx, 0, oauth.CreateInput{Owner: acct, Name: *name, URL: *url, CallbackURL: *callback, DeviceFlow: *device})
	if err != nil {
		return describe(err)
	}
	fmt.Printf("client id: %s\n", app.ClientID)
	fmt.Printf("client secret: %s\n", secret)
	return nil
}

// userSetPassword sets a user's password for hubd's web sign-in (the
// OAuth flows' pages), read from the first line of standard input.
func userSetPassword(args []string) error {
	fs := flag.NewFlagSet("user set-password", flag.ExitOnError)
	var sf storeFlags
	sf.register(fs)
	login := fs.String("login", "", "the user's login (required)")
	fs.Parse(args)
	if *login == "" {
		return usageError(fs, "--login is required")
	}
	line, err := bufio.NewReader(os.Stdin).ReadString('\n')
	if err != nil && line == "" {
		return errors.New("no password on standard input")
	}
	password := strings.TrimRight(line, "\r\n")
	ctx := context.Background()
	st, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	u, err := st.R().AccountByLogin(ctx, *login)
	if err != nil || u.Type != model.TypeUser {
		return fmt.Errorf("no user %q", *login)
	}
	svc := &oauth.Service{Store: st}
	if err := svc.SetPassword(ctx, u, password); err != nil {
		return err
	}
	fmt.Printf("password set for %s\n", u.Login)
	return nil
}
