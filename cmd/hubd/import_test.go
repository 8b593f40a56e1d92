package main

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hubd/hubd/internal/store"
)

// githubArchive writes a small archive shaped as GitHub's exporter writes
// them (no timeline rows, an issue number skipped, a user unknown here)
// with a bare repository of one commit.
func githubArchive(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	for _, args := range [][]string{
		{"init", "--quiet", "--initial-branch=main", work},
		{"-C", work, "-c", "user.name=Octo", "-c", "user.email=octo@example.com", "commit", "--quiet", "--allow-empty", "-m", "First"},
		{"clone", "--quiet", "--mirror", work, filepath.Join(dir, "bare.git")},
	} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	gh := "https://github.com/"
	repo := gh + "octo-org/hello"
	files := map[string]any{
		"schema.json": map[string]any{"version": "1.0.1"},
		"users_000001.json": []any{
			map[string]any{"type": "user", "url": gh + "octocat", "login": "octocat", "emails": []any{map[string]any{"address": "mona@example.com", "primary": true}}},
			map[string]any{"type": "user", "url": gh + "someone", "login": "someone", "emails": []any{}},
		},
		"organizations_000001.json": []any{map[string]any{"type": "organization", "url": gh + "octo-org", "login": "octo-org"}},
		"repositories_000001.json": []any{map[string]any{"type": "repository", "url": repo, "owner": gh + "octo-org", "name": "hello",
			"description": "Hi", "private": false, "has_issues": true, "labels": []any{map[string]any{"name": "bug", "color": "d73a4a"}},
			"git_url": "tarball://root/repositories/octo-org/hello.git", "default_branch": "main", "created_at": "2020-01-02T03:04:05Z"}},
		"issues_000001.json": []any{
			map[string]any{"type": "issue", "url": repo + "/issues/1", "repository": repo, "user": gh + "octocat", "title": "Hello",
				"body": "World", "labels": []any{repo + "/labels/bug"}, "created_at": "2020-01-03T00:00:00Z", "closed_at": "2020-01-05T00:00:00Z"},
			map[string]any{"type": "issue", "url": repo + "/issues/3", "repository": repo, "user": gh + "someone", "title": "Third",
				"created_at": "2020-01-04T00:00:00Z"},
		},
		"issue_comments_000001.json": []any{map[string]any{"type": "issue_comment", "url": repo + "/issues/1#issuecomment-77",
			"issue": repo + "/issues/1", "user": gh + "octocat", "body": "hi there", "created_at": "2020-01-04T00:00:00Z"}},
		"issue_events_000001.json": []any{map[string]any{"type": "issue_event", "url": repo + "/issues/1#event-5", "issue": repo + "/issues/1",
			"actor": gh + "octocat", "event": "closed", "created_at": "2020-01-05T00:00:00Z"}},
	}
	path := filepath.Join(dir, "archive.tar.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	tw := tar.NewWriter(zw)
	for name, v := range files {
		b, _ := json.Marshal(v)
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(b)), Typeflag: tar.TypeReg})
		tw.Write(b)
	}
	bare := filepath.Join(dir, "bare.git")
	filepath.WalkDir(bare, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(bare, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		tw.WriteHeader(&tar.Header{Name: "repositories/octo-org/hello.git/" + filepath.ToSlash(rel), Mode: 0o644, Size: int64(len(b)), Typeflag: tar.TypeReg})
		_, err = tw.Write(b)
		return err
	})
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	zw.Close()
	f.Close()
	return path
}

type importReport struct {
	Conflicts []struct {
		ModelName         string `json:"model_name"`
		SourceURL         string `json:"source_url"`
		RecommendedAction string `json:"recommended_action"`
	} `json:"conflicts"`
	Repositories []struct {
		FullName string `json:"full_name"`
		Issues   int    `json:"issues"`
	} `json:"repositories"`
	MappedUsers int `json:"mapped_users"`
}

func TestImportCommand(t *testing.T) {
	c := newCLI(t)
	archive := githubArchive(t)
	c.ok("user", "create", "--login", "mona", "--email", "mona@example.com")
	c.ok("user", "create", "--login", "boss", "--site-admin")

	report := func(out string) importReport {
		t.Helper()
		var r importReport
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("report %q: %v", out, err)
		}
		return r
	}
	// No organization octo-org yet; someone is unknown.
	r := report(c.ok("import", "--dry-run", "--admin", "boss", archive))
	if len(r.Conflicts) != 2 || r.Conflicts[0].ModelName != "user" || r.Conflicts[0].SourceURL != "https://github.com/someone" ||
		r.Conflicts[1].ModelName != "organization" || len(r.Repositories) != 0 || r.MappedUsers != 1 {
		t.Fatalf("dry run: %+v", r)
	}
	c.ok("org", "create", "--login", "acme", "--admin", "mona")
	// A mapping puts the organization's repository under acme.
	mapping := filepath.Join(t.TempDir(), "map.csv")
	os.WriteFile(mapping, []byte("model_name,source_url,target_url,recommended_action\norganization,https://github.com/octo-org,https://hubd.example/acme,map\n"), 0o644)
	conflicts := filepath.Join(t.TempDir(), "conflicts.csv")
	r = report(c.ok("import", "--mapping", mapping, "--conflicts", conflicts, archive))
	if len(r.Repositories) != 1 || r.Repositories[0].FullName != "acme/hello" || r.Repositories[0].Issues != 2 || len(r.Conflicts) != 1 {
		t.Fatalf("import: %+v", r)
	}
	if b, _ := os.ReadFile(conflicts); !strings.HasPrefix(string(b), "model_name,source_url,target_url,recommended_action\nuser,https://github.com/someone,") {
		t.Fatalf("conflicts file: %q", b)
	}
	// Again: the name is taken.
	_, errs, code := c.run("import", "--mapping", mapping, "--dry-run", "--admin", "nobody", archive)
	if code == 0 || !strings.Contains(errs, `no site administrator "nobody"`) {
		t.Fatalf("unknown admin: %d %s", code, errs)
	}
	if r = report(c.ok("import", "--mapping", mapping, archive)); len(r.Repositories) != 0 || r.Conflicts[len(r.Conflicts)-1].RecommendedAction != "rename" {
		t.Fatalf("second import: %+v", r)
	}

	// What was written: numbers, authors by email, times, the comment and
	// the event, the git data.
	dsn := c.db
	if dsn == "" {
		dsn = "sqlite:" + filepath.Join(c.data, "hubd.db")
	}
	ctx := context.Background()
	st, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	v, err := st.R().RepoByName(ctx, "acme", "hello", 0)
	if err != nil {
		t.Fatal(err)
	}
	if v.Repo.CreatedAt.Format("2006-01-02T15:04:05Z") != "2020-01-02T03:04:05Z" || v.Repo.Description != "Hi" {
		t.Fatalf("repository: %+v", v.Repo)
	}
	mona, err := st.R().AccountByLogin(ctx, "mona")
	if err != nil {
		t.Fatal(err)
	}
	is, err := st.R().IssueByNumber(ctx, v.Repo.ID, 1)
	if err != nil || is.State != "closed" || is.UserID != mona.ID || is.Comments != 1 ||
		is.CreatedAt.Format("2006-01-02") != "2020-01-03" {
		t.Fatalf("issue 1: %+v %v", is, err)
	}
	if is3, err := st.R().IssueByNumber(ctx, v.Repo.ID, 3); err != nil || is3.UserID != 0 || is3.Title != "Third" {
		t.Fatalf("issue 3: %+v %v", is3, err)
	}
	evs, _, err := st.R().ListIssueEvents(ctx, store.EventQuery{IssueID: is.ID, Timeline: true, Limit: 10})
	if err != nil || len(evs) != 2 || evs[0].Event != "commented" || evs[1].Event != "closed" {
		t.Fatalf("timeline: %v %v", evs, err)
	}
	git := filepath.Join(c.data, "git", "repositories", "0", strconv.FormatInt(v.Repo.ID, 10)+".git")
	if out, err := exec.Command("git", "-C", git, "log", "--format=%s", "main").CombinedOutput(); err != nil || string(out) != "First\n" {
		t.Fatalf("git log: %s %v", out, err)
	}
}
