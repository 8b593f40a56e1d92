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
