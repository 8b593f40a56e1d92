package codespaces_test

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
)

// TestCodespaceInBrowser: a real browser (Playwright driving Debian's
// chromium), signed in to hubd as the owner, opens web_url, is handed over
// to the IDEs' own origin and sees the workbench list the repository's
// files; signed in as another user, the same web_url is refused.
func TestCodespaceInBrowser(t *testing.T) {
	pw := apitest.NewPlaywright(t)
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

	// Each browser carries the hubd session a sign-in made.
	cookies := func(login string) string {
		b := e.Browser()
		b.SignIn(login, "correct horse battery")
		u, _ := url.Parse(e.URL)
		var list []map[string]any
		for _, c := range b.Jar.Cookies(u) {
			list = append(list, map[string]any{"name": c.Name, "value": c.Value, "url": e.URL, "httpOnly": true})
		}
		j, _ := json.Marshal(list)
		return string(j)
	}
	run, cancel := context.WithTimeout(ctx, 8*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(run, pw.Node, filepath.Join(pw.Root, "internal/api/codespaces/testdata/ide.mjs"))
	cmd.Env = append(os.Environ(), "HUBD_CHROMIUM="+pw.Chromium, "HUBD_ARTIFACTS="+pw.Artifacts, "HUBD_WEB_URL="+cs.GetWebURL(),
		"HUBD_OWNER_COOKIES="+cookies("alice"), "HUBD_OTHER_COOKIES="+cookies("bob"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("playwright: %v\nstdout: %s\nstderr: %s", err, out, stderr.String())
	}
	var saw struct {
		Files       []string `json:"files"`
		OwnerURL    string   `json:"ownerURL"`
		OtherStatus int      `json:"otherStatus"`
		OtherURL    string   `json:"otherURL"`
	}
	if err := json.Unmarshal(out, &saw); err != nil {
		t.Fatalf("playwright's answer %q: %v", out, err)
	}
	if !slices.Contains(saw.Files, "README.md") || !strings.HasPrefix(saw.OwnerURL, e.CodespacesURL+"/codespaces/"+name+"/") {
		t.Fatalf("the owner's browser: files %v at %s (the IDEs' origin is %s)", saw.Files, saw.OwnerURL, e.CodespacesURL)
	}
	if saw.OtherStatus != 404 || strings.HasPrefix(saw.OtherURL, e.CodespacesURL) {
		t.Fatalf("another user's browser: %d at %s", saw.OtherStatus, saw.OtherURL)
	}
	t.Logf("screenshot in %s", pw.Artifacts)
}
