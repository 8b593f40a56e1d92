package codespaces_test

import (
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
)

// TestCodespaceInBrowser: a real browser, signed in to hubd as the owner,
// opens web_url, is handed over to the IDEs' own origin and sees the
// workbench list the repository's files; signed in as another user, the
// same web_url is refused.
func TestCodespaceInBrowser(t *testing.T) {
	exe := os.Getenv("HUBD_CHROMIUM")
	for _, name := range []string{"chromium", "chromium-browser"} {
		if exe != "" {
			break
		}
		exe, _ = exec.LookPath(name)
	}
	if exe == "" {
		t.Fatal("chromium is not installed: run `bash scripts/deps.sh` (apt-get install chromium) or set HUBD_CHROMIUM")
	}
	e := apitest.New(t, apitest.Options{CodespaceIDE: true})
	ctx := context.Background()
	alice, _ := e.NewUser("alice", false)
	gh := e.GitHub(e.Token(alice, "repo,codespace"))
	e.NewUser("bob", false)
	e.SetPassword("alice", "correct horse battery")
	e.SetPassword("bob", "correct horse battery")
	if _, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("app"), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Repositories.CreateFile(ctx, "alice", "app", "cmd/tool.go", &github.RepositoryContentFileOptions{
		Message: github.Ptr("Add the tool"), Content: []byte("package main\n")}); err != nil {
		t.Fatal(err)
	}
	_, _, err := gh.Codespaces.CreateInRepo(ctx, "alice", "app", github.CreateCodespaceRequest{})
	name := accepted(t, err).GetName()
	cs := wait(t, gh, name, "Available")

	// The browser carries the hubd session a sign-in made.
	session := func(login string) context.Context {
		b := e.Browser()
		b.SignIn(login, "correct horse battery")
		u, _ := url.Parse(e.URL)
		parent, stop := context.WithTimeout(context.Background(), 4*time.Minute)
		t.Cleanup(stop)
		opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.DisableGPU,
			chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
			chromedp.UserDataDir(filepath.Join(t.TempDir(), "profile")))
		actx, cancelAlloc := chromedp.NewExecAllocator(parent, opts...)
		t.Cleanup(cancelAlloc)
		bctx, cancel := chromedp.NewContext(actx)
		t.Cleanup(cancel)
		for _, c := range b.Jar.Cookies(u) {
			err := chromedp.Do(bctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
				_, err := cdp.Call(ctx, tg, network.SetCookie, network.SetCookieParams{Name: c.Name, Value: c.Value, URL: e.URL})
				return err
			}))
			if err != nil {
				t.Fatalf("cookie %s: %v", c.Name, err)
			}
		}
		return bctx
	}

	owner := session("alice")
	if err := chromedp.Do(owner, chromedp.Navigate(cs.GetWebURL())); err != nil {
		t.Fatal(err)
	}
	_, err = chromedp.Run(owner, chromedp.Poll[[]string](`(() => {
		const names = [...document.querySelectorAll('.explorer-folders-view .monaco-list-row .label-name')].map(e => e.textContent.trim());
		return ['README.md', 'cmd'].every(n => names.includes(n)) ? names : null;
	})()`, chromedp.WithPollingTimeout(3*time.Minute), chromedp.WithPollingInterval(200*time.Millisecond)))
	if err != nil {
		loc, _ := chromedp.Run(owner, chromedp.Location())
		body, _ := chromedp.Run(owner, chromedp.OuterHTML("body"))
		t.Fatalf("the workbench did not list the repository: %v (at %s)\n%.2000s", err, loc, body)
	}
	at, err := chromedp.Run(owner, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	if u, _ := url.Parse(at); "http://"+u.Host != e.CodespacesURL {
		t.Fatalf("the IDE opened at %s, not at the IDEs' origin %s", at, e.CodespacesURL)
	}

	other := session("bob")
	if err := chromedp.Do(other, chromedp.Navigate(cs.GetWebURL())); err != nil {
		t.Fatal(err)
	}
	text, _ := chromedp.Run(other, chromedp.Text("body"))
	at, _ = chromedp.Run(other, chromedp.Location())
	if u, _ := url.Parse(at); "http://"+u.Host == e.CodespacesURL || !strings.Contains(strings.ToLower(text), "not found") {
		t.Fatalf("another user's browser: at %s: %.300s", at, text)
	}
}
