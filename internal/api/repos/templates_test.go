package repos_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/licenses"
)

// clone clones owner/name and lists its files.
func clone(t *testing.T, e *apitest.Env, token, owner, name string) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	u := strings.Replace(e.URL, "http://", "http://"+owner+":"+token+"@", 1) + "/" + owner + "/" + name + ".git"
	cmd := exec.Command("git", "clone", "-q", u, dir)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("clone: %v %s", err, out)
	}
	ls := exec.Command("git", "ls-files")
	ls.Dir = dir
	out, err := ls.Output()
	if err != nil {
		t.Fatal(err)
	}
	return dir, strings.Fields(string(out))
}

func TestCreateWithTemplates(t *testing.T) {
	e := apitest.New(t)
	mona, tok := e.NewUser("mona", false)
	mona.Name = "Mona Lisa Octocat"
	if _, _, err := e.GitHub(tok).Users.Update(ctx, github.UserUpdateRequest{Name: github.Ptr(mona.Name)}); err != nil {
		t.Fatal(err)
	}
	gh := e.GitHub(tok)
	year := strconv.Itoa(time.Now().Year())

	// auto_init with both templates: README, .gitignore and LICENSE.
	repo, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("full"), AutoInit: github.Ptr(true),
		GitignoreTemplate: github.Ptr("Go"), LicenseTemplate: github.Ptr("mit")})
	if err != nil {
		t.Fatal(err)
	}
	if repo.PushedAt == nil || repo.GetDefaultBranch() != "main" {
		t.Fatalf("created: %+v", repo)
	}
	dir, files := clone(t, e, tok, "mona", "full")
	if strings.Join(files, ",") != ".gitignore,LICENSE,README.md" {
		t.Fatalf("files = %v", files)
	}
	lic, _ := os.ReadFile(filepath.Join(dir, "LICENSE"))
	if !strings.HasPrefix(string(lic), "MIT License\n\nCopyright (c) "+year+" Mona Lisa Octocat\n\nPermission is hereby granted") || strings.Contains(string(lic), "[") {
		t.Fatalf("LICENSE = %.200q", lic)
	}
	ignore, _ := os.ReadFile(filepath.Join(dir, ".gitignore"))
	if src, _ := licenses.Gitignore("Go"); string(ignore) != src {
		t.Fatalf(".gitignore = %q", ignore)
	}
	// The license endpoint detects what creation wrote.
	rl, _, err := gh.Repositories.License(ctx, "mona", "full")
	if err != nil || rl.License.GetKey() != "mit" || rl.GetPath() != "LICENSE" {
		t.Fatalf("license: %+v %v", rl, err)
	}

	// A template alone makes the initial commit too, without a README.
	if _, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("lic"), LicenseTemplate: github.Ptr("Apache-2.0")}); err != nil {
		t.Fatal(err)
	}
	_, files = clone(t, e, tok, "mona", "lic")
	if strings.Join(files, ",") != "LICENSE" {
		t.Fatalf("files = %v", files)
	}
	if rl, _, err := gh.Repositories.License(ctx, "mona", "lic"); err != nil || rl.License.GetKey() != "apache-2.0" {
		t.Fatalf("apache: %+v %v", rl, err)
	}
	if _, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("ign"), GitignoreTemplate: github.Ptr("Python")}); err != nil {
		t.Fatal(err)
	}
	if _, files = clone(t, e, tok, "mona", "ign"); strings.Join(files, ",") != ".gitignore" {
		t.Fatalf("files = %v", files)
	}

	// An organization's repository names the organization as the holder
	// (its login when it has no name).
	newOrg(t, e, "octo-org", mona)
	if _, _, err := gh.Repositories.Create(ctx, "octo-org", &github.Repository{Name: github.Ptr("lib"), LicenseTemplate: github.Ptr("bsd-3-clause")}); err != nil {
		t.Fatal(err)
	}
	dir, _ = clone(t, e, tok, "octo-org", "lib")
	lic, _ = os.ReadFile(filepath.Join(dir, "LICENSE"))
	if !strings.HasPrefix(string(lic), "BSD 3-Clause License\n\nCopyright (c) "+year+", octo-org\n") {
		t.Fatalf("org LICENSE = %.120q", lic)
	}

	// Unknown names are refused as GitHub refuses them, and nothing is made.
	for _, body := range []map[string]any{
		{"name": "x1", "gitignore_template": "golang"},
		{"name": "x2", "license_template": "mit-9", "auto_init": true},
	} {
		m := e.Must(422, "POST", "/user/repos", tok, body).Map(t)
		errs := m["errors"].([]any)[0].(map[string]any)
		if !strings.HasSuffix(errs["message"].(string), "is an unknown "+strings.TrimSuffix(errs["field"].(string), "_template")+" template.") {
			t.Fatalf("%v", m)
		}
	}
	e.Must(404, "GET", "/repos/mona/x1", tok, nil)
}
