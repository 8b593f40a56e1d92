package gitdb_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/gitrepo"
)

var ctx = context.Background()

// git runs the real git client, isolated from the machine's configuration.
func git(t *testing.T, dir string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=Mona Lisa", "-c", "user.email=mona@example.com", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_ASKPASS=", "SSH_ASKPASS=")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func mustGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := git(t, dir, args...)
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// remote is the clone URL of owner/name, with credentials unless token is "".
func remote(e *apitest.Env, login, token, owner, name string) string {
	u, _ := url.Parse(e.URL + "/" + owner + "/" + name + ".git")
	if token != "" {
		u.User = url.UserPassword(login, token)
	}
	return u.String()
}

// seeded creates login/name and pushes a first commit (README.md, "first")
// to main with the real git client; it returns the commit id.
func seeded(t *testing.T, e *apitest.Env, login, tok, name string, private bool) string {
	t.Helper()
	if _, _, err := e.GitHub(tok).Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr(name), Private: github.Ptr(private)}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	mustGit(t, dir, "init", "-q")
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("# "+name+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustGit(t, dir, "add", "README.md")
	mustGit(t, dir, "commit", "-q", "-m", "first")
	mustGit(t, dir, "push", "-q", remote(e, login, tok, login, name), "HEAD:refs/heads/main")
	return strings.TrimSpace(mustGit(t, dir, "rev-parse", "HEAD"))
}

func message(err error) string {
	var er *github.ErrorResponse
	if errors.As(err, &er) {
		return er.Message
	}
	return ""
}

// A blob, a tree and a commit made through the API, the branch moved to the
// commit, and a fresh clone by the real git client shows all of it.
func TestRoundTripToClone(t *testing.T) {
	e := apitest.New(t)
	mona, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	base := seeded(t, e, "mona", tok, "hello", false)

	text := "hello from the API\n"
	b1, resp, err := gh.Git.CreateBlob(ctx, "mona", "hello", github.Blob{Content: github.Ptr(text), Encoding: github.Ptr("utf-8")})
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("create blob: %v %v", resp, err)
	}
	if b1.GetSHA() != gitrepo.HashObject("blob", []byte(text)) || b1.GetURL() != e.API+"/repos/mona/hello/git/blobs/"+b1.GetSHA() ||
		resp.Header.Get("Location") != b1.GetURL() {
		t.Fatalf("blob %+v location %q", b1, resp.Header.Get("Location"))
	}
	bin := make([]byte, 1000)
	rand.Read(bin)
	b2, _, err := gh.Git.CreateBlob(ctx, "mona", "hello", github.Blob{Content: github.Ptr(base64.StdEncoding.EncodeToString(bin)), Encoding: github.Ptr("base64")})
	if err != nil || b2.GetSHA() != gitrepo.HashObject("blob", bin) {
		t.Fatalf("create base64 blob: %+v %v", b2, err)
	}
	got, _, err := gh.Git.GetBlob(ctx, "mona", "hello", b2.GetSHA())
	if err != nil || got.GetEncoding() != "base64" || got.GetSize() != len(bin) || got.GetSHA() != b2.GetSHA() || !strings.HasPrefix(got.GetNodeID(), "B_") {
		t.Fatalf("get blob: %+v %v", got, err)
	}
	// GitHub's base64: lines of 60 characters, each ended by a newline.
	lines := strings.Split(got.GetContent(), "\n")
	if lines[len(lines)-1] != "" || len(lines[0]) != 60 || len(lines[len(lines)-2]) > 60 {
		t.Fatalf("content lines %q", got.GetContent()[:80])
	}
	if dec, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(got.GetContent(), "\n", "")); err != nil || !bytes.Equal(dec, bin) {
		t.Fatalf("content does not decode to the blob: %v", err)
	}
	raw, _, err := gh.Git.GetBlobRaw(ctx, "mona", "hello", b2.GetSHA())
	if err != nil || !bytes.Equal(raw, bin) {
		t.Fatalf("raw blob: %d bytes %v", len(raw), err)
	}

	ref, _, err := gh.Git.GetRef(ctx, "mona", "hello", "heads/main")
	if err != nil || ref.GetRef() != "refs/heads/main" || ref.GetObject().GetSHA() != base || ref.GetObject().GetType() != "commit" ||
		ref.GetURL() != e.API+"/repos/mona/hello/git/refs/heads/main" || ref.GetObject().GetURL() != e.API+"/repos/mona/hello/git/commits/"+base {
		t.Fatalf("get ref: %+v %v", ref, err)
	}
	parent, _, err := gh.Git.GetCommit(ctx, "mona", "hello", base)
	if err != nil || parent.GetMessage() != "first\n" || parent.GetAuthor().GetName() != "Mona Lisa" || len(parent.Parents) != 0 ||
		parent.GetVerification().GetReason() != "unsigned" || parent.GetHTMLURL() != e.URL+"/mona/hello/commit/"+base {
		t.Fatalf("get commit: %+v %v", parent, err)
	}

	tree, resp, err := gh.Git.CreateTree(ctx, "mona", "hello", parent.GetTree().GetSHA(), []*github.TreeEntry{
		{Path: github.Ptr("docs/guide/intro.md"), Mode: github.Ptr("100644"), Type: github.Ptr("blob"), SHA: b1.SHA},
		{Path: github.Ptr("bin/run.sh"), Mode: github.Ptr("100755"), Type: github.Ptr("blob"), Content: github.Ptr("#!/bin/sh\necho hi\n")},
		{Path: github.Ptr("data.bin"), Mode: github.Ptr("100644"), Type: github.Ptr("blob"), SHA: b2.SHA},
		{Path: github.Ptr("link"), Mode: github.Ptr("120000"), Type: github.Ptr("blob"), Content: github.Ptr("docs/guide/intro.md")},
		{Path: github.Ptr("README.md"), Mode: github.Ptr("100644"), Type: github.Ptr("blob")}, // sha null: deleted
	})
	if err != nil || resp.StatusCode != http.StatusCreated || tree.GetTruncated() {
		t.Fatalf("create tree: %v %v", resp, err)
	}
	var top []string
	for _, en := range tree.Entries {
		top = append(top, en.GetPath()+":"+en.GetType())
	}
	if strings.Join(top, " ") != "bin:tree data.bin:blob docs:tree link:blob" {
		t.Fatalf("tree entries %v", top)
	}
	rec, _, err := gh.Git.GetTree(ctx, "mona", "hello", tree.GetSHA(), true)
	if err != nil || rec.GetTruncated() {
		t.Fatalf("recursive tree: %v", err)
	}
	var all []string
	for _, en := range rec.Entries {
		all = append(all, en.GetPath())
		if en.GetPath() == "data.bin" && (en.GetSize() != len(bin) || en.GetSHA() != b2.GetSHA()) {
			t.Fatalf("data.bin entry %+v", en)
		}
		if en.GetPath() == "bin/run.sh" && en.GetMode() != "100755" {
			t.Fatalf("run.sh mode %s", en.GetMode())
		}
	}
	if strings.Join(all, " ") != "bin bin/run.sh data.bin docs docs/guide docs/guide/intro.md link" {
		t.Fatalf("recursive paths %v", all)
	}
	// A branch name resolves to its commit's tree.
	if byName, _, err := gh.Git.GetTree(ctx, "mona", "hello", "main", false); err != nil || byName.GetSHA() != parent.GetTree().GetSHA() {
		t.Fatalf("tree of main: %+v %v", byName, err)
	}

	when := time.Date(2024, 5, 6, 7, 8, 9, 0, time.FixedZone("", 2*3600))
	commit, resp, err := gh.Git.CreateCommit(ctx, "mona", "hello", github.Commit{
		Message: github.Ptr("Add docs via the API"), Tree: &github.Tree{SHA: tree.SHA}, Parents: []*github.Commit{{SHA: &base}},
		Author: &github.CommitAuthor{Name: github.Ptr("Octo Cat"), Email: github.Ptr("octo@example.com"), Date: &github.Timestamp{Time: when}},
	}, nil)
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("create commit: %v %v", resp, err)
	}
	if commit.GetAuthor().GetName() != "Octo Cat" || !commit.GetAuthor().GetDate().Time.Equal(when) || commit.GetCommitter().GetEmail() != "octo@example.com" ||
		commit.GetTree().GetSHA() != tree.GetSHA() || len(commit.Parents) != 1 || commit.Parents[0].GetSHA() != base ||
		commit.GetVerification().GetVerified() || commit.GetVerification().GetReason() != "unsigned" || resp.Header.Get("Location") != commit.GetURL() {
		t.Fatalf("commit %+v", commit)
	}
	again, _, err := gh.Git.GetCommit(ctx, "mona", "hello", commit.GetSHA())
	if err != nil || again.GetMessage() != "Add docs via the API" || again.GetNodeID() != commit.GetNodeID() {
		t.Fatalf("get commit: %+v %v", again, err)
	}
	moved, _, err := gh.Git.UpdateRef(ctx, "mona", "hello", "refs/heads/main", github.UpdateRef{SHA: commit.GetSHA()})
	if err != nil || moved.GetObject().GetSHA() != commit.GetSHA() {
		t.Fatalf("update ref: %+v %v", moved, err)
	}

	work := t.TempDir()
	mustGit(t, work, "clone", "-q", remote(e, "", "", "mona", "hello"), "c")
	c := filepath.Join(work, "c")
	log := strings.TrimSpace(mustGit(t, c, "log", "-1", "--format=%H|%an|%ae|%ad|%cn|%s", "--date=iso-strict"))
	if log != commit.GetSHA()+"|Octo Cat|octo@example.com|2024-05-06T07:08:09+02:00|Octo Cat|Add docs via the API" {
		t.Fatalf("clone's head: %s", log)
	}
	if b, _ := os.ReadFile(filepath.Join(c, "docs/guide/intro.md")); string(b) != text {
		t.Fatalf("intro.md %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(c, "data.bin")); !bytes.Equal(b, bin) {
		t.Fatal("data.bin differs")
	}
	if fi, err := os.Stat(filepath.Join(c, "bin/run.sh")); err != nil || fi.Mode()&0o111 == 0 {
		t.Fatalf("run.sh not executable: %v", err)
	}
	if l, err := os.Readlink(filepath.Join(c, "link")); err != nil || l != "docs/guide/intro.md" {
		t.Fatalf("link %q %v", l, err)
	}
	if _, err := os.Stat(filepath.Join(c, "README.md")); !os.IsNotExist(err) {
		t.Fatalf("README.md was not deleted: %v", err)
	}
	mustGit(t, c, "fsck", "--strict")

	// The ref change was recorded as a push by mona.
	events, _ := e.Store.R().EventsAfter(ctx, 0, 1000)
	found := false
	for _, ev := range events {
		if ev.Type == "push" && ev.ActorID == mona.ID && strings.Contains(string(ev.Payload), commit.GetSHA()) && strings.Contains(string(ev.Payload), `"via_git":false`) {
			found = true
		}
	}
	if !found {
		t.Fatal("no push event for the API ref update")
	}
}

// Defaults: the author is the caller now, the committer the author; the
// go-github signer's payload is exactly the object hubd writes.
func TestCommitDefaultsAndSignature(t *testing.T) {
	e := apitest.New(t)
	mona, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	base := seeded(t, e, "mona", tok, "sig", false)
	parent, _, err := gh.Git.GetCommit(ctx, "mona", "sig", base)
	if err != nil {
		t.Fatal(err)
	}
	before := time.Now().Add(-2 * time.Second)
	c, _, err := gh.Git.CreateCommit(ctx, "mona", "sig", github.Commit{Message: github.Ptr("defaults"), Tree: parent.Tree, Parents: []*github.Commit{{SHA: &base}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantEmail := strconv.FormatInt(mona.ID, 10) + "+mona@users.noreply.127.0.0.1"
	if c.GetAuthor().GetName() != "mona" || c.GetAuthor().GetEmail() != wantEmail ||
		c.GetAuthor().GetDate().Before(before) || c.GetCommitter().GetName() != "mona" || !c.GetCommitter().GetDate().Time.Equal(c.GetAuthor().GetDate().Time) {
		t.Fatalf("default author %+v committer %+v", c.GetAuthor(), c.GetCommitter())
	}
	// A committer given apart from the author.
	c2, _, err := gh.Git.CreateCommit(ctx, "mona", "sig", github.Commit{Message: github.Ptr("split"), Tree: parent.Tree,
		Author:    &github.CommitAuthor{Name: github.Ptr("A"), Email: github.Ptr("a@example.com")},
		Committer: &github.CommitAuthor{Name: github.Ptr("C"), Email: github.Ptr("c@example.com"), Date: &github.Timestamp{Time: time.Unix(1700000000, 0).UTC()}}}, nil)
	if err != nil || c2.GetAuthor().GetName() != "A" || c2.GetCommitter().GetName() != "C" || c2.GetCommitter().GetDate().Unix() != 1700000000 || len(c2.Parents) != 0 {
		t.Fatalf("split identities: %+v %v", c2, err)
	}

	const armor = "-----BEGIN PGP SIGNATURE-----\n\niQEzBAABCAAdFiEEexample\n=abcd\n-----END PGP SIGNATURE-----\n"
	var signed string
	signer := github.MessageSignerFunc(func(w io.Writer, r io.Reader) error {
		b, err := io.ReadAll(r)
		signed = string(b)
		if err != nil {
			return err
		}
		_, err = io.WriteString(w, armor)
		return err
	})
	when := time.Date(2023, 1, 2, 3, 4, 5, 0, time.FixedZone("", -7*3600))
	sc, _, err := gh.Git.CreateCommit(ctx, "mona", "sig", github.Commit{Message: github.Ptr("signed\n\nbody"), Tree: parent.Tree, Parents: []*github.Commit{{SHA: &base}},
		Author: &github.CommitAuthor{Name: github.Ptr("Mona"), Email: github.Ptr("mona@example.com"), Date: &github.Timestamp{Time: when}}},
		&github.CreateCommitOptions{Signer: signer})
	if err != nil {
		t.Fatal(err)
	}
	v := sc.GetVerification()
	if v.GetVerified() || v.GetReason() != "malformed_signature" || v.GetSignature() != armor || v.GetPayload() != signed {
		t.Fatalf("verification %+v\nsigned %q", v, signed)
	}
	got, _, err := gh.Git.GetCommit(ctx, "mona", "sig", sc.GetSHA())
	if err != nil || got.GetVerification().GetPayload() != signed || got.GetMessage() != "signed\n\nbody" {
		t.Fatalf("get signed commit: %+v %v", got.GetVerification(), err)
	}
	// git itself reads the signature from the object.
	repo, err := e.Store.R().RepoByName(ctx, "mona", "sig", 0)
	if err != nil {
		t.Fatal(err)
	}
	g := e.Deps.Git.Open(repo.Repo.ID)
	out, err := g.Git(ctx, nil, "cat-file", "-p", sc.GetSHA())
	if err != nil || !strings.Contains(string(out), "gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEEexample") {
		t.Fatalf("object: %s %v", out, err)
	}
}
